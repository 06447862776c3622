"""The SDK's behaviour, with bots in this process (``arun_bot``) against a real server."""

from __future__ import annotations

import asyncio
import doctest
import importlib
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, ClassVar

import grpc
import pytest
import structlog
from rookery.client import (
    Bot,
    BotLoadError,
    NoAnswer,
    RunStats,
    ServerUnreachableError,
    Table,
    TokenRejectedError,
    arun_bot,
    load_bot,
)
from rookery.engine import (
    Action,
    Bid,
    Game,
    GameResult,
    Observation,
    Phase,
    Ruleset,
    Termination,
)
from rookery.server import RookeryServer, TimeControl
from rookery.server.testing import running_server
from rookery.v1 import bot_service_pb2 as pb
from rookery.v1 import bot_service_pb2_grpc, replay_pb2
from rookery.v1.events_pb2 import Event
from rookery.wire import convert

SAMPLE_BOTS = Path(__file__).with_name("sample_bots.py")


def opening_bid_or_first(observation: Observation) -> Action:
    """Open the auction at the minimum, else pass; otherwise the first legal action."""
    legal = observation.legal_actions()
    if observation.phase is Phase.BIDDING and observation.high_bid == 0 and legal.bids:
        return Bid(legal.bids[0])
    return legal[0]


class Simple(Bot):
    def act(self, observation: Observation) -> Action:
        return opening_bid_or_first(observation)


class Running:
    """``arun_bot`` as a task of the test's loop, stopped at the end of the test."""

    def __init__(self) -> None:
        self.tasks: list[tuple[asyncio.Task[RunStats], asyncio.Event]] = []

    async def start(
        self, server: RookeryServer, factory: Callable[[], Bot], name: str, **options: Any
    ) -> asyncio.Task[RunStats]:
        stop = asyncio.Event()
        task = asyncio.create_task(
            arun_bot(factory, server.target, name=name, stop=stop, **options)
        )
        self.tasks.append((task, stop))
        await server.wait_for_bot(name, sessions=options.get("sessions", 1), timeout=10.0)
        return task

    async def stop(self) -> list[RunStats]:
        for _, stop in self.tasks:
            stop.set()
        return [await asyncio.wait_for(task, 10.0) for task, _ in self.tasks]


@pytest.fixture
async def running() -> AsyncIterator[Running]:
    runner = Running()
    try:
        yield runner
    finally:
        await runner.stop()


async def test_each_table_gets_its_own_bot_instance(
    server: RookeryServer, running: Running, play: Any
) -> None:
    made: list[Recording] = []

    def factory() -> Recording:
        made.append(Recording())
        return made[-1]

    await running.start(server, factory, "rec", sessions=4, max_tables=2)
    await asyncio.gather(*(play(server, "standard", ("rec",) * 4, seed=s) for s in (1, 2)))

    assert len(made) == 8
    assert len({(bot.table.table_id, bot.table.seat) for bot in made}) == 8
    assert all(len({table_id for table_id, _ in bot.seen}) == 1 for bot in made)


class Recording(Bot):
    """Records which hook saw which phase, at which table."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self.hooks: list[tuple[str, Phase]] = []

    def _record(self, hook: str, observation: Observation) -> Action:
        self.seen.append((self.table.table_id, hook))
        self.hooks.append((hook, observation.phase))
        return opening_bid_or_first(observation)

    def act(self, observation: Observation) -> Action:
        return self._record("act", observation)

    def bid(self, observation: Observation) -> Action:
        return self._record("bid", observation)

    def name_trump(self, observation: Observation) -> Action:
        return self._record("name_trump", observation)

    def bury(self, observation: Observation) -> Action:
        return self._record("bury", observation)

    def play(self, observation: Observation) -> Action:
        return self._record("play", observation)


async def test_each_phase_goes_to_its_own_hook(
    server: RookeryServer, running: Running, play: Any
) -> None:
    made: list[Recording] = []

    def factory() -> Recording:
        made.append(Recording())
        return made[-1]

    await running.start(server, factory, "rec", sessions=4)
    await play(server, "standard", ("rec",) * 4)

    expected = {
        "bid": Phase.BIDDING,
        "name_trump": Phase.NAME_TRUMP,
        "bury": Phase.BURY,
        "play": Phase.PLAY,
    }
    hooks = [entry for bot in made for entry in bot.hooks]
    assert {hook for hook, _ in hooks} == set(expected)
    assert all(expected[hook] is phase for hook, phase in hooks)


class OnlyAct(Bot):
    """Overrides ``act`` alone: it must see every phase, the call included."""

    phases: ClassVar[set[Phase]] = set()

    def act(self, observation: Observation) -> Action:
        OnlyAct.phases.add(observation.phase)
        return opening_bid_or_first(observation)


async def test_act_alone_answers_every_phase(
    server: RookeryServer, running: Running, play: Any
) -> None:
    await running.start(server, OnlyAct, "only-act", sessions=4)
    await play(server, "called-partner", ("only-act",) * 4)

    assert OnlyAct.phases == {
        Phase.BIDDING,
        Phase.NAME_TRUMP,
        Phase.BURY,
        Phase.CALL,
        Phase.PLAY,
    }


class ContextSeen(Bot):
    """Records structlog's context as each hook sees it, and outside of them."""

    seen: ClassVar[list[tuple[dict[str, object], str, int]]] = []

    def act(self, observation: Observation) -> Action:
        ContextSeen.seen.append(
            (structlog.contextvars.get_contextvars(), self.table.table_id, self.table.seat)
        )
        return opening_bid_or_first(observation)

    def on_event(self, event: Event) -> None:
        ContextSeen.seen.append((structlog.contextvars.get_contextvars(), "", -1))


async def test_each_hook_logs_with_its_table_and_seat_bound_and_nothing_else_does(
    server: RookeryServer, running: Running, play: Any
) -> None:
    ContextSeen.seen.clear()
    await running.start(server, ContextSeen, "context", sessions=4)
    await play(server, "standard", ("context",) * 4)

    acting = [(context, table, seat) for context, table, seat in ContextSeen.seen if seat >= 0]
    assert len({seat for _, _, seat in acting}) == 4
    assert all(context == {"table_id": table, "seat": seat} for context, table, seat in acting)
    events = [context for context, _, seat in ContextSeen.seen if seat < 0]
    assert events and all("table_id" not in context for context in events)  # bound only in hooks


class Lifecycle(Bot):
    """Records its lifecycle hooks."""

    instances: ClassVar[list[Lifecycle]] = []

    def __init__(self) -> None:
        self.joined: list[Table] = []
        self.events: list[Event] = []
        self.results: list[GameResult] = []
        Lifecycle.instances.append(self)

    def on_table_joined(self, table: Table) -> None:
        self.joined.append(table)

    async def on_event(self, event: Event) -> None:
        self.events.append(event)

    def on_table_finished(self, result: GameResult) -> None:
        self.results.append(result)

    async def act(self, observation: Observation) -> Action:
        await asyncio.sleep(0)
        return opening_bid_or_first(observation)


async def test_lifecycle_hooks_see_the_table_every_event_in_order_and_the_result(
    server: RookeryServer, running: Running, play: Any
) -> None:
    Lifecycle.instances.clear()
    task = await running.start(server, Lifecycle, "life", sessions=4, games=1)
    # The SDK asks for a table's events held together as one message (Hello.group_events).
    sessions = server.sessions["life"]
    assert len(sessions) == 4 and all(s.groups_events and s.defers_events for s in sessions)

    outcome = await play(server, "standard", ("life",) * 4)
    stats = await asyncio.wait_for(task, 10.0)

    assert stats.games == 1 and stats.fallbacks == 0
    assert sorted(bot.joined[0].seat for bot in Lifecycle.instances) == [0, 1, 2, 3]
    for bot in Lifecycle.instances:
        table = bot.joined[0]
        assert table.ruleset == Ruleset.preset("standard")
        assert [seat.bot_name for seat in table.seats] == ["life"] * 4
        assert [event.seq for event in bot.events] == list(range(1, len(bot.events) + 1))
        assert bot.events[-1].WhichOneof("kind") == "game_over"
        assert bot.results == [outcome.result]


class TextAnswers(Bot):
    """Answers with text forms ("bid 70", "play R14") instead of action objects."""

    def act(self, observation: Observation) -> str:
        return str(opening_bid_or_first(observation))


async def test_text_actions_are_played(server: RookeryServer, running: Running, play: Any) -> None:
    task = await running.start(server, TextAnswers, "text", sessions=4, games=1)

    outcome = await play(server, "standard", ("text",) * 4)
    stats = await asyncio.wait_for(task, 10.0)

    assert outcome.result.reason is Termination.TARGET_REACHED
    assert stats.fallbacks == 0 and stats.actions == sum(s.actions for s in outcome.seat_stats)


class SlowFirst(Bot):
    """Its first answer takes far longer than the clock allows."""

    slow_done = False

    async def act(self, observation: Observation) -> Action:
        if not SlowFirst.slow_done:
            SlowFirst.slow_done = True
            await asyncio.sleep(30)
        return opening_bid_or_first(observation)


async def test_an_async_hook_past_its_deadline_is_cut_short_with_a_fallback(
    server: RookeryServer, running: Running, play: Any
) -> None:
    task = await running.start(server, SlowFirst, "slow", sessions=4, games=1)
    clock = TimeControl(action_ms=3000, grace_ms=5000)

    outcome = await play(server, "standard", ("slow",) * 4, clock=clock)
    stats = await asyncio.wait_for(task, 10.0)

    first = outcome.replay.hands[0].actions[0]
    assert first.outcome == replay_pb2.ACTION_OUTCOME_ACCEPTED
    assert 1500 <= first.think_ms < 3000
    assert stats.fallbacks >= 1


class SilentFirst(Bot):
    """Gives no answer to its first request (``NoAnswer``), then plays."""

    silent_done: ClassVar[bool] = False

    def act(self, observation: Observation) -> Action:
        if not SilentFirst.silent_done:
            SilentFirst.silent_done = True
            raise NoAnswer("nothing to say")
        return opening_bid_or_first(observation)


async def test_no_answer_sends_nothing_and_the_late_policy_plays(
    server: RookeryServer, running: Running, play: Any
) -> None:
    task = await running.start(server, SilentFirst, "silent", sessions=4, games=1)
    clock = TimeControl(action_ms=400, grace_ms=5000)

    outcome = await play(server, "standard", ("silent",) * 4, clock=clock)
    stats = await asyncio.wait_for(task, 10.0)

    first = outcome.replay.hands[0].actions[0]
    assert first.outcome == replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
    assert (stats.no_answers, stats.fallbacks) == (1, 0)


async def test_the_games_limit_ends_the_run(server: RookeryServer, play: Any) -> None:
    run = asyncio.create_task(arun_bot(Simple, server.target, name="limited", sessions=4, games=2))
    await server.wait_for_bot("limited", sessions=4, timeout=10.0)
    for seed in (1, 2):
        await play(server, "standard", ("limited",) * 4, seed=seed)

    stats = await asyncio.wait_for(run, 10.0)

    assert stats.games == 2


async def test_a_wrong_token_raises_token_rejected(tmp_path: Path) -> None:
    async with running_server(auth="token", db=str(tmp_path / "bots.db")) as server:
        server.bots.add("north")
        with pytest.raises(TokenRejectedError, match="token rejected for bot north"):
            await arun_bot(Simple, server.target, name="north", token="rk_nope")


async def test_a_server_that_never_answers_raises_unreachable(unused_tcp_port: int) -> None:
    address = f"127.0.0.1:{unused_tcp_port}"
    with pytest.raises(
        ServerUnreachableError, match=f"cannot reach the Rookery server at {address}"
    ):
        await arun_bot(Simple, address, name="north", connect_timeout_s=0.5)


# A rejection, from a scripted server that refuses the first reply --------------------------------


class RejectFirstReply(bot_service_pb2_grpc.BotServiceServicer):
    """Seats the bot, asks once, rejects the first reply as illegal, and records every reply."""

    def __init__(self) -> None:
        self.replies: list[pb.ActionReply] = []
        self.done = asyncio.Event()

    async def Connect(
        self, request_iterator: Any, context: Any
    ) -> AsyncIterator[pb.ConnectResponse]:
        await request_iterator.__anext__()
        yield pb.ConnectResponse(welcome=pb.Welcome(session_id="s-1", resume_secret="x"))
        game = Game(Ruleset.preset("standard"), seed=3)
        seat = game.current_player
        assert seat is not None
        joined = pb.TableJoined(table_id="t-1", seat=seat)
        joined.ruleset.CopyFrom(convert.ruleset_to_proto(game.ruleset))
        yield pb.ConnectResponse(table_joined=joined)
        request = pb.ActionRequest(
            table_id="t-1",
            request_id=1,
            seat=seat,
            observation=convert.observation_to_proto(game.observation_for(seat)),
            legal_actions=convert.legal_actions_to_proto(game.legal_actions()),
            deadline_ms=5000,
        )
        yield pb.ConnectResponse(action_request=request)
        self.replies.append((await request_iterator.__anext__()).action_reply)
        yield pb.ConnectResponse(
            action_rejected=pb.ActionRejected(
                table_id="t-1",
                request_id=1,
                reason=pb.REJECTION_REASON_ILLEGAL_ACTION,
                message="scripted rejection",
            )
        )
        self.replies.append((await request_iterator.__anext__()).action_reply)
        self.done.set()
        await asyncio.sleep(30)


class LastLegal(Bot):
    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions()
        return legal[len(legal) - 1]


async def test_a_rejected_reply_is_retried_with_the_fallback() -> None:
    scripted = RejectFirstReply()
    grpc_server = grpc.aio.server()
    bot_service_pb2_grpc.add_BotServiceServicer_to_server(scripted, grpc_server)
    port = grpc_server.add_insecure_port("127.0.0.1:0")
    await grpc_server.start()
    stop = asyncio.Event()
    run = asyncio.create_task(arun_bot(LastLegal, f"127.0.0.1:{port}", name="b", stop=stop))
    try:
        await asyncio.wait_for(scripted.done.wait(), 10.0)
    finally:
        stop.set()
        stats = await asyncio.wait_for(run, 10.0)
        await grpc_server.stop(0)

    first, second = (convert.action_from_proto(reply.action) for reply in scripted.replies)
    assert (str(first), str(second)) == ("bid 120", "pass")
    assert (stats.rejections, stats.fallbacks) == (1, 1)


# Card masks: the SDK reads a request's card sets from its bit masks ---------------------------


def _at_play(seed: int) -> Game:
    """A standard game at its first play (the auction opened at the minimum, then passes)."""
    game = Game(Ruleset.preset("standard"), seed=seed)
    while True:
        seat = game.current_player
        assert seat is not None
        observation, legal = game.observation_for(seat), game.legal_actions()
        if observation.phase is Phase.PLAY:
            return game
        opening = observation.phase is Phase.BIDDING and not observation.high_bid and legal.bids
        game.apply(Bid(legal.bids[0]) if opening else legal[0])


def _request_at(game: Game, seat: int) -> pb.ActionRequest:
    """Request 1 of table ``t-1`` for ``seat``, with card masks, as the server sends it."""
    observation, legal = game.observation_for(seat), game.legal_actions()
    return pb.ActionRequest(
        table_id="t-1",
        request_id=1,
        seat=seat,
        observation=convert.observation_to_proto(observation),
        legal_actions=convert.legal_actions_to_proto(legal),
        deadline_ms=5000,
        card_masks=convert.card_masks_to_proto(observation, legal),
    )


class MasksOnly(bot_service_pb2_grpc.BotServiceServicer):
    """Asks once, at the first play, with the card sets only in ``card_masks`` (the repeated
    card fields left empty), and records the reply."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.replies: list[pb.ActionReply] = []
        self.done = asyncio.Event()

    async def Connect(
        self, request_iterator: Any, context: Any
    ) -> AsyncIterator[pb.ConnectResponse]:
        await request_iterator.__anext__()
        yield pb.ConnectResponse(welcome=pb.Welcome(session_id="s-1", resume_secret="x"))
        game = self.game
        seat = game.current_player
        assert seat is not None
        joined = pb.TableJoined(table_id="t-1", seat=seat)
        joined.ruleset.CopyFrom(convert.ruleset_to_proto(game.ruleset))
        yield pb.ConnectResponse(table_joined=joined)
        request = _request_at(game, seat)
        del request.observation.hand[:], request.legal_actions.playable_cards[:]
        yield pb.ConnectResponse(action_request=request)
        self.replies.append((await request_iterator.__anext__()).action_reply)
        self.done.set()
        await asyncio.sleep(30)


async def test_the_sdk_reads_the_hand_and_the_playable_cards_from_the_card_masks() -> None:
    game = _at_play(5)
    seat = game.current_player
    assert seat is not None
    seen: list[tuple[int, list[str]]] = []

    class Recording(LastLegal):
        def act(self, observation: Observation) -> Action:
            seen.append((observation.hand, [str(a) for a in observation.legal_actions()]))
            return super().act(observation)

    scripted = MasksOnly(game)
    grpc_server = grpc.aio.server()
    bot_service_pb2_grpc.add_BotServiceServicer_to_server(scripted, grpc_server)
    port = grpc_server.add_insecure_port("127.0.0.1:0")
    await grpc_server.start()
    stop = asyncio.Event()
    run = asyncio.create_task(arun_bot(Recording, f"127.0.0.1:{port}", name="b", stop=stop))
    try:
        await asyncio.wait_for(scripted.done.wait(), 10.0)
    finally:
        stop.set()
        stats = await asyncio.wait_for(run, 10.0)
        await grpc_server.stop(0)

    legal = game.legal_actions()
    assert seen == [(game.observation_for(seat).hand, [str(action) for action in legal])]
    assert convert.action_from_proto(scripted.replies[0].action) == legal[len(legal) - 1]
    assert not scripted.replies[0].HasField("fallback") and stats.fallbacks == 0


async def test_a_message_that_is_no_connect_response_is_skipped_and_the_session_goes_on() -> None:
    """A server that sends bytes no ``ConnectResponse`` parses from, then a request: the SDK
    skips the unreadable message (one log line) and answers the request on the same stream."""
    game = _at_play(7)
    seat = game.current_player
    assert seat is not None
    replies: list[pb.ActionReply] = []
    hellos = 0
    done = asyncio.Event()

    async def connect(requests: Any, context: Any) -> AsyncIterator[bytes]:
        nonlocal hellos
        await requests.__anext__()
        hellos += 1
        welcome = pb.Welcome(session_id="s", resume_secret="x")
        yield pb.ConnectResponse(welcome=welcome).SerializeToString()
        joined = pb.TableJoined(table_id="t-1", seat=seat)
        joined.ruleset.CopyFrom(convert.ruleset_to_proto(game.ruleset))
        yield pb.ConnectResponse(table_joined=joined).SerializeToString()
        yield b"\xff\xff\xff"  # no ConnectResponse: a broken server's bytes
        yield pb.ConnectResponse(action_request=_request_at(game, seat)).SerializeToString()
        replies.append((await requests.__anext__()).action_reply)
        done.set()
        await asyncio.sleep(30)

    handler = grpc.method_handlers_generic_handler(
        "rookery.v1.BotService",
        {
            "Connect": grpc.stream_stream_rpc_method_handler(
                connect,
                request_deserializer=pb.ConnectRequest.FromString,
                response_serializer=lambda data: data,
            )
        },
    )
    grpc_server = grpc.aio.server()
    grpc_server.add_generic_rpc_handlers((handler,))
    port = grpc_server.add_insecure_port("127.0.0.1:0")
    await grpc_server.start()
    stop = asyncio.Event()
    run = asyncio.create_task(arun_bot(LastLegal, f"127.0.0.1:{port}", name="b", stop=stop))
    try:
        await asyncio.wait_for(done.wait(), 10.0)
    finally:
        stop.set()
        stats = await asyncio.wait_for(run, 10.0)
        await grpc_server.stop(0)
    legal = game.legal_actions()
    assert [r.request_id for r in replies] == [1]
    assert convert.action_from_proto(replies[0].action) == legal[len(legal) - 1]
    assert hellos == 1 and stats.reconnects == 0  # the same stream, never reopened


# Loading bots -----------------------------------------------------------------------------------


def test_a_file_reference_loads_the_class() -> None:
    factory = load_bot(f"{SAMPLE_BOTS}:Random")
    assert isinstance(factory, type) and issubclass(factory, Bot)
    assert factory.__name__ == "Random"


def test_a_module_reference_loads_the_class() -> None:
    factory = load_bot("rookery.client:Bot")
    assert factory is Bot


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("rookery.client", "is not of the form module:Class"),
        ("no_such_module_here:Bot", "cannot import module 'no_such_module_here'"),
        ("rookery.client:Missing", "has no attribute 'Missing'"),
        ("rookery.client:Table", "not a subclass of rookery.client.Bot"),
        ("missing/bot.py:Bot", "no such file 'missing/bot.py'"),
    ],
)
def test_a_bad_reference_names_the_problem(reference: str, message: str) -> None:
    with pytest.raises(BotLoadError, match=message):
        load_bot(reference)


def test_choose_calls_the_hook_the_runner_would() -> None:
    game = Game(Ruleset.preset("standard"), seed=5)
    seat = game.current_player
    assert seat is not None
    observation = game.observation_for(seat)
    recording = Recording()
    recording.table = Table("t-1", seat, game.ruleset, (), 1000, 0, 0)

    recording.choose(observation)
    OnlyAct.phases.clear()
    OnlyAct().choose(observation)

    assert recording.hooks == [("bid", Phase.BIDDING)]
    assert OnlyAct.phases == {Phase.BIDDING}


# The package itself ------------------------------------------------------------------------------


def test_the_sdk_imports_neither_the_server_nor_the_arena() -> None:
    probe = (
        "import sys, rookery.client; "
        "print(sorted(m for m in sys.modules if m.startswith(('rookery.server', 'rookery.arena'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_docstring_examples_run() -> None:
    results = doctest.testmod(importlib.import_module("rookery.client"))
    assert (results.failed, results.attempted > 0) == (0, True)


async def play_eight_at_once(
    server: RookeryServer, running: Running, create_table: Any, finished: Any, **options: Any
) -> RunStats:
    """A self-partnered bot (4 sessions, 8 tables each) plays 8 games at once; its stats."""
    await running.start(server, Simple, "many", sessions=4, max_tables=8, **options)
    tables = [await create_table(server, "standard", ("many",) * 4, seed=seed) for seed in range(8)]
    for table in tables:
        outcome = await finished(table)
        assert outcome.result.reason is Termination.TARGET_REACHED
        for seat in outcome.seat_stats:
            assert seat.illegal_replies == seat.malformed_replies == seat.timeouts == 0
    (stats,) = await running.stop()
    return stats


async def test_a_session_with_many_tables_gets_and_sends_batches(
    server: RookeryServer, running: Running, create_table: Any, finished: Any
) -> None:
    stats = await play_eight_at_once(server, running, create_table, finished)

    assert stats.batches_received > 0 and stats.batches_sent > 0
    assert stats.rejections == stats.fallbacks == 0


async def test_without_batching_every_message_travels_alone(
    server: RookeryServer, running: Running, create_table: Any, finished: Any
) -> None:
    stats = await play_eight_at_once(server, running, create_table, finished, batching=False)

    assert stats.batches_received == stats.batches_sent == 0
    assert stats.rejections == stats.fallbacks == 0
