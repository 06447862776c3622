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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(WEB):
            group = "web"
        else:
            group = item.path.relative_to(HERE).as_posix() if item.path.is_relative_to(HERE) else ""
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
