"""``rookery envs train`` saves a policy the bridge loads; ``rookery envs check`` checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from rookery.cli.main import main
from rookery.envs.learn import LinearPolicy


def test_train_saves_a_policy_and_reports_both_evaluations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.npz"
    assert main(["envs", "train", "--steps", "200", "--eval-deals", "5", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "random " in text and "trained " in text and "rookery.envs.bridge:LinearBot" in text
    assert LinearPolicy.load(out).preset == "standard"


def test_check_passes_on_a_preset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["envs", "check", "five-handed"]) == 0
    assert "five-handed: PettingZoo api_test, Gymnasium check_env" in capsys.readouterr().out


def test_check_refuses_an_unknown_preset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["envs", "check", "nine-handed"]) == 2
    assert "unknown preset(s) nine-handed; valid: standard" in capsys.readouterr().err
