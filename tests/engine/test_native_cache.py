"""The build cache of the mypyc builds: a build is reused for its very inputs, and only for them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import native_cache  # engine/native_cache.py, the playout model's build cache
import pytest


@pytest.fixture
def sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package of two sources and a build script, with the cache in ``tmp_path/cache``."""
    monkeypatch.setenv("ROOKERY_NATIVE_CACHE", str(tmp_path / "cache"))
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "_hot.py").write_text("def f() -> int:\n    return 1\n")
    (package / "_types.pyi").write_text("x: int\n")
    (tmp_path / "build.py").write_text("# the build script\n")
    return package


def _build(package: Path) -> list[Path]:
    """What a build leaves: an extension module and its manifest."""
    (package / "_hot.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF built")
    (package / "_native.json").write_text('{"modules": {}}\n')
    return [package / "_hot.cpython-311-x86_64-linux-gnu.so", package / "_native.json"]


def _key(package: Path) -> str:
    return native_cache.cache_key("engine", [package.parent / "build.py"], [package])


def test_a_stored_build_is_restored_for_the_same_inputs_manifest_and_all(sources: Path) -> None:
    key = _key(sources)
    native_cache.store(key, _build(sources))
    fresh = sources.parent / "clone"
    fresh.mkdir()

    assert native_cache.restore(key, fresh, fresh / "_native.json")

    assert (fresh / "_hot.cpython-311-x86_64-linux-gnu.so").read_bytes() == b"\x7fELF built"
    assert (fresh / "_native.json").read_text() == '{"modules": {}}\n'
    assert not list(fresh.glob(".*partial"))


@pytest.mark.parametrize(
    "change",
    [
        lambda pkg: (pkg / "_hot.py").write_text("def f() -> int:\n    return 2\n"),
        lambda pkg: (pkg / "_types.pyi").write_text("x: str\n"),
        lambda pkg: (pkg / "_new.py").write_text(""),
        lambda pkg: (pkg.parent / "build.py").write_text("# opt_level changed\n"),
    ],
    ids=["a compiled source", "a stub mypy reads", "a new module", "the build script"],
)
def test_any_changed_input_is_another_key_and_finds_no_build(
    sources: Path, change: Callable[[Path], object]
) -> None:
    key = _key(sources)
    native_cache.store(key, _build(sources))

    change(sources)

    assert _key(sources) != key
    assert not native_cache.restore(_key(sources), sources, sources / "_native.json")


def test_the_cache_switched_off_stores_and_restores_nothing(
    sources: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROOKERY_NATIVE_CACHE", "off")
    key = _key(sources)
    native_cache.store(key, _build(sources))

    assert not native_cache.restore(key, sources, sources / "_native.json")
    assert not (sources.parent / "cache").exists()


def test_only_the_newest_builds_of_a_kind_are_kept(sources: Path) -> None:
    keys = []
    for version in range(native_cache.KEEP + 2):
        (sources / "_hot.py").write_text(f"def f() -> int:\n    return {version}\n")
        keys.append(_key(sources))
        native_cache.store(keys[-1], _build(sources))

    kept = sorted(p.name for p in (sources.parent / "cache").iterdir())

    assert kept == sorted(keys[-native_cache.KEEP :])
