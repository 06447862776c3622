"""Build the compiled wire hot path: protobuf bytes by hand and engine ↔ proto conversion, mypyc.

Run by ``make setup`` (``python wire/compile_wire.py``) after the engine's build, with the same
build helper (``engine/native_build.py``); ``--clean`` removes the build. The extension modules
land next to their sources (``rookery/wire/convert.cpython-*.so``, one shared ``_native__mypyc``
library beside them, all git-ignored) with ``_native.json``, their source digests:
``rookery.wire`` imports them only if they were built from the sources as they are now
(``rookery.engine.choose_build``), else the pure modules, and ``rookery.wire.wire_build()`` says
which. ``ROOKERY_PURE_ENGINE=1`` forces the pure ones. Without a C compiler (or mypyc) it prints
why and exits 0: the pure modules are the fallback, never an error, and both give the same values
and bytes (``tests/wire`` runs on both builds in ``make test``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# The engine's build helper: on the path already in the venv (the editable install), not for a
# bare `python3 wire/compile_wire.py --clean` (`make clean`).
if str(ROOT / "engine") not in sys.path:
    sys.path.append(str(ROOT / "engine"))

from native_build import NativeBuild  # noqa: E402
from native_build import why_not as why_not  # noqa: E402

#: The modules compiled: what a bot's SDK runs for every request it reads (the observation and
#: the legal actions decoded) and what the server's and the SDK's encoders compose for every
#: message (varints, tags, fields). Replays, notation and notes stay pure: they run per game.
COMPILED = ("convert", "protobytes")
#: Where mypy finds what the compiled modules import (the engine, the generated stubs and the
#: wire package itself).
MYPY_PATH = ("engine", "wire", "gen/python")
#: mypyc runs from this folder (naming the modules ``rookery.wire.*`` after the paths relative to
#: it) under the project's mypy settings; its output goes to ``build/wire-native``.
BUILD = NativeBuild(
    HERE, "rookery.wire", COMPILED, ROOT / "build" / "wire-native",
    title="compiled wire", fallback="the pure wire layer",
    script=Path(__file__).resolve(),
    mypy_path=tuple(ROOT / path for path in MYPY_PATH),
)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(BUILD.main(__doc__))
