"""The Bradley–Terry Newton iteration with numpy: many refits at once, for fields of hundreds.

The same maximisation as the pure-Python path in :mod:`._ratings` (the tests hold the
two equal to 1e-9 Elo), arranged for arrays: the unique comparisons are a ``(K, m)`` table of bot
indices and weights (``m`` bots at most per comparison, padded with weight 0), the Hessian of each
Hessian of the point fit is assembled by one ``bincount`` over its ``K · m²`` entries and solved by
LAPACK; the bootstrap refits, a chunk at a time, take Newton steps solved by conjugate gradients
preconditioned with the point fit's inverse Hessian (a resample's Hessian is close to it), so a
refit costs a few ``(n, n)`` products instead of ``O(n³)`` solves.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType

import numpy as np
import numpy.typing as npt

__all__ = [
    "ComparisonTable",
    "fit_with_refits",
    "newton_batch",
    "one_blas_thread",
    "superiority_matrix",
]

Floats = npt.NDArray[np.float64]
#: Numbers held by one chunk's per-comparison arrays, about.
_CHUNK_ENTRIES = 4_000_000


class ComparisonTable:
    """The unique comparisons as arrays: bot ``index[k, a]`` with weight ``weight[k, a]``."""

    def __init__(self, keys: Sequence[tuple[tuple[int, float], ...]], bots: int) -> None:
        width = max((len(key) for key in keys), default=1)
        self.bots = bots
        self.index = np.zeros((len(keys), width), dtype=np.int64)
        self.weight = np.zeros((len(keys), width), dtype=np.float64)
        self._flat: tuple[int, npt.NDArray[np.int64]] | None = None
        for k, key in enumerate(keys):
            for a, (bot, w) in enumerate(key):
                self.index[k, a] = bot
                self.weight[k, a] = w

    def flat_bots(self, rows: int) -> npt.NDArray[np.int64]:
        """``r · n + index[k, a]`` for ``rows`` refits, flattened (kept for the last size)."""
        if self._flat is None or self._flat[0] != rows:
            flat = (np.arange(rows)[:, None, None] * self.bots + self.index[None]).ravel()
            self._flat = (rows, flat)
        return self._flat[1]

    def chunk_size(self, refits: int) -> int:
        """How many refits to solve together (their per-comparison arrays stay bounded)."""
        per_refit = max(1, self.index.size + self.bots)
        return max(1, min(refits, _CHUNK_ENTRIES // per_refit))


def _gradient_and_curvature(
    table: ComparisonTable, games: Floats, scores: Floats, prior_draws: float, theta: Floats
) -> tuple[Floats, Floats, Floats]:
    """Per refit: the gradient ``(R, n)``, each comparison's curvature ``(R, K)``, the prior's."""
    z = np.einsum("rka,ka->rk", theta[:, table.index], table.weight)
    p = 1.0 / (1.0 + np.exp(-z))
    residual = scores - games * p
    curvature = games * p * (1.0 - p)
    own = 1.0 / (1.0 + np.exp(-theta))
    gradient = _scatter(table, residual) + prior_draws * (0.5 - own)
    return gradient, curvature, prior_draws * own * (1.0 - own) + 1e-12


def _bincount(index: npt.NDArray[np.int64], weights: Floats, size: int) -> Floats:
    """``np.bincount`` with weights, always float (numpy answers int for no entries)."""
    return np.asarray(np.bincount(index, weights, size), dtype=np.float64)


def _scatter(table: ComparisonTable, per_comparison: Floats) -> Floats:
    """``sum_k per_comparison[r, k] · weight[k, a]`` into bot ``index[k, a]``: ``(R, n)``."""
    rows, n = per_comparison.shape[0], table.bots
    pulls = (per_comparison[:, :, None] * table.weight[None]).ravel()
    return _bincount(table.flat_bots(rows), pulls, rows * n).reshape(rows, n)


def _dense_hessians(table: ComparisonTable, curvature: Floats, prior: Floats) -> Floats:
    """The Hessians ``(R, n, n)``, assembled by one bincount over every comparison's entries."""
    rows, n = prior.shape
    width = table.index.shape[1]
    first = np.repeat(np.arange(width), width)
    second = np.tile(np.arange(width), width)
    flat_pairs = table.index[:, first] * n + table.index[:, second]
    pair_weights = table.weight[:, first] * table.weight[:, second]
    entries = ((np.arange(rows) * n * n)[:, None, None] + flat_pairs[None]).ravel()
    values = (curvature[:, :, None] * pair_weights[None]).ravel()
    hessians = _bincount(entries, values, rows * n * n).reshape(rows, n * n)
    hessians[:, np.arange(n) * (n + 1)] += prior
    return hessians.reshape(rows, n, n)


def _conjugate_gradient(
    table: ComparisonTable,
    curvature: Floats,
    prior: Floats,
    gradient: Floats,
    inverse: Floats,
) -> Floats:
    """Solve every refit's Newton system by conjugate gradients, preconditioned by ``inverse``.

    ``inverse`` is the inverse Hessian of the whole data at its optimum; a resample's Hessian is
    close to it, so a few iterations of ``(R, n) @ (n, n)`` replace an ``O(n³)`` solve each.
    """

    def hessian_times(v: Floats) -> Floats:
        along = np.einsum("rka,ka->rk", v[:, table.index], table.weight)
        return _scatter(table, curvature * along) + prior * v

    n = gradient.shape[1]
    x = np.zeros_like(gradient)
    r = gradient.copy()
    z = r @ inverse
    direction = z.copy()
    rz = np.sum(r * z, axis=1)
    scale = np.max(np.abs(gradient), axis=1)
    for _ in range(max(50, 2 * n)):
        open_rows = np.max(np.abs(r), axis=1) > 1e-9 * np.maximum(scale, 1e-300)
        if not open_rows.any():
            break
        product = hessian_times(direction)
        curv = np.sum(direction * product, axis=1)
        alpha = np.where(open_rows, rz / np.where(curv > 0, curv, 1.0), 0.0)
        x += alpha[:, None] * direction
        r -= alpha[:, None] * product
        z = r @ inverse
        rz_next = np.sum(r * z, axis=1)
        beta = np.where(open_rows, rz_next / np.where(rz != 0, rz, 1.0), 0.0)
        direction = z + beta[:, None] * direction
        rz = rz_next
    return x


def newton_batch(
    table: ComparisonTable,
    games: Floats,
    scores: Floats,
    prior_draws: float,
    start: Floats,
    *,
    preconditioner: Floats | None = None,
    max_iterations: int = 60,
) -> Floats:
    """Maximise every refit's log-likelihood: ``games``/``scores`` are ``(R, K)``, θ ``(R, n)``.

    Each refit takes the pure path's Newton steps (damped to 3 where larger) and stops moving once
    its largest step is below 1e-10, so the results agree with the pure path to rounding. The
    steps are dense solves, or conjugate gradients when a ``preconditioner`` (an inverse Hessian)
    is given.
    """
    refits, n = games.shape[0], table.bots
    theta = np.array(np.broadcast_to(start, (refits, n)), dtype=np.float64)
    active = np.ones(refits, dtype=bool)
    for _ in range(max_iterations):
        rows = np.flatnonzero(active)
        if rows.size == 0:
            break
        t = theta[rows]
        gradient, curvature, prior = _gradient_and_curvature(
            table, games[rows], scores[rows], prior_draws, t
        )
        if preconditioner is None:
            hessians = _dense_hessians(table, curvature, prior)
            step = np.linalg.solve(hessians, gradient[:, :, None])[:, :, 0]
        else:
            step = _conjugate_gradient(table, curvature, prior, gradient, preconditioner)
        largest = np.max(np.abs(step), axis=1)
        damp = np.where(largest > 3.0, 3.0 / np.maximum(largest, 1e-300), 1.0)
        theta[rows] = t + step * damp[:, None]
        active[rows[largest < 1e-10]] = False
    return theta


def inverse_hessian(
    table: ComparisonTable, games: Floats, scores: Floats, prior_draws: float, theta: Floats
) -> Floats:
    """The inverse Hessian ``(n, n)`` of one data set (``(1, K)`` arrays) at ``theta`` ``(n,)``."""
    _, curvature, prior = _gradient_and_curvature(table, games, scores, prior_draws, theta[None])
    return np.asarray(np.linalg.inv(_dense_hessians(table, curvature, prior)[0]))


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Keep BLAS on one thread: the solves are small, and on a busy machine a BLAS thread pool
    that spins for cores it does not get makes them a hundred times slower."""
    try:
        threadpoolctl: ModuleType = importlib.import_module("threadpoolctl")
    except ImportError:
        yield
        return
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        yield


def fit_with_refits(
    keys: Sequence[tuple[tuple[int, float], ...]],
    bots: int,
    group_rows: Sequence[Sequence[tuple[int, float, float]]],
    draws: Sequence[Sequence[int]],
    prior_draws: float,
) -> tuple[list[float], list[list[float]]]:
    """The fit on every group once, and one refit per multiplicity vector of ``draws``.

    ``group_rows[g]`` lists group ``g``'s (comparison, games, score) rows; a refit counts group
    ``g`` ``draws[r][g]`` times. Strengths are in natural units, as the pure path's.
    """
    table = ComparisonTable(keys, bots)
    k = len(keys)
    rows = [(g, key, n, s) for g, group in enumerate(group_rows) for key, n, s in group]
    group_of = np.array([r[0] for r in rows], dtype=np.int64)
    key_of = np.array([r[1] for r in rows], dtype=np.int64)
    row_games = np.array([r[2] for r in rows], dtype=np.float64)
    row_scores = np.array([r[3] for r in rows], dtype=np.float64)
    games = _bincount(key_of, row_games, k)[None, :]
    scores = _bincount(key_of, row_scores, k)[None, :]
    refits: list[list[float]] = []
    with one_blas_thread():
        point = newton_batch(table, games, scores, prior_draws, np.zeros(bots))[0]
        inverse = inverse_hessian(table, games, scores, prior_draws, point)
        chunk = table.chunk_size(len(draws))
        for first in range(0, len(draws), chunk):
            multiplicity = np.array(draws[first : first + chunk], dtype=np.float64)
            count = multiplicity.shape[0]
            flat = (np.arange(count)[:, None] * k + key_of[None, :]).ravel()
            weights = multiplicity[:, group_of]
            refit_games = _bincount(flat, (weights * row_games).ravel(), count * k)
            refit_scores = _bincount(flat, (weights * row_scores).ravel(), count * k)
            theta = newton_batch(
                table,
                refit_games.reshape(count, k),
                refit_scores.reshape(count, k),
                prior_draws,
                point,
                preconditioner=inverse,
            )
            refits.extend(row.tolist() for row in theta)
    return [float(t) for t in point], refits


def superiority_matrix(samples: Sequence[Sequence[float]], tie: float) -> list[list[float]]:
    """``[i][j]``: the share of refits rating ``i`` above ``j``, ties within ``tie`` one half."""
    values = np.asarray(samples, dtype=np.float64)
    n = values.shape[1]
    result = np.empty((n, n))
    for i in range(n):
        difference = values[:, i : i + 1] - values
        above = np.where(np.abs(difference) <= tie, 0.5, (difference > 0).astype(np.float64))
        result[i] = above.mean(axis=0)
    return [[float(x) for x in row] for row in result]
