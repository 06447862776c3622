"""The replay viewer's double-dummy analysis of one hand (``/api/replays/ID/analysis?hand=N``)
and its par (``/api/replays/ID/par?hand=N``: the best contract of each seat, the auction of
perfect information, and the bidding side's regrets against it, as ``rookery replay analyze
--par`` works them out).

The dashboard hands this module a replay only once it serves that replay (the game and its
duplicate twin over, the same withholding as ``/api/replays/ID``): the analysis shows every
hand's cards, so it can be no more public than the replay. Solving is CPU work: one analysis
or par runs at a time, in a worker thread, each position's search capped at ``node_limit``
nodes and each contract of a par at ``par_node_limit``, and the last ``cache_size`` answers
are kept.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rookery.client.par import ParError, format_par, hand_par, par_to_json, supports_par
from rookery.engine import ReplayMismatchError
from rookery.v1 import replay_pb2
from rookery.wire.analysis import DEFAULT_NODE_LIMIT, AnalysisError, analyze_replay, hand_to_json
from rookery.wire.documents import JsonValue
from rookery.wire.errors import MalformedMessageError
from rookery.wire.replay import read_replay, replay_to_record

if TYPE_CHECKING:
    from rookery.arena.league import League

__all__ = ["BLUNDER", "INACCURACY", "MISTAKE", "ReplayAnalyses", "league_replay"]

JSON = dict[str, JsonValue]

#: The viewer's marks, as lichess marks moves: a card that costs its side at least this many
#: points under perfect play afterwards is an inaccuracy (?!), a mistake (?) or a blunder (??).
INACCURACY = 5
MISTAKE = 10
BLUNDER = 20

#: The most nodes one position's search may take for a visitor (the command's default is 2M).
WEB_NODE_LIMIT = 500_000
#: The most nodes each contract of a par may take: the command's own 2M (a `standard` hand's par
#: takes a few seconds, which 500,000 a contract would cut to one at the price of spans on most).
WEB_PAR_NODE_LIMIT = DEFAULT_NODE_LIMIT


class ReplayAnalyses:
    """The analyses the dashboard has made, one hand at a time, bounded in CPU and memory."""

    def __init__(
        self,
        *,
        node_limit: int = WEB_NODE_LIMIT,
        par_node_limit: int = WEB_PAR_NODE_LIMIT,
        cache_size: int = 64,
    ) -> None:
        self.node_limit = node_limit
        self.par_node_limit = par_node_limit
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str, int], JSON] = OrderedDict()
        self._lock = asyncio.Lock()

    async def hand(self, game_id: str, replay: replay_pb2.Replay, hand: int) -> JSON:
        """Hand ``hand`` of the (public) replay of ``game_id``, analysed: ``LookupError`` when the
        replay has no such hand; ``rookery.wire.analysis.AnalysisError`` when it cannot be
        analysed."""

        def analyse() -> JSON:
            analysis = analyze_replay(replay, node_limit=self.node_limit, hands=[hand])
            return {
                "game_id": game_id,
                "node_limit": self.node_limit,
                "marks": {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER},
                **hand_to_json(analysis.hands[0]),
            }

        return await self._cached("analysis", game_id, replay, hand, analyse)

    async def par(self, game_id: str, replay: replay_pb2.Replay, hand: int) -> JSON:
        """The par of hand ``hand`` of the (public) replay of ``game_id``: ``par`` (as
        ``rookery.client.par.par_to_json``) and ``lines`` (``rookery replay analyze --par``'s
        text), or ``par`` None and the ``reason`` (a ruleset without two fixed sides, a hand
        that had no contract or did not finish). ``LookupError`` when the replay has no such
        hand; ``rookery.wire.analysis.AnalysisError`` when it does not re-simulate or the
        native core is missing."""

        def solve() -> JSON:
            answer: JSON = {"game_id": game_id, "hand": hand, "node_limit": self.par_node_limit}
            try:
                record = replay_to_record(replay)
                results = record.replay(events=False).hand_results
            except (MalformedMessageError, ReplayMismatchError) as error:
                raise AnalysisError(f"the replay does not re-simulate: {error}") from None
            rules = record.ruleset
            if not supports_par(rules):
                reason = f"{rules.name} has no two fixed sides: its auctions have no par"
            elif len(results) <= hand:
                reason = f"hand {hand} did not finish"
            else:
                try:
                    par = hand_par(rules, results[hand], node_limit=self.par_node_limit)
                except ParError as error:
                    reason = str(error)
                except RuntimeError as error:  # no native core
                    raise AnalysisError(str(error)) from None
                else:
                    lines = [line.strip() for line in format_par(par, rules)]
                    return {**answer, "par": par_to_json(par), "lines": list[JsonValue](lines)}
            return {**answer, "par": None, "reason": reason}

        return await self._cached("par", game_id, replay, hand, solve)

    async def _cached(
        self,
        kind: str,
        game_id: str,
        replay: replay_pb2.Replay,
        hand: int,
        compute: Callable[[], JSON],
    ) -> JSON:
        """``compute()``, the ``kind`` of answer for hand ``hand`` of ``game_id``: worked out in
        a worker thread one at a time, or kept from before."""
        if not 0 <= hand < len(replay.hands):
            raise LookupError(f"game {game_id!r} has no hand {hand} (it has {len(replay.hands)})")
        key = (kind, game_id, hand)
        async with self._lock:
            cached = self._cache.get(key)
            if cached is None:
                cached = await asyncio.to_thread(compute)
                self._cache[key] = cached
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
            self._cache.move_to_end(key)
            return cached


def league_replay(league: League, game_id: str) -> replay_pb2.Replay | None:
    """The replay of a league game whose pair is committed (None: not one of those), as
    ``league_replay_json`` finds it for the viewer."""
    game = league.store.game(game_id)
    if game is None:
        return None
    path = Path(league.folder) / game.replay_path
    return read_replay(path) if path.is_file() else None
