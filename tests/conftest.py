"""How the suite is shared out between pytest-xdist workers (``make test``: ``--dist loadgroup``).

Only scheduling lives here; fixtures stay in each folder's own conftest.py. Every test module is
one unit of work, so that its module-scoped fixtures (a tournament, a league, a sandboxed run)
are set up once, on one worker, and a module that uses a fixed host path meets no copy of itself;
all the browser tests (``tests/web``) are one unit, for one Chromium and one session tournament.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent
WEB = HERE / "web"
#: The port the docs print (``rookery serve`` listens there by default): the modules that run a
#: documented command on it are one unit, so that no two of them hold it at once (waiting for it
#: to be free, then starting, was a race between two workers: one test's bot joined the other's
#: table).
DOCUMENTED_PORT = "50051"


def _uses_documented_port(path: Path) -> bool:
    return path.suffix == ".py" and DOCUMENTED_PORT in path.read_text(encoding="utf-8")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    port_modules: dict[Path, bool] = {}
    for item in items:
        if item.path not in port_modules:
            port_modules[item.path] = _uses_documented_port(item.path)
        if item.path.is_relative_to(WEB):
            group = "web"
        elif port_modules[item.path]:
            group = f"port-{DOCUMENTED_PORT}"
        else:
            group = item.path.relative_to(HERE).as_posix() if item.path.is_relative_to(HERE) else ""
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
