"""The action requests and events of ``rookery.wire.fastpath`` are the messages ``convert`` builds,
byte for byte, for every seat of every preset."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rookery.engine import PRESETS, Game, HandScored, Ruleset, build_info
from rookery.engine._game import Game as PureGame
from rookery.v1 import bot_service_pb2
from rookery.v1 import field_numbers as fields
from rookery.wire import convert
from rookery.wire.fastpath import (
    RequestEncoder,
    event_bytes,
    event_element,
    public_event_element,
    table_event_prefix,
)

pb = bot_service_pb2
ROOT = Path(__file__).resolve().parents[2]


def expected_request(game: Game, seat: int, request_id: int, masks: bool) -> bytes:
    message = pb.ConnectResponse()
    asked = message.action_request
    asked.table_id = "t-enc"
    asked.request_id = request_id
    asked.seat = seat
    asked.observation.CopyFrom(convert.observation_to_proto(game.observation_for(seat)))
    asked.legal_actions.CopyFrom(convert.legal_actions_to_proto(game.legal_actions()))
    asked.deadline_ms = 2000
    asked.bank_ms = 500
    asked.last_seq = 17
    if masks:  # only for a session that asked (Hello.card_masks)
        asked.card_masks.CopyFrom(
            convert.card_masks_to_proto(game.observation_for(seat), game.legal_actions())
        )
    return message.SerializeToString()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_action_requests_encode_as_convert_builds_them_for_every_seat(preset: str) -> None:
    ruleset = PRESETS[preset]
    game, encoder, rng = Game(ruleset, 11), RequestEncoder(ruleset), random.Random(11)
    for step in range(400):
        if game.is_over:
            break
        for seat in range(ruleset.players):  # every seat's view, the encoder's cache shared
            masks = (step + seat) % 2 == 1  # with and without the card masks
            got = encoder.action_request(
                table_id="t-enc",
                request_id=step + 1,
                seat=seat,
                observation=game.observation_for(seat),
                legal=game.legal_actions(),
                deadline_ms=2000,
                bank_ms=500,
                last_seq=17,
                masks=masks,
            )
            assert got == expected_request(game, seat, step + 1, masks)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(min(len(legal), 20))])


def test_an_event_encodes_as_a_table_event_message() -> None:
    game = Game(PRESETS["standard"], 3)
    event = convert.event_to_proto(game.events_since(0)[0], game.ruleset, None)
    expected = pb.ConnectResponse(event=pb.TableEvent(table_id="t-enc", event=event))
    assert event_bytes(table_event_prefix("t-enc"), event) == expected.SerializeToString()


# The core's writer against the Python encoder ---------------------------------------------------

#: Envelopes as tables send them and at the edges of the wire format: no table id, ids and
#: sequence numbers past one byte and past 32 bits, a negative int32, zeros (omitted).
ENVELOPES = [
    ("t-enc", 1, 2000, 500, 17),
    ("", 0, 0, 0, 0),
    ("table-" + "x" * 150, 2**40, 60_000, -1, 2**33),
    ("t-9", 300, -5, 2**31 - 1, 128),
]


def _core_game_of(ruleset: Ruleset, seed: int) -> Game:
    """A game on the native core (``make setup`` builds it wherever cargo is found; skipped only
    where it cannot be, or where ``ROOKERY_PURE_ENGINE`` asks for the pure engine)."""
    info = build_info()
    if info.kind != "core":
        if shutil.which("cargo") is not None and "not built" in info.reason:
            pytest.fail("cargo is here but the native core is not built")
        pytest.skip(f"the engine is {info}")
    return Game(ruleset, seed)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_cores_requests_are_the_python_encoders_bytes_for_every_seat(
    preset: str, short_ruleset: Callable[[str], Ruleset]
) -> None:
    """Random games of every preset (redeals, every phase, the game's end): at every state, every
    seat's request written by the core equals the Python encoder's, with and without masks."""
    ended = 0
    for seed in range(6):  # odd seeds: a low target, so that the game ends
        ruleset = PRESETS[preset] if seed % 2 == 0 else short_ruleset(preset)
        game = _core_game_of(ruleset, seed)
        core, reference, rng = RequestEncoder(ruleset), RequestEncoder(ruleset), random.Random(seed)
        for step in range(1000):
            if game.is_over:
                break
            for seat in range(-1, ruleset.players):  # -1: a spectator's view
                table_id, request_id, deadline_ms, bank_ms, last_seq = ENVELOPES[
                    (step + seat) % len(ENVELOPES)
                ]
                masks = (step + seat + seed) % 2 == 1
                written = core.game_request(
                    game,
                    table_id=table_id,
                    request_id=request_id + step,
                    seat=seat,
                    deadline_ms=deadline_ms,
                    bank_ms=bank_ms,
                    last_seq=last_seq,
                    masks=masks,
                )
                assert written == reference.action_request(
                    table_id=table_id,
                    request_id=request_id + step,
                    seat=seat,
                    observation=game.observation_for(seat),
                    legal=game.legal_actions(),
                    deadline_ms=deadline_ms,
                    bank_ms=bank_ms,
                    last_seq=last_seq,
                    masks=masks,
                ), f"{preset} seed {seed} step {step} seat {seat}"
            game.apply(game.legal_actions().sample(rng))
        ended += game.is_over
    assert ended


def test_a_game_on_the_core_has_its_requests_written_by_the_core() -> None:
    """Not vacuous: where the engine runs on the core, the encoder has the core's writer, and the
    writer refuses what is not a seat rather than writing it."""
    game = _core_game_of(PRESETS["standard"], 5)
    encoder = RequestEncoder(game.ruleset)
    assert encoder._writer is not None
    with pytest.raises(ValueError, match="not a seat"):
        encoder.game_request(
            game, table_id="t", request_id=1, seat=4, deadline_ms=1, bank_ms=1, last_seq=1
        )


def test_a_pure_game_has_its_requests_written_by_the_python_encoder() -> None:
    """The pure engine's game (the fallback) is encoded by the Python encoder, the same bytes."""
    ruleset = PRESETS["standard"]
    game = PureGame(ruleset, 3)
    encoder = RequestEncoder(ruleset)
    for _ in range(30):
        got = encoder.game_request(
            game, table_id="t", request_id=7, seat=1, deadline_ms=9, bank_ms=0, last_seq=3
        )
        assert got == expected_request_for(game, 1)
        game.apply(game.legal_actions()[0])


def expected_request_for(game: PureGame, seat: int) -> bytes:
    message = pb.ConnectResponse()
    asked = message.action_request
    asked.table_id, asked.request_id, asked.seat = "t", 7, seat
    asked.observation.CopyFrom(convert.observation_to_proto(game.observation_for(seat)))
    asked.legal_actions.CopyFrom(convert.legal_actions_to_proto(game.legal_actions()))
    asked.deadline_ms, asked.last_seq = 9, 3
    return message.SerializeToString()


def test_the_cores_field_numbers_are_generated_from_the_proto_files(tmp_path: Path) -> None:
    """``core/src/field_numbers.rs`` is what ``make proto`` writes from the .proto files now (a
    renumbered field fails here, not as a silent misreading in the core), and it holds the
    numbers ``rookery.v1.field_numbers`` holds."""
    generator = ROOT / "wire" / "generate_field_numbers.py"
    written = tmp_path / "field_numbers.rs"
    command = [sys.executable, str(generator), str(ROOT / "proto"), str(tmp_path)]
    done = subprocess.run(
        [*command, "--rust", str(written)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    committed = (ROOT / "core" / "src" / "field_numbers.rs").read_text(encoding="utf-8")
    assert committed == written.read_text(encoding="utf-8"), "run make proto and commit the file"
    block = committed[committed.index("pub mod action_request {") :]
    block = block[: block.index("}")]
    assert f"pub const CARD_MASKS: u32 = {fields.ActionRequest.CARD_MASKS};" in block


def test_the_tables_of_a_ruleset_share_the_cores_writer() -> None:
    """A writer holds only what a ruleset's requests share (2.8 KB): a table adds none."""
    ruleset = PRESETS["standard"]
    _core_game_of(ruleset, 1)
    first, second = RequestEncoder(ruleset), RequestEncoder(ruleset)
    assert first._writer is second._writer
    assert RequestEncoder(PRESETS["cutthroat"])._writer is not first._writer


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_public_events_encode_as_convert_builds_them_for_every_seat(
    preset: str, short_ruleset: Callable[[str], Ruleset]
) -> None:
    """Every event the fast path encodes once for everyone (plays, tricks, bids, passes and each
    hand's score with its deal) is what convert builds for every seat and for a spectator."""
    ruleset = short_ruleset(preset)
    scored = 0
    for seed in range(3):
        game, rng = Game(ruleset, seed), random.Random(seed)
        while not game.is_over:
            game.apply(game.legal_actions().sample(rng))
        for event in game.events_since(0):
            element = public_event_element(event)
            if element is None:
                continue
            scored += isinstance(event, HandScored)
            for seat in (None, *range(ruleset.players)):
                expected = event_element(convert.event_to_proto(event, ruleset, seat))
                assert element == expected, f"{preset} seed {seed}: {event} for seat {seat}"
    assert scored >= 3  # each game scored a hand at least
