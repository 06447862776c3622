"""The README's first session, command by command, exactly as printed, from a fresh clone.

The commands are read from README.md (its "A first session" section) and run in a copy of the
tree with a shell's ordinary environment: no activated venv on PATH, no ``ROOKERY_*`` variables.
A command ending in ``&`` runs in the background, as in a shell; ``kill %1 %2`` stops those. The
bot of docs/bots/python.md is copied verbatim from the clone's doc where the README says to save
it. Each command's outcome is checked; a README command this test has no check for fails it, so
the two cannot drift apart.

The server listens where the README says (127.0.0.1:50051, dashboard :8080): the test waits for
those ports to be free first.

`make setup` runs in full in the clone, as on any fresh clone: the venv, pip's install of every
pinned dependency, npm, the stubs and the native core.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from clone_support import fresh_clone
from processes import Background, background_group

#: The ports the README's server takes.
README_PORTS = (50051, 8080)


def readme_session(readme: Path) -> list[str]:
    """The lines of the code blocks of the "A first session" section, in order, with the
    instruction to save the example bot as a line ``<save my_bot.py>`` where the prose says so."""
    text = readme.read_text(encoding="utf-8")
    section = text.split("## A first session", 1)[1].split("\n## ", 1)[0]
    lines: list[str] = []
    for prose, block in re.findall(r"(.*?)```\n(.*?)```", section, re.DOTALL):
        if "as `my_bot.py`" in prose:
            lines.append("<save my_bot.py>")
        lines += [line for line in block.splitlines() if line.strip()]
    return lines


def example_bot(doc: Path) -> str:
    """The example bot block of the Python guide, verbatim."""
    match = re.search(
        r"<!-- example-bot.*?-->\s*```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.DOTALL
    )
    assert match, f"no example bot in {doc}"
    return match.group(1)


def _command(line: str) -> tuple[str, bool]:
    """The shell command of a README line (its comment dropped) and whether it runs in the
    background."""
    command = line.split("  #", 1)[0].strip()
    if command.endswith("&"):
        return command[:-1].strip(), True
    return command, False


def _port_free(port: int) -> bool:
    """Whether no program listens on ``port`` (SO_REUSEADDR: a closed connection's TIME_WAIT,
    or the run's keeper of the documented port, tests/conftest.py, takes nothing)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _wait_for_ports(timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not all(_port_free(p) for p in README_PORTS):
        if time.monotonic() > deadline:
            busy = [p for p in README_PORTS if not _port_free(p)]
            pytest.fail(f"the README's ports {busy} stay busy on this machine")
        time.sleep(1)


def _accepts(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


Checker = Callable[[str, "subprocess.CompletedProcess[str]"], None]


def _check_setup(clone: Path) -> Checker:
    def check(line: str, done: subprocess.CompletedProcess[str]) -> None:
        assert (clone / ".venv" / "bin" / "rookery").exists()
        # The native core's build step ran: its wheel built, or why it cannot be (said once).
        built = (clone / ".venv" / ".rookery-core").exists()
        assert built or "rookery-core:" in done.stdout, done.stdout
        assert sorted(
            p.name for p in (clone / "gen" / "python" / "rookery" / "v1").glob("*_pb2.py")
        )

    return check


def _check_rules(line: str, done: subprocess.CompletedProcess[str]) -> None:
    assert "standard" in done.stdout and "target" in done.stdout, done.stdout


def _check_table(line: str, done: subprocess.CompletedProcess[str]) -> None:
    lines = done.stdout.splitlines()
    assert lines[0].startswith("table ") and lines[0].count("HeuristicBot") == 4, done.stdout
    assert re.match(r"finished \((target_reached|max_hands)\) after \d+ hand", lines[-1]), lines


def _check_arena(clone: Path) -> Checker:
    def check(line: str, done: subprocess.CompletedProcess[str]) -> None:
        games = int(shlex.split(line)[-1])  # --games N: per pairing, three pairings
        assert f"{3 * games}/{3 * games} recorded in runs/arena-" in done.stdout, done.stdout
        assert "mine" in done.stdout
        assert len(list((clone / "runs" / "latest" / "replays").glob("*.jsonl.gz"))) == 3 * games

    return check


def _check_report(clone: Path) -> Checker:
    def check(line: str, done: subprocess.CompletedProcess[str]) -> None:
        for name in ("report.json", "standings.csv", "games.csv", "report.html"):
            assert (clone / "runs" / "latest" / name).is_file(), name
        assert "mine" in done.stdout

    return check


def _check_verify(clone: Path) -> Checker:
    def check(line: str, done: subprocess.CompletedProcess[str]) -> None:
        count = len(list((clone / "runs" / "latest" / "replays").glob("*.jsonl.gz")))
        assert count and f"{count} of {count} replays verify" in done.stdout + done.stderr

    return check


# `make setup` in a fresh clone makes the venv, the stubs and the native core (see above).
@pytest.mark.timeout(1200)
def test_the_readme_first_session_works_as_printed(root: Path, tmp_path: Path) -> None:
    lines = readme_session(root / "README.md")
    assert lines, "no first session in README.md"
    clone = fresh_clone(root, tmp_path / "rookery")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROOKERY_", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join(
        p for p in env["PATH"].split(os.pathsep) if p and not p.startswith(str(root))
    )
    # The first session needs no system package: apt-get and dpkg-query here say none is
    # installed and none can be, and write down that they were asked.
    asked = tmp_path / "system-packages-asked.log"
    fakes = tmp_path / "no-system-packages"
    fakes.mkdir()
    for tool in ("apt-get", "dpkg-query"):
        (fakes / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> {asked}\nexit 1\n')
        (fakes / tool).chmod(0o755)
    env["PATH"] = f"{fakes}{os.pathsep}{env['PATH']}"
    checks: list[tuple[str, Checker]] = [
        ("make setup", _check_setup(clone)),
        ("rookery rules", _check_rules),
        ("rookery table create", _check_table),
        ("rookery arena run", _check_arena(clone)),
        ("rookery arena report", _check_report(clone)),
        ("rookery replay verify", _check_verify(clone)),
    ]
    _wait_for_ports(120)
    ran: list[str] = []
    with background_group() as jobs:
        for line in lines:
            if line == "<save my_bot.py>":
                (clone / "my_bot.py").write_text(example_bot(clone / "docs" / "bots" / "python.md"))
                continue
            command, background = _command(line)
            ran.append(command)
            if background:
                # As a shell's job, but without a shell of its own in between (exec), so that its
                # exit code is the command's.
                log = tmp_path / f"job{len(jobs) + 1}.log"
                job = Background(["bash", "-c", f"exec {command}"], log, clone, env)
                jobs.append(job)
                if " serve" in command:
                    job.wait_for(lambda _: _accepts(50051), 60, f"{command!r} listening")
                elif " bot run" in command:
                    job.wait_for(lambda t: "waiting for a table" in t, 60, f"{command!r} waiting")
                else:
                    pytest.fail(f"no check for the background command {command!r}")
                continue
            if command.startswith("kill %"):
                numbers = [int(n) for n in re.findall(r"%(\d+)", command)]
                for number in numbers:
                    code = jobs[number - 1].stop()
                    assert code == 0, f"job {number} exited {code}:\n{jobs[number - 1].output()}"
                    last = jobs[number - 1].output().splitlines()[-1]
                    # A server's last line, or a bot's summary line (docs/dev/kit-contract.md).
                    assert "stopped" in last or last.startswith("[rookery] done: games="), last
                continue
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=clone,
                env=env,
                capture_output=True,
                text=True,
                timeout=900,
                check=False,
            )
            assert done.returncode == 0, (
                f"{command!r} exited {done.returncode}:\n{done.stdout}{done.stderr}"
            )
            checkers = [check for key, check in checks if key in command]
            assert len(checkers) == 1, f"no single check for the README command {command!r}"
            checkers[0](command, done)
    assert any("table create" in c for c in ran) and any("arena run" in c for c in ran)
    assert not asked.exists(), asked.read_text()
