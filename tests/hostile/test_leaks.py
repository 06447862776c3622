"""Information leaks: no receiver ever learns a card it may not know before the hand ends.

Many games of every preset are played on one real server by raw bots that record every message
they receive and sometimes send a wrong reply first (to draw rejections); spectators watch every
table (from the start, and again mid-game with ``after_seq``); an organiser polls GetTable,
ListTables, ListLiveTables and GetReplay of unfinished games, and the web dashboard's JSON of
live tables. Afterwards every recorded message is checked against the truth (the table's
complete engine event log): each card a message names must be one its receiver may know at
that point, by the rules alone:

- its own dealt hand; every card played so far; the called card once called;
- the nest and the buried cards only for the bidder, once the nest is taken;
- everything of a hand once that hand is scored;
- a rejection may repeat the cards the bot itself named in the reply it rejects.

``callable_cards`` (every card but the bidder's hand and bury) is checked for being exactly that
set, since it names hidden cards without saying where they lie.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.message import Message
from rookery.engine import (
    PRESETS,
    AuctionWon,
    Bury,
    CardCalled,
    CardPlayed,
    CardsBuried,
    GameOver,
    HandDealt,
    HandRedealt,
    HandScored,
    NestTaken,
    Phase,
    Ruleset,
    card_name,
    cards_of,
    parse_card,
)
from rookery.server import (
    RookeryServer,
    ServerConfig,
    Table,
    TableSpec,
    TimeControl,
    bot_reply_from_proto,
)
from rookery.server.testing import running_server
from rookery.v1 import (
    actions_pb2,
    arena_service_pb2,
    arena_service_pb2_grpc,
    bot_service_pb2,
    bot_service_pb2_grpc,
    spectator_service_pb2,
    spectator_service_pb2_grpc,
)
from rookery.web import live_table_json
from rookery.wire.convert import (
    action_to_proto,
    card_from_proto,
    card_to_proto,
    legal_actions_from_proto,
)
from rookery.wire.errors import MalformedMessageError

pb = bot_service_pb2
TABLES_PER_PRESET = 3
HANDS_PER_GAME = 2
SPECTATOR = -1
ALL = (1 << 64) - 1
CARD_TEXT = re.compile(r"\b(?:ROOK2?|[BRYG](?:1[0-4]|[1-9]))\b")
TEXT_FIELDS = {"message", "detail", "details"}


# The truth: what each viewer may know after each event ---------------------------------------


def knowledge(table: Table, viewer: int) -> list[int]:
    """``known[seq]``: the cards ``viewer`` may know once event ``seq`` happened."""
    known = [0]
    mask = 0
    bidder = -1
    for event in table.game.events:
        if isinstance(event, HandDealt):
            mask = event.hands[viewer] if viewer >= 0 else 0
            bidder = -1
        elif isinstance(event, AuctionWon):
            bidder = event.seat
        elif isinstance(event, NestTaken | CardsBuried):
            if viewer == bidder:
                mask |= event.cards
        elif isinstance(event, CardCalled | CardPlayed):
            mask |= 1 << event.card
        elif isinstance(event, HandScored | HandRedealt | GameOver):
            mask = ALL
        assert event.seq == len(known)
        known.append(mask)
    return known


def callable_cards_allowed(table: Table, seq: int, seat: int) -> int:
    """The calls the rules allow the bidder at ``seq``: all but its hand and bury (see RULES)."""
    ruleset = table.ruleset
    hand = buried = 0
    for event in table.game.events[:seq]:
        if isinstance(event, HandDealt):
            hand = event.hands[seat]
        elif isinstance(event, NestTaken) and event.seat == seat:
            hand |= event.cards
        elif isinstance(event, CardsBuried) and event.seat == seat:
            hand &= ~event.cards
            buried = event.cards
    return ruleset.deck_mask & ~hand & ~buried


# Recording ----------------------------------------------------------------------------------


@dataclass
class Received:
    """One message as received: by whom, about which table, at which point of its game."""

    viewer: int
    table_id: str
    seq: int
    message: Message | str
    named: int = 0  # cards the receiver itself named (in the reply a rejection answers)
    kind: str = ""


@dataclass
class Recorder:
    """Every message received, and the positions (latest event seq) of each receiver."""

    received: list[Received] = field(default_factory=list)
    position: dict[tuple[str, str, int], int] = field(default_factory=dict)

    def note(self, who: str, viewer: int, table_id: str, seq: int, message: Any, **kw: Any) -> None:
        key = (who, table_id, viewer)
        self.position[key] = max(self.position.get(key, 0), seq)
        self.received.append(Received(viewer, table_id, self.position[key], message, **kw))


def table_of(message: pb.ConnectResponse) -> tuple[str, int]:
    """The table a bot message is about, and its sequence number if it carries one."""
    kind = message.WhichOneof("message")
    if kind == "event":
        return message.event.table_id, message.event.event.seq
    if kind == "action_request":
        return message.action_request.table_id, message.action_request.last_seq
    if kind == "table_snapshot":
        snapshot = message.table_snapshot
        seqs = [e.event.seq for e in snapshot.missed_events]
        return snapshot.table.table_id, max(seqs, default=0)
    inner = getattr(message, kind or "welcome")
    return getattr(inner, "table_id", ""), 0


def hostile_reply(request: pb.ActionRequest, rng: random.Random) -> actions_pb2.Action:
    """A wrong reply naming cards the bot may or may not know (to draw rejections)."""
    action = actions_pb2.Action()
    card = card_to_proto(rng.randrange(58))
    choice = rng.randrange(4)
    if choice == 0:
        action.play_card.card.CopyFrom(card)
    elif choice == 1:
        action.bury.cards.extend(card_to_proto(rng.randrange(58)) for _ in range(5))
    elif choice == 2:
        action.call_card.card.CopyFrom(card)
    else:
        action.bid.amount = rng.randrange(0, 400)
    return action


def random_legal(request: pb.ActionRequest, rng: random.Random) -> actions_pb2.Action:
    legal = legal_actions_from_proto(request.legal_actions)
    if legal.phase is Phase.BURY:
        cards = rng.sample(cards_of(legal.bury_from), legal.bury_count)
        return action_to_proto(Bury(sum(1 << card for card in cards)))
    return action_to_proto(rng.choice(list(legal)))


async def play_and_record(
    target: str, name: str, tables: int, recorder: Recorder, rng: random.Random, batching: bool
) -> None:
    """One session: seats wherever the server puts it, answers at random, records everything
    (with ``batching``, each message of every batch)."""
    async with grpc.aio.insecure_channel(target) as channel:
        call = bot_service_pb2_grpc.BotServiceStub(channel).Connect()
        hello = pb.Hello(name=name, max_tables=tables, batching=batching)
        await call.write(pb.ConnectRequest(hello=hello))
        seats: dict[str, int] = {}
        named: dict[tuple[str, int], int] = defaultdict(int)
        finished = 0
        pending: list[pb.ConnectResponse] = []
        while finished < tables:
            if not pending:
                read = await asyncio.wait_for(call.read(), 60)
                assert isinstance(read, pb.ConnectResponse)  # not grpc.aio.EOF
                batch = read.WhichOneof("message") == "batch"
                pending.extend(read.batch.messages if batch else [read])
            message = pending.pop(0)
            kind = message.WhichOneof("message")
            table_id, seq = table_of(message)
            if kind == "table_joined":
                seats[table_id] = message.table_joined.seat
            if not table_id:
                continue
            seat = seats[table_id]
            extra = 0
            if kind == "action_rejected":
                extra = named[(table_id, message.action_rejected.request_id)]
            recorder.note(name, seat, table_id, seq, message, named=extra, kind=kind)
            if kind == "table_finished":
                finished += 1
            elif kind == "action_request":
                request = message.action_request
                if rng.random() < 0.3:
                    wrong = hostile_reply(request, rng)
                    named[(table_id, request.request_id)] |= mask_of_proto(wrong)
                    await call.write(reply(request, wrong))
                await call.write(reply(request, random_legal(request, rng)))
        call.cancel()


def reply(request: pb.ActionRequest, action: actions_pb2.Action) -> pb.ConnectRequest:
    return pb.ConnectRequest(
        action_reply=pb.ActionReply(
            table_id=request.table_id, request_id=request.request_id, action=action
        )
    )


def mask_of_proto(message: Message) -> int:
    mask = 0
    for card in proto_cards(message):
        mask |= 1 << card
    return mask


async def watch(
    target: str, table_id: str, recorder: Recorder, after_seq: int = 0, who: str = "watch"
) -> None:
    """A spectator of ``table_id`` until its game ends."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
        request = spectator_service_pb2.WatchTableRequest(table_id=table_id, after_seq=after_seq)
        async for response in stub.WatchTable(request, timeout=120):
            if response.WhichOneof("message") == "snapshot":
                seq = response.snapshot.last_seq
            else:
                seq = response.event.seq
            recorder.note(who, SPECTATOR, table_id, seq, response, kind="watch")


async def poll_organiser_views(
    server: RookeryServer, tables: list[Table], recorder: Recorder, stop: asyncio.Event
) -> int:
    """GetTable, ListTables, ListLiveTables, GetReplay and the web JSON of unfinished games."""
    polls = 0
    rng = random.Random(3)
    async with grpc.aio.insecure_channel(server.target) as channel:
        arena = arena_service_pb2_grpc.ArenaServiceStub(channel)
        spectators = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
        while not stop.is_set():
            live = [t for t in tables if not t.is_finished]
            if not live:
                break
            table = rng.choice(live)
            responses: list[Any] = [
                await arena.GetTable(arena_service_pb2.GetTableRequest(table_id=table.id)),
                await arena.ListTables(arena_service_pb2.ListTablesRequest()),
                await spectators.ListLiveTables(spectator_service_pb2.ListLiveTablesRequest()),
            ]
            try:
                await arena.GetReplay(arena_service_pb2.GetReplayRequest(table_id=table.id))
                finished_meanwhile = table.is_finished
                assert finished_meanwhile, "GetReplay answered for a game being played"
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
                responses.append(error.details() or "")
            seq = table.game_seq  # at least as far as any response could have seen
            for response in responses:
                recorder.note("organiser", SPECTATOR, table.id, seq, response, kind="poll")
            if not table.is_finished:
                view = live_table_json(table)
                current = view.get("hand") or {}
                recorder.note(
                    "web", SPECTATOR, table.id, table.game_seq, json.dumps(current), kind="web"
                )
                previous = view.get("previous_hand")
                if previous is not None:
                    assert previous["number"] < current.get("number", 1 << 30)
            polls += 1
            await asyncio.sleep(0.01)
    return polls


# Checking -----------------------------------------------------------------------------------


def proto_cards(message: Message, skip: frozenset[str] = frozenset()) -> Iterator[int]:
    """Every card a proto message names (nested), as engine cards; impossible cards skipped."""
    for descriptor, value in message.ListFields():
        if descriptor.name in skip:
            continue
        if descriptor.message_type is None:
            continue
        values = value if descriptor.is_repeated else [value]
        if descriptor.message_type.full_name == "rookery.v1.Card":
            for card in values:
                try:
                    yield card_from_proto(card)
                except MalformedMessageError:
                    continue
        elif not descriptor.message_type.GetOptions().map_entry:
            for item in values:
                yield from proto_cards(item, skip)


def text_cards(text: str) -> Iterator[int]:
    for match in CARD_TEXT.finditer(text):
        yield parse_card(match.group())


def proto_texts(message: Message) -> Iterator[str]:
    for descriptor, value in message.ListFields():
        if descriptor.type == descriptor.TYPE_STRING and descriptor.name in TEXT_FIELDS:
            yield from value if descriptor.is_repeated else [value]
        elif (
            descriptor.message_type is not None
            and not descriptor.message_type.GetOptions().map_entry
        ):
            values = value if descriptor.is_repeated else [value]
            for item in values:
                yield from proto_texts(item)


@dataclass
class Verdict:
    messages: int = 0
    card_mentions: int = 0
    leaks: list[str] = field(default_factory=list)


def check(recorded: list[Received], tables: dict[str, Table]) -> Verdict:
    """Every card named in every recorded message against what its receiver may know."""
    verdict = Verdict()
    truth: dict[tuple[str, int], list[int]] = {}
    for item in recorded:
        table = tables[item.table_id]
        key = (item.table_id, item.viewer)
        if key not in truth:
            truth[key] = knowledge(table, item.viewer)
        known = truth[key][item.seq] | item.named
        deck = table.ruleset.deck_mask
        named: list[int] = []
        if isinstance(item.message, str):
            named.extend(text_cards(item.message))
        else:
            named.extend(proto_cards(item.message, frozenset({"callable_cards"})))
            for text in proto_texts(item.message):
                named.extend(text_cards(text))
            request = getattr(item.message, "action_request", None)
            if request is not None and request.legal_actions.callable_cards:
                calls = mask_of_cards(request.legal_actions.callable_cards)
                allowed = callable_cards_allowed(table, item.seq, item.viewer)
                if calls != allowed:
                    verdict.leaks.append(f"{item.table_id}: callable_cards differ from the rules")
        verdict.messages += 1
        verdict.card_mentions += len(named)
        for card in named:
            if deck >> card & 1 and not known >> card & 1:
                verdict.leaks.append(
                    f"{item.table_id} seq {item.seq}: viewer {item.viewer} was shown card "
                    f"{card} in a {item.kind} message: {str(item.message)[:300]}"
                )
    return verdict


def mask_of_cards(cards: Any) -> int:
    return sum(1 << card_from_proto(card) for card in cards)


# The test -----------------------------------------------------------------------------------


async def play_every_preset(server: RookeryServer) -> tuple[Recorder, dict[str, Table], int]:
    recorder = Recorder()
    most = max(ruleset.players for ruleset in PRESETS.values())
    names = [f"leak{seat}" for seat in range(most)]
    per_name = [sum(1 for r in PRESETS.values() if r.players > seat) for seat in range(most)]
    rng = random.Random(2024)
    sessions = [
        asyncio.create_task(
            play_and_record(
                server.target,
                name,
                per_name[seat] * TABLES_PER_PRESET,
                recorder,
                random.Random(rng.random()),
                batching=seat % 2 == 1,  # half the seats get their messages in batches
            )
        )
        for seat, name in enumerate(names)
    ]
    for name in names:
        await server.wait_for_bot(name)
    tables: dict[str, Table] = {}
    watchers: list[asyncio.Task[None]] = []
    clock = TimeControl(action_ms=10_000)
    for ruleset in PRESETS.values():
        short: Ruleset = ruleset.replace(max_hands=HANDS_PER_GAME)
        for number in range(TABLES_PER_PRESET):
            seats = tuple(names[: ruleset.players])
            table = await server.create_table(
                TableSpec(short, seats, seed=rng.randrange(2**63), time_control=clock)
            )
            tables[table.id] = table
            watchers.append(asyncio.create_task(watch(server.target, table.id, recorder)))
            if number == 0:
                later = watch(server.target, table.id, recorder, after_seq=5, who="late")
                watchers.append(asyncio.create_task(later))
    stop = asyncio.Event()
    polling = asyncio.create_task(
        poll_organiser_views(server, list(tables.values()), recorder, stop)
    )
    await asyncio.wait_for(asyncio.gather(*sessions), 150)
    stop.set()
    polls = await asyncio.wait_for(polling, 30)
    await asyncio.wait_for(asyncio.gather(*watchers), 30)
    return recorder, tables, polls


async def test_no_message_to_any_seat_or_spectator_reveals_a_card_it_may_not_know() -> None:
    async with running_server(ServerConfig(log_level="warning"), stop_grace_s=0.1) as server:
        recorder, tables, polls = await play_every_preset(server)
    assert len(tables) == len(PRESETS) * TABLES_PER_PRESET
    for table in tables.values():
        assert table.outcome is not None and table.outcome.result.hands_played >= 1
    verdict = check(recorder.received, tables)
    assert verdict.leaks == [], "\n".join(verdict.leaks[:10])
    kinds = {item.kind for item in recorder.received}
    assert {"event", "action_request", "action_rejected", "watch", "poll"} <= kinds
    assert polls > 0
    print(
        f"leak check: {verdict.messages} messages, {verdict.card_mentions} card mentions, "
        f"{len(tables)} games of {len(PRESETS)} presets, {polls} organiser polls"
    )


def test_the_checker_catches_a_card_shown_to_the_wrong_seat() -> None:
    """The property is live: a forged deal event to seat 0 carrying seat 1's cards is flagged."""

    async def one_game() -> tuple[Table, list[pb.ConnectResponse]]:
        from rookery.server.testing import bot_names, simple_action

        ruleset = Ruleset.preset("standard").replace(max_hands=1)
        table = Table("t-forged", TableSpec(ruleset, bot_names(4), seed=5), 5, TimeControl())
        sent: list[pb.ConnectResponse] = []

        class Session:
            def __init__(self, name: str) -> None:
                self.bot, self.version, self.is_attached = name, "", True
                self.wants_events = True
                self.defers_events = False
                self.groups_events = False
                self.wants_card_masks = True
                self.seat = -1

            def join(self, table: Table, seat: int) -> None:
                self.seat = seat

            def leave(self, table_id: str) -> None: ...

            def table_finished(self, table_id: str, message: pb.ConnectResponse) -> None: ...

            def send_encoded(self, message: bytes) -> None:  # most messages come encoded
                self.send(pb.ConnectResponse.FromString(message))

            def send(self, message: pb.ConnectResponse) -> None:
                if self.seat == 0:
                    sent.append(message)
                if message.WhichOneof("message") == "action_request":
                    request = message.action_request
                    answer = pb.ActionReply(
                        table_id=request.table_id,
                        request_id=request.request_id,
                        action=simple_action(request),
                    )
                    asyncio.get_running_loop().call_soon(
                        table.submit, self.seat, bot_reply_from_proto(answer)
                    )

        table.start()
        table.seat([Session(name) for name in bot_names(4)])  # type: ignore[misc]
        await asyncio.wait_for(table.wait_finished(), 30)
        return table, sent

    table, sent = asyncio.run(one_game())
    honest = [Received(0, table.id, table_of(m)[1], m, kind="event") for m in sent]
    assert check(honest, {table.id: table}).leaks == []
    forged = pb.ConnectResponse()
    forged.CopyFrom(sent[0])
    first_deal = table.game.events[0]
    assert isinstance(first_deal, HandDealt)
    forged.event.event.hand_dealt.your_cards.extend(
        card_to_proto(card) for card in cards_of(first_deal.hands[1])
    )
    leaked = check([Received(0, table.id, 1, forged, kind="event")], {table.id: table})
    assert len(leaked.leaks) == len(cards_of(first_deal.hands[1]))
    rejected = pb.ConnectResponse()
    hidden = card_name(cards_of(first_deal.hands[2])[0])
    rejected.action_rejected.message = f"seat 2 holds {hidden}"
    assert check(
        [Received(0, table.id, 1, rejected, kind="action_rejected")], {table.id: table}
    ).leaks
