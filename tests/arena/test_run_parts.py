"""The tournament runner is a composition of parts that own their state (issue 43).

The parts (the recorder, the local games, the bots' supervisor in ``launch/``, the Ray
backend) never import the runner, and no Protocol in ``run/`` or ``launch/`` mirrors it: the
only Protocols are small contracts (a runner factory, a run), at most three members each.
"""

from __future__ import annotations

import ast
from pathlib import Path

ARENA = Path(__file__).resolve().parents[2] / "arena" / "rookery" / "arena"
RUNNER = "rookery.arena.run._runner"
#: The most members a Protocol of the run or launch rooms may have (RunState had 27).
MOST_PROTOCOL_MEMBERS = 3


def _modules(*rooms: str) -> list[Path]:
    return sorted(path for room in rooms for path in (ARENA / room).glob("*.py"))


def _imported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_no_part_of_a_run_imports_the_runner() -> None:
    importers = [
        str(path.relative_to(ARENA))
        for path in _modules("run", "launch")
        if path.name not in ("_runner.py", "__init__.py", "_service.py")
        and RUNNER in _imported(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not importers, f"parts of a run import the runner: {importers}"


def _wide_protocols(source: str) -> list[str]:
    """The Protocols of ``source`` with more than ``MOST_PROTOCOL_MEMBERS`` members."""
    wide = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        if not any(isinstance(base, ast.Name) and base.id == "Protocol" for base in node.bases):
            continue
        members = [
            part
            for part in node.body
            if isinstance(part, ast.FunctionDef | ast.AsyncFunctionDef | ast.AnnAssign)
        ]
        if len(members) > MOST_PROTOCOL_MEMBERS:
            wide.append(f"{node.name} has {len(members)} members")
    return wide


def test_no_protocol_of_the_run_or_launch_rooms_mirrors_a_class() -> None:
    wide = {
        path.name: found
        for path in _modules("run", "launch")
        if (found := _wide_protocols(path.read_text(encoding="utf-8")))
    }
    assert not wide, wide


def test_the_check_sees_a_protocol_that_mirrors_the_runner() -> None:
    """Not vacuous: a Protocol like the one the runner's parts once took is seen."""
    source = (
        "class RunState(Protocol):\n"
        "    config: TournamentConfig\n"
        "    store: RunStore | None\n"
        "    @property\n"
        "    def concurrency_limit(self) -> int: ...\n"
        "    def pending(self) -> Iterator[ScheduledGame]: ...\n"
    )
    assert _wide_protocols(source) == ["RunState has 4 members"]
