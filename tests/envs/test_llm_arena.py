"""A duplicate tournament of two scripted "models" (the text seat and the tool-calling seat,
behind one scripted chat server on loopback) and the heuristic bot: the standings and every
report show each model's tokens, cost, mean latency, invalid-reply rate and durability beside its
strength; the tournament's retry policy ([llm] retries) reaches the seats; the budget cap
([llm] budget_usd) stops the run cleanly with the ledger written, and --resume with a raised cap
plays the rest."""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import json
import re
import shlex
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from chat_server import chat_server
from rich.console import Console
from rookery.arena.config import BotSpec, Format, TournamentConfig, config_from_dict
from rookery.arena.errors import ArenaConfigError
from rookery.arena.launch import SandboxMode
from rookery.arena.records import RunStore, load_run, report_dict, run_ledger
from rookery.arena.run import LiveState, TournamentOptions, TournamentRunner
from rookery.cli._progress import ProgressDisplay
from rookery.cli._report_tables import standings_table
from rookery.engine import AllPass, Ruleset
from rookery.server import TimeControl
from rookery.v1 import replay_pb2
from rookery.web import write_report
from rookery.wire.replay import read_replay

PYTHON = shlex.quote(sys.executable)
OPTIONS = TournamentOptions(connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0)
MODELS = ("text-model", "tool-model")


def _config(url: str, budget_usd: float) -> TournamentConfig:
    def model(name: str, seat: str, **own: str) -> BotSpec:
        command = f"{PYTHON} -m rookery.cli.main bot run rookery.envs.seat:{seat}"
        env = {"ROOKERY_CHAT_URL": url, "ROOKERY_CHAT_MODEL": "scripted"}
        return BotSpec(name, command, env=env | own)

    heuristic = BotSpec(
        "heuristic", f"{PYTHON} -m rookery.cli.main bot run rookery.client.bots:HeuristicBot"
    )
    return TournamentConfig(
        name="llm-duplicate",
        # One hand, always played out (no all-pass redeal): every game a whole hand long.
        ruleset=Ruleset.preset("standard").replace(
            target=100, max_hands=1, all_pass=AllPass.DEALER_FORCED
        ),
        bots=(
            model("text-model", "TextSeatBot"),  # priced by the tournament's table
            model("tool-model", "ToolSeatBot", ROOKERY_CHAT_PRICE="3,4"),  # its own price
            heuristic,
        ),
        format=Format.ROUND_ROBIN,
        games=2,  # per pairing: one duplicate pair
        duplicate=True,
        concurrency=1,
        seed=45,
        time_control=TimeControl(action_ms=4000, strike_limit=3, grace_ms=500),
        bootstrap=20,
        sandbox=SandboxMode.OFF,
        llm_budget_usd=budget_usd,
        llm_retries=0,  # an invalid reply: the late policy plays that decision at once
        llm_prices={"scripted": (1.0, 2.0)},
    )


def test_the_llm_table_keys_parse_and_only_the_retries_decide_the_games() -> None:
    data = {
        "name": "t",
        "seed": 1,
        "bots": [{"name": "a", "command": "x"}, {"name": "b", "command": "y"}],
        "llm": {"budget_usd": 2.5, "retries": 1, "prices": {"m-1": [0.15, 0.6]}},
    }
    config = config_from_dict(data)
    assert (config.llm_budget_usd, config.llm_retries) == (2.5, 1)
    assert config.launch_spec(config.bots[0]).env["ROOKERY_CHAT_RETRIES"] == "1"
    own = dataclasses.replace(config.bots[0], env={"ROOKERY_CHAT_RETRIES": "4"})
    assert config.launch_spec(own).env["ROOKERY_CHAT_RETRIES"] == "4"  # the bot's own wins
    priced = dataclasses.replace(config.bots[0], env={"ROOKERY_CHAT_MODEL": "m-1"})
    assert config.launch_spec(priced).env["ROOKERY_CHAT_PRICE"] == "0.15,0.6"
    assert "ROOKERY_CHAT_PRICE" not in config.launch_spec(config.bots[1]).env  # no model named
    raised = config_from_dict(data | {"llm": {"budget_usd": 9.0, "retries": 1}})
    assert raised.fingerprint() == config.fingerprint()  # a raised cap resumes the run, repriced
    stricter = config_from_dict(data | {"llm": {"budget_usd": 2.5, "retries": 3}})
    assert stricter.fingerprint() != config.fingerprint()
    for bad in ([0.1], [0.1, -1], ["a", 1], 0.5):
        with pytest.raises(ArenaConfigError, match=r"llm\.prices\.m-1: must be \[IN, OUT\]"):
            config_from_dict(data | {"llm": {"prices": {"m-1": bad}}})
    with pytest.raises(ArenaConfigError, match=r"llm\.budget_usd"):
        config_from_dict(data | {"llm": {"budget_usd": 0}})
    with pytest.raises(ArenaConfigError, match=r"llm\.cap"):
        config_from_dict(data | {"llm": {"cap": 1}})
    assert (
        config_from_dict(dict(data, llm={})).fingerprint()
        == config_from_dict({k: v for k, v in data.items() if k != "llm"}).fingerprint()
    )  # runs made before the [llm] table resume as they were


def test_the_llm_table_of_docs_ai_md_is_read_as_printed() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "ai.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```toml\n(.*?)```", doc, re.DOTALL) if "[llm]" in b]
    bots = [{"name": "a", "command": "x"}, {"name": "b", "command": "y"}]
    config = config_from_dict(tomllib.loads(block) | {"bots": bots})
    assert (config.llm_retries, config.llm_budget_usd) == (2, 5.0)
    assert config.llm_prices == {"gpt-4o-mini": (0.15, 0.60)}
    (teams,) = [b for b in re.findall(r"```toml\n(.*?)```", doc, re.DOTALL) if "[[teams]]" in b]
    bots = [{"name": n, "command": "x"} for n in ("gpt", "heuristic", "random")]
    config = config_from_dict(tomllib.loads(textwrap.dedent(teams)) | {"bots": bots})
    assert config.entries == ("gpt-and-heuristic", "random")


async def test_two_models_and_the_heuristic_on_duplicate_deals_stop_at_the_budget_and_resume(
    tmp_path: Path,
) -> None:
    run_dir = tmp_path / "run"
    with chat_server("legal", {5: "garbage", 45: "garbage"}) as (url, script):
        # A cap below any game's cost: the first game is played (nothing is known of the cost
        # before it), then the run stops cleanly with that game and its ledger recorded.
        first = await TournamentRunner(_config(url, 1e-9), run_dir, options=OPTIONS).run()
        assert first.budget_reached and first.cancelled
        assert first.recorded == 1 and first.total == 6
        with RunStore(run_dir) as store:
            (tournament,) = store.tournaments()
            assert tournament.status == "cancelled"
        spent = sum(
            s.ledger.cost_usd for s in load_run(run_dir).summary.standings if s.ledger is not None
        )
        assert spent > 0
        requests_before = len(script.requests)

        second = await TournamentRunner(_config(url, 1000.0), run_dir, options=OPTIONS).run()
        assert second.resumed and not second.budget_reached and not second.cancelled
        assert second.played == 5 and second.recorded == 6
        assert len(script.requests) > requests_before
    data = load_run(run_dir)
    standings = {s.name: s for s in data.summary.standings}
    assert standings["heuristic"].ledger is None  # a bot that spends no tokens has no ledger
    replays = [read_replay(run_dir / row.replay_path) for row in data.games]
    # The sums in the standings are the scripted server's own counts, over both runs.
    ledgers = {name: standings[name].ledger for name in MODELS}
    assert all(led is not None for led in ledgers.values())
    attempts = sum(led.attempts for led in ledgers.values() if led is not None)
    assert attempts == len(script.requests)
    tokens = sum(
        led.prompt_tokens + led.completion_tokens for led in ledgers.values() if led is not None
    )
    assert tokens == script.sent["prompt_tokens"] + script.sent["completion_tokens"]
    assert run_ledger(run_dir) == {name: ledgers[name] for name in MODELS}
    invalid = sum(led.invalid_replies for led in ledgers.values() if led is not None)
    assert invalid == 2  # the two garbage answers
    for name in MODELS:
        led, standing = ledgers[name], standings[name]
        assert led is not None and led.games == 4 and led.decisions > 0
        price_in, price_out = (1, 2) if name == "text-model" else (3, 4)
        cost = (led.prompt_tokens * price_in + led.completion_tokens * price_out) / 1e6
        assert led.cost_usd == pytest.approx(cost)
        assert led.mean_latency_ms > 0 and led.durability > 0
        # the model's invalid replies are its illegal replies, which the table never saw
        assert standing.illegal_replies == led.invalid_replies
    # [llm] retries = 0: each invalid reply left its decision to the late policy at once.
    auto_played = sum(
        1
        for replay in replays
        for hand in replay.hands
        for action in hand.actions
        if action.outcome == replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
    )
    assert auto_played == invalid == sum(standings[n].auto_plays for n in MODELS)
    assert sum(led.missed for led in ledgers.values() if led is not None) == 2
    # Every decision, with each refused attempt's reason, is in the run's logs too.
    decisions = [
        json.loads(line)
        for name in MODELS
        for line in (run_dir / "logs" / f"{name}.decisions.jsonl").read_text().splitlines()
    ]
    assert sum(d["attempts"] for d in decisions) == len(script.requests)
    refused = [d for d in decisions if d["invalid_replies"]]
    assert len(refused) == 2
    assert all(d["late_policy_applies"] and len(d["errors"]) == 1 for d in refused)
    assert sum(led.decisions for led in ledgers.values() if led is not None) == len(decisions)

    # The terminal table, report.json, standings.csv and report.html say the same.
    console = Console(record=True, width=250)
    console.print(standings_table(data.summary))
    text = console.export_text()
    for column in ("tokens", "$", "latency ms", "invalid rate", "durability"):
        assert column in text
    report = {row["bot"]: row for row in report_dict(data)["standings"]}
    for name in MODELS:
        led = ledgers[name]
        assert led is not None
        assert report[name]["llm_cost_usd"] == led.cost_usd
        assert report[name]["llm_prompt_tokens"] == led.prompt_tokens
        assert report[name]["llm_invalid_reply_rate"] == led.invalid_reply_rate
        assert report[name]["llm_durability"] == led.durability
    assert report["heuristic"]["llm_cost_usd"] is None
    write_report(run_dir)
    json.loads((run_dir / "report.json").read_text())  # valid JSON with the ledger in it
    with (run_dir / "standings.csv").open(encoding="utf-8") as handle:
        rows = {row["bot"]: row for row in csv.DictReader(handle)}
    assert float(rows["text-model"]["llm_cost_usd"]) == ledgers["text-model"].cost_usd  # type: ignore[union-attr]
    assert rows["heuristic"]["llm_cost_usd"] == ""
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "<th>durability</th>" in page and "<th>invalid rate</th>" in page
    text_model = ledgers["text-model"]
    assert text_model is not None and f"<td class=n>{text_model.cost_usd:.4f}</td>" in page


def test_the_progress_lines_say_what_the_models_spent() -> None:
    stream = io.StringIO()
    live = LiveState("t", total=4, done=4, started_at=0.0, cost_usd=0.0123, costed_games=2)
    live.messages.append("budget reached: $0.0123 spent of $0.02")
    ProgressDisplay(stream=stream)(live)
    printed = stream.getvalue()
    assert "budget reached" in printed
    assert "$0.0123 spent by language models" in printed
    stream = io.StringIO()
    ProgressDisplay(stream=stream)(LiveState("t", total=4, done=4, started_at=0.0))
    assert "spent" not in stream.getvalue()  # no model, no spend to speak of


def _team_data(**changes: object) -> dict[str, object]:
    bots = [{"name": n, "command": "x"} for n in ("model", "heuristic", "random")]
    data: dict[str, object] = {
        "name": "t",
        "seed": 1,
        "games": 2,
        "bots": bots,
        "teams": [{"name": "duo", "members": ["model", "heuristic"]}],
    }
    return data | changes


def test_a_team_is_one_entry_whose_members_share_its_sides_seats() -> None:
    config = config_from_dict(_team_data())
    assert config.entries == ("duo", "random")
    schedule = TournamentRunner(config, "unused").schedule
    games = list(schedule.games())
    assert len(games) == 2  # one lineup, one duplicate pair
    for game in games:
        duo = game.side_bots.index("duo")
        seats = [s for s in range(4) if Ruleset.preset("standard").side_of(s) == duo]
        assert sorted(game.seat_bots[s] for s in seats) == ["heuristic", "model"]
    called = {"preset": "called-partner"}
    for data, key in (
        (_team_data(**called), "teams"),
        (_team_data(teams=[{"name": "duo", "members": ["model", "ghost"]}]), "ghost"),
        (_team_data(teams=[{"name": "random", "members": ["model", "heuristic"]}]), "name"),
        (_team_data(teams=[{"name": "duo", "members": ["model"]}]), "2 to 2 different"),
        (
            _team_data(
                teams=[
                    {"name": "a", "members": ["model", "heuristic"]},
                    {"name": "b", "members": ["model", "random"]},
                ]
            ),
            "two teams",
        ),
    ):
        with pytest.raises(ArenaConfigError, match=key):
            config_from_dict(data)


async def test_a_model_partnered_with_the_heuristic_bot_against_random(tmp_path: Path) -> None:
    with chat_server("legal") as (url, script):
        env = {"ROOKERY_CHAT_URL": url, "ROOKERY_CHAT_MODEL": "scripted"}
        seat = f"{PYTHON} -m rookery.cli.main bot run"
        config = TournamentConfig(
            name="llm-team",
            ruleset=Ruleset.preset("standard").replace(
                target=100, max_hands=1, all_pass=AllPass.DEALER_FORCED
            ),
            bots=(
                BotSpec("model", f"{seat} rookery.envs.seat:TextSeatBot", env=env),
                BotSpec("heuristic", f"{seat} rookery.client.bots:HeuristicBot"),
                BotSpec("random", f"{seat} rookery.client.bots:RandomBot"),
            ),
            teams=(("duo", ("model", "heuristic")),),
            games=2,
            concurrency=1,
            seed=3,
            time_control=TimeControl(action_ms=4000, strike_limit=3, grace_ms=500),
            bootstrap=10,
            sandbox=SandboxMode.OFF,
        )
        result = await TournamentRunner(config, tmp_path / "run", options=OPTIONS).run()
    assert result.recorded == result.total == 2
    data = load_run(tmp_path / "run")
    for row in data.games:
        assert set(row.seat_bots) == {"model", "heuristic", "random"}
        assert row.termination != "ABORTED"
    summary = data.summary
    assert summary.mixed_partnerships  # rated as a partnership of two bots
    standings = {s.name: s for s in summary.standings}
    assert standings["model"].games == standings["heuristic"].games == 2
    model = standings["model"].ledger
    assert model is not None and model.attempts == len(script.requests) and model.games == 2
    assert standings["heuristic"].ledger is None


async def _arena_cli(*args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rookery.cli.main", "arena", "run", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await process.communicate()
    return int(process.returncode or 0), out.decode()


async def test_the_command_line_stops_at_its_budget_and_resumes_with_a_higher_one(
    tmp_path: Path,
) -> None:
    with chat_server("legal") as (url, script):
        tournament = tmp_path / "t.toml"
        tournament.write_text(
            f"""name = "cli-budget"
games = 2
concurrency = 1
sandbox = "off"

[ruleset]
preset = "standard"
target = 50

[llm.prices]
"scripted" = [1.0, 2.0]

[[bots]]
name = "gpt"
command = "rookery bot run rookery.envs.seat:TextSeatBot"
env = {{ ROOKERY_CHAT_URL = "{url}", ROOKERY_CHAT_MODEL = "scripted" }}

[[bots]]
name = "heuristic"
command = "rookery bot run rookery.client.bots:HeuristicBot"
""",
            encoding="utf-8",
        )
        run = tmp_path / "run"
        code, out = await _arena_cli(str(tournament), "--budget-usd", "1e-9", "--out", str(run))
        assert code == 130, out
        assert "budget reached" in out and f"--resume {run}" in out
        assert "1/2 recorded" in out and "durability" in out
        code, out = await _arena_cli(str(tournament), "--budget-usd", "100", "--resume", str(run))
    assert code == 0, out
    assert "2/2 recorded" in out
    ledger = run_ledger(run)["gpt"]
    assert ledger.games == 2 and ledger.attempts == len(script.requests)
    assert ledger.cost_usd == pytest.approx(
        (ledger.prompt_tokens + 2 * ledger.completion_tokens) / 1e6
    )
