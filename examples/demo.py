"""The main job on the bundled example: what ``make demo`` runs (in the torch environment).

Trains the small model of ``examples/model.py`` for a few steps under ``torch.compile``
inside ``uncompile.prepare_debug`` and prints where the dump went and what is in it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import uncompile  # noqa: E402


def main() -> int:
    import model

    dump_dir = HERE.parent / "out" / "demo" / "dump"
    with uncompile.prepare_debug(str(dump_dir)):
        losses = model.run()
    print("losses: %s" % ", ".join("%.4f" % loss for loss in losses))
    index = sorted(dump_dir.rglob("index.json"))
    if not index:
        print("no index.json under %s" % dump_dir, file=sys.stderr)
        return 1
    data = json.loads(index[0].read_text())
    files = sorted(p for p in index[0].parent.rglob("*") if p.is_file())
    print("%d files dumped, %d compiled functions" % (len(files), len(data.get("functions", []))))
    for name in ("index.html", "index.md"):
        print("report: %s" % (index[0].parent / name))
    print("dump directory: %s" % index[0].parent)
    return 0


if __name__ == "__main__":
    sys.exit(main())
