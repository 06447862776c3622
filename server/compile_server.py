"""Build the compiled server hot path: the table, the session and their encodings through mypyc.

Run by ``make setup`` (``python server/compile_server.py``) after the engine's build, with the
same build helper (``engine/native_build.py``); ``--clean`` removes the build. The extension
modules land next to their sources (``rookery/server/_table.cpython-*.so``, one shared
``_native__mypyc`` library beside them, all git-ignored) with ``_native.json``, their source
digests: ``rookery.server`` imports them only if they were built from the sources as they are now
(``rookery.engine.choose_build``), else the pure modules, and ``rookery.server.server_build()``
says which. ``ROOKERY_PURE_ENGINE=1`` forces the pure ones. Without a C compiler (or mypyc) it
prints why and exits 0: the pure modules are the fallback, never an error, and both send the same
bytes (``tests/server`` runs on both builds in ``make test``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# The engine's build helper: on the path already in the venv (the editable install), not for a
# bare `python3 server/compile_server.py --clean` (`make clean`).
if str(ROOT / "engine") not in sys.path:
    sys.path.append(str(ROOT / "engine"))

from native_build import NativeBuild  # noqa: E402
from native_build import why_not as why_not  # noqa: E402

#: The modules compiled: what runs for every move of every table (the table's step from a reply
#: to the next request, the request's and the events' bytes, the session's queue and its rate
#: limit). The rest of the server (the gRPC services, the lobby, the registry, the config) stays
#: pure: it runs once per stream or per table.
COMPILED = ("_encoding", "_outbox", "_rate", "_session", "_table")
#: Where mypy finds what the compiled modules import (the engine, the wire layer, the generated
#: stubs and the server package itself).
MYPY_PATH = ("engine", "wire", "gen/python", "server")
#: mypyc runs from this folder (naming the modules ``rookery.server.*`` after the paths relative
#: to it) under the project's mypy settings; its output goes to ``build/server-native``.
BUILD = NativeBuild(
    HERE, "rookery.server", COMPILED, ROOT / "build" / "server-native",
    title="compiled server", fallback="the pure server",
    script=Path(__file__).resolve(),
    mypy_path=tuple(ROOT / path for path in MYPY_PATH),
)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(BUILD.main(__doc__))
