"""Why the server cannot listen on an address, in words a person can act on."""

from __future__ import annotations

import errno
import socket

__all__ = ["listen_problem"]

_REASONS = {
    errno.EADDRINUSE: "the port is in use: another program listens there (another Rookery server?)",
    errno.EADDRNOTAVAIL: "the address is not one of this machine's",
    errno.EACCES: "a port below 1024 needs privileges",
}


def listen_problem(address: str) -> str:
    """Why ``address`` (``host:port``) cannot be listened on ("" when a plain socket binds it,
    as gRPC's would: ``SO_REUSEADDR``, so a port some old connection waits on is free). Asked
    before gRPC binds: gRPC says only that it failed, and logs a line of its own."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    try:
        family, kind, proto, _, where = socket.getaddrinfo(
            host, int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (OSError, ValueError) as error:
        return f"not a host and port this machine can listen on ({error})"
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(where)
        except OSError as error:
            return _REASONS.get(error.errno or 0, error.strerror or str(error))
    return ""
