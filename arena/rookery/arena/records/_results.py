"""From recorded games to standings, a crosstable, a rating history and the SPRT state.

Everything here is a pure function of the stored games, so the live display, the final table,
``rookery arena report`` and the ArenaService all say the same thing.

A bot's result in a game is judged against the *other bots* only: its sides are compared with
every side held by another bot (a win, a half or a loss each) and the mean decides win (> ½),
draw (= ½) or loss (< ½). In a two-side game that is the plain game result. Aborted games have no
result: they are counted but not rated.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from rookery.arena.records._ledger import BotLedger
from rookery.arena.records._storage import BotGameStats, GameRow, StoredBot
from rookery.arena.stats._ratings import (
    BradleyTerryFit,
    GameScore,
    OnlineElo,
    fit_bradley_terry,
    has_mixed_partnerships,
    team_ratings,
)
from rookery.arena.stats._sprt import SprtParams, SprtTest
from rookery.engine import Ruleset

__all__ = [
    "ABORTED",
    "CrossEntry",
    "Standing",
    "Summary",
    "game_score",
    "los_from_intervals",
    "los_table",
    "rating_history",
    "sprt_from_games",
    "summarize",
]

#: The termination name of a game that has no result.
ABORTED = "ABORTED"


def _sides(row: GameRow, ruleset: Ruleset) -> tuple[tuple[str, ...], ...]:
    return tuple(
        tuple(row.seat_bots[seat] for seat in ruleset.seats_of_side(side))
        for side in range(ruleset.num_sides)
    )


def game_score(row: GameRow, ruleset: Ruleset) -> GameScore | None:
    """The game as the ratings see it; ``None`` for an aborted game."""
    if row.termination == ABORTED:
        return None
    return GameScore(_sides(row, ruleset), tuple(row.ranks), row.group)


def _bot_scores(score: GameScore) -> dict[str, tuple[float, float]]:
    """Per bot: (score against the other bots' sides in 0..1, number of comparisons)."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for i, side in enumerate(score.sides):
        for bot in set(side):
            for j, other in enumerate(score.sides):
                if i == j or bot in other:
                    continue
                totals[bot][0] += score.side_score(i, j)
                totals[bot][1] += 1
    return {bot: (s / n, n) for bot, (s, n) in totals.items() if n}


@dataclass(frozen=True)
class Standing:
    """One bot's line of the standings."""

    name: str
    version: str
    elo: float
    elo_lower: float
    elo_upper: float
    online_elo: float
    games: int
    wins: int
    losses: int
    draws: int
    aborted: int
    point_difference: int
    think_ms_mean: float
    think_ms_max: float
    timeouts: int
    auto_plays: int
    crashes: int
    illegal_replies: int
    #: Replies the bot's SDK or kit made itself because the bot's code failed.
    fallbacks: int = 0
    #: Likelihood that this bot is stronger than the next one in the standings.
    los_next: float | None = None
    team_mu: float | None = None
    team_sigma: float | None = None
    #: A language-model bot's ledger (tokens, cost, latency, invalid replies, durability);
    #: None for other bots.
    ledger: BotLedger | None = None

    @property
    def elo_error(self) -> float:
        """Half-width of the rating interval."""
        return (self.elo_upper - self.elo_lower) / 2.0

    @property
    def score(self) -> float:
        """Wins plus half the draws."""
        return self.wins + 0.5 * self.draws


@dataclass(frozen=True)
class CrossEntry:
    """How ``bot`` fared against ``opponent``: points out of games, and W-L-D."""

    points: float
    games: int
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True)
class Summary:
    """Everything a report shows about a tournament's recorded games."""

    standings: tuple[Standing, ...]
    crosstable: Mapping[str, Mapping[str, CrossEntry]]
    fit: BradleyTerryFit
    #: Online Elo after each game: (game index, {bot: rating}).
    history: tuple[tuple[int, Mapping[str, float]], ...]
    games: int
    aborted: int
    terminations: Mapping[str, int]
    sprt: SprtTest | None = None
    mixed_partnerships: bool = False
    duration_s: float = 0.0
    extra: Mapping[str, object] = field(default_factory=dict)


def sprt_from_games(
    rows: Iterable[GameRow], ruleset: Ruleset, new_bot: str, params: SprtParams, pair_size: int
) -> SprtTest:
    """The SPRT over the complete groups (duplicate pairs) among ``rows``, in group order.

    With pairs (two sides, duplicate) each complete pair is one pentanomial sample; otherwise
    each game is a trinomial sample. A group with an aborted game is left out.
    """
    test = SprtTest(params)
    groups: dict[int, list[GameRow]] = defaultdict(list)
    for row in rows:
        groups[row.group].append(row)
    for group in sorted(groups):
        members = sorted(groups[group], key=lambda r: r.index)
        if len(members) < pair_size or any(r.termination == ABORTED for r in members):
            continue
        scores = []
        for row in members:
            score = game_score(row, ruleset)
            assert score is not None
            scores.append(_bot_scores(score).get(new_bot, (0.5, 0))[0])
        if pair_size == 2:
            test.add_pair(_round_half(scores[0]), _round_half(scores[1]))
        else:
            for value in scores:
                test.add_game(_round_half(value))
    return test


def _round_half(value: float) -> float:
    return round(value * 2) / 2


def summarize(
    rows: Sequence[GameRow],
    ruleset: Ruleset,
    bots: Sequence[StoredBot],
    *,
    elo_k: float = 16.0,
    bootstrap: int = 200,
    seed: int = 0,
    sprt: tuple[str, SprtParams, int] | None = None,
) -> Summary:
    """Standings, crosstable, rating history (and the SPRT when ``sprt`` = (new bot, params,
    pair size)) of the recorded games."""
    names = [bot.name for bot in bots]
    for row in rows:
        for bot in row.seat_bots:
            if bot not in names:
                names.append(bot)
    scores: list[GameScore] = []
    online = OnlineElo(k=elo_k)
    history: list[tuple[int, Mapping[str, float]]] = []
    per_bot: dict[str, dict[str, float]] = {name: defaultdict(float) for name in names}
    stats: dict[str, BotGameStats] = {name: BotGameStats() for name in names}
    cross: dict[str, dict[str, list[float]]] = {
        a: {b: [0.0, 0, 0, 0, 0] for b in names if b != a} for a in names
    }
    terminations: dict[str, int] = defaultdict(int)
    aborted = 0
    for row in sorted(rows, key=lambda r: r.index):
        terminations[row.termination] += 1
        for bot, game_stats in row.bot_stats.items():
            stats[bot] = stats.get(bot, BotGameStats()) + game_stats
        score = game_score(row, ruleset)
        if score is None:
            aborted += 1
            for bot in set(row.seat_bots):
                per_bot[bot]["aborted"] += 1
            continue
        scores.append(score)
        online.update(score)
        history.append((row.index, {name: online.rating(name) for name in names}))
        for bot, (value, _) in _bot_scores(score).items():
            record = per_bot[bot]
            record["games"] += 1
            key = "wins" if value > 0.5 else "losses" if value < 0.5 else "draws"
            record[key] += 1
            record["points"] += _point_difference(row, score, bot)
        for i, side in enumerate(score.sides):
            for j, other in enumerate(score.sides):
                if i == j:
                    continue
                for a in set(side) - set(other):
                    for b in set(other) - set(side):
                        value = score.side_score(i, j)
                        entry = cross[a][b]
                        entry[0] += value
                        entry[1] += 1
                        entry[2 if value == 1 else 3 if value == 0 else 4] += 1

    fit = fit_bradley_terry(scores, names, bootstrap=bootstrap, seed=seed)
    by_name = fit.by_name()
    mixed = has_mixed_partnerships(scores)
    teams = team_ratings(scores) if mixed else {}
    # A launched bot's crashes are its processes' exits (each one also drops its seats: those
    # disconnects are not counted again); a remote bot has no process here, only disconnects.
    crashes = {bot.name: bot.crashes for bot in bots if not bot.remote}
    versions = {bot.name: bot.version for bot in bots}
    standings: list[Standing] = []
    for name in names:
        record = per_bot[name]
        rating = by_name[name]
        s = stats.get(name, BotGameStats())
        team = teams.get(name)
        ledger = BotLedger.from_dict(name, s.ledger) if s.ledger else None
        standings.append(
            Standing(
                name=name,
                version=versions.get(name, ""),
                elo=rating.elo,
                elo_lower=rating.lower,
                elo_upper=rating.upper,
                online_elo=online.rating(name),
                games=int(record["games"]),
                wins=int(record["wins"]),
                losses=int(record["losses"]),
                draws=int(record["draws"]),
                aborted=int(record["aborted"]),
                point_difference=int(record["points"]),
                think_ms_mean=s.think_ms_mean,
                think_ms_max=s.think_ms_max,
                timeouts=s.timeouts,
                auto_plays=s.auto_plays,
                crashes=crashes.get(name, s.disconnects),
                # A language-model seat re-prompts its invalid replies before the table sees
                # them: they are the bot's illegal replies all the same.
                illegal_replies=s.illegal_replies
                + s.malformed_replies
                + (ledger.invalid_replies if ledger else 0),
                fallbacks=s.fallbacks,
                team_mu=team.mu if team else None,
                team_sigma=team.sigma if team else None,
                ledger=ledger,
            )
        )
    standings.sort(key=lambda s: (-s.elo, -s.score, s.name))
    with_los = []
    for i, standing in enumerate(standings):
        los = None
        if i + 1 < len(standings):
            los = fit.los.get((standing.name, standings[i + 1].name))
            if los is not None and los in (0.0, 1.0):
                # Every refit agreed, or there were none to make (under two duplicate groups):
                # the intervals shown say how sure the order is, so the LOS is read from them.
                los = los_from_intervals(standing, standings[i + 1], fit.confidence)
        with_los.append(_replace_los(standing, los))
    crosstable = {
        a: {
            b: CrossEntry(v[0], int(v[1]), int(v[2]), int(v[3]), int(v[4]))
            for b, v in row.items()
            if v[1]
        }
        for a, row in cross.items()
    }
    sprt_test = None
    if sprt is not None:
        new_bot, params, pair_size = sprt
        sprt_test = sprt_from_games(rows, ruleset, new_bot, params, pair_size)
    return Summary(
        standings=tuple(with_los),
        crosstable=crosstable,
        fit=fit,
        history=tuple(history),
        games=len(rows),
        aborted=aborted,
        terminations=dict(terminations),
        sprt=sprt_test,
        mixed_partnerships=mixed,
        duration_s=sum(r.duration_s for r in rows),
    )


def los_table(
    fit: BradleyTerryFit, standings: Mapping[str, Standing]
) -> dict[tuple[str, str], float]:
    """Every pair's LOS: the refits' share, except where it is 0 or 1 because every refit agreed
    or there were none to make (under two duplicate groups): the intervals shown then say how
    sure the order is, and the LOS is read from them (:func:`los_from_intervals`)."""
    table = dict(fit.los)
    for (a, b), los in fit.los.items():
        if los in (0.0, 1.0) and a in standings and b in standings:
            table[(a, b)] = los_from_intervals(standings[a], standings[b], fit.confidence)
    return table


def los_from_intervals(first: Standing, second: Standing, confidence: float) -> float:
    """P(``first`` is stronger than ``second``) from their ratings and intervals, as normal
    errors: after two games of 2-0 it is about 0.94 (an interval of ±309 each), not 1.

    >>> a = Standing("a", "", 100, 0, 200, 0, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    >>> b = Standing("b", "", -100, -200, 0, 0, 4, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    >>> round(los_from_intervals(a, b, 0.95), 3)
    0.997
    """
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    spread = math.hypot(first.elo_error, second.elo_error) / z
    if spread <= 0.0:
        return 0.5 if first.elo == second.elo else float(first.elo > second.elo)
    return NormalDist().cdf((first.elo - second.elo) / spread)


def _replace_los(standing: Standing, los: float | None) -> Standing:
    from dataclasses import replace

    return replace(standing, los_next=los)


def _point_difference(row: GameRow, score: GameScore, bot: str) -> float:
    """The bot's side score minus the mean score of the sides held by other bots."""
    mine = [i for i, side in enumerate(score.sides) if bot in side]
    others = [i for i, side in enumerate(score.sides) if bot not in side]
    if not mine or not others or len(row.scores) < len(score.sides):
        return 0.0
    own = sum(row.scores[i] for i in mine) / len(mine)
    theirs = sum(row.scores[i] for i in others) / len(others)
    return own - theirs


#: The rating chart's points: the leaderboard's fit after this many evenly spread game counts.
HISTORY_POINTS = 40


def rating_history(
    rows: Sequence[GameRow],
    ruleset: Ruleset,
    names: Sequence[str],
    *,
    points: int = HISTORY_POINTS,
) -> tuple[tuple[int, dict[str, float]], ...]:
    """The leaderboard's rating over time: the Bradley–Terry Elo of :func:`summarize` (the
    same fit, without its bootstrap) over the first k rated games, for at most ``points``
    values of k evenly spread up to all of them. Each point is (the index of the k-th game,
    Elo by bot); the last point is the standings' Elo."""
    scored: list[tuple[int, GameScore]] = []
    for row in sorted(rows, key=lambda r: r.index):
        score = game_score(row, ruleset)
        if score is not None:
            scored.append((row.index, score))
    n = len(scored)
    if not n:
        return ()
    counts = sorted({max(1, round(n * (i + 1) / min(points, n))) for i in range(min(points, n))})
    history = []
    for k in counts:
        fit = fit_bradley_terry([score for _, score in scored[:k]], names, bootstrap=0)
        by_name = fit.by_name()
        history.append((scored[k - 1][0], {name: by_name[name].elo for name in names}))
    return tuple(history)
