"""How the suite is shared out between pytest-xdist workers (``make test``: ``-n 2 --dist
loadgroup``), and the documented port kept for the tests that use it.

Only scheduling lives here; fixtures stay in each folder's own conftest.py. Every test is a unit
of work of its own, handed to whichever worker is free (a module's module-scoped fixtures are set
up on each worker that runs its tests), except the modules that run a documented command on port
50051: they are one unit, so that no two of them hold the port at once. (Units of whole modules,
and all the browser tests as one, were tried: the suite took twice as long on two cores, its
long modules running one after another on one worker.)
"""

from __future__ import annotations

import contextlib
import socket
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

HERE = Path(__file__).parent
#: The port the docs print (``rookery serve`` listens there by default). Waiting for it to be
#: free and then starting is a race between two workers: one test's server could not listen,
#: and its bot and table went to the other test's server, which then stopped.
DOCUMENTED_PORT = "50051"


@cache
def _uses_documented_port(module: str) -> bool:
    """Whether a test module (its path from the root directory, ``tests/…``) names the port."""
    path = HERE.parent / module
    return path.suffix == ".py" and path.is_file() and DOCUMENTED_PORT in path.read_text("utf-8")


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> LoadScopeScheduling | None:
    """``--dist loadgroup`` shares out the units above. (xdist's own loadgroup reads
    ``xdist_group`` marks into test ids, which pytest 9's ids no longer take: the port's tests
    were units of their own too, and two of them ran at once.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByUnit(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            if _uses_documented_port(nodeid.split("::", 1)[0]):
                return f"port {DOCUMENTED_PORT}"
            return nodeid

    return ByUnit(config, log)


#: The socket that keeps the documented port out of the kernel's ephemeral ports (see below).
_PORT_KEEPER = pytest.StashKey[socket.socket]()


def pytest_configure(config: pytest.Config) -> None:
    """Keep the documented port from being handed out as an ephemeral port for the whole run.

    50051 lies in Linux's ephemeral range (32768-60999): a test's server on port 0, or a
    client's connection, could be given it while a documented-port test waits for it, and that
    test's ``rookery serve`` could not listen. A socket bound to the port with SO_REUSEADDR and
    never listening is skipped by the kernel when it picks a port for a bind to port 0 or a
    connect, yet leaves the port to any server that binds it with SO_REUSEADDR (gRPC's servers
    do), and to the tests' probes for a listener (``wait_until_free``). Held by the controller
    only (xdist's workers are its children, and a socket is not inherited).
    """
    if hasattr(config, "workerinput"):
        return
    for family, address in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        keeper = socket.socket(family, socket.SOCK_STREAM)
        keeper.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            if family == socket.AF_INET6:  # both families, where the machine has IPv6
                keeper.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            keeper.bind((address, int(DOCUMENTED_PORT)))
        except OSError:  # no IPv6 here, or a program listens there already: nothing to keep
            keeper.close()
            continue
        config.stash[_PORT_KEEPER] = keeper
        return


def pytest_unconfigure(config: pytest.Config) -> None:
    keeper = config.stash.get(_PORT_KEEPER, None)
    if keeper is not None:
        with contextlib.suppress(OSError):
            keeper.close()
