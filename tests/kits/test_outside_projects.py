"""Each kit as a dependency: a bot project in a folder outside the repository, set up exactly as
its guide (``docs/bots/<language>.md``, section "Your bot's own …") prints it — the guide's
commands run as printed, its files written as printed — built with the ecosystem's own tool (go,
npm and tsc, cargo, Maven, CMake), and its bot played through a game against a real server,
every action accepted.

Where the ecosystem allows, the projects reuse what the kits' own builds made: cargo's target
folder (``CARGO_TARGET_DIR``), the local Maven repository, Go's module and build caches, npm's
cache. The guides' commands do not change for that.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from kit_support import REPO, Launcher, Tables, check_kit_seat, fetch_replay
from rookery.arena.records import RunStore
from rookery.server import RookeryServer, TimeControl

# On a fresh machine a guide's commands make the kit's cold build (Maven's downloads, say).
pytestmark = pytest.mark.timeout(900)

GUIDES = REPO / "docs/bots"
#: The longest a project's setup and build (the guide's commands) may take.
BUILD_TIMEOUT_S = 600.0
#: A clock loose enough for a loaded test machine (a JVM starting, say).
TABLES = Tables(
    TimeControl(action_ms=5000, grace_ms=10000), join_timeout_s=60.0, under_way_limit_s=30.0
)
#: The version each guide's bot gives in its own code, where the kit lets it (Go, TypeScript).
GUIDE_BOT_VERSION = "1.0.0"

#: A fenced block: its language tag and its text.
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
#: The first line of a block that is a file of the project: a comment naming it.
FILE_LINE = re.compile(r"^(?://|#|<!--)\s*([\w/.-]+\.[\w]+)(?:\s|$)")


@dataclass(frozen=True)
class Project:
    """What a guide says a bot project is: its shell commands and its files (path: text)."""

    commands: str
    files: dict[str, str]


def guide_project(language: str) -> Project:
    """The project of ``docs/bots/<language>.md``: the one ``sh`` block and the file blocks of
    its "Your bot's own …" section, and the file blocks of its "A whole bot" section."""
    text = (GUIDES / f"{language}.md").read_text(encoding="utf-8")
    sections = {
        heading: body
        for heading, body in re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    }
    own = [body for heading, body in sections.items() if heading.startswith("Your bot's own")]
    assert len(own) == 1, f'{language}.md has no section "Your bot\'s own …"'
    commands, files = [], {}
    for body in (own[0], sections.get("A whole bot", "")):
        for tag, block in FENCE.findall(body):
            if tag == "sh":
                commands.append(block)
            elif match := FILE_LINE.match(block):
                files[match.group(1)] = block
    assert len(commands) == 1, f"{language}.md: one sh block of commands, found {len(commands)}"
    return Project(commands[0], files)


def build_project(language: str, tmp_path: Path, env: dict[str, str]) -> Path:
    """Write the guide's files into ``tmp_path/mybot`` (the checkout is ``tmp_path/rookery`` and
    ``$ROOKERY``) and run its commands there; the project's folder."""
    project = guide_project(language)
    folder = tmp_path / "mybot"
    folder.mkdir()
    (tmp_path / "rookery").symlink_to(REPO, target_is_directory=True)
    for name, text in project.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    process = subprocess.run(
        ["nice", "-n", "10", "bash", "-euo", "pipefail", "-c", project.commands],
        cwd=folder,
        env={**os.environ, "ROOKERY": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    output = process.stdout + process.stderr
    assert process.returncode == 0, f"{language}.md's commands:\n{project.commands}\n{output}"
    return folder


@dataclass(frozen=True)
class Ecosystem:
    """How the tests build and run one kit's project: the environment its commands get (caches
    only) and the bot's command, given the project's folder."""

    env: dict[str, str]
    command: Callable[[Path], list[str]]


RUST_TARGET = REPO / "clients/rust/target"
ECOSYSTEMS = {
    "go": Ecosystem({}, lambda project: [str(project / "mybot")]),
    "typescript": Ecosystem(
        {
            "npm_config_prefer_offline": "true",
            "npm_config_audit": "false",
            "npm_config_fund": "false",
            "npm_config_update_notifier": "false",
        },
        lambda project: ["node", str(project / "dist/myBot.js")],
    ),
    # The kit's own target folder: the dependencies it compiled are not compiled again.
    "rust": Ecosystem(
        {"CARGO_TARGET_DIR": str(RUST_TARGET), "CARGO_NET_OFFLINE": "true"},
        lambda project: [str(RUST_TARGET / "debug/mybot")],
    ),
    "java": Ecosystem(
        {},
        lambda project: [
            "java",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-jar",
            str(project / "target/mybot.jar"),
        ],
    ),
    "cpp": Ecosystem({}, lambda project: [str(project / "build/mybot")]),
}


@pytest.mark.parametrize("language", ["go", "typescript", "rust", "java", "cpp"])
async def test_bot_project_outside_the_repository_depends_on_the_kit_as_its_guide_says_and_plays(
    language: str, tmp_path: Path, server: RookeryServer, launcher: Launcher
) -> None:
    ecosystem = ECOSYSTEMS[language]
    project = build_project(language, tmp_path, ecosystem.env)
    bot = await launcher.command_bot(ecosystem.command(project), server.target, "mybot")
    await launcher.python_bot(server.target, "py", "--sessions", "3")

    outcome = await TABLES.play(server, ("mybot", "py", "py", "py"), seed=21)

    await check_kit_seat(server.target, outcome, 0, bot)
    if language in ("go", "typescript"):
        replay = await fetch_replay(server.target, outcome.table_id)
        assert replay.header.seats[0].bot_version == GUIDE_BOT_VERSION, bot.log()
    check_unreachable_exit(ecosystem.command(project))
    if language == "rust":  # the guide's target/ is the kit's, where the tests let cargo build
        (project / "target").symlink_to(RUST_TARGET, target_is_directory=True)
    if language in GUIDE_ARENAS:
        await asyncio.to_thread(check_guide_arena, language, project)


#: The guides whose "In the arena" commands run here: every kit's.
GUIDE_ARENAS = ("go", "java", "cpp", "rust", "typescript")


def check_guide_arena(language: str, project: Path) -> None:
    """The guide's "In the arena" commands, as printed, in the project's folder with the sandbox
    at its default: the bot plays its games against the heuristic to the end, without a crash."""
    text = (GUIDES / f"{language}.md").read_text(encoding="utf-8")
    section = text.split("\n## In the arena\n", 1)[1].split("\n## ", 1)[0]
    ((_, block),) = FENCE.findall(section)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOKERY_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # `rookery`
    lines = [line for line in block.splitlines() if line.strip()]
    assert lines[0].startswith("rookery arena run ") and "--games 4" in lines[0], lines
    for line in lines:
        done = subprocess.run(
            ["bash", "-c", line], cwd=project, env=env, capture_output=True, text=True,
            timeout=600, check=False,
        )  # fmt: skip
        assert done.returncode == 0, (
            f"{line!r} exited {done.returncode}:\n{done.stdout}{done.stderr}"
        )
        assert "mine" in done.stdout, done.stdout
        if line.startswith("rookery arena run"):
            assert "4/4 recorded in runs/arena-" in done.stdout, done.stdout
            assert "sandbox: bubblewrap" in done.stdout + done.stderr, done.stdout + done.stderr
    with RunStore(project / "runs" / "latest") as store:
        games = store.games("arena")
        crashes = [i for i in store.incidents("arena") if i[0] == "mine" and i[1] == "crash"]
    assert len(games) == 4 and crashes == [], (games, crashes)
    assert {g.termination for g in games} <= {"TARGET_REACHED", "MAX_HANDS"}, games


#: What a crash's trace looks like in each language: a guide's bot must not end with one.
TRACES = ("panicked at", "RUST_BACKTRACE", "Exception in thread", "\tat ", "terminate called",
          "Traceback", "goroutine ", "    at ")  # fmt: skip


def check_unreachable_exit(command: list[str]) -> None:
    """The guide's bot, given a server that is not there, exits 4 (the kit contract) with a line
    naming the address, and no trace (Rust's panic was 101, C++'s abort 134, Java's 1)."""
    with socket.socket() as probe:  # a port nobody listens on: bound here, never listened to
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROOKERY_")}
        done = subprocess.run(
            [*command, "--server", address, "--name", "mybot", "--connect-timeout", "1"],
            capture_output=True, text=True, timeout=60, env=env, check=False,
        )  # fmt: skip
    assert done.returncode == 4, done.stdout + done.stderr
    assert address in done.stderr and not [t for t in TRACES if t in done.stderr], done.stderr


def test_the_rust_crate_carries_the_contract_its_code_is_generated_from() -> None:
    kit = REPO / "clients/rust"
    argv = ["cargo", "package", "--list", "--allow-dirty", "--offline"]
    listing = subprocess.run(argv, cwd=kit, capture_output=True, text=True, timeout=120, check=True)

    contract = {f"proto/rookery/v1/{path.name}" for path in (REPO / "proto/rookery/v1").iterdir()}
    assert contract <= set(listing.stdout.split()), listing.stdout


def test_a_copy_of_the_built_go_kit_builds_without_the_repository(tmp_path: Path) -> None:
    kit = REPO / "clients/go"
    build = subprocess.run([str(kit / "build.sh")], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout + build.stderr
    copy = tmp_path / "go-kit"
    # Its tools (.bin/) are kept: only the generation and the build have to run again.
    ignore = shutil.ignore_patterns("bin", ".stamp-gen", ".stamp-build")
    shutil.copytree(kit, copy, ignore=ignore)
    generated = sorted((copy / "gen/rookery/v1").iterdir())

    env = {key: value for key, value in os.environ.items() if key != "ROOKERY_PROTO_DIR"}
    argv = ["nice", "-n", "10", str(copy / "build.sh")]
    again = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, check=False)

    assert again.returncode == 0, again.stdout + again.stderr
    assert (copy / "bin/rookery-sample-bot").is_file()
    assert sorted((copy / "gen/rookery/v1").iterdir()) == generated
