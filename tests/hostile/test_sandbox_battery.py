"""The sandbox battery: hostile bots launched by a real arena in the sandbox, all in one gauntlet.

An honest bot plays each hostile bot (and a second honest bot) a duplicate pair with the CPU
clock. Every attack must be contained, the sandbox's events recorded against the attacker, and
the honest bots' games untouched. The tournament runs once for the module; each test checks one
attack.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import socket
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from rookery.arena.config import BotSpec, ClockKind, Format, TournamentConfig
from rookery.arena.launch import SandboxLimits, SandboxMode, probe
from rookery.arena.records import GameRow, RunStore, load_run, report_dict
from rookery.arena.run import TournamentRunner
from rookery.arena.run._runner import RunResult
from rookery.engine import Ruleset
from rookery.server import TimeControl
from rookery.web._report_html import render_html

HERE = Path(__file__).parent
ATTACKS = ("fork-bomb", "allocate", "connect", "read", "write", "daemon", "flood", "carry")
LIMITS = SandboxLimits(memory_mb=512, processes=64, file_size_mb=8, scratch_mb=16, log_kb=256)
SECRET = "SECRET-KEY-OF-THE-ORGANISER"


@dataclass
class Battery:
    """What the battery's run left: the result, its database rows, logs, and what it touched."""

    result: RunResult
    run_dir: Path
    bots_dir: Path
    home: Path
    connections: list[str]
    wall_s: float

    def incidents(self, bot: str) -> list[tuple[str, str]]:
        with sqlite3.connect(self.run_dir / "arena.sqlite") as db:
            rows = db.execute("SELECT kind, detail FROM incidents WHERE bot = ?", (bot,))
            return list(rows)

    def kinds(self, bot: str) -> set[str]:
        return {kind for kind, _ in self.incidents(bot)}

    def log(self, bot: str) -> str:
        return (self.run_dir / "logs" / f"{bot}.log").read_text(errors="replace")

    def games(self) -> list[GameRow]:
        store = RunStore(self.run_dir)
        try:
            return store.games("battery")
        finally:
            store.close()


def _listener(connections: list[str]) -> tuple[socket.socket, threading.Thread]:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)

    def accept() -> None:
        while True:
            try:
                client, peer = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            connections.append(str(peer))
            client.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    return server, thread


def _sandbox_uids(marker: str) -> list[int]:
    """Processes on the host still running under a sandbox's user id whose command line holds
    ``marker`` (this battery's own: other suites' sandboxed bots may run at the same time)."""
    from rookery.arena.launch import _sandbox as sandbox

    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                uid = os.stat(f"/proc/{entry}").st_uid
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            own = sandbox._UID_BASE <= uid < sandbox._UID_BASE + sandbox._UID_SPAN
            if own and marker.encode() in cmdline:
                found.append(int(entry))
    return found


def _run(base: Path, names: list[str], modes: dict[str, str], time_control: TimeControl) -> Battery:
    """A gauntlet of ``names`` (the first plays each other) in the sandbox, CPU clock."""
    support = probe(cgroups=False)
    assert support.available, support.describe()
    home = base / "home"
    home.mkdir()
    (home / "id_ed25519").write_text(SECRET)
    run_dir = base / "run"
    bots_dir = base / "bots"
    connections: list[str] = []
    listener, _ = _listener(connections)
    port = listener.getsockname()[1]
    bots = []
    for name in names:
        folder = bots_dir / name
        folder.mkdir(parents=True)
        shutil.copy(HERE / "sandbox_bots.py", folder / "bot.py")
        env = {
            "HOSTILE_MODE": modes.get(name, ""),
            "HOSTILE_PORT": str(port),
            "HOSTILE_HOME": str(home / "id_ed25519"),
            "HOSTILE_DB": str(run_dir / "arena.sqlite"),
            "HOSTILE_OTHER": str(bots_dir / names[1] / "bot.py"),
            "HOSTILE_RUN": str(run_dir),
            "HOSTILE_MARKER": str(base / "daemon-survived"),
        }
        command = (
            f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run "
            f"{shlex.quote(str(folder / 'bot.py'))}:Hostile"
        )
        bots.append(BotSpec(name, command, env=env, folder=str(folder)))
    config = TournamentConfig(
        name="battery",
        ruleset=Ruleset.preset("standard").replace(max_hands=1),
        bots=tuple(bots),
        format=Format.GAUNTLET,
        games=2,
        concurrency=2,
        time_control=time_control,
        bootstrap=0,
        sandbox=SandboxMode.ON,
        clock=ClockKind.CPU,
        limits=LIMITS,
    )
    old_home = os.environ["HOME"]
    os.environ["HOME"] = str(home)
    started = time.monotonic()
    try:
        result = asyncio.run(TournamentRunner(config, run_dir).run())
    finally:
        os.environ["HOME"] = old_home
        listener.close()
    return Battery(result, run_dir, bots_dir, home, connections, time.monotonic() - started)


@pytest.fixture(scope="module")
def battery(tmp_path_factory: pytest.TempPathFactory) -> Battery:
    """Two honest bots and every attack but the spinner, in one gauntlet."""
    clock = TimeControl(action_ms=1000, strike_limit=3, grace_ms=500)
    names = ["honest-a", "honest-b", *ATTACKS]
    return _run(tmp_path_factory.mktemp("battery"), names, {a: a for a in ATTACKS}, clock)


@pytest.fixture(scope="module")
def spinner(tmp_path_factory: pytest.TempPathFactory) -> Battery:
    """A bot that spins a thread while its opponent, an honest bot, thinks slowly (one second a
    move in wall time, no CPU): the CPU clock charges the spinner, not the thinker. A move's
    budget is 50 ms of CPU: the spinner exceeds it with a twentieth of a CPU."""
    clock = TimeControl(action_ms=50, strike_limit=3, grace_ms=500)
    modes = {"sleepy": "sleepy", "spin": "spin"}
    return _run(tmp_path_factory.mktemp("spinner"), ["sleepy", "spin"], modes, clock)


def test_the_tournament_finishes_every_game(battery: Battery) -> None:
    assert not battery.result.cancelled
    assert battery.result.recorded == battery.result.total == 2 * (len(ATTACKS) + 1)


def test_the_honest_bots_play_undisturbed(battery: Battery) -> None:
    for game in battery.games():
        for bot, stats in game.bot_stats.items():
            if bot.startswith("honest"):
                assert stats.actions > 0, (game.seat_bots, bot, stats)
                assert stats.timeouts == stats.auto_plays == stats.disconnects == 0, (
                    game.seat_bots,
                    bot,
                    stats,
                )
        if "honest-b" in game.seat_bots:
            assert game.termination == "MAX_HANDS"
    assert battery.incidents("honest-a") == []
    assert battery.incidents("honest-b") == []


def test_a_fork_bomb_hits_the_process_limit(battery: Battery) -> None:
    assert "fork bomb: started" in battery.log("fork-bomb")
    assert "fork bomb: a fork refused at the limit" in battery.log("fork-bomb")
    assert "too_many_processes" in battery.kinds("fork-bomb")


def test_allocating_8_gib_is_stopped_by_the_memory_limit(battery: Battery) -> None:
    assert "allocate 8 GiB: ok" not in battery.log("allocate")
    assert "out_of_memory" in battery.kinds("allocate")


def _lines(log: str, prefix: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith(prefix)]


def test_a_loopback_port_other_than_the_server_is_unreachable(battery: Battery) -> None:
    attempts = _lines(battery.log("connect"), "HOSTILE connect ")
    assert len(attempts) == 4  # two addresses, two games (one process each)
    assert all(": refused" in line for line in attempts), attempts
    assert all(": refused" in line for line in _lines(battery.log("connect"), "HOSTILE resolve"))
    assert battery.connections == []


def test_the_home_the_database_and_another_bots_folder_cannot_be_read(battery: Battery) -> None:
    log = battery.log("read")
    reads = _lines(log, "HOSTILE read ")
    assert len(reads) == 6  # three files, two games
    assert all(": refused" in line for line in reads), reads
    assert all(": refused" in line for line in _lines(log, "HOSTILE list /tmp")), log
    assert SECRET not in log
    assert "SQLite format" not in log


def test_nothing_can_be_written_outside_the_scratch_folder(battery: Battery) -> None:
    writes = _lines(battery.log("write"), "HOSTILE write ")
    assert len(writes) == 12, battery.log("write")  # five places and a big file, two games
    allowed = [w for w in writes if ": ok" in w]
    assert [w.split(":")[0] for w in allowed] == ["HOSTILE write /tmp/scratch.txt"] * 2, writes
    assert not (battery.run_dir / "dropped.txt").exists()
    assert not (battery.bots_dir / "write" / "dropped.txt").exists()
    assert not Path("/usr/local/dropped.txt").exists()
    assert not Path("/etc/dropped.txt").exists()
    assert "HOSTILE write a 16 MiB file: refused File too large" in battery.log("write")
    assert "refused_access" in battery.kinds("write")


def test_a_background_process_does_not_outlive_its_game(battery: Battery) -> None:
    assert "daemon: left behind" in battery.log("daemon")
    assert "leftover_processes" in battery.kinds("daemon")
    assert _sandbox_uids(str(battery.run_dir.parent / "daemon-survived")) == []


def test_a_gigabyte_on_stderr_is_cut_early(battery: Battery) -> None:
    log_size = (battery.run_dir / "logs" / "flood.log").stat().st_size
    assert log_size < 2 * (2 * LIMITS.log_kb * 1024 + 64 * 1024)  # two games, one process each
    assert "output cut" in battery.log("flood")
    assert "output_cut" in battery.kinds("flood")


def test_a_background_thread_pays_for_its_thinking_in_cpu_time(spinner: Battery) -> None:
    assert "background thread: spinning" in spinner.log("spin")
    assert "cpu_time_exhausted" in spinner.kinds("spin")
    for game in spinner.games():
        assert game.bot_stats["spin"].timeouts > 0
        assert game.bot_stats["sleepy"].timeouts == 0  # a second of sleep is no CPU time
    assert spinner.incidents("sleepy") == []


def test_no_file_survives_from_one_game_to_the_next(battery: Battery) -> None:
    log = battery.log("carry")
    assert log.count("HOSTILE carry: none") == 2
    assert "HOSTILE carry: found" not in log
    assert not (battery.bots_dir / "carry" / "carried.txt").exists()
    assert not (battery.home / "carried.txt").exists()


def test_the_report_lists_each_bots_sandbox_incidents(battery: Battery) -> None:
    data = load_run(battery.run_dir)
    counts = report_dict(data)["incidents"]
    assert counts["flood"]["output_cut"] >= 1
    assert counts["fork-bomb"]["too_many_processes"] >= 1
    assert "honest-a" not in counts
    assert "out_of_memory" in render_html(data)


def test_the_battery_stays_bounded(battery: Battery, spinner: Battery) -> None:
    assert battery.wall_s + spinner.wall_s < 240
