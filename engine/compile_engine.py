"""Build the compiled engine: the hot modules of ``rookery.engine`` through mypyc, in place.

Run by ``make setup`` (``python engine/compile_engine.py``); ``--clean`` removes the build. The
extension modules land next to their sources (``engine/rookery/engine/_game.cpython-*.so``, one
shared ``_native__mypyc`` library beside them, all git-ignored), so that the editable install
imports them first; ``rookery.engine`` checks at import that they were built from the sources as
they are now and falls back to the pure modules otherwise (``rookery.engine.build_info()``).

The same source stays the one definition of the rules: mypyc compiles the typed Python as it is.
Without a C compiler (or without mypyc) the build prints why and exits 0: the pure engine is the
fallback, never an error. How a build runs is ``engine/native_build.py``, shared with the
playout model's build; a build of the very same inputs made before (another clone, a worktree)
is copied from the build cache (``engine/native_cache.py``) instead of compiled again.
"""

from __future__ import annotations

from pathlib import Path

from native_build import NativeBuild
from native_build import why_not as why_not

HERE = Path(__file__).resolve().parent
#: The modules compiled: the per-action paths. The rest of the package stays pure: its
#: ``__init__``, the actions and rulesets (their constructors validate any value given, which
#: compiled code would refuse with a ``TypeError`` first), errors, events (logged as ints or
#: tuples, built when asked for), results, records, text forms, the dataclass builders (they
#: generate code) and test helpers.
COMPILED = (
    "_cards",
    "_deal",
    "_game",
    "_legal",
    "_observation",
    "_playout",
    "_rulebook",
    "_sampling",
)
#: The generated C and the object files go to ``build/engine-native`` (git-ignored).
BUILD = NativeBuild(
    HERE, "rookery.engine", COMPILED, HERE.parent / "build" / "engine-native",
    title="compiled engine", fallback="the pure engine",
    script=Path(__file__).resolve(),
)  # fmt: skip
PACKAGE, GROUP, MANIFEST, BUILD_DIR = BUILD.package, BUILD.group, BUILD.manifest, BUILD.build_dir
source_digest, built_files = BUILD.source_digest, BUILD.built_files
clean, build = BUILD.clean, BUILD.build


if __name__ == "__main__":
    raise SystemExit(BUILD.main(__doc__))
