"""The league: a season of submitted bot versions, rated continuously, settled at the deadline.

- :mod:`.store`: the one SQLite file (seasons, versions, builds, pairs, games, rating history).
- :mod:`.submissions`: archives and local folders, content hashes, the sandboxed build step.
- :mod:`.matchmaking`: which pair settles the ranking most (pure functions).
- :mod:`.league`: :class:`League`, which plays it on a Rookery server.
- :mod:`.service`: the server's league backend (ArenaService) and :class:`LeagueServer`.

See docs/league.md.
"""

from .league import HOUSE_RANDOM, Board, BoardLine, League, LeagueError, LeagueOptions, seat_name
from .service import LeagueServer, LeagueService
from .store import LeagueStore, VersionState

__all__ = [
    "HOUSE_RANDOM",
    "Board",
    "BoardLine",
    "League",
    "LeagueError",
    "LeagueOptions",
    "LeagueServer",
    "LeagueService",
    "LeagueStore",
    "VersionState",
    "seat_name",
]
