"""`rookery selfplay` and `rookery replay verify|show|export`, run as real processes."""

from __future__ import annotations

import gzip
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from rookery.engine import PRESETS
from rookery.v1 import replay_pb2
from rookery.wire.replay import encode_replay, read_replay, write_replay

Rookery = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def replay_file(selfplay_dirs: dict[str, Path]) -> Path:
    return selfplay_dirs["standard"] / "game-0001.jsonl.gz"


def _tampered(tmp_path: Path, source: Path, change: Callable[[replay_pb2.Replay], None]) -> Path:
    replay = read_replay(source)
    change(replay)
    path = tmp_path / "tampered.jsonl.gz"
    write_replay(path, replay)
    return path


# selfplay ---------------------------------------------------------------------------------------


def test_selfplay_writes_one_numbered_replay_per_game(selfplay_dirs: dict[str, Path]) -> None:
    for directory in selfplay_dirs.values():
        assert sorted(p.name for p in directory.iterdir()) == [
            "game-0001.jsonl.gz",
            "game-0002.jsonl.gz",
        ]


def test_selfplay_then_verify_passes_for_every_preset(
    rookery: Rookery, selfplay_dirs: dict[str, Path]
) -> None:
    files = sorted(p for d in selfplay_dirs.values() for p in d.iterdir())
    process = rookery("replay", "verify", *files)
    assert process.returncode == 0, process.stdout
    assert process.stdout.splitlines()[-1] == f"{len(files)} of {len(files)} replays verify"


def test_selfplay_is_reproducible_from_its_seed(
    rookery: Rookery, tmp_path: Path, selfplay_dirs: dict[str, Path]
) -> None:
    process = rookery(
        "selfplay", "--preset", "cutthroat", "--games", "1", "--seed", "12", "--out", tmp_path
    )
    assert process.returncode == 0
    again = read_replay(tmp_path / "game-0001.jsonl.gz")
    before = read_replay(selfplay_dirs["cutthroat"] / "game-0002.jsonl.gz")  # seed 11 + 1
    assert again.header.seed == before.header.seed == 12
    assert [h.deal for h in again.hands] == [h.deal for h in before.hands]
    assert [[a.action for a in h.actions] for h in again.hands] == [
        [a.action for a in h.actions] for h in before.hands
    ]
    assert again.result == before.result


def test_selfplay_prints_a_summary(rookery: Rookery, tmp_path: Path) -> None:
    process = rookery("selfplay", "--preset", "straight", "--games", "2", "--out", tmp_path)
    lines = process.stdout.splitlines()
    assert lines[0].startswith("2 games of straight: ")
    assert lines[1].startswith("wins: side ")
    assert lines[2].startswith("ended by: ")
    assert lines[3] == f"replays: {tmp_path} (game-0001.jsonl.gz … game-0002.jsonl.gz)"


def test_selfplay_refuses_an_unknown_preset(rookery: Rookery, tmp_path: Path) -> None:
    process = rookery("selfplay", "--preset", "bridge", "--out", tmp_path)
    assert process.returncode == 2
    assert "unknown preset 'bridge'; valid presets: standard, traditional" in process.stderr


# verify: tampered and corrupt files, checked by one `rookery replay verify` run ----------------


def _swap_deal_card(replay: replay_pb2.Replay) -> None:
    deal = replay.hands[0].deal
    kept = replay_pb2.ReplayHand().deal.nest.add()
    kept.CopyFrom(deal.hands[1].cards[0])
    deal.hands[1].cards[0].CopyFrom(deal.nest[0])
    deal.nest[0].CopyFrom(kept)


def _change_played_card(replay: replay_pb2.Replay) -> None:
    actions = replay.hands[0].actions
    index = next(i for i, a in enumerate(actions) if a.action.HasField("play_card"))
    actions[index].action.play_card.card.CopyFrom(actions[index + 1].action.play_card.card)


def _change_score(replay: replay_pb2.Replay) -> None:
    replay.hands[0].result.score_deltas[1] += 10


@dataclass
class VerifyRun:
    files: dict[str, Path]
    returncode: int
    lines: list[str]

    def of(self, name: str) -> list[str]:
        """The output lines about one file."""
        prefix = f"{self.files[name]}:"
        return [line for line in self.lines if line.startswith(prefix)]


@pytest.fixture(scope="session")
def verify_run(
    rookery: Rookery, selfplay_dirs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> VerifyRun:
    source = selfplay_dirs["standard"] / "game-0001.jsonl.gz"
    root = tmp_path_factory.mktemp("tampered")
    files = {"good": source, "missing": root / "missing.jsonl.gz"}
    for name, change in (
        ("deal", _swap_deal_card),
        ("play", _change_played_card),
        ("score", _change_score),
    ):
        replay = read_replay(source)
        change(replay)
        files[name] = root / f"{name}.jsonl.gz"
        write_replay(files[name], replay)
    data = source.read_bytes()
    files["truncated"] = root / "truncated.jsonl.gz"
    files["truncated"].write_bytes(data[: len(data) * 2 // 3])
    files["garbage"] = root / "garbage.jsonl.gz"
    files["garbage"].write_bytes(b"\x00\xff\xfe garbage \x80\x81" * 10)
    lines = gzip.decompress(data).splitlines(keepends=True)
    files["headless"] = root / "headless.jsonl.gz"
    files["headless"].write_bytes(gzip.compress(b"".join(lines[1:])))
    process = rookery("replay", "verify", *files.values())
    assert "Traceback" not in process.stdout + process.stderr
    return VerifyRun(files, process.returncode, process.stdout.splitlines())


def test_verify_fails_when_any_file_fails_and_counts_the_good_ones(verify_run: VerifyRun) -> None:
    assert verify_run.returncode == 1
    assert verify_run.of("good")[0].startswith(f"{verify_run.files['good']}: ok (")
    assert verify_run.lines[-1] == f"1 of {len(verify_run.files)} replays verify"


def test_a_changed_card_in_the_deal_fails_verify(verify_run: VerifyRun) -> None:
    line = verify_run.of("deal")[0]
    assert line.split(": ", 1)[1].startswith("hand 0: deal.hands[1].cards: expected ")
    assert "got " in line and "missing " in line


def test_a_changed_played_card_fails_verify_at_its_action(verify_run: VerifyRun) -> None:
    (line,) = verify_run.of("play")
    assert ": hand 0, action " in line and "illegal" in line


def test_a_changed_score_fails_verify_with_expected_and_got(verify_run: VerifyRun) -> None:
    (line,) = verify_run.of("score")
    assert ": hand 0: result.score_deltas: expected [" in line
    assert "], got [" in line


def test_a_truncated_gzip_file_fails_verify(verify_run: VerifyRun) -> None:
    (line,) = verify_run.of("truncated")
    assert "truncated gzip file: the compressed stream ends early, after " in line


def test_garbage_bytes_fail_verify(verify_run: VerifyRun) -> None:
    path = verify_run.files["garbage"]
    assert verify_run.of("garbage") == [
        f"{path}:1: not UTF-8 text (byte 1) and not gzip data either"
    ]


def test_a_missing_header_fails_verify(verify_run: VerifyRun) -> None:
    path = verify_run.files["headless"]
    assert verify_run.of("headless") == [
        f"{path}:1: missing header: the first record is a hand, not the header"
    ]


def test_an_unreadable_file_fails_verify(verify_run: VerifyRun) -> None:
    (line,) = verify_run.of("missing")
    assert line.startswith(f"{verify_run.files['missing']}: cannot read: ")


# show and export --------------------------------------------------------------------------------


def test_show_prints_the_seats_and_every_hand(rookery: Rookery, replay_file: Path) -> None:
    process = rookery("replay", "show", replay_file)
    assert process.returncode == 0
    text = process.stdout
    replay = read_replay(replay_file)
    assert "  seat 0 (side 0): random-0 1" in text
    for index in range(len(replay.hands)):
        assert f"Hand {index} (dealer " in text
    assert "trick  1: " in text
    assert "Game over (TARGET_REACHED)" in text or "Game over (MAX_HANDS)" in text


def test_show_refuses_a_replay_that_does_not_re_simulate(
    rookery: Rookery, tmp_path: Path, replay_file: Path
) -> None:
    def change(replay: replay_pb2.Replay) -> None:
        replay.hands[0].actions[0].seat = 3

    path = _tampered(tmp_path, replay_file, change)
    process = rookery("replay", "show", path)
    assert process.returncode == 1
    assert process.stderr.startswith(f"{path}: cannot show a replay that does not re-simulate")
    assert "Traceback" not in process.stderr


def test_export_prints_the_whole_replay_as_canonical_json(
    rookery: Rookery, replay_file: Path
) -> None:
    process = rookery("replay", "export", replay_file)
    assert process.returncode == 0
    exported = json_format.Parse(process.stdout, replay_pb2.Replay())
    assert exported == read_replay(replay_file)
    assert '"botName": "random-0"' in process.stdout


def test_an_exported_replay_reads_and_verifies_again(
    rookery: Rookery, tmp_path: Path, replay_file: Path
) -> None:
    path = tmp_path / "game.json"
    path.write_text(rookery("replay", "export", replay_file).stdout)
    assert rookery("replay", "verify", path).returncode == 0


def test_plain_json_lines_files_verify(rookery: Rookery, tmp_path: Path, replay_file: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_bytes(encode_replay(read_replay(replay_file), compress=False))
    assert rookery("replay", "verify", path).returncode == 0


@pytest.mark.parametrize(
    "command", ["selfplay", "replay", "replay verify", "replay show", "replay export"]
)
def test_help_has_examples(cli: Callable[..., Any], command: str) -> None:
    process = cli(*command.split(), "--help")
    assert process.returncode == 0
    assert "example" in process.stdout


def test_presets_are_all_covered(selfplay_dirs: dict[str, Path]) -> None:
    assert set(selfplay_dirs) == set(PRESETS)
