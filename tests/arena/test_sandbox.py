"""The sandbox's pieces, each on real processes, real bwrap and a real server: refusal when it
cannot be made, the environment and descriptors a bot gets, launch keys that bind seats, config."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rookery.arena.config import BotSpec, ClockKind, TournamentConfig, config_from_dict
from rookery.arena.errors import ArenaConfigError, SandboxUnavailableError
from rookery.arena.launch import (
    SandboxLimits,
    SandboxMode,
    SandboxRuntime,
    probe,
    start_bot_process,
)
from rookery.arena.launch._bot_process import BotProcess
from rookery.arena.launch._process_meter import _tree
from rookery.arena.run import TournamentRunner
from rookery.engine import Ruleset
from rookery.server import RookeryServer, ServerConfig, TableSpec, TableStatus
from rookery.server.testing import raw_bots


def test_sandbox_on_refuses_to_start_without_bwrap_and_names_the_package(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    make_config: Callable[..., TournamentConfig],
    make_sdk_bot: Callable[..., BotSpec],
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap to be found
    bots = (make_sdk_bot("a", "GreedyBot"), make_sdk_bot("b", "GreedyBot"))
    config = make_config(bots, sandbox=SandboxMode.ON)
    with pytest.raises(SandboxUnavailableError, match="apt-get install bubblewrap"):
        asyncio.run(TournamentRunner(config, tmp_path / "run").run())


def test_sandbox_auto_without_bwrap_plays_unconfined_and_says_so(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    make_config: Callable[..., TournamentConfig],
    make_sdk_bot: Callable[..., BotSpec],
) -> None:
    monkeypatch.setenv("PATH", f"{tmp_path}:{Path(sys.executable).parent}")
    bots = (make_sdk_bot("a", "GreedyBot"), make_sdk_bot("b", "GreedyBot"))
    config = make_config(bots, games=1)
    runner = TournamentRunner(config, tmp_path / "run")
    result = asyncio.run(runner.run())
    assert result.recorded == result.total == 2
    assert any("bots run unconfined: no sandbox: bwrap is not installed" in m
               for m in runner.live.messages)  # fmt: skip


def test_a_sandboxed_sdk_bot_talks_to_the_unix_socket_and_any_other_to_the_forwarded_port(
    tmp_path: Path,
    make_config: Callable[..., TournamentConfig],
    make_sdk_bot: Callable[..., BotSpec],
    make_rogue_bot: Callable[..., BotSpec],
) -> None:
    bots = (make_sdk_bot("sdk", "AddressBot"), make_rogue_bot("raw", "first"))
    runner = TournamentRunner(make_config(bots, games=1, sandbox=SandboxMode.ON), tmp_path / "run")
    result = asyncio.run(runner.run())
    assert result.recorded == result.total == 2
    logs = tmp_path / "run" / "logs"
    assert "server at unix:/run/rookery/server.sock" in (logs / "sdk.log").read_text()
    assert re.search(r"server at 127\.0\.0\.1:\d+", (logs / "raw.log").read_text())


async def _sandboxed_output(tmp_path: Path, script: str) -> str:
    support = probe(cgroups=False)
    socket_path = tmp_path / "server.sock"
    socket_path.touch()
    runtime = SandboxRuntime(support, SandboxLimits(), socket_path)
    env = runtime.environment({"ROOKERY_BOT_NAME": "x", "OTHER": "no"}, {"LISTED": "yes"})
    log = tmp_path / "bot.log"
    bot = await start_bot_process(
        [sys.executable, "-I", "-S", "-c", script],
        env,
        log,
        "test",
        label="test",
        runtime=runtime,
        server_target="127.0.0.1:45000",
    )
    await asyncio.wait_for(bot.process.wait(), 30)
    await bot.stop(grace_s=1.0)
    return log.read_text()


async def test_a_sandboxed_bot_gets_only_rookery_and_its_listed_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORGANISER_SECRET", "s3cret")
    script = "import os\nfor k in sorted(os.environ): print('ENV', k)\n"
    output = await _sandboxed_output(tmp_path, script)
    names = {line.split()[1] for line in output.splitlines() if line.startswith("ENV ")}
    assert names == {
        "HOME", "LANG", "LISTED", "PATH", "PYTHONUNBUFFERED", "ROOKERY_BOT_NAME", "TMPDIR",
    }  # fmt: skip
    assert "s3cret" not in output


async def test_a_sandboxed_bot_inherits_no_descriptor_and_runs_as_its_own_user(
    tmp_path: Path,
) -> None:
    extra = os.open(os.devnull, os.O_RDONLY)  # open in the arena: must not reach the bot
    os.set_inheritable(extra, True)
    try:
        script = (
            "import os\nprint('FDS', sorted(os.listdir('/proc/self/fd')))\n"
            "print('UID', os.getuid())\n"
        )
        output = await _sandboxed_output(tmp_path, script)
    finally:
        os.close(extra)
    fds = next(line for line in output.splitlines() if line.startswith("FDS"))
    assert fds == "FDS ['0', '1', '2', '3']"  # the standard streams and listdir's own
    uid = int(next(line for line in output.splitlines() if line.startswith("UID")).split()[1])
    assert uid != os.getuid()


async def test_a_table_bound_to_a_launch_key_seats_only_sessions_that_present_it() -> None:
    server = RookeryServer(ServerConfig(address="127.0.0.1:0", log_level="warning"))
    await server.start()
    try:
        keys = {name: server.issue_launch_key(name) for name in ("a", "b")}
        spec = TableSpec(
            Ruleset.preset("standard"),
            ("a", "b", "a", "b"),
            seed=1,
            seat_keys=(keys["a"], keys["b"], keys["a"], keys["b"]),
        )
        table = await server.create_table(spec)
        async with raw_bots() as make:
            for name in ("a", "b", "a", "b"):  # posing as the bots, without their keys
                await make(server.target, name).connect()
            await asyncio.sleep(0.3)
            assert table.status is TableStatus.WAITING
            for name in ("a", "b", "a", "b"):
                await make(server.target, name, token=keys[name]).connect()
            for _ in range(100):
                if table.status is not TableStatus.WAITING:
                    break
                await asyncio.sleep(0.02)
            assert table.status is not TableStatus.WAITING
            seated = {s.launch_key for s in server._sessions.values() if s.tables}
            assert seated == set(keys.values())
            table.abort("test over")
    finally:
        await server.stop(grace_s=0.2)


def test_the_config_reads_the_sandbox_clock_and_limits() -> None:
    bots = [{"name": "a", "command": "x"}, {"name": "b", "command": "y", "folder": "/srv/b"}]
    config = config_from_dict(
        {
            "bots": bots,
            "sandbox": "on",
            "clock": "cpu",
            "pin_cpus": True,
            "sandbox_paths": ["/opt/jdk"],
            "limits": {"memory_mb": 256, "processes": 32},
        }
    )
    assert config.sandbox is SandboxMode.ON and config.clock is ClockKind.CPU
    assert config.limits == SandboxLimits(memory_mb=256, processes=32)
    assert config.sandbox_paths == (Path("/opt/jdk"),) and config.bots[1].folder == "/srv/b"
    assert config_from_dict(config.to_dict()).limits == config.limits  # stored and read back


def test_the_config_refuses_a_cpu_clock_without_fresh_processes_and_unknown_modes() -> None:
    bots = [{"name": "a", "command": "x"}, {"name": "b", "command": "y"}]
    with pytest.raises(ArenaConfigError, match="needs process_per_game"):
        config_from_dict({"bots": bots, "clock": "cpu", "process_per_game": False})
    with pytest.raises(ArenaConfigError, match="sandbox: must be one of 'auto', 'on', 'off'"):
        config_from_dict({"bots": bots, "sandbox": "maybe"})
    with pytest.raises(ArenaConfigError, match=r"limits\.memory_mb: must be at least 1"):
        config_from_dict({"bots": bots, "limits": {"memory_mb": 0}})


#: The runtimes the tests made (their cgroup folders are removed after each test).
_runtimes: list[SandboxRuntime] = []


@pytest.fixture(autouse=True)
def _close_runtimes() -> Iterator[None]:
    yield
    while _runtimes:
        _runtimes.pop().close()


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


async def _sandboxed(tmp_path: Path, script: str, *, cgroups: bool) -> BotProcess:
    support = probe(cgroups=cgroups)
    socket_path = tmp_path / "server.sock"
    socket_path.touch()
    runtime = SandboxRuntime(support, SandboxLimits(), socket_path)
    _runtimes.append(runtime)
    return await start_bot_process(
        [sys.executable, "-I", "-S", "-c", script],
        runtime.environment({}, {}),
        tmp_path / "bot.log",
        "test",
        label="test",
        runtime=runtime,
        server_target="127.0.0.1:45001",
    )


_SPIN_IN_A_CHILD = (
    "import os, time\n"
    "if os.fork() == 0:\n"
    "    end = time.process_time() + 0.4\n"
    "    while time.process_time() < end: pass\n"
    "    os._exit(0)\n"
    "os.wait()\n"
    "print('sp' + 'un', flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.mark.parametrize("cgroups", [False, True], ids=["proc", "cgroup"])
async def test_the_cpu_time_of_a_sandbox_counts_its_children(tmp_path: Path, cgroups: bool) -> None:
    bot = await _sandboxed(tmp_path, _SPIN_IN_A_CHILD, cgroups=cgroups)
    try:
        for _ in range(300):
            if "\nspun" in (tmp_path / "bot.log").read_text():
                break
            await asyncio.sleep(0.05)
        assert (bot.meter.cgroup is not None) is cgroups
        assert 0.35 <= bot.meter.cpu_seconds() < 2.0
    finally:
        await bot.stop(grace_s=1.0)


async def test_without_a_cgroup_every_process_of_the_sandbox_is_killed(tmp_path: Path) -> None:
    script = (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork(): os._exit(0)\n"
        "    time.sleep(120)\n"
        "time.sleep(0.5)\n"
        "print('daemon ' + 'started', flush=True)\n"
        "time.sleep(120)\n"
    )
    bot = await _sandboxed(tmp_path, script, cgroups=False)
    for _ in range(300):
        if "\ndaemon started" in (tmp_path / "bot.log").read_text():
            break
        await asyncio.sleep(0.05)
    tree = _tree(bot.pid)
    assert len(tree) >= 4  # bwrap, its pid 1, init, the bot (and the daemon)
    await bot.stop(grace_s=1.0)
    assert bot.leftover == 1  # the daemon, adopted by the sandbox's pid 1
    for _ in range(100):  # the kernel tears the namespace down as its pid 1 exits
        if not any(_alive(pid) for pid in tree):
            break
        await asyncio.sleep(0.02)
    assert [pid for pid in tree if _alive(pid)] == []


_ARENA = """
import asyncio, pathlib, sys
sys.path.insert(0, {here!r})
import test_sandbox

async def main():
    directory = pathlib.Path({directory!r})
    bot = await test_sandbox._sandboxed(directory, {script!r}, cgroups=False)
    for _ in range(300):
        if "\\ndaemon started" in (directory / "bot.log").read_text():
            break
        await asyncio.sleep(0.05)
    from rookery.arena.launch._process_meter import _tree
    print(" ".join(map(str, _tree(bot.pid))), flush=True)
    await asyncio.sleep(120)

asyncio.run(main())
"""


async def test_every_process_of_the_sandbox_dies_with_a_killed_arena(tmp_path: Path) -> None:
    script = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork(): os._exit(0)\n"
        "    time.sleep(120)\n"
        "time.sleep(0.5)\n"
        "print('daemon ' + 'started', flush=True)\n"
        "time.sleep(120)\n"
    )
    code = _ARENA.format(here=str(Path(__file__).parent), directory=str(tmp_path), script=script)
    arena = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE
    )
    assert arena.stdout is not None
    line = await asyncio.wait_for(arena.stdout.readline(), 60)
    tree = [int(pid) for pid in line.split()]
    assert len(tree) >= 5  # bwrap, its pid 1, init, the bot, the daemon
    arena.kill()  # SIGKILL: the arena has no say
    await arena.wait()
    for _ in range(150):
        if not any(_alive(pid) for pid in tree):
            break
        await asyncio.sleep(0.02)
    assert [pid for pid in tree if _alive(pid)] == []


def test_arena_run_sandbox_on_exits_with_the_missing_piece_named(tmp_path: Path) -> None:
    bot = f"{sys.executable} -m rookery.cli.main bot run rookery.client.bots.random_bot:RandomBot"
    finished = subprocess.run(
        [sys.executable, "-m", "rookery.cli.main", "arena", "run", "--sandbox", "on",
         "--bot", f"a={bot}", "--bot", f"b={bot}", "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PATH": str(tmp_path)},
    )  # fmt: skip
    assert finished.returncode == 3, finished.stdout + finished.stderr
    assert "sandbox = 'on' but no sandbox: bwrap is not installed" in finished.stderr
    assert "apt-get install bubblewrap" in finished.stderr
