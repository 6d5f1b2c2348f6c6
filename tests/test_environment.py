"""The supported Pythons: the Makefile's check of the interpreter, and the one lock for all of them; the npm lock of
the site test's axe-core."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _requirement_names(path):
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            names.append(re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0])
    return names


def _normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def test_the_lock_pins_every_requirement_exactly():
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.+!]+( ; .+)?", line), f"not an exact pin: {line!r}"
            pins[_normalize(line.split("==")[0])] = line
    missing = [name for name in _requirement_names(ROOT / "requirements.in") if _normalize(name) not in pins]
    assert not missing, f"in requirements.in but not locked in requirements.txt: {missing}; run make lock"
    assert "make lock" in (ROOT / "requirements.txt").read_text(encoding="utf-8").split("\n-e", 1)[0]


def test_the_lock_is_universal_with_markers_only_where_needed():
    text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    markers = re.findall(r"^\S+==\S+ ; (.+)$", text, flags=re.MULTILINE)
    assert markers, "a universal lock has platform markers (appnope, colorama, ...): was it resolved with --universal?"
    assert not any("python_full_version < '3.11" in m or "python_version < '3.11'" in m for m in markers)


def test_axe_core_is_pinned_exactly_and_locked_with_its_hash():
    """tests/site/package.json pins one axe-core version (no range that a later release would satisfy); its lock,
    which `make install` installs with `npm ci`, holds that version, its integrity hash and no download address."""
    import json

    site = ROOT / "tests" / "site"
    pin = json.loads((site / "package.json").read_text(encoding="utf-8"))["dependencies"]["axe-core"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", pin), f"axe-core {pin!r} is not an exact version"
    lock = json.loads((site / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"][""]["dependencies"] == {"axe-core": pin}, "package-lock.json is stale: run npm install"
    locked = lock["packages"]["node_modules/axe-core"]
    assert locked["version"] == pin and locked["integrity"].startswith("sha512-"), locked
    assert "resolved" not in locked, "the lock names a download address (npm config omit-lockfile-registry-resolved)"
    assert set(lock["packages"]) == {"", "node_modules/axe-core"}, "axe-core needs no other package"


def _fake_python(tmp_path, version):
    """A `python` that reports ``version`` and fails every other request, as an unsupported interpreter would."""
    fake = tmp_path / "python-fake"
    fake.write_text(f'#!/bin/sh\nif [ "$1" = "--version" ]; then echo "Python {version}"; exit 0; fi\nexit 1\n')
    fake.chmod(0o755)
    return fake


@pytest.mark.parametrize("python", ["3.14.0", "3.11.4", "missing"])
def test_make_refuses_an_unsupported_python_by_naming_the_range_and_the_fix(tmp_path, python):
    interpreter = "python-that-does-not-exist" if python == "missing" else _fake_python(tmp_path, python)
    result = subprocess.run(["make", "-s", "install", f"VENV={tmp_path / 'venv'}", f"PYTHON={interpreter}"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode != 0
    message = result.stderr
    assert "supports Python 3.11 (3.11.5 or later), 3.12 and 3.13" in message
    assert ("not found" if python == "missing" else f"Python {python}") in message
    assert "make install PYTHON=python3.12" in message
    assert not (tmp_path / "venv").exists()
