"""Every Python example of docs/ai.md runs as written, and every module's doctests pass."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "ai.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def test_the_doc_has_an_example_per_integration() -> None:
    joined = "\n".join(EXAMPLES)
    for needle in (
        "RookAECEnv",
        "RookGymEnv",
        "python_rook",
        "RookVectorEnv",
        "train_linear",
        "TextSeat",
    ):
        assert needle in joined, needle


@pytest.mark.parametrize("source", EXAMPLES, ids=lambda s: s.splitlines()[-1][:40])
def test_a_doc_example_runs(
    source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # The MaskablePPO example's stable-baselines3 logs: in the test's folder, not the system's.
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))
    exec(compile(source, str(DOC), "exec"), {"__name__": "__doc_example__"})
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize("name", ["aec", "gym", "spiel", "vector"])
def test_the_module_doctests_pass(name: str) -> None:
    module = importlib.import_module(f"rookery.envs.{name}")
    assert doctest.testmod(module).failed == 0
