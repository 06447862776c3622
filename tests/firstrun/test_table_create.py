"""``rookery table create``: a one-line start of a game between bots connected to a server.

A real server and a real bot process (``rookery bot run ... --server``), as README step 3 has
them; the bot says what it waits for, and the command starts and follows the game.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import Background, background_group
from rookery.cli.table import seat_bots

ROOKERY = str(Path(sys.executable).with_name("rookery"))


def _table(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ROOKERY, "table", "create", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_the_names_fill_the_seats_in_order_repeated() -> None:
    assert seat_bots(["solo"], 4) == ["solo"] * 4
    assert seat_bots(["a", "b"], 4) == ["a", "b", "a", "b"]
    assert seat_bots(["a", "b", "c"], 6) == ["a", "b", "c", "a", "b", "c"]
    with pytest.raises(ValueError, match="5 names for 4 seats"):
        seat_bots(list("abcde"), 4)


def test_a_waiting_bot_says_what_it_waits_for_and_table_create_starts_its_game(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOKERY_")}
    port_file = tmp_path / "port"
    with background_group() as started:
        server = Background(
            [
                ROOKERY,
                "serve",
                "--address",
                "127.0.0.1:0",
                "--port-file",
                str(port_file),
                "--web-address",
                "off",
            ],
            tmp_path / "server.log",
            tmp_path,
            env,
        )
        started.append(server)
        server.wait_for(
            lambda _: port_file.exists() and port_file.read_text().strip() != "",
            60,
            "the server's port file",
        )
        target = f"127.0.0.1:{port_file.read_text().strip()}"
        bot = Background(
            [
                ROOKERY,
                "bot",
                "run",
                "rookery.client.bots:HeuristicBot",
                "--sessions",
                "4",
                "--server",
                target,
            ],
            tmp_path / "bot.log",
            tmp_path,
            env,
        )
        started.append(bot)
        waiting = bot.wait_for(lambda text: "waiting for a table" in text, 60, "the bot's wait")
        assert f"rookery table create --server {target} --seat HeuristicBot" in waiting

        done = _table("--server", target, "--seat", "HeuristicBot", "--wait", "--seed", "5")
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        assert lines[0].startswith("table ") and lines[0].count("HeuristicBot") == 4
        assert "finished (target_reached)" in lines[-1]
        bot.wait_for(lambda text: "table finished" in text, 30, "the bot's finished game")


def test_too_many_names_are_refused_before_the_server_is_asked() -> None:
    done = _table("--server", "127.0.0.1:9", *[f"--seat=b{i}" for i in range(5)], timeout=30)
    assert done.returncode == 2
    assert "5 names for 4 seats" in done.stderr


def test_an_unreachable_server_is_named() -> None:
    started = time.monotonic()
    done = _table("--server", "127.0.0.1:9", "--seat", "x", "--timeout", "2", timeout=30)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "cannot reach the server at 127.0.0.1:9" in done.stderr
    assert time.monotonic() - started < 20
