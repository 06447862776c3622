"""No class name is defined in two components with two meanings (issue 43).

At d917ed0 five were: `GameRecord` (the engine's record of a game, the league store's row),
`BotRecord` (the server's registry, the arena's storage), `ConfigError` (server, arena),
`RunOptions` (the tournament runner's, the SDK session's) and `UnknownTournamentError` (server,
web); they are now `LeagueGame`, `RegisteredBot` / `StoredBot`, `ServerConfigError` /
`ArenaConfigError` and `TournamentOptions` / `BotRunOptions`, and only the web has an
`UnknownTournamentError`. envs' `Seat` (what a language-model bot asks a decision of) became
`AgentSeat`, since `rookery.client.Seat` is who sits at a seat.

A class counts when it is defined at the top level of a product module under a public name
(exceptions, dataclasses and Protocols alike). The two ends of the bot protocol each have a
`Session` and a `Table` of the same meaning seen from either side: those pairs are allowed.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Each component's package folder.
COMPONENTS = {
    "arena": "arena/rookery",
    "cli": "cli/rookery",
    "engine": "engine/rookery",
    "envs": "envs/rookery",
    "server": "server/rookery",
    "web": "web/rookery",
    "wire": "wire/rookery",
    "client": "clients/python/rookery",
}

#: Names that mean the same thing in each of these components.
SAME_MEANING = {
    # A bot's stream, seen by the server and by the SDK.
    "Session": frozenset({"server", "client"}),
    # A table of the game, as the server runs it and as a bot sits at it.
    "Table": frozenset({"server", "client"}),
}


def _class_names(source: str) -> list[str]:
    return [
        node.name
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
    ]


def _clashes(defined: dict[str, dict[str, list[str]]]) -> list[str]:
    """Each name defined in more than one component (but the pairs of SAME_MEANING), with where."""
    problems = []
    for name, places in sorted(defined.items()):
        if len(places) > 1 and frozenset(places) != SAME_MEANING.get(name):
            where = "; ".join(f"{c}: {', '.join(paths)}" for c, paths in sorted(places.items()))
            problems.append(f"{name} is defined in {len(places)} components ({where})")
    return problems


@functools.cache
def _defined() -> dict[str, dict[str, list[str]]]:
    """Where each public class name is defined, by component (read once for these tests)."""
    defined: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for component, folder in COMPONENTS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "gen" in path.relative_to(ROOT).parts or "_pb2" in path.name:
                continue
            for name in _class_names(path.read_text(encoding="utf-8")):
                defined[name][component].append(str(path.relative_to(ROOT)))
    return defined


def test_no_class_name_has_two_meanings_across_components() -> None:
    defined = _defined()
    assert len(defined) > 200, f"only {len(defined)} class names read: the test lost the code"
    problems = _clashes(defined)
    assert not problems, "rename one of each:\n" + "\n".join(problems)


def test_the_allowed_pairs_are_still_both_there() -> None:
    """An allowed pair that is gone from one side leaves SAME_MEANING (it only shrinks)."""
    defined = _defined()
    stale = {name for name, sides in SAME_MEANING.items() if set(defined[name]) != sides}
    assert not stale, f"take these out of SAME_MEANING: {sorted(stale)}"


def test_the_check_catches_a_clash() -> None:
    engine = _class_names("class GameRecord:\n    pass\nclass _Private:\n    pass\n")
    league = _class_names("class GameRecord(Base):\n    pass\n")
    defined: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    defined[engine[0]]["engine"].append("engine/_record.py")
    defined[league[0]]["arena"].append("arena/league/store.py")
    defined["Session"]["server"].append("server/_session.py")
    defined["Session"]["client"].append("client/_session.py")
    defined["Table"]["server"].append("server/_table.py")
    defined["Table"]["web"].append("web/_table.py")
    assert engine == ["GameRecord"]
    assert _clashes(defined) == [
        "GameRecord is defined in 2 components "
        "(arena: arena/league/store.py; engine: engine/_record.py)",
        "Table is defined in 2 components (server: server/_table.py; web: web/_table.py)",
    ]
