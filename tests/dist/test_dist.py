"""What a user installs: ``make dist``'s wheel and sdist, each installed into a clean venv outside
the clone.

The wheel is built where cargo is found, so it must carry the native core: a platform tag (abi3,
never ``py3-none-any``), the core's package inside, and, installed, an engine that runs on it
(``TableBatch.available()``: the batched API exists only on the core) and a ``rookery --version``
that names it. Its tag is manylinux2014 (glibc 2.17: zig, a dev dependency, links the core), and
it earns it: no symbol the core needs is newer than GLIBC_2.17 (read from the ELF file) and
auditwheel finds the same tag. Built without zig (``ROOKERY_NO_ZIG=1``), or with a zig that fails,
it says so once and takes the tag of this machine's glibc that its symbols need, which auditwheel
confirms: no wheel claims a Linux it cannot run on. The sdist, built into a wheel with no cargo on
the PATH (what ``pip install`` does with it on a machine without Rust), must say once that it
carries the pure engine, be ``py3-none-any`` with no extension module at all, and run pure.

They are built once per state of the sources (``build/dist-test/<digest>/``, the cargo cache of
``make setup`` reused) and installed into one venv under the test's temporary folder, with the
dependencies at the versions of ``constraints.txt`` (pip's cache makes the second run quick).
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerNeedSection

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("engine/rookery", "wire", "server/rookery", "arena/rookery", "web/rookery",
           "clients/python/rookery", "cli/rookery", "envs/rookery", "proto", "core/src",
           "core/Cargo.toml", "core/Cargo.lock", "core/pyproject.toml", "core/rookery_core.pyi",
           "pyproject.toml", "hatch_build.py", "README.md", "tests/dist/test_dist.py")  # fmt: skip
"""What the wheel and the sdist are built from (the cache key)."""
BUILD_S = 600
NO_CORE = "rookery-arena: no Rust toolchain (cargo) found: the wheel carries the pure engine"
NO_ZIG = "rookery-arena: no zig found (the ziglang package, or zig on the PATH): the core is built"
ZIG_FAILED = "rookery-arena: the core's manylinux2014 build with zig failed: the core is built"
NO_MANYLINUX2014 = {
    "no-zig": {"ROOKERY_NO_ZIG": "1"},
    "zig-fails": {"ZIG_GLOBAL_CACHE_DIR": "/dev/null/zig"},
}
"""The two ways the wheel's build has no manylinux2014 link: no zig, and a zig that fails (it
cannot open its cache)."""
MACHINE = platform.machine()
MANYLINUX2014 = f"cp311-abi3-manylinux2014_{MACHINE}.manylinux_2_17_{MACHINE}"


def _digest() -> str:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *SOURCES],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.split(b"\0")  # fmt: skip
    digest = hashlib.sha256()
    for name in sorted(n for n in listed if n):
        path = ROOT / name.decode()
        if path.is_file():
            digest.update(name + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _without_cargo(env: dict[str, str]) -> dict[str, str]:
    """``env`` with no folder holding cargo on its PATH."""
    folders = env.get("PATH", "").split(os.pathsep)
    kept = [f for f in folders if f and not (Path(f) / "cargo").exists()]
    return dict(env, PATH=os.pathsep.join(kept))


@pytest.fixture(scope="module")
def artifacts() -> dict[str, Path]:
    """The wheel, the sdist and the wheel built from the sdist without cargo, and its log."""
    folder = ROOT / "build" / "dist-test" / _digest()
    done = folder / "done"
    if not done.exists():
        shutil.rmtree(folder.parent, ignore_errors=True)  # older sources' builds too
        folder.mkdir(parents=True)
        env = dict(os.environ, CARGO_TARGET_DIR=str(ROOT / "build" / "core-target"))
        build = [sys.executable, "-m", "build", "--no-isolation"]
        built = subprocess.run(
            [*build, "--outdir", str(folder / "dist"), str(ROOT)],
            cwd=folder, env=env, check=True, capture_output=True, text=True, timeout=BUILD_S,
        )  # fmt: skip
        (folder / "dist.log").write_text(built.stdout + built.stderr, encoding="utf-8")
        for name, change in NO_MANYLINUX2014.items():  # the tree's wheel without a working zig
            built = subprocess.run(
                [*build, "--wheel", "--outdir", str(folder / name), str(ROOT)],
                cwd=folder, env=dict(env, **change), check=True, capture_output=True, text=True,
                timeout=BUILD_S,
            )  # fmt: skip
            (folder / f"{name}.log").write_text(built.stdout + built.stderr, encoding="utf-8")
        [sdist] = (folder / "dist").glob("*.tar.gz")
        built = subprocess.run(
            [*build, "--wheel", "--outdir", str(folder / "pure"), str(sdist)],
            cwd=folder, env=_without_cargo(env), capture_output=True, text=True,
            timeout=BUILD_S, check=True,
        )  # fmt: skip
        (folder / "pure.log").write_text(built.stdout + built.stderr, encoding="utf-8")
        done.touch()
    [wheel] = (folder / "dist").glob("*.whl")
    [sdist] = (folder / "dist").glob("*.tar.gz")
    [pure] = (folder / "pure").glob("*.whl")
    natives = {name: next((folder / name).glob("*.whl")) for name in NO_MANYLINUX2014}
    logs = {f"{name}.log": folder / f"{name}.log" for name in ("dist", "pure", *NO_MANYLINUX2014)}
    return {"wheel": wheel, "sdist": sdist, "pure": pure, **natives, **logs}


def _tag(wheel: Path) -> str:
    """The wheel's tag (set) from its file name: what pip matches against the machine."""
    return wheel.name.removesuffix(".whl").split("-", 2)[2]


def _newest_glibc(wheel: Path, tmp_path: Path) -> tuple[int, int]:
    """The newest GLIBC_x.y symbol version that the core's extension module needs, read from its
    ELF file's version needs (``.gnu.version_r``), as the dynamic loader checks them."""
    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.startswith("rookery_core/") and ".so" in n]
        module = Path(archive.extract(name, tmp_path))
    needed: list[tuple[int, int]] = []
    with module.open("rb") as file:
        section = ELFFile(file).get_section_by_name(".gnu.version_r")
        assert isinstance(section, GNUVerNeedSection), "no version needs: not linked to glibc"
        for _library, versions in section.iter_versions():
            for version in versions:
                if version.name.startswith("GLIBC_2."):
                    major, minor = version.name.removeprefix("GLIBC_").split(".")[:2]
                    needed.append((int(major), int(minor)))
    assert needed, "the module names no GLIBC version"
    return max(needed)


def _auditwheel_tag(wheel: Path) -> str:
    """The platform tag ``auditwheel show`` finds the wheel consistent with."""
    shown = subprocess.run(
        [sys.executable, "-m", "auditwheel", "show", str(wheel)],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    words = " ".join(shown.split())
    lead = 'is consistent with the following platform tag: "'
    assert lead in words, shown
    return words.split(lead, 1)[1].split('"', 1)[0]


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory: pytest.TempPathFactory, artifacts: dict[str, Path]) -> Path:
    """A venv outside the clone with the dependencies of the wheel and nothing of Rookery."""
    where = tmp_path_factory.mktemp("clean") / "venv"
    venv.create(where, with_pip=True)
    pip = ("pip", "--disable-pip-version-check")
    _run(where, *pip, "install", "--quiet", "-c", str(ROOT / "constraints.txt"),
         str(artifacts["wheel"]))  # fmt: skip
    _run(where, *pip, "uninstall", "--quiet", "--yes", "rookery-arena")
    return where


def _install(where: Path, wheel: Path) -> None:
    """``wheel`` alone into the clean venv (its dependencies are there)."""
    _run(where, "pip", "--disable-pip-version-check", "install", "--quiet", "--no-deps",
         "--force-reinstall", str(wheel))  # fmt: skip


def _run(where: Path, *command: str) -> str:
    """A command of the clean venv, from a folder outside the clone, with nothing of the clone
    on its path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "ROOKERY_"))}
    env["PATH"] = f"{where / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        [str(where / "bin" / command[0]), *command[1:]],
        cwd=where.parent, env=env, capture_output=True, text=True, timeout=BUILD_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


_ENGINE = (
    "import random, rookery.engine as e\n"
    "game = e.random_playout(e.PRESETS['standard'], 7, random.Random(7))\n"
    "print(e.__file__)\n"
    "print(e.TableBatch.available())\n"
    "print(len(game.actions))\n"
)
"""Plays a game through the installed engine; prints where it is, whether the core runs it."""


NO_CARGO = shutil.which("cargo") is None


@pytest.mark.skipif(NO_CARGO, reason="no Rust toolchain here: make dist builds a pure wheel")
def test_the_wheel_is_a_platform_wheel_with_the_core_and_runs_on_it(
    artifacts: dict[str, Path], clean_venv: Path
) -> None:
    wheel = artifacts["wheel"]
    tag = _tag(wheel)
    assert tag.startswith("cp311-abi3-manylinux"), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith("WHEEL"))).decode()
        assert all(f"Tag: cp311-abi3-{p}" in metadata for p in tag.split("-")[2].split(".")), tag
    assert any(n.startswith("rookery_core/rookery_core.") and n.endswith(".so") for n in names)
    assert not [n for n in names if n.endswith(".so") and not n.startswith("rookery_core/")]
    _install(clean_venv, wheel)
    where, available, actions = _run(clean_venv, "python", "-c", _ENGINE).split()
    assert Path(where).is_relative_to(clean_venv) and available == "True" and int(actions) > 40
    version = _run(clean_venv, "rookery", "--version")
    assert version.startswith("rookery 0.1.0 (engine: ")
    assert f"native core 0.1.0, built for {tag})" in version, version


def test_the_sdist_without_cargo_installs_and_runs_the_pure_engine(
    artifacts: dict[str, Path], clean_venv: Path
) -> None:
    log = artifacts["pure.log"].read_text(encoding="utf-8")
    assert log.count(NO_CORE) == 1, log
    pure = artifacts["pure"]
    assert pure.name.endswith("-py3-none-any.whl"), pure.name
    with zipfile.ZipFile(pure) as archive:
        assert not [n for n in archive.namelist() if n.endswith((".so", ".pyd"))]
    _run(clean_venv, "pip", "uninstall", "--quiet", "--yes", "rookery-arena")
    _install(clean_venv, pure)
    where, available, actions = _run(clean_venv, "python", "-c", _ENGINE).split()
    assert Path(where).is_relative_to(clean_venv) and available == "False" and int(actions) > 40
    version = _run(clean_venv, "rookery", "--version")
    assert "no native core: the pure engine" in version


@pytest.mark.skipif(NO_CARGO, reason="no Rust toolchain here: make dist builds a pure wheel")
def test_the_wheels_core_is_linked_for_manylinux2014_and_auditwheel_agrees(
    artifacts: dict[str, Path], tmp_path: Path
) -> None:
    """glibc 2.17 (2012) and later: the tag pip matches is earned by the module's symbols."""
    log = artifacts["dist.log"].read_text(encoding="utf-8")
    assert "rookery-arena: " not in log, log  # zig found and the build went through: nothing said
    wheel = artifacts["wheel"]
    assert _tag(wheel) == MANYLINUX2014, wheel.name
    assert _newest_glibc(wheel, tmp_path) <= (2, 17)
    assert _auditwheel_tag(wheel) == f"manylinux_2_17_{MACHINE}"


@pytest.mark.skipif(NO_CARGO, reason="no Rust toolchain here: make dist builds a pure wheel")
@pytest.mark.parametrize(("build", "said"), [("no-zig", NO_ZIG), ("zig-fails", ZIG_FAILED)])
def test_without_zig_the_core_takes_this_machines_tag_says_so_once_and_auditwheel_agrees(
    artifacts: dict[str, Path], tmp_path: Path, build: str, said: str
) -> None:
    log = artifacts[f"{build}.log"].read_text(encoding="utf-8")
    assert log.count(said) == 1 and log.count("rookery-arena: ") == 1, log
    native = artifacts[build]
    tag = _tag(native)
    assert tag.startswith("cp311-abi3-manylinux_2_") and "." not in tag, native.name
    linux = tag.split("-")[2]
    glibc = tuple(int(n) for n in linux.removeprefix("manylinux_").split("_")[:2])
    assert _newest_glibc(native, tmp_path) <= glibc  # earned: maturin's lowest policy that holds
    assert linux == _auditwheel_tag(native)
