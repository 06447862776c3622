"""``make system-deps``: installs the missing Debian packages with apt-get, and only those.

A recording ``apt-get`` stands first on PATH (the real one would fetch from the network and
change this machine); ``dpkg-query`` is the real one, so "installed" is this machine's truth.
"""

from __future__ import annotations

import os
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


def test_setup_and_test_depend_on_system_deps(root: Path) -> None:
    plan = subprocess.run(
        ["make", "-C", str(root), "-pn", "test"], capture_output=True, text=True, timeout=60
    ).stdout
    rules = {line.split(":", 1)[0]: line for line in plan.splitlines() if ":" in line}
    assert "system-deps" in rules["setup"].split(":", 1)[1].split()
    assert "system-deps" in rules["test"].split(":", 1)[1].split()


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
