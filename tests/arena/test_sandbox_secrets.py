"""A sandboxed bot's launch key reaches its bot alone: on no command line, in no other process's
environment, in no settings file or descriptor the bot could read.

The launch key (``ROOKERY_TOKEN``) lets whoever presents it take the bot's seat. Command lines are
readable by every local user (``/proc/<pid>/cmdline``, ``ps``), so the sandbox's own programs
(the guard, bwrap, init) must get their settings some other way: through a descriptor.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import (
    SandboxLimits,
    SandboxMode,
    SandboxRuntime,
    probe,
    start_bot_process,
)
from rookery.arena.launch._sandbox import _EXEC_SCRIPT
from rookery.arena.run import TournamentRunner
from rookery.engine import Ruleset
from rookery.server import RookeryServer, TimeControl

HERE = Path(__file__).parent
#: A user id of nobody's: another local user, with no access to the arena's processes.
OTHER_USER = 65534
_SCAN_LIMIT_S = 120.0


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


@dataclass
class Seen:
    """One process as a scan saw it: its owner, command line and environment ("" unreadable)."""

    pid: int
    uid: int
    cmdline: bytes
    environ: bytes


@dataclass
class ProcScanner:
    """Scans every ``/proc/<pid>/cmdline`` and ``environ`` of the host while a tournament runs;
    as root, also has another local user grep them for the keys issued so far."""

    keys: list[str]
    seen: dict[tuple[int, bytes], Seen] = field(default_factory=dict)
    #: What ``grep`` run as another user found: (files holding a key, files naming the bot).
    other_user: list[tuple[list[str], list[str]]] = field(default_factory=list)
    rounds: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def _scan(self) -> None:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                uid = os.stat(f"/proc/{entry}").st_uid
            except OSError:
                continue
            cmdline = _read(f"/proc/{entry}/cmdline")
            if not cmdline:
                continue
            key = (int(entry), cmdline)
            known = self.seen.get(key)
            if known is None or not known.environ:
                environ = _read(f"/proc/{entry}/environ")
                self.seen[key] = Seen(int(entry), uid, cmdline, environ)
            if os.geteuid() == 0 and self.keys and len(self.other_user) < 3 and _is_bot(cmdline):
                self._scan_as_other_user(self.keys[-1])

    def _scan_as_other_user(self, key: str) -> None:
        # The key on stdin: on grep's own command line it would be found there.
        script = (
            "grep -l -a -F -f - /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null; "
            "echo --; grep -l -a -F -e sdk_bots.py /proc/[0-9]*/cmdline 2>/dev/null; true"
        )
        done = subprocess.run(
            ["/bin/sh", "-c", script],
            input=key + "\n",
            user=OTHER_USER,
            group=OTHER_USER,
            extra_groups=[],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            cwd="/",
        )
        found, _, sandbox = done.stdout.partition("--\n")
        self.other_user.append((found.split(), sandbox.split()))

    def run(self) -> None:
        deadline = time.monotonic() + _SCAN_LIMIT_S
        while not self._stop.is_set() and time.monotonic() < deadline:
            self._scan()
            self.rounds += 1
            self._stop.wait(0.02)

    def stop(self) -> None:
        self._stop.set()


@pytest.fixture
def issued_keys(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every launch key the server issues during the test, in order."""
    keys: list[str] = []
    issue = RookeryServer.issue_launch_key

    def recording(self: RookeryServer, bot: str, sessions: int = 0) -> str:
        key = issue(self, bot, sessions)
        keys.append(key)
        return key

    monkeypatch.setattr(RookeryServer, "issue_launch_key", recording)
    return keys


def _is_bot(cmdline: bytes) -> bool:
    return b"bot\x00run\x00" in cmdline and b"_sandbox_exec.py" not in cmdline


@pytest.mark.parametrize("mode", [SandboxMode.ON, SandboxMode.OFF], ids=["sandboxed", "unconfined"])
def test_no_local_process_but_the_bot_shows_its_launch_key(
    tmp_path: Path, issued_keys: list[str], mode: SandboxMode
) -> None:
    if mode is SandboxMode.ON:
        support = probe(cgroups=False)
        assert support.available, support.describe()
    bot = f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run"
    bots = tuple(
        BotSpec(name, f"{bot} {shlex.quote(str(HERE / 'sdk_bots.py'))}:{cls}")
        for name, cls in (("greedy", "GreedyBot"), ("random", "RandomBot"))
    )
    config = TournamentConfig(
        name="keys",
        ruleset=Ruleset.preset("standard").replace(max_hands=1),
        bots=bots,
        games=1,
        duplicate=False,
        concurrency=1,
        time_control=TimeControl(action_ms=2000, strike_limit=3, grace_ms=500),
        bootstrap=0,
        sandbox=mode,
        process_per_game=True,  # a launch key per game, sandboxed or not
    )
    scanner = ProcScanner(issued_keys)
    thread = threading.Thread(target=scanner.run, daemon=True)
    thread.start()
    try:
        result = asyncio.run(TournamentRunner(config, tmp_path / "run").run())
    finally:
        scanner.stop()
        thread.join(30)
    assert result.recorded == 1
    assert len(issued_keys) == 2  # one game, a key for each bot
    seen = list(scanner.seen.values())
    leaks: list[tuple[int, str, bytes]] = []
    for key in issued_keys:
        # The scan ran while the bot played: it saw the bot, with its key in its environment.
        bots_seen = [s for s in seen if _is_bot(s.cmdline) and key.encode() in s.environ]
        assert bots_seen, f"the scan never saw the bot of key {key[:6]}… ({scanner.rounds} rounds)"
        leaks += [
            (s.pid, "cmdline" if key.encode() in s.cmdline else "environ", s.cmdline[:100])
            for s in seen
            if key.encode() in s.cmdline or (key.encode() in s.environ and not _is_bot(s.cmdline))
        ]
    if os.geteuid() == 0:  # the bots' processes visible to another user, their keys not
        assert scanner.other_user, "the other user's scan never ran"
        for found, bots_listed in scanner.other_user:
            assert bots_listed, "the other user saw no bot process"
            leaks += [(int(p.split("/")[2]), f"{p} as uid {OTHER_USER}", b"") for p in found]
    assert leaks == [], f"the launch key is readable elsewhere: {leaks}"


#: Run inside the sandbox: look everywhere a settings input could be left for the value that
#: only the bot's own environment should hold.
_SEARCH = r"""
import os, stat
marker = os.environ["MARKER"].encode()
me = os.getpid()
hits, sandbox = [], []

def read(path):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, 1 << 20)
    except OSError:
        return b""
    finally:
        os.close(fd)

for fd in sorted(os.listdir("/proc/self/fd")):
    if int(fd) > 2 and marker in read(f"/proc/self/fd/{fd}"):
        hits.append(f"own fd {fd}")
for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) == me:
        continue
    cmdline = read(f"/proc/{pid}/cmdline") or open(f"/proc/{pid}/cmdline", "rb").read()
    if b"_sandbox_exec.py" in cmdline:
        sandbox.append(pid)
    for name in ("cmdline", "environ"):
        try:
            data = open(f"/proc/{pid}/{name}", "rb").read()
        except OSError:
            continue
        if marker in data:
            hits.append(f"/proc/{pid}/{name}")
    try:  # its memory, where init keeps what it read
        with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
            for line in maps:
                span, perms = line.split()[:2]
                start, end = (int(x, 16) for x in span.split("-"))
                if perms.startswith("rw") and end - start <= 1 << 28:
                    try:
                        mem.seek(start)
                        if marker in mem.read(end - start):
                            hits.append(f"/proc/{pid}/mem")
                            break
                    except (OSError, ValueError, OverflowError):
                        pass
    except OSError:
        pass
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        continue
    for fd in fds:
        if marker in read(f"/proc/{pid}/fd/{fd}"):
            hits.append(f"/proc/{pid}/fd/{fd}")
for top in ("/run", "/tmp", "/dev/shm", "/"):
    for folder, dirs, files in os.walk(top):
        if top == "/":
            dirs.clear()
        for name in files:
            if marker in read(os.path.join(folder, name)):
                hits.append(os.path.join(folder, name))
print("SANDBOX", sandbox)
print("HITS", hits)
print("FDS", sorted(os.listdir("/proc/self/fd")))
"""


@pytest.fixture
def search_script(tmp_path: Path) -> Path:
    """The search, in a bot folder of its own that the bot's user may enter."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    (folder / "search.py").write_text(_SEARCH)
    tmp_path.chmod(0o755)
    return folder / "search.py"


@pytest.mark.parametrize("own_user", [True, False], ids=["own-user", "user-namespace"])
async def test_the_bot_finds_no_settings_of_the_guard_or_init(
    tmp_path: Path, search_script: Path, own_user: bool
) -> None:
    support = probe(cgroups=False)
    assert support.available, support.describe()
    # As root each bot gets a user id of its own; otherwise (or asked so here) it shares the
    # organiser's inside a user namespace, where init's undumpable flag keeps it out of init.
    support = dataclasses.replace(support, as_root=support.as_root and own_user)
    socket_path = tmp_path / "server.sock"
    socket_path.touch()
    runtime = SandboxRuntime(support, SandboxLimits(), socket_path)
    marker = "only-in-the-bots-environment-" + os.urandom(8).hex()
    env = runtime.environment({"ROOKERY_TOKEN": marker}, {"MARKER": marker})
    log = tmp_path / "bot.log"
    bot = await start_bot_process(
        [sys.executable, "-I", "-S", str(search_script)],
        env,
        log,
        "test",
        label="test",
        runtime=runtime,
        server_target="127.0.0.1:45002",
    )
    await asyncio.wait_for(bot.process.wait(), 60)
    await bot.stop(grace_s=1.0)
    runtime.close()
    output = log.read_text()
    lines = {line.split(" ", 1)[0]: line for line in output.splitlines()}
    assert "HITS" in lines, output
    assert lines["SANDBOX"] != "SANDBOX []", output  # it saw init, whose settings it looked for
    assert lines["HITS"] == "HITS []", output
    assert lines["FDS"] == "FDS ['0', '1', '2', '3']", output  # the standard streams, listdir's


def _exec(*args: str, stdin: int | None = None, pass_fds: tuple[int, ...] = ()) -> str:
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(_EXEC_SCRIPT), *args],
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        pass_fds=pass_fds,
    )
    assert done.returncode != 0
    return done.stderr.strip()


@pytest.fixture
def settings_fd() -> Iterator[int]:
    """A descriptor for settings (a memfd, as the arena's): see :func:`_with_settings`."""
    fd = os.memfd_create("test-settings")
    yield fd
    os.close(fd)


def _with_settings(fd: int, data: bytes) -> None:
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)
    os.lseek(fd, 0, os.SEEK_SET)


def test_a_missing_or_corrupt_settings_input_gets_a_clear_error(
    settings_fd: int,
) -> None:
    fd = settings_fd
    assert "usage: _sandbox_exec.py guard|init SETTINGS-FD" in _exec("guard")
    assert "usage: _sandbox_exec.py guard|init SETTINGS-FD" in _exec("guard", "{}")
    assert _exec("init", "97") == (
        "rookery sandbox: cannot read the init settings from descriptor 97: Bad file descriptor"
    )
    _with_settings(fd, b'{"cgroup": "", "bwrap": [')
    assert _exec("guard", str(fd), pass_fds=(fd,)).startswith(
        "rookery sandbox: the guard settings on descriptor "
        f"{fd} are not valid JSON: Expecting value: line 1 column 26"
    )
    _with_settings(fd, b"")
    assert _exec("guard", str(fd), pass_fds=(fd,)) == (
        f"rookery sandbox: the guard settings on descriptor {fd} are empty"
    )
    _with_settings(fd, b'{"cgroup": ""}')
    assert _exec("guard", str(fd), pass_fds=(fd,)) == (
        f"rookery sandbox: the guard settings on descriptor {fd} lack 'bwrap', 'init'"
    )
