"""A bot's declared environment reaches it in the sandbox, and a bot that cannot start is no loss.

docs/ai.md's train-then-arena recipe: a trained policy saved as ``policy.npz`` beside the
tournament file, whose bot entry says ``env = {ROOKERY_POLICY = "policy.npz"}``. In the sandbox the
bot starts in its own folder (here the venv's ``bin``), so the relative name once named nothing,
every table's bot failed to load it, and the run recorded two rated forfeits and exited 0. Now a
value naming a file (relative to the tournament file's folder) is made absolute and the file
mounted read-only; a bot that cannot be made ends ``rookery bot run`` at once with exit 2, a
failed start: the run exits non-zero, naming the cause, and rates nothing.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from rookery.arena.launch import probe
from rookery.engine import Ruleset
from rookery.envs.learn import LinearPolicy

ROOKERY = Path(sys.executable).with_name("rookery")
CONFIG = """\
name = "bridge"
games = 2
sandbox = "on"

[[bots]]
name = "trained"
command = "rookery bot run rookery.envs.bridge:LinearBot"
env = {{ ROOKERY_POLICY = "{policy}" }}

[[bots]]
name = "random"
command = "rookery bot run rookery.client.bots:RandomBot"
"""


def _run(tmp_path: Path, policy: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    support = probe(cgroups=False)
    assert support.available, support.describe()
    folder = tmp_path / "training"
    folder.mkdir()
    LinearPolicy.zeros(Ruleset.preset("standard")).save(folder / "policy.npz")
    (folder / "bridge.toml").write_text(CONFIG.format(policy=policy))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOKERY_")}
    env["PATH"] = f"{ROOKERY.parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    run_dir = tmp_path / "run"
    done = subprocess.run(
        [str(ROOKERY), "arena", "run", "training/bridge.toml", "--out", str(run_dir)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    return done, run_dir


def test_a_policy_file_named_in_the_bots_env_reaches_it_in_the_sandbox(tmp_path: Path) -> None:
    done, run_dir = _run(tmp_path, "policy.npz")

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with sqlite3.connect(run_dir / "arena.sqlite") as db:
        games = db.execute("SELECT termination FROM games").fetchall()
        incidents = db.execute("SELECT bot, kind FROM incidents").fetchall()
    assert [t for (t,) in games] and {t for (t,) in games} <= {"TARGET_REACHED", "MAX_HANDS"}, (
        games,
        (run_dir / "logs" / "trained.log").read_text()[-3000:],
    )
    assert len(games) == 2 and incidents == [], (games, incidents)


def test_a_bot_that_cannot_start_is_a_failed_start_never_a_rated_loss(tmp_path: Path) -> None:
    done, run_dir = _run(tmp_path, "no-such-policy.npz")

    assert done.returncode != 0, done.stdout[-3000:]
    output = done.stdout + done.stderr
    assert "the bot cannot start: PolicyFileError" in output, output[-3000:]
    with sqlite3.connect(run_dir / "arena.sqlite") as db:
        rated = db.execute("SELECT count(*) FROM games").fetchone()[0]
    assert rated == 0, output[-3000:]


PEEK = """\
import os
for key in ("SECRET_ABSOLUTE", "SECRET_ABOVE", "SECRET_DOTTED", "OWN_DATA"):
    try:
        with open(os.environ[key]) as handle:
            print("PEEK", key, "read", handle.read().strip(), flush=True)
    except OSError as error:
        print("PEEK", key, "refused", type(error).__name__, flush=True)
"""


def test_only_files_in_the_config_files_folder_are_mounted_for_the_env(tmp_path: Path) -> None:
    support = probe(cgroups=False)
    assert support.available, support.describe()
    secret = tmp_path / "secret.txt"
    secret.write_text("organiser-secret")
    folder = tmp_path / "contest"
    (folder / ".hidden").mkdir(parents=True)
    (folder / ".hidden" / "key").write_text("dotted-secret")
    (folder / "data").mkdir()
    (folder / "data" / "ok.txt").write_text("own-data")
    (folder / "bot").mkdir()
    (folder / "bot" / "peek.py").write_text(PEEK)
    (folder / "peek.toml").write_text(
        'name = "peek"\ngames = 1\nsandbox = "on"\n[[bots]]\nname = "peek"\n'
        'command = "python bot/peek.py"\nfolder = "bot"\n'
        f'env = {{ SECRET_ABSOLUTE = "{secret}", SECRET_ABOVE = "../secret.txt", '
        'SECRET_DOTTED = ".hidden/key", OWN_DATA = "data/ok.txt" }\n'
        '[[bots]]\nname = "random"\ncommand = "rookery bot run rookery.client.bots:RandomBot"\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOKERY_")}
    env["PATH"] = f"{ROOKERY.parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    subprocess.run(
        [str(ROOKERY), "arena", "run", "peek.toml", "--out", str(tmp_path / "run")],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip

    log = (tmp_path / "run" / "logs" / "peek.log").read_text()
    assert "PEEK OWN_DATA read own-data" in log, log[-2000:]  # the control
    for key in ("SECRET_ABSOLUTE", "SECRET_ABOVE", "SECRET_DOTTED"):
        assert f"PEEK {key} refused" in log and f"PEEK {key} read" not in log, (key, log[-2000:])
