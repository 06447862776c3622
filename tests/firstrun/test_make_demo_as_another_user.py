"""``make demo``, the README's first command, by a user who is not root, on a fresh clone: it sets
up and plays its games asking for no system package (no browser, no C++ toolchain, no apt-get,
no sudo), or stops with a line that says what is missing.

The user is ``nobody`` (uid 65534, through ``setpriv``; a test run as another user than root is
that user already), with a home of its own, the system's ``python3`` (3.11+) and the system's
PATH: no pyenv, no cargo (the pure engine is used, and setup says so). The commands a first
session must not need stand first on PATH and write down that they were asked: ``apt-get``,
``apt``, ``dpkg-query``, ``sudo``, ``cmake``, ``chromium``.

So that it takes a minute, not ten: pip installs from a folder of the wheels at the versions of
constraints.txt, downloaded once per machine into ``build/demo-wheelhouse`` (``PIP_NO_INDEX``,
``PIP_FIND_LINKS``), pip's own way to install offline; the Makefile's commands are unchanged.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from clone_support import fresh_clone

#: The user the demo runs as, when the test runs as root.
NOBODY = 65534
#: The system's folders of programs: no venv, pyenv or cargo of root's.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
#: What a first session must never call.
NOT_NEEDED = ("apt-get", "apt", "dpkg-query", "sudo", "cmake", "chromium")


def _requirements(root: Path) -> list[str]:
    """What ``make setup`` installs (the project's, dev and rl extras) and builds with."""
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    project, extras = pyproject["project"], pyproject["project"]["optional-dependencies"]
    wanted = {*project["dependencies"], *extras["dev"], *extras["rl"]}
    # pip itself (make setup upgrades it) and editables (hatchling's editable install).
    wanted |= {*pyproject["build-system"]["requires"], "pip", "editables"}
    return sorted(wanted)


def _wheelhouse(root: Path) -> Path:
    """The wheels ``make setup`` installs (at constraints.txt's versions), downloaded once per
    set of requirements and constraints."""
    requirements = _requirements(root)
    constraints = root / "constraints.txt"
    digest = hashlib.sha256("\n".join(requirements).encode() + constraints.read_bytes())
    folder = root / "build" / "demo-wheelhouse" / digest.hexdigest()[:16]
    if not (folder / ".complete").exists():
        folder.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", "--quiet",
                   "--disable-pip-version-check", "--only-binary=:all:", "--dest", str(folder),
                   "--constraint", str(constraints), *requirements]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        (folder / ".complete").touch()
    return folder


@pytest.fixture
def place() -> Iterator[Path]:
    """A folder under /tmp that the demo's user can reach (pytest's own is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="rookery-demo-user-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _as_user(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]


def _system_python() -> str:
    python = shutil.which("python3", path=SYSTEM_PATH)
    assert python, f"no python3 on {SYSTEM_PATH}"
    version = subprocess.run(
        [python, "-c", "import sys; print(sys.version_info >= (3, 11))"],
        capture_output=True, text=True, timeout=30, check=True,
    ).stdout.strip()  # fmt: skip
    assert version == "True", f"{python} is older than 3.11: the README's user needs 3.11+"
    return python


@pytest.mark.timeout(1500)
def test_make_demo_as_a_user_who_is_not_root_plays_its_games(root: Path, place: Path) -> None:
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert re.search(r"^make demo +#", readme, re.MULTILINE), "the README's first command"
    _system_python()
    clone = fresh_clone(root, place / "rookery")
    home = place / "home"
    home.mkdir()
    wheels = shutil.copytree(_wheelhouse(root), place / "wheels")
    asked = place / "asked.log"
    fakes = place / "not-needed"
    fakes.mkdir()
    for tool in NOT_NEEDED:
        (fakes / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> {asked}\nexit 1\n')
        (fakes / tool).chmod(0o755)
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(place)], check=True, timeout=120)
    env = {
        "PATH": f"{fakes}:{SYSTEM_PATH}",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
    }
    done = subprocess.run(
        _as_user(["nice", "-n", "5", "make", "--no-print-directory", "demo"]),
        cwd=clone, env=env, capture_output=True, text=True, timeout=1400, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    assert re.search(r"(\d+)/\1 recorded in runs/demo-", done.stdout), output[-3000:]
    assert "demo finished in" in done.stdout, output[-3000:]
    assert not asked.exists(), asked.read_text()
    user = NOBODY if os.geteuid() == 0 else os.geteuid()
    assert (clone / ".venv" / "bin" / "python").lstat().st_uid == user  # the user's own venv
    assert not (home / ".cache" / "ms-playwright").exists()  # no browser was fetched


def test_a_python_without_venv_is_named_with_the_package_to_install(
    root: Path, tmp_path: Path
) -> None:
    """Debian's python3 without python3-venv (no ensurepip): `make setup` says what to install."""
    for name in ("pyproject.toml", "constraints.txt"):
        shutil.copy2(root / name, tmp_path / name)
    python = tmp_path / "python3"
    real = _system_python()
    python.write_text(
        "#!/bin/sh\n"
        'case "$*" in *ensurepip*) echo "No module named ensurepip" >&2; exit 1;; esac\n'
        f'exec {real} "$@"\n'
    )
    python.chmod(0o755)
    done = subprocess.run(
        ["make", "--no-print-directory", "-f", str(root / "Makefile"), "-C", str(tmp_path),
         f"PYTHON={python}", "demo"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode != 0, done.stdout + done.stderr
    assert f"setup: {python} cannot make a venv (no ensurepip)" in done.stderr, done.stderr
    assert "apt-get install python3-venv" in done.stderr, done.stderr
    assert not (tmp_path / ".venv").exists()
