"""Each kit guide's "Build and run" block as printed, and the Go and TypeScript guides' "Testing
your bot locally" blocks: the sample bot is built in the checkout, plays a whole game on a
``rookery serve`` of 127.0.0.1:50051 (the address its line gives or defaults to), and, stopped
by SIGTERM, exits 0 with the kit contract's summary line.

"Build and run" is run from the checkout's root (its ``cd clients/…`` line), the kit's
``build.sh`` holding the lock the kit suites hold (``tests/kits/kit_support.py``), so the build
is the one they made (cached by the script: nothing is rebuilt when nothing changed). Its bot
line gives the bot, not the server nor the table: the test starts ``rookery serve --address
127.0.0.1:50051``, the heuristic on three sessions and ``rookery table create --seat mybot --seat
heuristic --seat heuristic --seat heuristic --wait`` (the Python guide's commands). The C++
block's first line installs Debian packages: it runs with ``--simulate`` (a test changes no
machine), must find nothing left to install and names the Makefile's ``KIT_PACKAGES``.
"Testing your bot locally" is whole (server, bot, heuristic, table), run in the kit's folder. And
the Go and TypeScript guides' line for the sample bot in the arena (``--bot
mybot=clients/…``, a path into a subfolder: it failed in the sandbox once) plays its games.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from doc_commands import fenced_blocks, section, shell, shell_env, wait_until_free
from processes import Background, background_group

KITS = ("go", "rust", "java", "cpp", "typescript")
#: How a game ends when played out, as ``rookery table create --wait`` prints it.
FINISHED = re.compile(r"^finished \((target_reached|max_hands)\) after \d+ hand", re.MULTILINE)
HEURISTIC = "rookery bot run rookery.client.bots.heuristic:HeuristicBot --name heuristic"
SERVE = "rookery serve --address 127.0.0.1:50051"


@contextlib.contextmanager
def _kit_build_lock(kit: Path) -> Iterator[None]:
    """The kit's build lock, as ``tests/kits/kit_support.py`` takes it: one build.sh at a time."""
    with (kit / ".build.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _guide(root: Path, language: str) -> str:
    return (root / "docs" / "bots" / f"{language}.md").read_text(encoding="utf-8")


def _block(root: Path, language: str, heading: str) -> list[str]:
    """The lines of the one plain block of ``heading`` in ``docs/bots/<language>.md``."""
    (block,) = [
        b for b in fenced_blocks(section(_guide(root, language), heading)) if not b.language
    ]
    return [line for line in block.text.splitlines() if line.strip()]


def _kit_packages(root: Path) -> set[str]:
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"^KIT_PACKAGES := ((?:.*\\\n)*.*)$", makefile, re.MULTILINE)
    assert match, "the Makefile has no KIT_PACKAGES"
    return set(match.group(1).replace("\\\n", " ").split())


def _play_and_stop(
    bot: Background, table: str, seats: int, folder: Path, env: dict[str, str]
) -> None:
    """Run ``table``, a ``rookery table create … --wait`` (the table waits for its bots to
    connect), to the game's end, then stop ``bot`` with SIGTERM: it exits 0 with the summary line
    of its game, a game for each of its ``seats`` (the kit contract; before, the Rust and C++
    bots died of the signal, -15, and Java's exited 143, none with the line)."""
    created = shell(table, folder, env, timeout=300)
    assert created.returncode == 0, created.stdout + created.stderr + bot.output()
    assert FINISHED.search(created.stdout), created.stdout + bot.output()
    code = bot.stop()
    assert code == 0, f"the bot exited {code}:\n{bot.output()}"
    summary = rf"^\[rookery\] done: games={seats} "
    assert re.search(summary, bot.output(), re.MULTILINE), bot.output()


@pytest.mark.timeout(900)
@pytest.mark.parametrize("language", KITS)
def test_the_build_and_run_block_builds_the_kit_and_its_bot_plays_a_game(
    language: str, root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    lines = _block(root, language, "Build and run")
    env = shell_env(venv_bin)
    if lines[0].startswith("apt-get install "):
        packages = lines.pop(0).split("#", 1)[0].split()[2:]
        assert set(packages) == _kit_packages(root), packages
        simulated = shell(f"apt-get install --simulate {shlex.join(packages)}", root, env, 120)
        assert simulated.returncode == 0, simulated.stdout + simulated.stderr
        assert " 0 newly installed" in simulated.stdout, simulated.stdout
    *build, run = lines
    assert build[0] == f"cd clients/{language}", build
    kit = root / "clients" / language
    with _kit_build_lock(kit):
        built = subprocess.run(
            ["nice", "-n", "10", "bash", "-euo", "pipefail", "-c", "\n".join(build)],
            cwd=root, env=env, capture_output=True, text=True, timeout=800, check=False,
        )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    assert "127.0.0.1:50051" in run and "mybot" in run, run
    wait_until_free(50051)
    with background_group() as started:
        server = Background(["bash", "-c", f"exec {SERVE}"], tmp_path / "serve.out", kit, env)
        started.append(server)
        server.wait_for(
            lambda out: "server started" in out and "50051" in out, 60, "the server's start"
        )
        bot = Background(["bash", "-c", f"exec {run}"], tmp_path / "bot.out", kit, env)
        started.append(bot)
        heuristic = f"exec {HEURISTIC} --sessions 3"
        started.append(Background(["bash", "-c", heuristic], tmp_path / "heuristic.out", kit, env))
        seats = "--seat mybot" + " --seat heuristic" * 3
        table = f"rookery table create {seats} --wait --timeout 240"
        _play_and_stop(bot, table, 1, kit, env)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("language", ["go", "typescript"])
def test_the_testing_locally_block_plays_a_game_as_printed(
    language: str, root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    serve, run, heuristic, table = _block(root, language, "Testing your bot locally")
    assert serve == SERVE and heuristic == f"{HEURISTIC} --sessions 2", (serve, heuristic)
    assert table.startswith("rookery table create ") and table.endswith(" --wait"), table
    kit = root / "clients" / language
    # The guide's "Build and run" made the bot; the kit suites' build is the same (cached).
    with _kit_build_lock(kit):
        built = subprocess.run(
            ["nice", "-n", "10", str(kit / "build.sh")],
            capture_output=True, text=True, timeout=800, check=False,
        )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    env = shell_env(venv_bin)
    wait_until_free(50051)
    with background_group() as started:
        server = Background(["bash", "-c", f"exec {serve}"], tmp_path / "serve.out", kit, env)
        started.append(server)
        server.wait_for(
            lambda out: "server started" in out and "50051" in out, 60, "the server's start"
        )
        bot = Background(["bash", "-c", f"exec {run}"], tmp_path / "bot.out", kit, env)
        started.append(bot)
        helper = Background(
            ["bash", "-c", f"exec {heuristic}"], tmp_path / "heuristic.out", kit, env
        )
        started.append(helper)
        _play_and_stop(bot, table, 2, kit, env)  # mybot, heuristic, mybot, heuristic


@pytest.mark.timeout(600)
@pytest.mark.parametrize("language", ["go", "typescript"])
def test_the_sample_bots_arena_line_plays_from_the_checkout_as_printed(
    language: str, root: Path, venv_bin: Path, tmp_path: Path
) -> None:
    """The guide's line for the sample bot in the arena, from a checkout's folder (here one whose
    ``clients/`` is this checkout's, so that its runs stay out of it), sandboxed by default."""
    (line,) = [
        block.first_line
        for block in fenced_blocks(section(_guide(root, language), "Command line"))
        if block.first_line.startswith("rookery arena run --bot mybot=clients/")
    ]
    kit = root / "clients" / language
    with _kit_build_lock(kit):
        built = subprocess.run(
            ["nice", "-n", "10", str(kit / "build.sh")],
            capture_output=True, text=True, timeout=800, check=False,
        )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    checkout = tmp_path / "rookery"
    checkout.mkdir(mode=0o755)
    (checkout / "clients").symlink_to(root / "clients", target_is_directory=True)
    done = shell(line, checkout, shell_env(venv_bin), timeout=500)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "sandbox: bubblewrap" in output and "4/4 recorded in runs/arena-" in done.stdout, output
    with (checkout / "runs" / "latest" / "games.csv").open(newline="") as handle:
        games = list(csv.DictReader(handle))
    assert {g["termination"] for g in games} <= {"TARGET_REACHED", "MAX_HANDS"}, games
    assert len(games) == 4 and all(g["forfeit_seat"] == "-1" for g in games), games
