"""``make system-deps``: installs the missing Debian packages with apt-get, and only those; the
test suites ask for them, `make setup` and `make demo` do not (Python 3.11+ alone, checked first).

A recording ``apt-get`` stands first on PATH (the real one would fetch from the network and
change this machine); ``dpkg-query`` is the real one, so "installed" is this machine's truth.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

_RECORDER = """#!/bin/sh
echo "$*" >> "$APT_LOG"
"""


@pytest.fixture
def apt_log(tmp_path: Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    recorder = folder / "apt-get"
    recorder.write_text(_RECORDER)
    recorder.chmod(0o755)
    return tmp_path / "apt.log"


def _system_deps(root: Path, apt_log: Path, *make_args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{apt_log.parent / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "APT_LOG": str(apt_log),
    }
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(root), "system-deps", *make_args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


def _prerequisites(root: Path, target: str) -> dict[str, list[str]]:
    plan = subprocess.run(
        ["make", "-C", str(root), "-pn", target], capture_output=True, text=True, timeout=60
    ).stdout
    return {
        line.split(":", 1)[0]: line.split(":", 1)[1].split("##")[0].split()
        for line in plan.splitlines()
        if ":" in line and not line.startswith(("#", "\t"))
    }


def test_the_test_suites_install_the_system_packages(root: Path) -> None:
    rules = _prerequisites(root, "test")
    assert "system-deps" in rules["test"]
    assert rules["test"].index("system-deps") < rules["test"].index("setup")
    assert "system-deps" in rules["pytest"]


def test_setup_and_demo_need_no_system_package(root: Path) -> None:
    """A first session needs Python alone: no browser, no C++ toolchain (README.md)."""
    rules = _prerequisites(root, "demo")
    assert "system-deps" not in rules["setup"] and "system-deps" not in rules["demo"]
    plan = subprocess.run(
        ["make", "-C", str(root), "-n", "demo", "SETUP_STAMP=/nonexistent/stamp"],
        capture_output=True, text=True, timeout=60,
    ).stdout  # fmt: skip
    assert "dpkg-query" not in plan and "apt-get install -y" not in plan, plan


def test_an_old_or_missing_python_is_named_with_what_to_do(root: Path, tmp_path: Path) -> None:
    """`make setup` in a folder of its own (the Makefile, pyproject.toml and constraints.txt): it
    stops at once."""
    for name in ("pyproject.toml", "constraints.txt"):  # what the venv's stamp is made from
        shutil.copy2(root / name, tmp_path / name)
    old = tmp_path / "python3.10"
    old.write_text('#!/bin/sh\n[ "$1" = --version ] && echo "Python 3.10.12" || exit 1\n')
    old.chmod(0o755)
    for python, said in ((old, "is Python 3.10.12"), (tmp_path / "none", "is not found")):
        done = subprocess.run(
            ["make", "--no-print-directory", "-f", str(root / "Makefile"), "-C", str(tmp_path),
             f"PYTHON={python}", "setup"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode != 0, done.stdout + done.stderr
        assert f"needs Python 3.11 or later; {python} {said}" in done.stderr, done.stderr
        assert "make demo PYTHON=python3.12" in done.stderr
        assert not (tmp_path / ".venv").exists()


def test_nothing_is_installed_when_every_package_is_there(root: Path, apt_log: Path) -> None:
    # This machine has the suites' packages (the suites need them): apt-get is not called.
    done = _system_deps(root, apt_log)
    assert done.returncode == 0, done.stderr
    assert not apt_log.exists(), apt_log.read_text()


def test_only_the_missing_packages_are_installed(root: Path, apt_log: Path) -> None:
    if os.geteuid() != 0:
        pytest.fail("this test needs root, as CI and the machines here have")
    done = _system_deps(root, apt_log, "SYSTEM_PACKAGES=cmake rookery-absent-package-for-tests")
    assert done.returncode == 0, done.stderr
    calls = apt_log.read_text().splitlines()
    assert calls[0].startswith("update")
    assert calls[1].split()[-1] == "rookery-absent-package-for-tests"
    assert "install" in calls[1].split() and "cmake" not in calls[1].split()
