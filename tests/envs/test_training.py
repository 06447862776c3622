"""A bounded training run beats random on fixed duplicate deals, then plays an arena game as a
bot process (``rookery bot run rookery.envs.bridge:LinearBot``) unchanged."""

from __future__ import annotations

import random
import shlex
import sys
from pathlib import Path

import pytest
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import SandboxMode
from rookery.arena.records import RunStore, load_run
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.client.bots import bot_command, play_game
from rookery.engine import Game, Ruleset
from rookery.envs.bridge import as_policy
from rookery.envs.learn import LinearPolicy, PolicyFileError, evaluate, train_linear
from rookery.server import TimeControl
from rookery.wire.replay import read_replay, replay_to_record

RULES = Ruleset.preset("standard")
EVALUATION = range(10_000, 10_100)
"""The fixed evaluation set: 100 one-hand deals, each played from every seat (duplicate style),
the same cards and opponents' draws for the trained and the random policy."""


@pytest.fixture(scope="module")
def trained() -> LinearPolicy:
    return train_linear(RULES, steps=2000, seed=1)


def test_two_thousand_steps_of_reinforce_beat_random_on_the_same_deals_from_every_seat(
    trained: LinearPolicy,
) -> None:
    random_mean = evaluate(None, RULES, EVALUATION)
    trained_mean = evaluate(trained, RULES, EVALUATION)
    assert trained_mean > random_mean + 0.1, (trained_mean, random_mean)


def test_a_saved_policy_loads_back_identical(trained: LinearPolicy, tmp_path: Path) -> None:
    path = tmp_path / "policy.npz"
    trained.save(path)
    loaded = LinearPolicy.load(path)
    assert loaded.preset == "standard"
    assert (loaded.weights == trained.weights).all() and (loaded.bias == trained.bias).all()


def test_a_policy_file_of_the_wrong_shape_is_refused_precisely(tmp_path: Path) -> None:
    path = tmp_path / "six.npz"
    six = LinearPolicy.zeros(Ruleset.preset("six-handed"))
    LinearPolicy("standard", six.weights, six.bias).save(path)
    with pytest.raises(
        PolicyFileError, match=r"do not fit preset 'standard' \(expected \(190, 811\)\)"
    ):
        LinearPolicy.load(path)
    (tmp_path / "junk.npz").write_bytes(b"junk")
    with pytest.raises(PolicyFileError, match="not a linear policy file"):
        LinearPolicy.load(tmp_path / "junk.npz")


def test_the_trained_policy_plays_whole_games_in_process(trained: LinearPolicy) -> None:
    policies = [as_policy(trained), *[as_policy(LinearPolicy.zeros(RULES))] * 3]
    result = play_game(RULES.replace(target=100), 3, policies)
    assert result.hands_played >= 1


async def test_the_trained_policy_plays_an_arena_game_as_a_bot_process(
    trained: LinearPolicy, tmp_path: Path
) -> None:
    path = tmp_path / "policy.npz"
    trained.save(path)
    python = shlex.quote(sys.executable)
    bots = (
        BotSpec(
            "trained",
            f"{python} -m rookery.cli.main bot run rookery.envs.bridge:LinearBot",
            env={"ROOKERY_POLICY": str(path)},
        ),
        BotSpec(
            "random", bot_command("random").replace("rookery ", f"{python} -m rookery.cli.main ", 1)
        ),
    )
    config = TournamentConfig(
        name="bridge",
        ruleset=RULES.replace(target=100),
        bots=bots,
        games=2,
        concurrency=2,
        time_control=TimeControl(action_ms=2000, strike_limit=3, grace_ms=500),
        bootstrap=20,
        sandbox=SandboxMode.OFF,
    )
    options = TournamentOptions(connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0)
    result = await TournamentRunner(config, tmp_path / "run", options=options).run()
    assert result.recorded == 2
    standing = {s.name: s for s in load_run(tmp_path / "run").summary.standings}["trained"]
    assert standing.games == 2
    assert (standing.illegal_replies, standing.timeouts, standing.auto_plays) == (0, 0, 0)
    # Every move of a trained seat in the replays is the policy's own choice (no fallback).
    policy = as_policy(trained)
    checked = 0
    with RunStore(tmp_path / "run") as store:
        rows = store.games("bridge")
    for row in rows:
        replay = read_replay(tmp_path / "run" / row.replay_path)
        trained_seats = {i for i, s in enumerate(replay.header.seats) if s.bot_name == "trained"}
        record = replay_to_record(replay)
        game = Game(record.ruleset, record.seed, events=False)
        for seat, action in record.actions:
            if seat in trained_seats:
                obs = game.observation_for(seat)
                assert policy(obs, obs.legal_actions(), random.Random(0)) == action
                checked += 1
            game.apply(action)
    assert checked > 20
