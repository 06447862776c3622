"""The league: a season of submitted bot versions, rated continuously, settled at the deadline.

- :mod:`.store`: the one SQLite file (seasons, versions, builds, pairs, games, rating history).
- :mod:`.submissions`: archives and local folders, content hashes, the sandboxed build step.
- :mod:`.matchmaking`: which pair settles the ranking most (pure functions).
- :mod:`.options`: :class:`LeagueOptions` and :class:`LeagueError`.
- :mod:`.league`: :class:`League`, which plays it on a Rookery server, with
  :mod:`.desk` (who may do what, and when), :mod:`.play` (the bots and one duplicate pair) and
  :mod:`.standings` (the ratings, the boards, the final evaluation).
- :mod:`.service`: the server's league backend (ArenaService) and :class:`LeagueServer`.

See docs/league.md.
"""

from .league import League
from .options import LeagueError, LeagueOptions
from .ray import RayPairsOptions
from .service import LeagueServer
from .standings import seat_name
from .store import LeagueStore, PairRecord, RatingPoint, VersionRecord, VersionState
from .submissions import pack_folder

__all__ = [
    "League",
    "LeagueError",
    "LeagueOptions",
    "LeagueServer",
    "LeagueStore",
    "PairRecord",
    "RatingPoint",
    "RayPairsOptions",
    "VersionRecord",
    "VersionState",
    "pack_folder",
    "seat_name",
]
