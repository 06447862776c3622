"""Build the compiled SDK hot path: a bot session's reading, acting and replying, through mypyc.

Run by ``make setup`` (``python clients/python/compile_client.py``) after the wire layer's build,
with the engine's build helper (``engine/native_build.py``); ``--clean`` removes the build. The
extension modules land next to their sources (``rookery/client/_session.cpython-*.so``, one
shared ``_native__mypyc`` library beside them, all git-ignored) with ``_native.json``, their
source digests: ``rookery.client`` imports them only if they were built from the sources as they
are now (``rookery.engine.choose_build``), else the pure modules, and
``rookery.client.client_build()`` says which. ``ROOKERY_PURE_ENGINE=1`` forces the pure ones.
Without a C compiler (or mypyc) it prints why and exits 0: the pure modules are the fallback,
never an error (``tests/client`` runs on both builds in ``make test``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# The engine's build helper: on the path already in the venv (the editable install), not for a
# bare `python3 clients/python/compile_client.py --clean` (`make clean`).
if str(ROOT / "engine") not in sys.path:
    sys.path.append(str(ROOT / "engine"))

from native_build import NativeBuild  # noqa: E402
from native_build import why_not as why_not  # noqa: E402

#: The modules compiled: what runs for every message a bot reads and every reply it sends (the
#: session's read and write loops, its dispatch to the bot's hooks, the requests read from their
#: bytes, the reply's bytes). What bot authors subclass or call once (``Bot``, the runner, the
#: loader) stays pure.
COMPILED = ("_decoding", "_encoding", "_session")
#: Where mypy finds what the compiled modules import (the engine, the wire layer, the generated
#: stubs and the SDK package itself).
MYPY_PATH = ("engine", "wire", "gen/python", "clients/python")
#: mypyc runs from this folder (naming the modules ``rookery.client.*`` after the paths relative
#: to it) under the project's mypy settings; its output goes to ``build/client-native``.
BUILD = NativeBuild(
    HERE, "rookery.client", COMPILED, ROOT / "build" / "client-native",
    title="compiled SDK", fallback="the pure SDK",
    script=Path(__file__).resolve(),
    mypy_path=tuple(ROOT / path for path in MYPY_PATH),
)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(BUILD.main(__doc__))
