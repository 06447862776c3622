"""The kit contract (docs/dev/kit-contract.md), checked the same way for all six clients: the Python
SDK's ``rookery bot run`` and the TypeScript, Go, Rust, Java and C++ kits' sample bots.

Each client runs as its own process against a ``ScriptedServer`` that follows a script of
messages (welcome, joins, requests, rejections, batches, a dropped stream and its resume, the end
of a table) and records what the client sent; the requests are the conformance vectors generated
from the engine (``vectors/requests.json``). The kits' sample bots take
``ROOKERY_SAMPLE_FAULT`` (``raise``, ``illegal``, ``bad-note``) to make their own code fail, so
that the kit's fallback can be seen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.json_format import ParseDict
from kit_support import KITS, ROOKERY, Launcher, Process, build_kit
from rookery.engine import Ruleset
from rookery.v1 import bot_service_pb2, results_pb2, table_pb2
from rookery.wire.convert import (
    action_from_proto,
    legal_actions_from_proto,
    ruleset_to_proto,
)
from scripted_server import Peer, ScriptedServer

pytestmark = pytest.mark.timeout(600)

VECTORS = Path(__file__).resolve().parent / "vectors"
#: The kits' sample bot written with the Python SDK.
SAMPLE_BOT = f"{Path(__file__).resolve().parent / 'python_sample.py'}:SampleBot"
#: Every client: the Python SDK and the five kits.
CLIENTS = ("python", *KITS)
#: The clients whose sample bot notes its replies and marks its fallbacks: all six.
MARKING = CLIENTS
#: The clients that drop a note out of bounds at sending time; the Python SDK refuses it sooner,
#: in ``Bot.note`` (a ValueError in the hook, which the bot may catch).
DROPPING = tuple(KITS)
#: The longest one build.sh may take (nothing when the kit was built before: it is cached).
BUILD_TIMEOUT_S = 900.0
#: The contract's summary line (its first six counts; a client may print more after them).
SUMMARY = re.compile(
    r"^\[rookery\] done: games=(\d+) actions=(\d+) fallbacks=(\d+) rejections=(\d+) "
    r"reconnects=(\d+) resumes=(\d+)",
    re.MULTILINE,
)
#: How long a client may take to exit once its games are done.
EXIT_LIMIT_S = 60.0


@dataclass(frozen=True)
class Summary:
    games: int
    actions: int
    fallbacks: int
    rejections: int
    reconnects: int
    resumes: int


def summary_of(log: str) -> Summary:
    """The client's summary line, parsed; AssertionError with its log when there is none."""
    matches = SUMMARY.findall(log)
    assert len(matches) == 1, f"expected one summary line in the log:\n{log}"
    return Summary(*(int(count) for count in matches[0]))


@dataclass(frozen=True)
class Vector:
    name: str
    preset: str
    request: bot_service_pb2.ActionRequest


def _vectors() -> list[Vector]:
    data = json.loads((VECTORS / "requests.json").read_text(encoding="utf-8"))
    return [
        Vector(v["name"], v["preset"], ParseDict(v["request"], bot_service_pb2.ActionRequest()))
        for v in data["requests"]
    ]


REQUESTS = _vectors()


_BUILT: set[str] = set()


@pytest.fixture
def built(client: str) -> None:
    """The test's kit built, once per test run (each build.sh is also cached by its inputs)."""
    if client in KITS and client not in _BUILT:
        build_kit(client, timeout=BUILD_TIMEOUT_S)
        _BUILT.add(client)


async def start(
    launcher: Launcher,
    client: str,
    target: str,
    *options: str,
    env: dict[str, str] | None = None,
    name: str = "conf",
) -> Process:
    """The client's bot process against ``target``, with the contract's flags ``options``."""
    if client == "python":
        argv = [str(ROOKERY), "bot", "run", SAMPLE_BOT, "--log-level", "warning"]
    else:
        argv = [str(KITS[client][1])]
    return await launcher.command_bot([*argv, *options], target, name, env)


def joined(table_id: str, preset: str, seat: int) -> bot_service_pb2.TableJoined:
    ruleset = Ruleset.preset(preset)
    seats = [
        table_pb2.SeatInfo(seat=index, bot_name="conf" if index == seat else f"other-{index}")
        for index in range(ruleset.players)
    ]
    return bot_service_pb2.TableJoined(
        table_id=table_id,
        seat=seat,
        ruleset=ruleset_to_proto(ruleset),
        seats=seats,
        time_control=table_pb2.TimeControl(action_ms=10000, grace_ms=30000),
        game_number=1,
        bot_seed=7,
    )


def finished(table_id: str, seat: int) -> bot_service_pb2.TableFinished:
    """The end of a table: the maximum hands played, side 0 ahead."""
    result = results_pb2.GameResult(
        winners=[0],
        scores=[120, 60],
        hands_played=1,
        reason=results_pb2.TERMINATION_REASON_MAX_HANDS,
        forfeit_seat=-1,
    )
    return bot_service_pb2.TableFinished(table_id=table_id, seat=seat, result=result)


def request_for(vector: Vector, table_id: str, request_id: int) -> bot_service_pb2.ActionRequest:
    request = bot_service_pb2.ActionRequest()
    request.CopyFrom(vector.request)
    request.table_id = table_id
    request.request_id = request_id
    return request


def assert_legal(
    reply: bot_service_pb2.ActionReply, request: bot_service_pb2.ActionRequest
) -> None:
    """The reply answers ``request`` with one of its legal actions (by the engine's judgement)."""
    assert (reply.table_id, reply.request_id) == (request.table_id, request.request_id), reply
    legal = legal_actions_from_proto(request.legal_actions)
    assert action_from_proto(reply.action) in legal, (reply, request.legal_actions)


def by_phase(*phases: str) -> list[Vector]:
    """The first standard-preset vector of each phase named."""
    return [
        next(v for v in REQUESTS if v.preset == "standard" and v.name.endswith(phase))
        for phase in phases
    ]


async def play(
    peer: Peer, vectors: list[Vector], check: Callable[[Any, Any], None] | None = None
) -> list[bot_service_pb2.ActionReply]:
    """Welcome the client; then for each of ``vectors`` seat it at a table of its own, send the
    request, await the answer (legal, and ``check``-ed) and finish the table; the replies."""
    hello = await peer.expect_hello()
    await peer.send(peer.welcome(hello))
    replies = []
    for number, vector in enumerate(vectors, 1):
        table_id, seat = f"t-{number}", vector.request.seat
        await peer.send(joined(table_id, vector.preset, seat))
        request = request_for(vector, table_id, number)
        await peer.send(request)
        reply, _ = await peer.expect_reply()
        assert_legal(reply, request)
        if check is not None:
            check(reply, request)
        replies.append(reply)
        await peer.send(finished(table_id, seat))
    await peer.expect_end(EXIT_LIMIT_S)
    return replies


async def run_script(
    launcher: Launcher,
    client: str,
    scripts: list[Callable[[Peer], Awaitable[None]]],
    *options: str,
    env: dict[str, str] | None = None,
) -> tuple[Process, int]:
    """Run the client against the scripts until it exits; the process and its exit code."""
    async with ScriptedServer.running(scripts) as server:
        bot = await start(launcher, client, server.target, *options, env=env)
        try:
            code = await bot.wait(EXIT_LIMIT_S)
        except TimeoutError:
            raise AssertionError(
                f"the client did not exit ({server.failures}):\n{bot.log()}"
            ) from None
        await server.wait_scripts()
        try:
            server.assert_done()
        except AssertionError as failure:
            raise AssertionError(f"{failure}\nthe client's log:\n{bot.log()}") from failure
    return bot, code


# --- every client -------------------------------------------------------------------------------


@pytest.mark.parametrize("client", CLIENTS)
async def test_every_vector_request_is_answered_legally_with_its_note_then_exit_0_and_summary(
    client: str, built: None, launcher: Launcher
) -> None:
    seen: list[bot_service_pb2.ActionReply] = []

    def noted(reply: Any, request: Any) -> None:
        """Each sample bot notes every reply with the number of cards it held."""
        if client in MARKING:
            assert reply.HasField("note"), reply
            assert reply.note.text.startswith("sample"), reply.note
            assert dict(reply.note.values) == {"hand_cards": len(request.observation.hand)}

    async def script(peer: Peer) -> None:
        seen.extend(await play(peer, REQUESTS, noted))

    bot, code = await run_script(launcher, client, [script], "--games", str(len(REQUESTS)))

    assert code == 0, bot.log()
    assert len(seen) == len(REQUESTS)
    assert [reply.HasField("fallback") for reply in seen] == [False] * len(REQUESTS)
    summary = summary_of(bot.log())
    assert summary == Summary(len(REQUESTS), len(REQUESTS), 0, 0, 0, 0), bot.log()


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("batching", [True, False], ids=["batching", "no-batching"])
async def test_the_hello_says_who_and_batching_and_batched_requests_get_batched_replies(
    client: str, batching: bool, built: None, launcher: Launcher
) -> None:
    # Six tables, asked three times each in one batch: how soon a client writes a reply is its
    # own business, so a packed reply is looked for over all eighteen.
    vectors = by_phase("bidding", "name_trump", "play") * 2
    rounds = 3
    came: list[tuple[bot_service_pb2.ActionReply, bool, int]] = []
    hellos: list[bot_service_pb2.Hello] = []

    async def script(peer: Peer) -> None:
        hello = await peer.expect_hello()
        hellos.append(hello)
        await peer.send(peer.welcome(hello))
        tables = [f"t-{index}" for index in range(len(vectors))]
        seats = [vector.request.seat for vector in vectors]
        await peer.send(
            *(joined(t, "standard", seat) for t, seat in zip(tables, seats, strict=True)),
            batch=batching,
        )
        for round_ in range(1, rounds + 1):
            requests = [request_for(v, t, round_) for v, t in zip(vectors, tables, strict=True)]
            await peer.send(*requests, batch=batching)
            answers = {}
            for _ in requests:
                reply, how = await peer.expect_reply()
                came.append((reply, how.batched, how.frame))
                answers[reply.table_id] = reply
            for request in requests:  # each table answered once, in any order
                assert_legal(answers[request.table_id], request)
        await peer.send(
            *(finished(t, seat) for t, seat in zip(tables, seats, strict=True)), batch=batching
        )
        await peer.expect_end(EXIT_LIMIT_S)

    tables = str(len(vectors))
    options = ["--games", tables, "--max-tables", tables] + ([] if batching else ["--no-batching"])
    env = {"ROOKERY_BOT_VERSION": "2.5.0", "ROOKERY_TOKEN": "key-1"}
    bot, code = await run_script(launcher, client, [script], *options, env=env)

    assert code == 0, bot.log()
    (hello,) = hellos
    assert (hello.name, hello.version, hello.token) == ("conf", "2.5.0", "key-1")
    assert (hello.max_tables, hello.batching) == (len(vectors), batching)
    assert not hello.HasField("resume")
    packed = [was_batched for _, was_batched, _ in came]
    assert len(packed) == rounds * len(vectors)
    if batching:  # replies ready together travel together
        assert any(packed), (came, bot.log())
    else:
        assert not any(packed), came
    assert summary_of(bot.log()).games == len(vectors)


@pytest.mark.parametrize("client", CLIENTS)
async def test_a_rejected_reply_is_counted(client: str, built: None, launcher: Launcher) -> None:
    async def script(peer: Peer) -> None:
        hello = await peer.expect_hello()
        await peer.send(peer.welcome(hello))
        (vector,) = by_phase("bidding")
        await peer.send(joined("t-1", "standard", vector.request.seat))
        await peer.send(request_for(vector, "t-1", 1))
        await peer.expect_reply()
        rejected = bot_service_pb2.ActionRejected(
            table_id="t-1",
            request_id=1,
            reason=bot_service_pb2.REJECTION_REASON_NOT_YOUR_TURN,
            message="scripted: not your turn",
        )
        await peer.send(rejected)
        await peer.send(request_for(vector, "t-1", 2))
        again, _ = await peer.expect_reply()
        assert again.request_id == 2, again
        await peer.send(finished("t-1", vector.request.seat))
        await peer.expect_end(EXIT_LIMIT_S)

    bot, code = await run_script(launcher, client, [script], "--games", "1")

    assert code == 0, bot.log()
    summary = summary_of(bot.log())
    assert (summary.games, summary.actions, summary.rejections) == (1, 2, 1), bot.log()


@pytest.mark.parametrize("client", CLIENTS)
async def test_after_a_dropped_stream_the_client_resumes_its_session_and_answers_again(
    client: str, built: None, launcher: Launcher
) -> None:
    bid, play_card = by_phase("bidding", "play")

    async def first(peer: Peer) -> None:
        hello = await peer.expect_hello()
        await peer.send(peer.welcome(hello))
        await peer.send(joined("t-1", "standard", bid.request.seat))
        await peer.send(request_for(bid, "t-1", 1))
        await peer.expect_reply()
        peer.abort(grpc.StatusCode.UNAVAILABLE, "scripted: the network dropped")

    async def second(peer: Peer) -> None:
        hello = await peer.expect_hello()
        assert hello.HasField("resume"), hello
        assert (hello.resume.session_id, hello.resume.resume_secret) == ("s-1", "secret-s-1")
        await peer.send(peer.welcome(hello, resumed=True))
        table = joined("t-1", "standard", play_card.request.seat)
        snapshot = bot_service_pb2.TableSnapshot(table=table)
        snapshot.observation.CopyFrom(play_card.request.observation)
        await peer.send(snapshot)
        request = request_for(play_card, "t-1", 2)
        await peer.send(request)
        reply, _ = await peer.expect_reply()
        assert_legal(reply, request)
        await peer.send(finished("t-1", play_card.request.seat))
        await peer.expect_end(EXIT_LIMIT_S)

    bot, code = await run_script(launcher, client, [first, second], "--games", "1")

    assert code == 0, bot.log()
    summary = summary_of(bot.log())
    assert (summary.games, summary.actions, summary.resumes) == (1, 2, 1), bot.log()
    assert summary.reconnects >= 1, bot.log()


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(
    ("code", "status"),
    [(3, grpc.StatusCode.UNAUTHENTICATED), (5, grpc.StatusCode.RESOURCE_EXHAUSTED)],
    ids=["token-rejected", "session-refused"],
)
async def test_a_refused_session_exits_with_the_contract_code(
    client: str, code: int, status: grpc.StatusCode, built: None, launcher: Launcher
) -> None:
    async def script(peer: Peer) -> None:
        await peer.expect_hello()
        peer.abort(status, "scripted: refused")

    bot, exit_code = await run_script(launcher, client, [script])

    assert exit_code == code, bot.log()
    assert "scripted: refused" in bot.log(), bot.log()


@pytest.mark.parametrize("client", CLIENTS)
async def test_an_unreachable_server_exits_4_and_bad_arguments_exit_2(
    client: str, built: None, launcher: Launcher
) -> None:
    async with ScriptedServer.running([]) as server:
        closed = server.target  # nothing listens there once the server has stopped

    unreachable = await start(launcher, client, closed, "--connect-timeout", "1")
    bad = await start(launcher, client, closed, "--max-tables", "many")

    assert await unreachable.wait(EXIT_LIMIT_S) == 4, unreachable.log()
    assert closed in unreachable.log(), unreachable.log()
    assert await bad.wait(EXIT_LIMIT_S) == 2, bad.log()
    assert "max-tables" in bad.log(), bad.log()


# --- notes and fallbacks (the kits) -------------------------------------------------------------


@pytest.mark.parametrize("client", MARKING)
@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("raise", re.compile(r"rais|threw|panick|exception|error", re.IGNORECASE)),
        ("illegal", re.compile(r"illegal", re.IGNORECASE)),
    ],
)
async def test_when_the_bot_code_fails_the_kit_answers_legally_and_marks_the_fallback(
    client: str, fault: str, reason: re.Pattern[str], built: None, launcher: Launcher
) -> None:
    replies: list[bot_service_pb2.ActionReply] = []

    async def script(peer: Peer) -> None:
        replies.extend(await play(peer, by_phase("bidding", "play")))

    env = {"ROOKERY_SAMPLE_FAULT": fault}
    bot, code = await run_script(launcher, client, [script], "--games", "2", env=env)

    assert code == 0, bot.log()
    for reply in replies:  # assert_legal checked each answer as it came
        assert reply.HasField("fallback"), reply
        assert reason.search(reply.fallback.reason), reply.fallback
        assert 0 < len(reply.fallback.reason.encode()) <= 256
    summary = summary_of(bot.log())
    assert (summary.actions, summary.fallbacks) == (2, 2), bot.log()


@pytest.mark.parametrize("client", DROPPING)
async def test_a_note_out_of_bounds_is_dropped_with_a_clear_error_and_the_move_stands(
    client: str, built: None, launcher: Launcher
) -> None:
    replies: list[bot_service_pb2.ActionReply] = []

    async def script(peer: Peer) -> None:
        replies.extend(await play(peer, by_phase("bidding")))

    env = {"ROOKERY_SAMPLE_FAULT": "bad-note"}
    bot, code = await run_script(launcher, client, [script], "--games", "1", env=env)

    assert code == 0, bot.log()
    (reply,) = replies
    assert not reply.HasField("note") and not reply.HasField("fallback"), reply
    assert "note" in bot.log() and "not a name" in bot.log(), bot.log()
    assert summary_of(bot.log()).fallbacks == 0
