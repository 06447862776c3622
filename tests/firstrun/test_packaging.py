"""The wheel and the sdist of a fresh clone are complete: installed outside the tree, they run.

The tree is copied as a fresh clone would be (the files git tracks or would track, no ``gen/``)
and both artifacts are built once. The sdist is turned into a wheel as pip installs one
(``pip wheel``: an isolated build from the sdist, which generates the stubs again); that wheel
holds the very files of the wheel built from the tree, byte for byte, so one installed wheel
stands for both: it is installed into a new venv in a temporary folder (pip takes the
dependencies from its cache or the index), and run there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from clone_support import fresh_clone
from rookery.wire.version import DISTRIBUTION

_INSTALL_TIMEOUT = 600


def _run(command: list[str], cwd: Path, timeout: float = _INSTALL_TIMEOUT) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # No cargo: these wheels are pure (tests/dist builds and installs the one with the core).
    folders = env.get("PATH", "").split(os.pathsep)
    env["PATH"] = os.pathsep.join(f for f in folders if f and not (Path(f) / "cargo").exists())
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    assert done.returncode == 0, (
        f"{command} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
    )
    return done.stdout


def _project(root: Path) -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    return project


@pytest.fixture(scope="module")
def artifacts(root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel of a fresh copy of the tree."""
    base = tmp_path_factory.mktemp("packaging")
    clone = fresh_clone(root, base / "clone")
    dist = base / "dist"
    _run([sys.executable, "-m", "build", "--sdist", "--wheel", "-o", str(dist), str(clone)], base)
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    from_sdist = base / "from-sdist"
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check"]
    _run([*pip_wheel, "--no-deps", "-w", str(from_sdist), str(sdist)], base)
    (sdist_wheel,) = from_sdist.glob("*.whl")
    return {"wheel": wheel, "sdist": sdist, "sdist-wheel": sdist_wheel}


@pytest.fixture(scope="module")
def installed(artifacts: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` folder of a fresh venv with the wheel."""
    home = tmp_path_factory.mktemp("venv-wheel")
    venv = home / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], home)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    _run([*pip, "--disable-pip-version-check", str(artifacts["wheel"])], home)
    return venv / "bin"


def _members(wheel: Path) -> dict[str, bytes]:
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_distribution_name_is_the_one_the_metadata_reads(root: Path) -> None:
    project = _project(root)
    assert project["name"] == DISTRIBUTION == "rookery-arena"
    assert project["scripts"]["rookery"] == "rookery.cli.main:main"


def test_each_artifact_holds_the_generated_stubs(artifacts: dict[str, Path]) -> None:
    import tarfile
    import zipfile

    wheel_names = set(zipfile.ZipFile(artifacts["wheel"]).namelist())
    assert "rookery/v1/bot_service_pb2.py" in wheel_names
    assert "rookery/v1/arena_service_pb2_grpc.py" in wheel_names
    with tarfile.open(artifacts["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert "gen/python/rookery/v1/bot_service_pb2.py" in names
    assert "proto/rookery/v1/bot_service.proto" in names
    assert "hatch_build.py" in names


def test_the_sdist_builds_the_wheel_of_the_tree_byte_for_byte(artifacts: dict[str, Path]) -> None:
    """What pip installs from the sdist is what it installs from the wheel: the same files."""
    from_tree, from_sdist = _members(artifacts["wheel"]), _members(artifacts["sdist-wheel"])
    assert artifacts["sdist-wheel"].name == artifacts["wheel"].name
    assert sorted(from_sdist) == sorted(from_tree)
    assert [name for name in from_tree if from_sdist[name] != from_tree[name]] == []
    assert "rookery/v1/bot_service_pb2.py" in from_sdist  # the stubs generated again


def test_the_installed_rookery_prints_its_help(installed: Path, tmp_path: Path, root: Path) -> None:
    out = _run([str(installed / "rookery"), "--help"], tmp_path, timeout=60)
    assert "arena" in out and "serve" in out
    version = _run([str(installed / "rookery"), "--version"], tmp_path, timeout=60)
    # Built without cargo, a wheel carries the pure engine (tests/dist: the one with the core).
    assert version.split()[:2] == ["rookery", _project(root)["version"]]
    assert "no native core: the pure engine" in version, version


def test_the_installed_rookery_plays_a_short_demo(installed: Path, tmp_path: Path) -> None:
    out = tmp_path / "demo"
    printed = _run(
        [
            str(installed / "rookery"),
            "demo",
            "--games",
            "2",
            "--target",
            "50",
            "--out",
            str(out),
        ],
        tmp_path,
        timeout=300,
    )
    assert "6/6 recorded" in printed, printed
    assert len(list((out / "replays").glob("*.jsonl.gz"))) == 6
    where = _run(
        [
            str(installed / "python"),
            "-c",
            "import rookery.v1.bot_service_pb2 as m; print(m.__file__)",
        ],
        tmp_path,
        timeout=60,
    )
    assert where.startswith(str(installed.parent)), where


@pytest.mark.timeout(900)
def test_the_readmes_arena_commands_run_outside_the_clone_with_the_installed_rookery(
    installed: Path, tmp_path: Path, root: Path
) -> None:
    """The README: outside the clone, ``pip install <the clone>`` gives the command ``rookery``;
    its tournament lines, run in a user's folder with that ``rookery`` (``.venv/bin/`` dropped),
    the sandbox at its default, play every game to the end."""
    from test_readme_session import example_bot, readme_session

    lines = readme_session(root / "README.md")
    arena = lines[lines.index("<save my_bot.py>") + 1 :]
    assert [line.split()[0] for line in arena] == [".venv/bin/rookery"] * 3, arena
    folder = tmp_path / "mine"
    folder.mkdir(mode=0o755)  # others may read it: the sandbox's user
    (folder / "my_bot.py").write_text(example_bot(root / "docs" / "bots" / "python.md"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROOKERY_", "VIRTUAL_ENV"))}
    env["PATH"] = f"{installed}{os.pathsep}{env['PATH']}"
    for line in arena:
        command = line.removeprefix(".venv/bin/").split("  #", 1)[0]
        done = subprocess.run(
            ["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
            timeout=600, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{command!r}:\n{done.stdout}{done.stderr}"
        if " arena run " in f" {command} ":
            assert "sandbox: bubblewrap" in done.stdout + done.stderr, done.stdout + done.stderr
            assert "12/12 recorded" in done.stdout, done.stdout
    replays = list((folder / "runs" / "latest" / "replays").glob("*.jsonl.gz"))
    assert len(replays) == 12, replays
