"""Fleuret's lazy CMIM search, over any table of terms.

CMIM scores a candidate ``X_k`` by ``min(I(X_k;Y), min_j I(X_k;Y|X_j))`` over the
picks ``X_j``. The score only falls as features are picked, so a score that has not
seen the newest picks is an upper bound of the fresh one. A step therefore refreshes
only the candidates whose bound still reaches the best fresh score (minus the tie
tolerance), best bounds first, and picks the lowest index within the tolerance of the
best, as the vectorised engine does: the same picks and step scores with far fewer
terms.

:func:`lazy_cmim_search` is the search; a table supplies ``refresh``, the terms of a
batch of candidates. :func:`dense_refresh` is the refresh of an in-memory code matrix
(compiled kernels of :mod:`fsel.kernels._numba_cmim`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fsel.kernels._counting import held_cells
from fsel.utils.parallel import spans, thread_map

__all__ = ["MAX_BATCH", "batch_size", "best_first", "dense_refresh", "lazy_cmim_search"]

#: The most candidates one refresh takes.
MAX_BATCH = 64

#: Rows a thread counts at least when the rows of one term are split among threads.
ROWS_PER_THREAD = 1 << 16

Refresh = Callable[[np.ndarray, np.ndarray, list[int], int], np.ndarray]


def batch_size(i: int, max_batch: int = MAX_BATCH) -> int:
    """The number of candidates the ``i``-th refresh of a step takes: 1, 2, 4, ... up
    to ``max_batch``. A step's first refresh is its best bound alone (often the pick,
    whose fresh score then prunes the rest); later ones grow while candidates remain.
    The sizes never depend on the number of threads, so neither do the bounds the
    search leaves.

    Examples
    --------
    >>> [batch_size(i, 8) for i in range(6)]
    [1, 2, 4, 8, 8, 8]
    """
    return min(int(max_batch), 1 << min(int(i), 30))


def best_first(cand: np.ndarray, score: np.ndarray, b: int) -> np.ndarray:
    """The ``b`` candidates of ``cand`` (ascending indices) with the largest
    ``score``, largest first, ties by index: ``cand[np.argsort(-score[cand],
    kind="stable")[:b]]``, in linear time when ``b`` is small against ``cand``.

    Examples
    --------
    >>> best_first(np.array([0, 1, 2, 3, 4]), np.array([0.5, 0.9, 0.5, 0.1, 0.9]), 3).tolist()
    [1, 4, 0]
    """
    s = score[cand]
    if cand.size <= 4 * b:
        return cand[np.argsort(-s, kind="stable")[:b]]
    v = np.partition(s, cand.size - b)[cand.size - b]  # the b-th largest score
    above = cand[s > v]
    top = np.concatenate((above, cand[s == v][: b - above.size]))
    return top[np.lexsort((top, -score[top]))]


def lazy_cmim_search(
    relevance: np.ndarray,
    k: int,
    tol: float,
    refresh: Refresh,
    max_batch: int = MAX_BATCH,
    *,
    last: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fleuret's lazy CMIM search over any table of terms.

    A step refreshes, in batches of :func:`batch_size` candidates (best bounds first,
    ties by index), only the candidates whose bound reaches the best fresh score minus
    ``tol``, then picks the lowest index within ``tol`` of the best, as the vectorised
    engine does, so the picks and step scores are the engine's. ``refresh(top, seen,
    order, t)`` returns, for the candidates ``top`` (which have folded in the first
    ``seen`` picks of ``order``), ``min_j I(Xk;Y|Xj)`` over the picks ``order[seen:t]``
    (``inf`` where there are none). The candidates flagged in ``last`` (constant
    features) are taken only after every other one, in index order, as the engine does.

    Returns
    -------
    order, step_scores, scores : ndarray
        The picks, their scores at their steps, and every feature's score: exact for
        the picks, an upper bound of its last-step score for the others.

    Examples
    --------
    Three candidates whose terms against any pick are their relevance halved:

    >>> rel = np.array([0.2, 0.9, 0.5])
    >>> def refresh(top, seen, order, t):
    ...     return np.where(seen < t, rel[top] / 2, np.inf)
    >>> order, steps, _ = lazy_cmim_search(rel, 2, 1e-10, refresh)
    >>> order.tolist(), steps.tolist()
    ([1, 2], [0.9, 0.25])
    """
    K = relevance.size
    score = np.array(relevance, dtype=np.float64, copy=True)
    seen = np.zeros(K, dtype=np.int64)  # picks folded into ``score``
    alive = np.ones(K, dtype=bool)
    held = np.zeros(K, dtype=bool) if last is None else np.asarray(last, dtype=bool)
    order: list[int] = []
    steps: list[float] = []
    for t in range(min(k, K)):
        pool = alive & ~held
        if not pool.any():  # only held (constant) features left: in index order
            pick = int(np.argmax(alive))
            if seen[pick] < t:  # its score, fresh
                term = refresh(np.array([pick]), seen[pick : pick + 1], order, t)[0]
                score[pick] = min(score[pick], term)
                seen[pick] = t
        else:
            i = 0
            while True:
                fresh = pool & (seen == t)
                best = float(score[fresh].max()) if fresh.any() else -np.inf
                need = np.flatnonzero(pool & (seen < t) & (score >= best - tol))
                if need.size == 0:
                    break
                top = best_first(need, score, batch_size(i, max_batch))
                score[top] = np.minimum(score[top], refresh(top, seen[top], order, t))
                seen[top] = t
                i += 1
            pick = int(np.argmax(pool & (score >= best - tol)))
        order.append(pick)
        steps.append(float(score[pick]))
        alive[pick] = False
    return np.asarray(order, dtype=np.int64), np.asarray(steps), score


def dense_refresh(
    C: np.ndarray,
    y: np.ndarray,
    ny: int,
    n_levels: np.ndarray,
    sums: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    table: np.ndarray,
    mm: float,
    n_jobs: int,
) -> Refresh:
    """The ``refresh`` of :func:`lazy_cmim_search` for a code matrix ``C`` (features x
    samples, codes ``0..n_levels-1``) and class codes ``y`` (``0..ny-1``; numba back-end; the caller
    checks it is usable). ``sums`` are every feature's ``S_k, S_ky, m_k, m_ky``
    (``sum n log2 n`` and non-empty cells of the histograms of ``X_k`` and
    ``(X_k, Y)``), ``table`` the ``n log2 n`` table, ``mm`` the Miller-Madow term per
    cell (0: plug-in).

    On many rows each term's rows are split among ``n_jobs`` threads (at least
    :data:`ROWS_PER_THREAD` each) and the histograms added; otherwise the threads take
    the batch's candidates. Either way every term is the one compiled sum over the same
    histogram: the same numbers for any ``n_jobs``.
    """
    from fsel.kernels import _numba_cmim as kernels

    n = C.shape[1]
    n_levels = np.asarray(n_levels, dtype=np.int64)
    s_k, s_ky, m_k, m_ky = sums
    threads = max(1, min(int(n_jobs), n // ROWS_PER_THREAD))
    held = held_cells(n)

    def by_candidates(top: np.ndarray, seen: np.ndarray, order: list[int], t: int) -> np.ndarray:
        picks = np.asarray(order, dtype=np.int64)
        out = np.empty(top.size)

        def block(a: int, b: int) -> None:
            kernels.refresh_block(
                C, y, ny, n_levels, top[a:b], seen[a:b], picks, t,
                s_k, s_ky, m_k, m_ky, table, mm, held, out[a:b],
            )  # fmt: skip

        parts = spans(top.size, min(int(n_jobs), top.size))
        thread_map(block, parts, len(parts))
        return out

    def count(c: int, j: int, aj: int, r0: int, r1: int, hist: np.ndarray) -> None:
        kernels.pair_histogram(C, y, ny, aj, c, j, r0, r1, hist)

    def by_rows(top: np.ndarray, seen: np.ndarray, order: list[int], t: int) -> np.ndarray:
        out = np.full(top.size, np.inf)
        parts = spans(n, threads)
        for i, c in enumerate(top.tolist()):
            for j in order[int(seen[i]) : t]:
                aj = int(n_levels[j])
                cells = int(n_levels[c]) * aj * ny
                if cells > held:  # too large to hold: sorted cells, one thread
                    buf = (np.empty(n, np.int64), np.empty(n, np.int64))
                    v = kernels.pair_cmi_sorted(
                        C, y, ny, aj, c, j, table, s_k[j], s_ky[j], m_k[j], m_ky[j],
                        1.0 / n, mm, *buf,
                    )  # fmt: skip
                    out[i] = min(out[i], v)
                    continue
                hists = np.empty((len(parts), cells), dtype=np.int64)
                items = [(c, j, aj, *span, hists[p]) for p, span in enumerate(parts)]
                thread_map(count, items, threads)
                hist = hists.sum(axis=0)
                v = kernels.cmi_of_histogram(
                    hist, ny, table, s_k[j], s_ky[j], m_k[j], m_ky[j], 1.0 / n, mm
                )
                out[i] = min(out[i], v)
        return out

    return by_rows if threads > 1 else by_candidates
