"""The main job on the bundled example: what `make demo` runs (in the torch environment).

For now it decompiles ``examples/inventory.py``, writes the source to ``out/demo/`` and
checks that every function recompiles to identical bytecode; it prints where the output went.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

import uncompile
from uncompile.verify.roundtrip import check_file, summarize


def main() -> int:
    example = HERE / "inventory.py"
    output_dir = HERE.parent / "out" / "demo"
    output_dir.mkdir(parents=True, exist_ok=True)
    output = output_dir / "inventory.py"
    source = uncompile.decompile(str(example))
    assert isinstance(source, str)
    output.write_text(source)
    results = check_file(str(example))
    for result in results:
        print("  %-28s %s" % (result.qualname, result.outcome))
    summary = summarize(results)
    identical = summary.counts["identical"]
    print("%d of %d code objects recompile to identical bytecode" % (identical, summary.total))
    print("decompiled %s -> %s" % (example.relative_to(HERE.parent), output))
    return 0 if identical == summary.total else 1


if __name__ == "__main__":
    sys.exit(main())
