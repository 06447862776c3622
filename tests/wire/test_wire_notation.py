"""Rook game notation: every replay of a mixed tournament survives the text round trip.

The tournament: the reference bots ``random`` and ``heuristic`` seated alternately over several
presets (called-partner, cutthroat, five-handed among them), a clock, rejected replies (a card
not in the hand, a malformed message), auto-played moves, a forfeit and an abort. Each replay is
written as text, read back, re-simulated, and compared record by record with the original.
"""

from __future__ import annotations

import io
import random
import re
from functools import cache

import pytest
from rookery.client.bots import POLICIES
from rookery.engine import (
    PASS,
    PRESETS,
    AllPass,
    Forfeit,
    ForfeitKind,
    Game,
    Phase,
    PlayCard,
    cards_of,
)
from rookery.v1 import actions_pb2, cards_pb2, notes_pb2, replay_pb2, table_pb2
from rookery.wire.notation import NotationError, format_game, iter_games, parse_game
from rookery.wire.replay import ActionOutcome, ReplayBuilder, verify_replay

PRESET_NAMES = (
    "standard",
    "called-partner",
    "cutthroat",
    "five-handed",
    "traditional",
    "double-bird",
    "straight",
    "nest-4",
)
CLOCK = table_pb2.TimeControl(
    action_ms=1000, bank_ms=5000, late_policy=table_pb2.LATE_POLICY_AUTO_PLAY, strike_limit=9
)


def _play(name: str, seed: int, *, end: str = "rules", forced: bool = False) -> replay_pb2.Replay:
    """One tournament game of ``name``: random and heuristic seats, odd replies now and then,
    everybody passing in hand 0 of an even seed; ``end`` is ``rules``, ``forfeit`` (seat 1,
    mid-hand 1) or ``abort`` (mid-hand 0); ``forced``: the dealer must bid after four passes."""
    ruleset = PRESETS[name].replace(target=200, max_hands=8)
    if forced:
        ruleset = ruleset.replace(all_pass=AllPass.DEALER_FORCED)
    kinds = ["random" if seat % 2 == 0 else "heuristic" for seat in range(ruleset.players)]
    policies = [POLICIES[kind]() for kind in kinds]
    builder = ReplayBuilder()
    builder.start(
        ruleset,
        seed,
        seats=[(f"{kind}-{seat}", "1.0") for seat, kind in enumerate(kinds)],
        table_id=f"{name}-{seed}",
        tournament_id="mixed",
        time_control=CLOCK,
        server_version="rookery test",
    )
    game: Game = builder.game
    rng = random.Random(seed)
    marks = random.Random(f"marks {seed}")  # notes and fallbacks: the games stay as they were
    moves = 0
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        moves += 1
        if end == "forfeit" and game.hand_number == 1 and moves > 5:
            break
        if end == "abort" and moves > 9:
            break
        observation = game.observation_for(seat)
        if game.phase is Phase.PLAY and rng.random() < 0.04:
            foreign = min(cards_of(ruleset.deck_mask & ~observation.hand))
            builder.record_action(
                seat, PlayCard(foreign), 3, ActionOutcome.REJECTED, 'not in "the" hand\\'
            )
        if rng.random() < 0.01:
            builder.record_action(
                seat, actions_pb2.Action(), 2, ActionOutcome.REJECTED, "malformed: no kind"
            )
        if rng.random() < 0.01:
            no_card = actions_pb2.Action(
                play_card=actions_pb2.PlayCard(
                    card=cards_pb2.Card(suit=cards_pb2.SUIT_RED, rank=15)
                )
            )
            builder.record_action(seat, no_card, 2, ActionOutcome.REJECTED, "no such card; R15")
        action = policies[seat](observation, observation.legal_actions(), rng)
        if seed % 2 == 0 and game.hand_number == 0 and game.phase is Phase.BIDDING:
            action = PASS
        outcome = ActionOutcome.AUTO_PLAYED if rng.random() < 0.03 else ActionOutcome.ACCEPTED
        note, fallback = _note_and_fallback(marks, outcome)
        builder.record_action(
            seat, action, rng.randrange(1, 900), outcome, note=note, fallback=fallback
        )
    if end == "forfeit":
        builder.finish(forfeit=Forfeit(1, ForfeitKind.STRIKES, "9 strikes"), detail="9 strikes")
    elif end == "abort":
        builder.finish(aborted=True, detail="operator\nstopped it")
    else:
        builder.finish()
    replay = builder.replay()
    assert verify_replay(replay) == [], name
    return replay


def _note_and_fallback(
    marks: random.Random, outcome: ActionOutcome
) -> tuple[notes_pb2.BotNote | None, notes_pb2.Fallback | None]:
    """Now and then a note (quotes, ";" and "," in its text, named numbers)
    and, on a bot's own reply, its SDK's fallback mark."""
    note = fallback = None
    if marks.random() < 0.1:
        note = notes_pb2.BotNote(text=marks.choice(['"7 of 9", x; y', "é\\n", ""]))
        for name in marks.sample(["samples", "best", "second.ev", "t-1_x"], marks.randrange(3)):
            note.values[name] = marks.choice([400.0, -0.125, 1e-7, 3.0])
    if outcome is ActionOutcome.ACCEPTED and marks.random() < 0.03:
        fallback = notes_pb2.Fallback(reason='act raised ValueError: no "card", R5; sorry')
    return note, fallback


@cache
def tournament() -> tuple[replay_pb2.Replay, ...]:
    """Two games of each preset, then a forfeited, an aborted and a dealer-forced game."""
    games = [_play(name, seed) for name in PRESET_NAMES for seed in (1, 2)]
    games.append(_play("called-partner", 7, end="forfeit"))
    games.append(_play("cutthroat", 8, end="abort"))
    games.append(_play("standard", 4, forced=True))
    return tuple(games)


def _without_think_times(replay: replay_pb2.Replay) -> replay_pb2.Replay:
    copy = replay_pb2.Replay()
    copy.CopyFrom(replay)
    for hand in copy.hands:
        for recorded in hand.actions:
            recorded.think_ms = 0
    return copy


def _without_notes(replay: replay_pb2.Replay) -> replay_pb2.Replay:
    copy = replay_pb2.Replay()
    copy.CopyFrom(replay)
    for hand in copy.hands:
        for recorded in hand.actions:
            recorded.ClearField("note")
            recorded.ClearField("fallback")
    return copy


def test_the_tournament_holds_what_the_notation_must_carry() -> None:
    replays = tournament()
    outcomes = {a.outcome for r in replays for h in r.hands for a in h.actions}
    assert outcomes == {
        replay_pb2.ACTION_OUTCOME_ACCEPTED,
        replay_pb2.ACTION_OUTCOME_AUTO_PLAYED,
        replay_pb2.ACTION_OUTCOME_REJECTED,
    }
    assert any(h.result.redeal for r in replays for h in r.hands)
    forced = replays[-1].hands[0]
    assert not any(a.action.HasField("bid") for a in forced.actions)
    assert forced.result.bidder == forced.dealer and forced.result.bid == 70
    assert any(h.deal.dead for r in replays for h in r.hands)
    assert any(not h.HasField("result") for r in replays for h in r.hands)  # cut short
    assert {r.header.ruleset.name for r in replays} == set(PRESET_NAMES)
    kept = [a.action for r in replays for h in r.hands for a in h.actions if a.action.ByteSize()]
    assert any(a.play_card.card.rank == 15 for a in kept)  # a malformed message, kept as bytes
    assert any(not a.action.ByteSize() for r in replays for h in r.hands for a in h.actions)
    assert any(a.HasField("note") for r in replays for h in r.hands for a in h.actions)
    assert any(a.HasField("fallback") for r in replays for h in r.hands for a in h.actions)


def test_every_replay_of_the_tournament_round_trips_through_text_and_re_simulates() -> None:
    for replay in tournament():
        game = parse_game(format_game(replay), "t.rgn")
        assert verify_replay(game.replay) == [], replay.header.table_id
        assert game.replay.result == replay.result
        assert game.replay == _without_think_times(replay), replay.header.table_id


def test_the_text_does_not_carry_think_times() -> None:
    replay = tournament()[0]
    read = parse_game(format_game(replay)).replay
    assert any(a.think_ms for h in replay.hands for a in h.actions)
    assert all(a.think_ms == 0 for h in read.hands for a in h.actions)


def test_a_stream_of_many_games_is_read_game_by_game_with_their_lines() -> None:
    text = "".join(format_game(replay) for replay in tournament())
    games = list(iter_games(io.StringIO(text), "all.rgn"))
    assert [g.replay.header.table_id for g in games] == [r.header.table_id for r in tournament()]
    lines = text.split("\n")
    for game in games:
        for index, number in enumerate(game.hand_lines):
            assert lines[number - 1].startswith(f"hand {index} dealer ")
        assert game.line is not None
        assert lines[game.line - 1].startswith("[Ruleset ")


def test_comments_and_escape_lines_are_read_and_kept_apart_from_the_moves() -> None:
    replay = tournament()[0]
    lines = format_game(replay).split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("hand 0 "))
    parts = lines[at].split("; ")
    parts[4] += " {samples 400; ev 61.5 {nested? no}"  # a comment may hold ; but not }
    lines[at] = "; ".join(parts)
    lines.insert(0, "% written by hand")
    game = parse_game("\n".join(lines))
    assert game.comments == [(0, 1, "samples 400; ev 61.5 {nested? no")]
    assert game.replay == _without_think_times(replay)


def _hand_line(text: str, hand: int) -> int:
    return next(
        i for i, line in enumerate(text.split("\n")) if line.startswith(f"hand {hand} dealer ")
    )


def _edit(text: str, index: int, old: str, new: str) -> str:
    lines = text.split("\n")
    assert old in lines[index]
    lines[index] = lines[index].replace(old, new, 1)
    return "\n".join(lines)


def test_a_card_changed_to_one_not_in_the_hand_is_named_by_line_hand_and_action() -> None:
    text = format_game(tournament()[0])  # standard: hand, deal, nest, then the moves
    at = _hand_line(text, 1)
    parts = text.split("\n")[at].split("; ")
    moves = parts[3:]
    index = next(i for i, move in enumerate(moves) if move.startswith("trick 1: "))
    lead = re.match(r"trick 1: (\d) (\S+),", moves[index])  # the lead of the first trick
    assert lead is not None
    seat = int(lead.group(1))
    foreign = parts[1].removeprefix("deal ").split(" / ")[(seat + 1) % 4].split()[0]
    edited = _edit(text, at, lead.group(0), f"trick 1: {seat} {foreign},")
    game = parse_game(edited, "b.rgn")
    problems = verify_replay(game.replay)
    assert problems[0].startswith(f"hand 1, action {index}: seat {seat} play {foreign}: illegal")
    assert game.locate(problems[0]) == f"{at + 1}: {problems[0]}"


def test_a_trick_numbered_wrong_is_named_by_line_and_hand() -> None:
    text = format_game(tournament()[0])
    at = _hand_line(text, 0)
    with pytest.raises(NotationError) as caught:
        parse_game(_edit(text, at, "; trick 2: ", "; trick 3: "), "n.rgn")
    assert re.fullmatch(
        rf"n\.rgn:{at + 1}: hand 0: action \d+: expected trick 2 \(4 cards played before it\), "
        "got trick 3",
        str(caught.value),
    ), str(caught.value)


def test_a_missing_hand_line_is_named_with_the_hand_that_is_missing() -> None:
    text = format_game(tournament()[0])
    lines = text.split("\n")
    at = _hand_line(text, 1)
    del lines[at]
    with pytest.raises(NotationError) as caught:
        parse_game("\n".join(lines), "gap.rgn")
    assert str(caught.value) == (
        f"gap.rgn:{at + 1}: hand 1: expected hand 1, got hand 2: hand 1 is missing"
    )


def test_a_missing_last_hand_line_is_named_against_the_hands_played_tag() -> None:
    replay = tournament()[0]
    text = format_game(replay)
    last = len(replay.hands) - 1
    lines = text.split("\n")
    del lines[_hand_line(text, last)]
    tag = next(i for i, line in enumerate(lines) if line.startswith("[HandsPlayed "))
    with pytest.raises(NotationError) as caught:
        parse_game("\n".join(lines), "short.rgn")
    assert str(caught.value) == (
        f'short.rgn:{tag + 1}: [HandsPlayed "{replay.result.hands_played}"] but only {last} '
        f"hand lines: hand {last} is missing"
    )


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ('[Seed "', '[Seed "x', "[Seed]: expected a number 0 … 2**64-1, got 'x"),
        ('[Rules "players=', '[Rules "seats=', "[Rules]: expected name=value with a name among"),
        ("partnership=FIXED", "partnership=LOOSE", "[Rules]: partnership: expected one of FIXED"),
        ('[Termination "', '[Ending "', "unknown tag [Ending]"),
        ('[Table "', '[Table "x" extra', 'expected a tag pair [Name "value"]'),
        ('[Date "', '[Date "yesterday', "[Date]: expected an RFC 3339 time"),
    ],
)
def test_a_bad_header_is_named_by_its_line_and_tag(old: str, new: str, reason: str) -> None:
    text = format_game(tournament()[0])
    at = next(i for i, line in enumerate(text.split("\n")) if old in line)
    with pytest.raises(NotationError) as caught:
        parse_game(_edit(text, at, old, new), "h.rgn")
    assert str(caught.value).startswith(f"h.rgn:{at + 1}: {reason}"), str(caught.value)


def test_a_missing_required_tag_is_named() -> None:
    text = format_game(tournament()[0])
    lines = [line for line in text.split("\n") if not line.startswith("[Seed ")]
    with pytest.raises(NotationError) as caught:
        parse_game("\n".join(lines), "m.rgn")
    assert str(caught.value) == 'm.rgn:1: missing tag [Seed "…"] in the game\'s tags'


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ("; trick 1: ", "; trick 1: X ", "hand 0: action "),
        ("; trick 1: ", "; trick 1: 0 Q5, ", "hand 0: action "),
        ("; nest ", "; nets ", "hand 0: expected 'deal CARDS / CARDS …; nest CARDS'"),
        ("score bidder", "score bider", "hand 0: expected 'score redeal' or 'score bidder"),
        ("; deal B", "; deal X", "hand 0: deal of seat 0: not a card: 'X"),
        ("hand 0 dealer 0", "hand 0 dealer zero", "hand 0: dealer: expected a whole number"),
        ("; 1 ", "; {unclosed 1 ", "hand 0: a comment opened with { is not closed on its line"),
    ],
)
def test_a_corrupted_hand_line_is_named_by_line_and_hand(old: str, new: str, reason: str) -> None:
    text = format_game(tournament()[0])
    at = _hand_line(text, 0)
    with pytest.raises(NotationError) as caught:
        parse_game(_edit(text, at, old, new), "c.rgn")
    assert str(caught.value).startswith(f"c.rgn:{at + 1}: {reason}"), str(caught.value)


def test_garbage_after_the_tags_is_named_by_its_line() -> None:
    text = format_game(tournament()[0])
    lines = text.split("\n")
    at = _hand_line(text, 0)
    lines.insert(at, "\x00\x01 garbage ~~~")
    with pytest.raises(NotationError) as caught:
        parse_game("\n".join(lines), "g.rgn")
    assert str(caught.value).startswith(
        f"g.rgn:{at + 1}: expected a hand line 'hand 0 dealer D; deal …', got "
    )


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ('[Side1 "1"]', '[Side1 "0"]', "header: seats[1].side: expected side 1 (standard: seat 1)"),
        ('[Scores "', '[Scores "1 ', "result.scores: expected"),
        ('[Termination "TARGET_REACHED"]', '[Termination "MAX_HANDS"]', "result.reason: expected"),
        ('[Clock "action_ms=1000', '[Clock "action_ms=-1', "header: time_control.action_ms:"),
    ],
)
def test_a_header_the_re_simulation_contradicts_is_named_by_its_tags_line(
    old: str, new: str, problem: str
) -> None:
    text = format_game(tournament()[0])
    at = next(i for i, line in enumerate(text.split("\n")) if line.startswith(old))
    edited = text.split("\n")
    edited[at] = edited[at].replace(old, new, 1)
    game = parse_game("\n".join(edited))
    problems = verify_replay(game.replay)
    assert len(problems) == 1 and problems[0].startswith(problem), problems
    assert game.locate(problems[0]) == f"{at + 1}: {problems[0]}"


def test_a_bid_of_digits_that_are_not_ascii_is_a_notation_error_not_a_crash() -> None:
    text = format_game(tournament()[0])
    at = _hand_line(text, 0)
    line = text.split("\n")[at]
    bid = re.search(r"; (\d) bid (\d+);", line)
    assert bid is not None
    edited = _edit(text, at, bid.group(0), f"; {bid.group(1)} bid 7²;")
    with pytest.raises(NotationError) as caught:
        parse_game(edited, "u.rgn")
    assert str(caught.value).startswith(f"u.rgn:{at + 1}: hand 0: action ")
    assert str(caught.value).endswith("bid amount is not a number: '7²'")


def test_random_garbage_in_a_text_file_is_always_a_notation_error_or_a_game() -> None:
    """150 seeded mutations (inserted, deleted, copied characters) of one game's text: reading
    either raises NotationError or gives a game whose problems verify names; nothing else."""
    rng = random.Random(5)
    source = format_game(tournament()[0])
    pieces = [*'[]{}";/\\#!?%-0123456789 \nRBGY', "\x00", "é", "²", "99999999999", "#AAAA"]
    pieces += ["!outcome 5", ' ?rejected "x"', "; dead", "; nest -", "; score redeal"]
    outcomes = {"error": 0, "game": 0}
    for _ in range(150):
        text = source
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(text))
            choice = rng.random()
            if choice < 0.4:
                text = text[:i] + rng.choice(pieces) + text[i:]
            elif choice < 0.7:
                text = text[:i] + text[i + rng.randrange(1, 10) :]
            else:
                j = rng.randrange(len(text))
                text = text[:i] + text[j : j + rng.randrange(1, 30)] + text[i:]
        try:
            games = list(iter_games(io.StringIO(text), "z.rgn"))
        except NotationError as error:
            assert str(error).startswith("z.rgn")
            outcomes["error"] += 1
            continue
        for game in games:
            for problem in verify_replay(game.replay):
                assert re.match(r"\d+: ", game.locate(problem))
        outcomes["game"] += 1
    assert outcomes["error"] > 20 and outcomes["game"] > 5, outcomes


def test_plays_written_one_by_one_read_as_the_same_tricks() -> None:
    replay = _without_notes(tournament()[2])  # called-partner; this is about tricks
    text = format_game(replay)

    def one_by_one(match: re.Match[str]) -> str:
        plays = re.findall(
            r'(\d+) ([^\s,]+)((?: !auto| \?rejected "(?:[^"\\]|\\.)*")?)', match.group(1)
        )
        return "; ".join(f"{seat} play {card}{mark}" for seat, card, mark in plays)

    at = _hand_line(text, 1)
    lines = text.split("\n")
    tricks = re.findall(r"trick \d+: ", lines[at])
    assert len(tricks) >= 2
    flat = re.sub(r"trick \d+: ([^;]*)", one_by_one, lines[at])
    assert "trick" not in flat
    # keep the last trick grouped: its number counts the plays written one by one before it
    last = lines[at][lines[at].rindex("; trick ") + 2 :].split("; score")[0]
    flat = flat[: flat.index("; score")]
    flat = "; ".join(flat.split("; ")[: -len(last.split(", "))]) + "; " + last
    lines[at] = flat + lines[at][lines[at].index("; score") :]
    game = parse_game("\n".join(lines))
    assert game.replay == _without_think_times(replay)


def test_a_note_past_its_bounds_in_a_text_game_is_named_by_replay_verify() -> None:
    replay = replay_pb2.Replay()
    replay.CopyFrom(tournament()[0])
    replay.hands[0].actions[0].note.text = "x" * 513
    replay.hands[0].actions[1].note.values["bad name"] = 1.0
    game = parse_game(format_game(replay))
    assert verify_replay(game.replay) == [
        "hand 0, action 0: note.text is 513 bytes of UTF-8; at most 512 are allowed",
        "hand 0, action 1: note.values name 'bad name' is not 1 to 32 characters of [A-Za-z0-9_.-]",
    ]
