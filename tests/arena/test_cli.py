"""`rookery arena run` as a subprocess: resume after SIGKILL, SPRT exit codes, config errors."""

from __future__ import annotations

import hashlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from rookery.arena.records import RunStore

HERE = Path(__file__).parent
PYTHON = shlex.quote(sys.executable)


def arena_command(out: Path, *extra: str) -> list[str]:
    bots = HERE / "sdk_bots.py"
    return [
        sys.executable, "-m", "rookery.cli.main", "arena", "run",
        "--bot", f"random={PYTHON} -m rookery.cli.main bot run {bots}:RandomBot",
        "--bot", f"greedy={PYTHON} -m rookery.cli.main bot run {bots}:GreedyBot",
        "--target", "100", "--concurrency", "2", "--seed", "5", "--out", str(out), *extra,
    ]  # fmt: skip


def replay_hashes(run: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((run / "replays").glob("*.jsonl.gz"))
    }


def test_a_run_killed_mid_way_resumes_without_losing_or_doubling_games(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = arena_command(out, "--games", "20", "--no-report")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    recorded = 0
    while time.monotonic() < deadline and recorded < 6:
        time.sleep(0.2)
        if (out / "arena.sqlite").exists():
            with RunStore(out) as store:
                recorded = store.count_games("arena") if store.tournaments() else 0
    assert recorded >= 6, "the run did not get going"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    with RunStore(out) as store:
        before = {g.game_id: g.replay_sha256 for g in store.games("arena")}
    assert 0 < len(before) < 20
    hashes_before = replay_hashes(out)
    for game_id, digest in before.items():
        assert hashes_before[f"{game_id}.jsonl.gz"] == digest

    finished = subprocess.run(
        [*command, "--resume", str(out)], capture_output=True, text=True, timeout=120
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "resumed" in finished.stdout
    with RunStore(out) as store:
        games = store.games("arena")
    assert sorted(g.index for g in games) == list(range(20))
    after = replay_hashes(out)
    assert len(after) == 20
    for game_id, digest in before.items():
        assert after[f"{game_id}.jsonl.gz"] == digest
    for game in games:
        assert after[f"{game.game_id}.jsonl.gz"] == game.replay_sha256


def test_sprt_exit_code_is_zero_when_the_new_bot_is_better(tmp_path: Path) -> None:
    command = arena_command(tmp_path / "run", "--format", "sprt", "--games", "200")
    command += ["--elo0", "0", "--elo1", "100"]
    # The first bot is the new one: put greedy first.
    command[6], command[8] = command[8], command[6]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "H1" in finished.stdout


def test_sprt_exit_code_is_one_when_the_new_bot_is_worse(tmp_path: Path) -> None:
    command = arena_command(tmp_path / "run", "--format", "sprt", "--games", "200")
    command += ["--elo0", "0", "--elo1", "100"]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 1, finished.stdout + finished.stderr


def test_sprt_exit_code_is_two_when_the_cap_comes_first(tmp_path: Path) -> None:
    command = arena_command(tmp_path / "run", "--format", "sprt", "--games", "2")
    command += ["--elo0", "0", "--elo1", "5"]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 2, finished.stdout + finished.stderr


def test_a_corrupt_config_exits_with_a_precise_error(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('games = "many"\n')
    finished = subprocess.run(
        [sys.executable, "-m", "rookery.cli.main", "arena", "run", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
    )
    assert finished.returncode == 3
    assert f"{config}: games: must be an integer" in finished.stderr


def test_a_bot_command_that_cannot_start_is_reported(tmp_path: Path) -> None:
    finished = subprocess.run(
        [
            sys.executable, "-m", "rookery.cli.main", "arena", "run",
            "--bot", "a=/nonexistent/bot", "--bot", "b=/nonexistent/bot",
            "--out", str(tmp_path / "run"),
        ],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert finished.returncode == 3
    assert "command not found" in finished.stderr and "/nonexistent/bot" in finished.stderr


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_token_mode_plays_a_registered_remote_bot_and_issues_launched_bots_tokens(
    tmp_path: Path,
) -> None:
    registry = tmp_path / "bots.sqlite"
    added = subprocess.run(
        [sys.executable, "-m", "rookery.cli.main", "bots", "add", "contestant",
         "--db", str(registry)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    token = added.stdout.split()[0]
    port = _free_port()
    out = tmp_path / "run"
    bots = HERE / "sdk_bots.py"
    arena = subprocess.Popen(
        [sys.executable, "-m", "rookery.cli.main", "arena", "run",
         "--bot", "contestant=remote",
         "--bot", f"greedy={PYTHON} -m rookery.cli.main bot run {bots}:GreedyBot",
         "--auth", "token", "--registry", str(registry), "--listen", f"127.0.0.1:{port}",
         "--remote-wait", "60", "--target", "100", "--games", "2", "--concurrency", "1",
         "--out", str(out), "--no-report"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    remote = subprocess.Popen(
        [sys.executable, "-m", "rookery.cli.main", "bot", "run", f"{bots}:RandomBot",
         "--server", f"127.0.0.1:{port}", "--token", token, "--name", "contestant",
         "--sessions", "2", "--connect-timeout", "60", "--log-level", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        output, _ = arena.communicate(timeout=120)
    finally:
        remote.terminate()
        remote.wait(timeout=15)
    assert arena.returncode == 0, output.decode()
    with RunStore(out) as store:
        assert store.count_games("arena") == 2
        bots_recorded = {b.name: b.remote for b in store.bots("arena")}
    assert bots_recorded == {"contestant": True, "greedy": False}
    listed = subprocess.run(
        [sys.executable, "-m", "rookery.cli.main", "bots", "list", "--db", str(registry)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert "contestant" in listed.stdout and "greedy" in listed.stdout


def test_a_bare_reference_bot_name_runs_that_reference_bot(tmp_path: Path) -> None:
    """`--bot heuristic` needs no command: it launches the reference bot of that name."""
    out = tmp_path / "run"
    command = [sys.executable, "-m", "rookery.cli.main", "arena", "run",
               "--bot", "random", "--bot", "heuristic", "--games", "2", "--target", "100",
               "--concurrency", "2", "--no-report", "--out", str(out)]  # fmt: skip
    finished = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    with RunStore(out) as store:
        bots = {bot.name: bot.command for bot in store.bots("arena")}
        assert store.count_games("arena") == 2
    assert set(bots) == {"random", "heuristic"}
    assert "rookery.client.bots" in bots["heuristic"]
