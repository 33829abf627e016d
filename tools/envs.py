"""Finding CPython interpreters and keeping one virtual environment per interpreter.

Standard library only, runs on Python 3.8+. Used by ``tools/matrix.py`` (and so by the
Makefile); ``python tools/envs.py torch`` alone creates the torch environment.

* Interpreters 3.8 … 3.13 are looked up under ``$(pyenv root)/versions/3.X.*/bin/python3.X``
  (not through pyenv's shims, which answer only for the selected versions), then as
  ``python3.X`` on PATH. 3.14 and 3.15 are looked up on PATH, then provided by
  ``../shared/tools/cpython-debian`` beside the checkout when that tool exists, else taken
  from that tool's cache if it provided them before.
* ``.venv`` is the torch environment (Python 3.11, ``torch==2.13.0`` CPU build, lint tools);
  ``.venvs/3.X`` hold pytest for every other interpreter. Interpreters without pip (3.14,
  3.15) get a ``--without-pip`` venv filled by the 3.11 pip with ``--target``.
* An environment records a hash of its requirements in a marker file and is only updated
  when that hash changes, so reruns are fast. Environments are updated in place, never
  deleted, unless their interpreter no longer starts.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "requirements"
TORCH_ENV = ROOT / ".venv"
ENVS = ROOT / ".venvs"
MARKER = ".uncompile-env"
TORCH_VERSION = "3.11"
ALL_VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"]
PROVIDED_BY_TOOL = ["3.14", "3.15"]
CPYTHON_DEBIAN = ROOT.parent / "shared" / "tools" / "cpython-debian"
EXPECTED_TORCH = "2.13.0"


class SetupError(Exception):
    """An environment could not be created or updated."""


def say(message: str) -> None:
    """Progress output, flushed at once so it interleaves with the tools we run."""
    print("[uncompile] %s" % message, flush=True)


def banner(lines: List[str]) -> None:
    """A message that must not be missed."""
    width = max(len(line) for line in lines) + 4
    print("\n" + "!" * width, flush=True)
    for line in lines:
        print("! %s !" % line.ljust(width - 4), flush=True)
    print("!" * width + "\n", flush=True)


def interpreter_version(python: str) -> Optional[str]:
    """ "X.Y" of the interpreter at *python*, or None if it does not run."""
    try:
        result = subprocess.run(
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def pyenv_root() -> Path:
    """Where pyenv keeps its interpreters: ``pyenv root``, else $PYENV_ROOT, else ~/.pyenv."""
    pyenv = shutil.which("pyenv")
    if pyenv:
        try:
            out = subprocess.run([pyenv, "root"], stdout=subprocess.PIPE, text=True, timeout=30)
            if out.returncode == 0 and out.stdout.strip():
                return Path(out.stdout.strip())
        except (OSError, subprocess.TimeoutExpired):
            pass
    return Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")


def _patch_level(path: str) -> List[int]:
    match = re.search(r"/versions/(\d+)\.(\d+)\.(\d+)", path)
    return [int(part) for part in match.groups()] if match else [0, 0, 0]


def _pyenv_candidates(version: str) -> List[str]:
    pattern = str(pyenv_root() / "versions" / ("%s.*" % version) / "bin" / ("python%s" % version))
    return sorted(glob.glob(pattern), key=_patch_level, reverse=True)


def _provided_by_tool(versions: List[str]) -> Dict[str, str]:
    """Ask ``cpython-debian`` for *versions*; it prints "X.Y PATH" per version it provides."""
    if not versions or not CPYTHON_DEBIAN.exists():
        return {}
    say("providing Python %s with %s" % (" and ".join(versions), CPYTHON_DEBIAN.relative_to(ROOT.parent)))
    try:
        out = subprocess.run(
            ["bash", str(CPYTHON_DEBIAN)] + versions, stdout=subprocess.PIPE, text=True, timeout=1200
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        say("cpython-debian failed: %s" % exc)
        return {}
    found = {}
    for line in out.stdout.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2:
            found[parts[0]] = parts[1].strip()
    return found


def find_interpreters(versions: List[str]) -> Dict[str, Optional[str]]:
    """Map each of *versions* to a working interpreter's path, or None when none is found."""
    found: Dict[str, Optional[str]] = {}
    for version in versions:
        found[version] = None
        for candidate in _pyenv_candidates(version) + [shutil.which("python%s" % version) or ""]:
            if candidate and interpreter_version(candidate) == version:
                found[version] = candidate
                break
    missing = [v for v in versions if found[v] is None and v in PROVIDED_BY_TOOL]
    for version, path in _provided_by_tool(missing).items():
        if version in found and interpreter_version(path) == version:
            found[version] = path
    for version in [v for v in missing if found[v] is None]:  # provided earlier, tool not beside us
        cached = _tool_cache() / version / "root" / "usr" / "bin" / ("python%s" % version)
        if cached.exists() and interpreter_version(str(cached)) == version:
            found[version] = str(cached)
    return found


def _tool_cache() -> Path:
    """Where cpython-debian keeps the interpreters it provided."""
    return Path(os.environ.get("CPYTHON_DEBIAN_CACHE") or Path.home() / ".cache" / "cpython-debian")


def requirements_hash(*names: str, extra: str = "") -> str:
    """A hash over the named requirements files (and *extra*): the marker of an up-to-date env."""
    digest = hashlib.sha256(extra.encode())
    for name in names:
        digest.update((REQUIREMENTS / name).read_bytes())
    return digest.hexdigest()[:16]


def _env_python(env: Path) -> Path:
    return env / "bin" / "python"


def _up_to_date(env: Path, stamp: str) -> bool:
    marker = env / MARKER
    return (
        marker.exists()
        and marker.read_text().strip() == stamp
        and interpreter_version(str(_env_python(env))) is not None
    )


def _run(command: List[str], what: str) -> None:
    say("$ %s" % " ".join(command))
    if subprocess.run(command).returncode != 0:
        raise SetupError("%s failed" % what)


def _create_venv(env: Path, python: str, version: str, with_pip: bool) -> None:
    existing = interpreter_version(str(_env_python(env))) if env.exists() else None
    if existing == version:
        return
    if env.exists():
        say("%s does not start with Python %s; recreating it" % (env.relative_to(ROOT), version))
        shutil.rmtree(str(env))
    command = [python, "-m", "venv", str(env)]
    if not with_pip:
        command.insert(3, "--without-pip")
    _run(command, "creating %s" % env.relative_to(ROOT))


def _has_pip(python: str) -> bool:
    return (
        subprocess.run(
            [python, "-m", "pip", "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ).returncode
        == 0
    )


def ensure_torch_env(python: str) -> Path:
    """The Python 3.11 environment with torch 2.13.0 (CPU), pytest, numpy, ruff, mypy and uncompile."""
    stamp = requirements_hash("torch.txt", "test.txt", "constraints.txt", extra=python + str(ROOT))
    if _up_to_date(TORCH_ENV, stamp):
        say("%s is up to date" % TORCH_ENV.relative_to(ROOT))
        return TORCH_ENV
    say(
        "setting up %s (Python %s with torch %s)"
        % (TORCH_ENV.relative_to(ROOT), TORCH_VERSION, EXPECTED_TORCH)
    )
    _create_venv(TORCH_ENV, python, TORCH_VERSION, with_pip=True)
    env_python = str(_env_python(TORCH_ENV))
    pip = [env_python, "-m", "pip", "install", "--disable-pip-version-check"]
    constraints = ["-c", str(REQUIREMENTS / "constraints.txt")]
    _run(pip + ["-r", str(REQUIREMENTS / "torch.txt")] + constraints, "installing the torch requirements")
    _run(pip + ["--no-deps", "-e", str(ROOT)], "installing uncompile into %s" % TORCH_ENV.relative_to(ROOT))
    check = subprocess.run(
        [env_python, "-c", "import torch; print(torch.__version__, torch.version.cuda)"],
        stdout=subprocess.PIPE,
        text=True,
    )
    torch_version, _, cuda = check.stdout.strip().partition(" ")
    if check.returncode != 0 or torch_version.split("+")[0] != EXPECTED_TORCH or cuda != "None":
        raise SetupError(
            "expected the CPU build of torch %s, found %r" % (EXPECTED_TORCH, check.stdout.strip())
        )
    (TORCH_ENV / MARKER).write_text(stamp + "\n")
    return TORCH_ENV


def ensure_test_env(version: str, python: str, helper_pip: Optional[str]) -> Path:
    """``.venvs/X.Y`` with pytest for the interpreter *python*.

    Interpreters without pip get their packages from *helper_pip* (another interpreter's
    python, normally the torch environment's) with ``--target`` and ``--python-version``.
    """
    env = ENVS / version
    stamp = requirements_hash("test.txt", extra=python + str(ROOT))
    if _up_to_date(env, stamp):
        return env
    say("setting up %s" % env.relative_to(ROOT))
    has_pip = _has_pip(python)
    _create_venv(env, python, version, with_pip=has_pip)
    requirements = ["-r", str(REQUIREMENTS / "test.txt")]
    env_python = str(_env_python(env))
    if _has_pip(env_python):
        _run(
            [env_python, "-m", "pip", "install", "--disable-pip-version-check"] + requirements,
            "installing pytest",
        )
    else:
        if helper_pip is None:
            raise SetupError("Python %s has no pip and no other interpreter can install into it" % version)
        site = subprocess.run(
            [env_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            stdout=subprocess.PIPE,
            text=True,
        ).stdout.strip()
        if not site:
            raise SetupError("cannot find the site-packages folder of %s" % env.relative_to(ROOT))
        command = [helper_pip, "-m", "pip", "install", "--disable-pip-version-check", "--upgrade"]
        command += ["--target", site, "--python-version", version, "--only-binary=:all:"] + requirements
        _run(command, "installing pytest for Python %s" % version)
    (env / MARKER).write_text(stamp + "\n")
    return env


def main(argv: List[str]) -> int:
    """``python tools/envs.py torch``: create or update the torch environment."""
    if argv != ["torch"]:
        print("usage: python tools/envs.py torch", file=sys.stderr)
        return 2
    python = find_interpreters([TORCH_VERSION])[TORCH_VERSION]
    if python is None:
        banner(["Python %s was not found (pyenv or PATH); it is needed for torch" % TORCH_VERSION])
        return 1
    try:
        ensure_torch_env(python)
    except SetupError as exc:
        say("error: %s" % exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
