"""`rookery replay export --format text` and `rookery replay verify` on game notation files.

Export writes the notation, verify reads it back (told from JSON by content) and re-simulates it;
a corrupted text file is reported by file, line and hand, exit 1, never a traceback.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rookery.engine import PRESETS
from rookery.wire.notation import format_game
from rookery.wire.replay import read_replay, write_replay
from rookery.wire.selfplay import play_random_game

Rookery = Callable[..., "subprocess.CompletedProcess[str]"]
Cli = Callable[..., Any]


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """JSON replay files of three presets (short games; the standard one of 3 hands or more)."""
    root = tmp_path_factory.mktemp("notation")
    paths = {}
    for seed, name in enumerate(("standard", "called-partner", "five-handed")):
        path = root / f"{name}.jsonl.gz"
        ruleset = PRESETS[name].replace(target=300 if name == "standard" else 150, max_hands=6)
        write_replay(path, play_random_game(ruleset, seed))
        paths[name] = path
    return paths


def test_export_as_text_writes_the_notation_and_verify_reads_it_back(
    cli: Cli, games: dict[str, Path], tmp_path: Path
) -> None:
    source = games["called-partner"]
    run = cli("replay", "export", "--format", "text", source)
    assert run.returncode == 0, run.stderr
    assert run.stdout == format_game(read_replay(source))
    assert run.stdout.startswith('[Ruleset "called-partner"]\n[Rules "players=4 ')
    text = tmp_path / "game.rgn"
    text.write_text(run.stdout)
    verified = cli("replay", "verify", text, source)
    assert verified.returncode == 0, verified.stdout
    hands = len(read_replay(source).hands)
    assert verified.stdout.splitlines() == [
        f"{text}: ok ({hands} hands)",
        f"{source}: ok ({hands} hands)",
        "2 of 2 replays verify",
    ]


def test_show_and_export_read_a_text_file_as_they_read_json(
    cli: Cli, games: dict[str, Path], tmp_path: Path
) -> None:
    source = games["five-handed"]
    text = tmp_path / "game.rgn"
    text.write_text(format_game(read_replay(source)))
    json_from_text = cli("replay", "export", text)
    assert json_from_text.returncode == 0
    shown_text, shown_json = cli("replay", "show", text), cli("replay", "show", source)
    assert shown_text.returncode == 0
    # the same game, think times aside (show prints none)
    assert shown_text.stdout == shown_json.stdout


def test_a_text_file_of_several_games_verifies_game_by_game(
    cli: Cli, games: dict[str, Path], tmp_path: Path
) -> None:
    texts = [format_game(read_replay(path)) for path in games.values()]
    many = tmp_path / "all.rgn"
    many.write_text("".join(texts))
    run = cli("replay", "verify", many)
    assert run.returncode == 0, run.stdout
    first_lines = [1, 1 + texts[0].count("\n"), 1 + texts[0].count("\n") + texts[1].count("\n")]
    hands = [len(read_replay(path).hands) for path in games.values()]
    assert run.stdout.splitlines() == [
        *(
            f"{many}: game {n} (line {line}): ok ({count} hands)"
            for n, (line, count) in enumerate(zip(first_lines, hands, strict=True), start=1)
        ),
        "3 of 3 replays verify",
    ]


def _lines(path: Path) -> list[str]:
    return path.read_text().split("\n")


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines))
    return path


def test_corrupted_text_files_are_named_by_file_line_and_hand(
    rookery: Rookery, games: dict[str, Path], tmp_path: Path
) -> None:
    """One real `rookery replay verify` process over every corruption: exactly its lines."""
    good = tmp_path / "good.rgn"
    good.write_text(format_game(read_replay(games["standard"])))
    lines = _lines(good)
    assert len(read_replay(games["standard"]).hands) >= 3
    first = next(i for i, line in enumerate(lines) if line.startswith("hand 0 "))
    second = next(i for i, line in enumerate(lines) if line.startswith("hand 1 "))

    # a card changed to one the seat does not hold: the first lead of hand 1
    parts = lines[second].split("; ")
    lead = next(i for i, part in enumerate(parts) if part.startswith("trick 1: "))
    seat, card_text = parts[lead].removeprefix("trick 1: ").split(",")[0].split()
    foreign = parts[1].removeprefix("deal ").split(" / ")[(int(seat) + 1) % 4].split()[0]
    changed = [*lines]
    changed[second] = changed[second].replace(
        f"; trick 1: {seat} {card_text},", f"; trick 1: {seat} {foreign},", 1
    )
    card = _write(tmp_path / "card.rgn", changed)

    missing = _write(tmp_path / "missing.rgn", [*lines[:second], *lines[second + 1 :]])
    seed_at = next(i for i, line in enumerate(lines) if line.startswith("[Seed "))
    header = _write(
        tmp_path / "header.rgn", [*lines[:seed_at], '[Seed "-1"]', *lines[seed_at + 1 :]]
    )
    garbage = _write(tmp_path / "garbage.rgn", [*lines[:first], "#!%$ garbage", *lines[first:]])
    binary = tmp_path / "binary.rgn"
    binary.write_bytes(b'[Ruleset "standard"]\n\xff\xfe\x00garbage\n')
    deal_at = lines[first].index("deal ") + len("deal ")
    wrong_deal = [*lines]
    word = wrong_deal[first][deal_at:].split()[0]
    other = wrong_deal[first][deal_at:].split(" / ")[1].split()[0]  # a card of seat 1
    wrong_deal[first] = wrong_deal[first].replace(f"deal {word} ", f"deal {other} ", 1)
    deal = _write(tmp_path / "deal.rgn", wrong_deal)

    process = rookery("replay", "verify", "--quiet", card, missing, header, garbage, binary, deal)
    assert process.returncode == 1
    assert "Traceback" not in process.stdout + process.stderr
    out = process.stdout.splitlines()
    action = lead - 3
    assert out[0].startswith(
        f"{card}:{second + 1}: hand 1, action {action}: seat {seat} play {foreign}: illegal: "
    ), out[0]
    assert (
        out[1] == f"{missing}:{second + 1}: hand 1: expected hand 1, got hand 2: hand 1 is missing"
    )
    assert out[2] == f"{header}:{seed_at + 1}: [Seed]: expected a number 0 … 2**64-1, got '-1'"
    assert out[3].startswith(
        f"{garbage}:{first + 1}: expected a hand line 'hand 0 dealer D; deal …', got '#!%$"
    )
    assert out[4] == f"{binary}:2: not UTF-8 text (byte 21)"
    assert out[5].startswith(f"{deal}:{first + 1}: hand 0: deal.hands[0].cards: expected "), out[5]
    assert out[5].endswith(f"(missing {word}; not dealt there: {other})"), out[5]
    # the text holds the deal once: it is the hand's deal and its result's deal
    assert out[6] == out[5].replace(": deal.hands[0]", ": result.deal.hands[0]", 1)
    assert len(out) == 7
