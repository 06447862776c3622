"""The arena is rooms of one trade each, and its faces stay small (issue 43).

Each room (`stats/`, `launch/`, `run/`, `records/`) offers its names through its `__init__.py`
alone: every module inside is private. The arena's public names, the union of the `__all__` of
its public modules, stay at most 80 (191 before the rooms, 66 when they were made).
"""

from __future__ import annotations

import ast
from pathlib import Path

ARENA = Path(__file__).resolve().parents[2] / "arena" / "rookery" / "arena"
ROOMS = ("stats", "launch", "run", "records")
MOST_PUBLIC_NAMES = 80


def _public_modules() -> list[Path]:
    return [
        path
        for path in sorted(ARENA.rglob("*.py"))
        if not any(
            part.startswith("_") and part != "__init__.py" for part in path.relative_to(ARENA).parts
        )
    ]


def _all_of(path: Path) -> list[str]:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and target.id == "__all__" and value is not None:
            return [str(name) for name in ast.literal_eval(value)]
    return []


def test_every_module_of_a_room_is_private() -> None:
    public = [
        str(path.relative_to(ARENA))
        for room in ROOMS
        for path in sorted((ARENA / room).glob("*.py"))
        if path.name != "__init__.py" and not path.name.startswith("_")
    ]
    assert all((ARENA / room / "__init__.py").is_file() for room in ROOMS)
    assert not public, f"a room's modules are private (its __init__ is its face): {public}"


def test_the_arena_has_at_most_80_public_names() -> None:
    names = {name for path in _public_modules() for name in _all_of(path)}
    assert 0 < len(names) <= MOST_PUBLIC_NAMES, (
        f"{len(names)} public names in the arena (at most {MOST_PUBLIC_NAMES}): {sorted(names)}"
    )


def test_the_count_reads_the_faces() -> None:
    """The count is not vacuous: the faces' names are in it, the private modules' are not."""
    names = {name for path in _public_modules() for name in _all_of(path)}
    assert {"TournamentRunner", "RunStore", "SprtParams", "SandboxMode", "League"} <= names
    assert "file_sha256" not in names  # records/_storage.py lists it, privately
