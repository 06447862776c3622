"""The C++ kit's ``build.sh``: a failed configure does not poison the builds after it.

The script is run as it is, on a tiny CMake project laid out like the kit (so that the test
takes seconds, not the minutes of a gRPC build): first with a compiler that does not exist, so
that CMake fails and leaves a ``CMakeCache.txt`` naming it, then as normal.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

_PROJECT = """\
cmake_minimum_required(VERSION 3.16)
project(tiny_kit CXX)
add_executable(rookery-cpp-bot src/main.cpp)
add_executable(rookery_kit_tests tests/kit_test.cpp)
enable_testing()
add_test(NAME kit COMMAND rookery_kit_tests)
"""


def _tiny_kit(root: Path, tmp_path: Path) -> Path:
    kit = tmp_path / "kit"
    for folder in ("include", "src", "tests"):
        (kit / folder).mkdir(parents=True)
    shutil.copy2(root / "clients" / "cpp" / "build.sh", kit / "build.sh")
    (kit / "CMakeLists.txt").write_text(_PROJECT)
    (kit / "include" / "kit.h").write_text("inline int answer() { return 42; }\n")
    (kit / "src" / "main.cpp").write_text(
        '#include "../include/kit.h"\nint main() { return answer() == 42 ? 0 : 1; }\n'
    )
    (kit / "tests" / "kit_test.cpp").write_text("int main() { return 0; }\n")
    (tmp_path / "proto").mkdir()
    (tmp_path / "proto" / "empty.proto").write_text('syntax = "proto3";\n')
    return kit


def _build(kit: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "ROOKERY_PROTO_DIR": str(kit.parent / "proto"), **env}
    return subprocess.run(
        ["bash", str(kit / "build.sh"), "test"],
        capture_output=True,
        text=True,
        timeout=180,
        env=environment,
        check=False,
    )


def test_a_failed_configure_does_not_poison_the_next_build(root: Path, tmp_path: Path) -> None:
    kit = _tiny_kit(root, tmp_path)
    failed = _build(kit, CXX=str(tmp_path / "no-such-compiler"))
    assert failed.returncode != 0, failed.stdout + failed.stderr
    assert "no-such-compiler" in failed.stdout + failed.stderr

    built = _build(kit)
    assert built.returncode == 0, built.stdout + built.stderr
    binary = kit / "bin" / "rookery-cpp-bot"
    assert built.stdout.strip().splitlines()[-1] == str(binary)
    assert subprocess.run([str(binary)], timeout=10, check=False).returncode == 0


def test_a_build_shows_its_progress_as_it_goes(root: Path, tmp_path: Path) -> None:
    """The kit's first build takes minutes: CMake's progress lines reach stderr, its log a file."""
    kit = _tiny_kit(root, tmp_path)
    built = _build(kit)
    assert built.returncode == 0, built.stdout + built.stderr
    progress = [line for line in built.stderr.splitlines() if line.startswith("[cpp-kit] [")]
    assert any("Building CXX object" in line for line in progress), built.stderr
    assert progress[-1].startswith("[cpp-kit] [100%]"), built.stderr
    assert "[cpp-kit] configuring with CMake" in built.stderr
    assert "Building CXX object" in (kit / "build.log").read_text()
    again = _build(kit)  # nothing changed: no CMake run, nothing shown
    assert again.returncode == 0 and "[cpp-kit]" not in again.stderr, again.stderr
