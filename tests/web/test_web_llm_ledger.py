"""A language-model seat's decisions in the replay viewer: each move shows its note (the model's
stated reason) and its attempts, invalid replies and tokens, once its hand is scored; the report
pages' leaderboard and the arena's standings carry the same ledger. The model is the text seat
behind the scripted chat server of tests/envs, on loopback, in a real arena run."""

from __future__ import annotations

import importlib.util
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from playwright.sync_api import Page
from rookery.arena.config import BotSpec, Format, TournamentConfig
from rookery.arena.launch import SandboxMode
from rookery.arena.records import load_run
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.engine import AllPass, Ruleset
from rookery.server import TimeControl
from rookery.v1 import replay_pb2
from rookery.web import write_report_pages
from rookery.web.testing import LoopThread
from rookery.wire.replay import read_replay

pytestmark = pytest.mark.slow
PYTHON = shlex.quote(sys.executable)
#: The scripted request whose first answer is illegal: re-prompted, then answered legally.
REPROMPTED = 3


def _chat_server_module() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "envs" / "chat_server.py"
    spec = importlib.util.spec_from_file_location("llm_chat_server", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def llm_run(tmp_path_factory: pytest.TempPathFactory, loop_thread: LoopThread) -> Iterator[Path]:
    """A run directory: one duplicate pair of a scripted text-seat model against the heuristic."""
    run_dir = tmp_path_factory.mktemp("llm") / "run"
    chat = _chat_server_module()
    with chat.chat_server("legal", {REPROMPTED: "illegal_then_legal"}) as (url, _):
        env = {"ROOKERY_CHAT_URL": url, "ROOKERY_CHAT_MODEL": "scripted"}
        config = TournamentConfig(
            name="llm-viewer",
            ruleset=Ruleset.preset("standard").replace(
                target=100, max_hands=1, all_pass=AllPass.DEALER_FORCED
            ),
            bots=(
                BotSpec(
                    "model",
                    f"{PYTHON} -m rookery.cli.main bot run rookery.envs.seat:TextSeatBot",
                    env=env | {"ROOKERY_CHAT_PRICE": "1,2"},
                ),
                BotSpec(
                    "heuristic",
                    f"{PYTHON} -m rookery.cli.main bot run rookery.client.bots:HeuristicBot",
                ),
            ),
            format=Format.ROUND_ROBIN,
            games=2,
            concurrency=1,
            seed=7,
            time_control=TimeControl(action_ms=4000, strike_limit=3, grace_ms=500),
            bootstrap=10,
            sandbox=SandboxMode.OFF,
        )
        options = TournamentOptions(
            connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0
        )
        result = loop_thread.run(TournamentRunner(config, run_dir, options=options).run(), 300.0)
    assert result.recorded == 2
    yield run_dir


def _reprompted_move(run_dir: Path) -> tuple[str, int, replay_pb2.ReplayAction]:
    """(game, move index in its hand, the move) of the decision that took two attempts."""
    for game in load_run(run_dir).games:
        replay = read_replay(run_dir / game.replay_path)
        for hand in replay.hands:
            moves = [a for a in hand.actions if a.outcome != replay_pb2.ACTION_OUTCOME_REJECTED]
            for index, move in enumerate(moves):
                if move.note.values.get("attempts") == 2:
                    return game.game_id, index, move
    raise AssertionError("no decision took two attempts")


def test_the_viewer_shows_a_decisions_attempts_and_note(
    page: Page, llm_run: Path, tmp_path: Path
) -> None:
    game_id, index, move = _reprompted_move(llm_run)
    assert move.note.values["invalid_replies"] == 1
    assert move.note.text == "Looking at my hand, the safest choice is the first one."
    write_report_pages(llm_run, tmp_path)
    page.goto((tmp_path / "index.html").as_uri())
    page.wait_for_selector("#leaderboard tbody tr")
    page.locator(f"a.replay-link[href*='{game_id}']").first.click()
    page.wait_for_selector("#counter")
    page.keyboard.press("End")  # the game over: every hand scored, its notes shown
    page.wait_for_selector("#hand-notes")
    item = page.locator(f"#hand-notes li[data-move='{index}']")
    shown = item.inner_text()
    assert move.note.text in shown
    assert "attempts=2" in shown and "invalid_replies=1" in shown
    prompt_tokens = int(move.note.values["prompt_tokens"])
    assert f"prompt_tokens={prompt_tokens}" in shown
    # Every other decision of the model shows its single attempt the same way.
    model = [t for t in page.locator("#hand-notes li").all_inner_texts() if "(model)" in t]
    assert len(model) > 10
    assert sum("attempts=1," in text for text in model) == len(model) - 1


def test_the_leaderboard_shows_the_models_ledger_beside_its_rating(
    page: Page, llm_run: Path, tmp_path: Path
) -> None:
    standings = {s.name: s for s in load_run(llm_run).summary.standings}
    ledger = standings["model"].ledger
    assert ledger is not None and ledger.invalid_replies == 1
    write_report_pages(llm_run, tmp_path)
    page.goto((tmp_path / "index.html").as_uri())
    page.wait_for_selector("#leaderboard tbody tr")
    heads = page.locator("#leaderboard th").all_inner_texts()
    assert heads[-6:] == ["tokens", "$", "latency ms", "invalid", "invalid rate", "durability"]
    model = page.locator("#leaderboard tr[data-bot='model']")
    assert model.locator(".ledger-cost").inner_text() == f"{ledger.cost_usd:.4f}"
    assert model.locator(".ledger-tokens").inner_text() == (
        f"{ledger.prompt_tokens}/{ledger.completion_tokens}"
    )
    assert model.locator(".ledger-invalid").inner_text() == "1"
    assert model.locator(".ledger-durability").inner_text() == f"{ledger.durability:.1f}"
    heuristic = page.locator("#leaderboard tr[data-bot='heuristic'] td").all_inner_texts()
    assert heuristic[-6:] == [""] * 6  # a bot with no ledger: blank cells
