"""Hostile bots for the sandbox battery: each plays greedily while it tries one attack.

``HOSTILE_MODE`` (listed in the bot's ``env``, the only way a sandboxed bot gets a variable)
picks the attack; the paths and ports to try come in ``HOSTILE_*`` variables too. Every attempt
prints one ``HOSTILE <what>: <result>`` line to stderr, which the arena keeps in the bot's log.
"""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from rookery.client import Bot
from rookery.engine import Action, Bid, Observation, Pass, PlayCard, card_points

MODE = os.environ.get("HOSTILE_MODE", "")
#: One attack per process, whatever the number of sessions (seats) it plays.
_ATTACK_LOCK = threading.Lock()
_attack: threading.Thread | None = None


def report(what: str, result: str) -> None:
    """One line of the attack's outcome in the bot's log."""
    try:
        sys.stderr.write(f"HOSTILE {what}: {result}\n")
        sys.stderr.flush()
    except OSError:
        pass


def _try(what: str, action: object) -> None:
    try:
        value = action() if callable(action) else action
    except Exception as error:  # every refusal is the point
        report(what, f"refused {type(error).__name__}")
    else:
        report(what, f"ok {str(value)[:80]!r}")


def fork_bomb() -> None:
    # Every copy tells of its first refused fork on the shared pipe; the attack waits for one.
    code = (
        "import os, sys, time\n"
        "told = False\n"
        "while True:\n"
        "    try:\n"
        "        os.fork()\n"
        "    except OSError:\n"
        "        if not told:\n"
        "            told = True\n"
        "            sys.stdout.write('refused\\n')\n"
        "            sys.stdout.flush()\n"
        "        time.sleep(0.05)\n"
    )
    bomb = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    report("fork bomb", "started")
    assert bomb.stdout is not None
    refused = bomb.stdout.readline()
    report("fork bomb", "a fork refused at the limit" if refused else "no fork refused")


def allocate() -> None:
    chunks = []
    try:
        for _ in range(128):  # 128 x 64 MiB = 8 GiB, every page written
            chunks.append(b"\x01" * (64 << 20))
        report("allocate 8 GiB", "ok")
    except MemoryError:
        chunks.clear()
        report("allocate 8 GiB", "refused MemoryError")
        raise


def connect() -> None:
    port = int(os.environ["HOSTILE_PORT"])
    for host in ("127.0.0.1", os.environ.get("HOSTILE_HOST", "127.0.0.1")):
        _try(f"connect {host}:{port}", lambda h=host: socket.create_connection((h, port), 2))
    _try("resolve example.org", lambda: socket.getaddrinfo("example.org", 80))


def read_secrets() -> None:
    for key in ("HOSTILE_HOME", "HOSTILE_DB", "HOSTILE_OTHER"):
        path = Path(os.environ[key])
        _try(f"read {path}", path.read_bytes)
        _try(f"list {path.parent}", lambda p=path: sorted(os.listdir(p.parent)))
    _try("list /root", lambda: sorted(os.listdir("/root")))


def write_outside() -> None:
    own = Path(__file__).parent
    for target in (own / "dropped.txt", Path(os.environ["HOSTILE_RUN"]) / "dropped.txt"):
        _try(f"write {target}", lambda t=target: t.write_text("dropped"))
    for target in (Path("/usr/local/dropped.txt"), Path("/etc/dropped.txt")):
        _try(f"write {target}", lambda t=target: t.write_text("dropped"))
    _try("write /tmp/scratch.txt", lambda: Path("/tmp/scratch.txt").write_text("mine"))
    try:  # 16 MiB in one file, over the file-size limit (a Python process is not killed)
        Path("/tmp/big.bin").write_bytes(b"\0" * (16 << 20))
        report("write a 16 MiB file", "ok")
    except OSError as error:
        report("write a 16 MiB file", f"refused {error.strerror}")


def leave_daemon() -> None:
    marker = os.environ["HOSTILE_MARKER"]
    code = (
        "import os, sys, time\n"
        "if os.fork(): sys.exit(0)\n"
        "os.setsid()\n"
        "if os.fork(): sys.exit(0)\n"
        "time.sleep(120)\n"
        f"open({marker!r}, 'w').write('survived')\n"
    )
    subprocess.Popen([sys.executable, "-c", code]).wait()
    report("daemon", "left behind")


def flood() -> None:
    block = b"x" * (1 << 20)
    written = 0
    try:
        for _ in range(1024):  # 1 GiB
            os.write(2, block)
            written += len(block)
    except OSError as error:
        report("flood", f"stopped after {written >> 20} MiB: {type(error).__name__}")


def spin() -> None:
    report("background thread", "spinning")
    while True:
        pass


def carry() -> None:
    note = Path("/tmp/carried.txt")
    report("carry", "found" if note.exists() else "none")
    note.write_text("from an earlier game")
    for target in (Path(__file__).parent / "carried.txt", Path.home() / "carried.txt"):
        _try(f"write {target}", lambda t=target: t.write_text("from an earlier game"))


ATTACKS = {
    "fork-bomb": fork_bomb,
    "allocate": allocate,
    "connect": connect,
    "read": read_secrets,
    "write": write_outside,
    "daemon": leave_daemon,
    "flood": flood,
    "spin": spin,
    "carry": carry,
}
#: The attacks that end by themselves: the bot waits for every attempt's line before each of its
#: answers, so that no game ends (and no process is stopped) with an attempt still unreported.
FINISHING = {"fork-bomb", "connect", "read", "write", "daemon", "carry"}
#: Wall time a move waits for a finishing attack: within the battery's time control (a second of
#: CPU a move, ten of wall time under the CPU clock), as sleeping is no CPU time. Each attack takes
#: milliseconds alone; on a loaded machine one thread can wait seconds for its turn (three was
#: once too few, and an attempt of a game went unreported), so an attack still running when the
#: first move is due is waited for again at every later move: a hand gives it minutes.
FINISH_WAIT_S = 8.0


class Hostile(Bot):
    """Greedy play (highest-point card, minimum bid) while ``HOSTILE_MODE``'s attack runs."""

    def __init__(self) -> None:
        self.rng = random.Random(7)

    def act(self, observation: Observation) -> Action:
        global _attack
        if MODE == "sleepy":
            time.sleep(1.0)  # thinks slowly in wall time, using no CPU
        elif MODE:
            with _ATTACK_LOCK:
                if _attack is None:
                    _attack = threading.Thread(target=ATTACKS[MODE], daemon=True)
                    _attack.start()
                    _attack.join(FINISH_WAIT_S if MODE in FINISHING else 0.05)
                elif MODE in FINISHING and _attack.is_alive():
                    _attack.join(FINISH_WAIT_S)
        actions = observation.legal_actions()
        if len(actions) >= 200:
            return actions.sample(self.rng)
        legal = list(actions)
        bids = [a for a in legal if isinstance(a, Bid)]
        if any(isinstance(a, Pass) for a in legal):
            return bids[0] if bids and not observation.auction else Pass()
        plays = [a for a in legal if isinstance(a, PlayCard)]
        if plays:
            return max(plays, key=lambda p: (card_points(p.card), p.card))
        return legal[0]
