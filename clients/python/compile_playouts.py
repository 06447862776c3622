"""Build the compiled playout model: the search bots' hot modules through mypyc, in place.

Run by ``make setup`` (``python clients/python/compile_playouts.py``) after the engine's build
(``engine/compile_engine.py``, whose build helper ``engine/native_build.py`` this runs too);
``--clean`` removes the build. The extension modules land next to their sources
(``rookery/client/bots/_simulate.cpython-*.so``, one shared ``_native__mypyc`` library beside
them, all git-ignored) with ``_native.json``, their source digests: ``rookery.client.bots``
imports them only if they were built from the sources as they are now
(``rookery.engine.choose_build``), else the pure modules, and
``rookery.client.bots.playout_build()`` says which. ``ROOKERY_PURE_ENGINE=1`` forces the pure
ones. Without a C compiler (or mypyc) it prints why and exits 0: the pure modules are the
fallback, never an error, and both play every card alike.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# The engine's build helper: on the path already in the venv (the editable install), not for a
# bare `python3 clients/python/compile_playouts.py --clean` (`make clean`).
if str(ROOT / "engine") not in sys.path:
    sys.path.append(str(ROOT / "engine"))

from native_build import NativeBuild  # noqa: E402
from native_build import why_not as why_not  # noqa: E402

#: The modules compiled: the playout model (the heuristic card play on masks, the simulated
#: hand, the endgame solver), run for every card of every playout. The policies around them
#: (pimc's search, the heuristic bot, sampling) stay pure: they run once per decision.
COMPILED = ("_play", "_simulate", "_solve")
#: Where mypy finds what the compiled modules import (the engine, and the generated stubs the
#: SDK package imports).
MYPY_PATH = ("engine", "wire", "gen/python", "clients/python")
#: mypyc runs from this folder (naming the modules ``rookery.client.bots.*`` after the paths
#: relative to it) under the project's mypy settings; its output goes to ``build/playouts-native``.
BUILD = NativeBuild(
    HERE, "rookery.client.bots", COMPILED, ROOT / "build" / "playouts-native",
    title="compiled playouts", fallback="the pure playout model",
    script=Path(__file__).resolve(),
    mypy_path=tuple(ROOT / path for path in MYPY_PATH),
)  # fmt: skip
PACKAGE, GROUP, MANIFEST, BUILD_DIR = BUILD.package, BUILD.group, BUILD.manifest, BUILD.build_dir
source_digest, built_files = BUILD.source_digest, BUILD.built_files
clean, build = BUILD.clean, BUILD.build


if __name__ == "__main__":
    raise SystemExit(BUILD.main(__doc__))
