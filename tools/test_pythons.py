"""The unit tests and strict nbval under the oldest and the newest supported Python this machine has.

``make test`` runs everything under the venv's Python. This tool (``make test-pythons``, run by ``.ci/run`` after
``make test``) finds the other supported interpreters, picks the oldest and the newest, and for each one that is
not the venv's own version:

1. creates or updates its own venv, ``.venv-3.X`` (``make install VENV=.venv-3.X PYTHON=...``: the same lock,
   requirements.txt, installed by that interpreter);
2. runs the unit tests (``pytest tests``, without the browser tests, which test the built book, not Python);
3. runs strict nbval natively and in the foreign numerical environment (``tools/run_nbval.py``), so the stored
   outputs are shown not to depend on the Python version.

Interpreters are looked for as ``python3.X`` on PATH and in pyenv's versions folder (newest patch release first).
A supported version the machine lacks is reported in one line; so is having only one.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The supported range, as the Makefile checks it: 3.11 from 3.11.5 (the lock's soupsieve needs it), 3.12, 3.13.
SUPPORTED_MINORS = (11, 12, 13)
OLDEST_PATCH = {11: 5}


def version_of(python):
    """(major, minor, micro) of an interpreter, or None if it does not run."""
    try:
        out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:3])"], capture_output=True,
                             text=True, timeout=30).stdout.split()
        return tuple(int(part) for part in out) if len(out) == 3 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def candidates(minor):
    """Interpreters that may be Python 3.<minor>: on PATH first, then pyenv's, newest patch release first."""
    found = [shutil.which(f"python3.{minor}")]
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    releases = [p for p in pyenv_root.glob(f"3.{minor}.*") if re.fullmatch(rf"3\.{minor}\.\d+", p.name)]
    for release in sorted(releases, key=lambda p: int(p.name.split(".")[2]), reverse=True):
        found.append(str(release / "bin" / f"python3.{minor}"))
    return [path for path in found if path and Path(path).exists()]


def find_interpreter(minor):
    """The first working, supported interpreter of Python 3.<minor>, as (path, version), or None."""
    for path in candidates(minor):
        version = version_of(path)
        if version and version[:2] == (3, minor) and version[2] >= OLDEST_PATCH.get(minor, 0):
            return path, version
    return None


def run(command, env=None):
    print("$", " ".join(command), flush=True)
    return subprocess.run(command, cwd=ROOT, env=env).returncode == 0


def test_with(python, version):
    """Install, unit tests and strict nbval with one interpreter; returns (passed, seconds)."""
    start = time.perf_counter()
    venv = f".venv-{version[0]}.{version[1]}"
    bin_ = ROOT / venv / "bin"
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = f"{bin_}{os.pathsep}{env.get('PATH', '')}"
    passed = (run(["make", "install", f"VENV={venv}", f"PYTHON={python}"])
              and run([str(bin_ / "pytest"), "-p", "no:cacheprovider", "-q", "tests", "--ignore=tests/site",
                       "--ignore=tests/lab", "--ignore=tests/pdf"], env=env | {"MPLBACKEND": "Agg"})
              and run([str(bin_ / "python"), "tools/run_nbval.py", f"--log-suffix=-py3.{version[1]}",
                       "notebooks"], env=env))
    return passed, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="only say which interpreters would be tested")
    args = parser.parse_args()

    own = sys.version_info[:2]
    available = {minor: find_interpreter(minor) for minor in SUPPORTED_MINORS}
    for minor, found in available.items():
        if found is None:
            print(f"Python 3.{minor}: not found on this machine (looked for python3.{minor} on PATH and in pyenv)")
    present = sorted(minor for minor, found in available.items() if found)
    ends = sorted({present[0], present[-1]}) if present else []
    if len(ends) < 2:
        print("only one supported Python on this machine: no other version to test")
    jobs = []
    for minor in ends:
        path, version = available[minor]
        if (3, minor) == own:
            print(f"Python 3.{minor} ({'.'.join(map(str, version))}): the venv's own, tested by make test")
        else:
            print(f"Python 3.{minor} ({'.'.join(map(str, version))}): {path}")
            jobs.append((path, version))
    if args.list:
        return 0
    results = [(version, *test_with(path, version)) for path, version in jobs]
    for version, passed, seconds in results:
        print(f"{'ok  ' if passed else 'FAIL'} Python {'.'.join(map(str, version))}: unit tests and strict nbval "
              f"(native and foreign) in {seconds:.0f} s")
    return 0 if all(passed for _, passed, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
