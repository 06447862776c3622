"""A server that cannot listen says where and why in one line, and exits non-zero.

`rookery serve` and `rookery arena run --listen` on a port another program holds used to end in a
34-line traceback from gRPC's "Failed to bind"; now each prints one line naming the address, the
reason and the flag that picks another, with no traceback.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rookery.server import AddressUnavailableError, RookeryServer, ServerConfig
from rookery.server._listen import listen_problem

_SCRIPT = Path(sys.executable).with_name("rookery")
#: An address of TEST-NET-1 (RFC 5737): never one of this machine's.
_NOT_OURS = "192.0.2.1:50051"


@pytest.fixture
def taken() -> Iterator[str]:
    """A loopback address another program listens on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield f"127.0.0.1:{holder.getsockname()[1]}"


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(_SCRIPT), *argv], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_serve_on_a_port_in_use_says_so_in_one_line(taken: str, tmp_path: Path) -> None:
    done = _run(["serve", "--address", taken, "--web-address", "off"], tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"rookery serve: cannot listen on {taken}: the port is in use: another program listens "
        "there (another Rookery server?); listen elsewhere: --address HOST:PORT (port 0 picks a "
        "free one)"
    ]


def test_serve_on_an_address_not_of_this_machine_says_so(tmp_path: Path) -> None:
    done = _run(["serve", "--address", _NOT_OURS, "--web-address", "off"], tmp_path)
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert f"cannot listen on {_NOT_OURS}: the address is not one of this machine's" in done.stderr


def test_arena_run_listening_on_a_port_in_use_says_so_in_one_line(
    taken: str, tmp_path: Path
) -> None:
    argv = ["arena", "run", "--bot", "a=random", "--bot", "b=random", "--games", "1",
            "--listen", taken, "--out", str(tmp_path / "run")]  # fmt: skip
    done = _run(argv, tmp_path)
    assert done.returncode == 3
    assert done.stderr.splitlines() == [
        f"rookery arena run: cannot listen on {taken}: the port is in use: another program "
        "listens there (another Rookery server?); listen elsewhere: --listen HOST:PORT (port 0, "
        "the default, picks a free one)"
    ]
    assert "Traceback" not in done.stdout


async def test_the_server_raises_an_error_naming_the_address(taken: str) -> None:
    server = RookeryServer(ServerConfig(address=taken, log_level="warning"))
    with pytest.raises(AddressUnavailableError) as raised:
        await server.start()
    assert raised.value.address == taken
    assert isinstance(raised.value, OSError)


def test_a_free_port_has_no_problem() -> None:
    assert listen_problem("127.0.0.1:0") == ""
