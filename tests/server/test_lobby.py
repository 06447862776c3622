"""The lobby admits and resumes sessions by the server's rules, with no gRPC: each refusal is a
domain value with the sentence the bot reads, and the servicer gives every kind a status code."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from rookery.server import RookeryServer, ServerConfig
from rookery.server._lobby import AdmissionError, Lobby, Refusal
from rookery.server._services import _REFUSAL_CODES
from rookery.v1 import bot_service_pb2

pb = bot_service_pb2
PEER = "127.0.0.1"


def _refusal(lobby: Lobby, hello: pb.Hello) -> tuple[Refusal, str]:
    with pytest.raises(AdmissionError) as caught:
        lobby.admit(hello, PEER)
    return caught.value.refusal, caught.value.detail


async def test_a_token_server_admits_its_bots_and_refuses_every_other_hello(
    tmp_path: Path,
) -> None:
    server = RookeryServer(ServerConfig(auth="token", db=str(tmp_path / "bots.db")))
    _, token = server.bots.add("alice")
    lobby = Lobby(server)

    admitted = lobby.admit(pb.Hello(name="alice", version="1", token=token), PEER)
    assert not admitted.resumed and admitted.session.bot == "alice"

    assert _refusal(lobby, pb.Hello(name="alice", version="1")) == (
        Refusal.UNAUTHENTICATED,
        "Hello.token is empty: this server needs a bot token (issued by the organiser with "
        "'rookery bots add NAME')",
    )
    assert _refusal(lobby, pb.Hello(name="alice", version="1", token="x" * 20)) == (
        Refusal.UNAUTHENTICATED,
        "the token is not valid for bot 'alice'",
    )
    kind, detail = _refusal(lobby, pb.Hello(name="no spaces allowed", version="1", token=token))
    assert kind is Refusal.MALFORMED and detail.startswith("Hello.name: ")
    kind, detail = _refusal(lobby, pb.Hello(name="alice", version="1", token=token, max_tables=-1))
    assert (kind, detail) == (Refusal.MALFORMED, "Hello.max_tables must be ≥ 0, got -1")


async def test_a_resume_needs_the_session_its_secret_and_its_own_bot() -> None:
    server = RookeryServer(ServerConfig())
    lobby = Lobby(server)
    session = lobby.admit(pb.Hello(name="alice", version="1"), PEER).session

    def resume(name: str, session_id: str, secret: str) -> pb.Hello:
        cursor = pb.TableCursor(table_id="t-1", last_seq=7)
        return pb.Hello(
            name=name,
            version="1",
            observations_only=True,
            resume=pb.Resume(session_id=session_id, resume_secret=secret, cursors=[cursor]),
        )

    kind, detail = _refusal(lobby, resume("alice", "s-nothing", session.secret))
    assert kind is Refusal.NO_SUCH_SESSION and "unknown or expired session 's-nothing'" in detail
    assert _refusal(lobby, resume("alice", session.id, "wrong")) == (
        Refusal.UNAUTHENTICATED,
        f"wrong resume secret for session {session.id!r}",
    )
    kind, detail = _refusal(lobby, resume("mallory", session.id, session.secret))
    assert kind is Refusal.NO_SUCH_SESSION and "belongs to bot 'alice', not 'mallory'" in detail

    again = lobby.admit(resume("alice", session.id, session.secret), PEER)
    assert again.resumed and again.session is session
    assert again.cursors == {"t-1": 7}
    assert not session.wants_events  # the resuming stream's Hello decides


async def test_a_stopping_server_admits_nobody() -> None:
    server = RookeryServer(ServerConfig())
    await server.start()
    await server.stop(grace_s=0)
    assert _refusal(Lobby(server), pb.Hello(name="alice", version="1")) == (
        Refusal.STOPPING,
        "the server is shutting down",
    )


def test_every_refusal_has_a_status_code() -> None:
    assert set(_REFUSAL_CODES) == set(Refusal)
    assert _REFUSAL_CODES[Refusal.CROWDED] is grpc.StatusCode.RESOURCE_EXHAUSTED
