"""Ranks of non-negative integer codes among their distinct values, without a sort
where the range allows: how CMI's conditioning joint and pairwise deletion number the
tuples of a joint variable at every step; and CMI's ``Z = S |Y| + Y`` with its
counts. Large tables go through numba kernels in threads over row ranges (the same
numbers for every ``n_jobs``)."""

from __future__ import annotations

import numpy as np

__all__ = ["joint_ranks", "joint_target", "value_ranks"]

#: rows a thread takes at least in :func:`joint_ranks` and :func:`joint_target`
ROWS_PER_THREAD = 1 << 18


def value_ranks(values: np.ndarray, n_states: int) -> np.ndarray:
    """Each value's rank among the distinct values of ``values`` (non-negative
    integers below ``n_states``): ``np.unique(values, return_inverse=True)[1]``.

    Where ``n_states`` is at most ``max(2 len(values), 2**20)`` the ranks come from a
    table of the states present (one pass and a running count, no sort: a sort costs
    seconds on tens of millions of rows); otherwise from the sort.

    Examples
    --------
    >>> value_ranks(np.array([7, 2, 7, 5]), 8).tolist()
    [2, 0, 2, 1]
    """
    values = np.asarray(values).reshape(-1)
    if n_states > max(2 * values.size, 1 << 20):
        _, inv = np.unique(values, return_inverse=True)
        return inv.reshape(-1).astype(np.int64, copy=False)
    present = np.zeros(int(n_states), dtype=bool)
    present[values] = True
    rank = np.cumsum(present, dtype=np.int64) - 1
    return rank[values]


def _row_parts(n: int, n_jobs: int) -> list[tuple[int, int]] | None:
    """Row ranges for the numba kernels (None: numpy, for a small table or without
    numba)."""
    from fsel.kernels._counting import numba_enabled
    from fsel.utils.parallel import spans

    if n < ROWS_PER_THREAD or not numba_enabled():
        return None
    return spans(n, max(1, min(int(n_jobs), n // ROWS_PER_THREAD)))


def joint_ranks(s: np.ndarray, c: np.ndarray, a: int, n_jobs: int = 1) -> np.ndarray:
    """:func:`value_ranks` of the joint states ``s * a + c`` (``s``: codes ``0..ns-1``,
    ``c``: codes below ``a``), its ``n_states`` being ``(s.max() + 1) * a``: the same
    ranks, without the keys' temporary, in ``n_jobs`` threads where the flag table
    applies.

    Examples
    --------
    >>> joint_ranks(np.array([1, 0, 1, 0]), np.array([2, 2, 0, 2]), 3).tolist()
    [2, 0, 1, 0]
    """
    s = np.asarray(s)
    n_states = (int(s.max()) + 1) * int(a) if s.size else 0
    parts = _row_parts(s.size, n_jobs)
    if parts is None or n_states > max(2 * s.size, 1 << 20):
        return value_ranks(s.astype(np.int64) * int(a) + c, max(n_states, 1))
    from fsel.kernels._numba_joint import mark_states, state_ranks
    from fsel.utils.parallel import thread_map

    present = np.zeros(n_states, dtype=np.bool_)
    thread_map(lambda r0, r1: mark_states(s, c, int(a), present, r0, r1), parts, len(parts))
    rank = np.cumsum(present, dtype=np.int64) - 1
    out = np.empty(s.size, dtype=np.int64)
    thread_map(lambda r0, r1: state_ranks(s, c, int(a), rank, out, r0, r1), parts, len(parts))
    return out


def joint_target(
    s: np.ndarray, y: np.ndarray, ny: int, n_jobs: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """``Z = s * ny + y`` (``int64``) and its counts over its ``(s.max() + 1) * ny``
    values, in ``n_jobs`` threads over rows where numba runs.

    Examples
    --------
    >>> z, counts = joint_target(np.array([1, 0, 1]), np.array([1, 1, 0]), 2)
    >>> z.tolist(), counts.tolist()
    ([3, 1, 2], [0, 1, 1, 1])
    """
    s = np.asarray(s)
    nz = (int(s.max()) + 1) * int(ny) if s.size else 0
    parts = _row_parts(s.size, n_jobs)
    if parts is None:
        z = s.astype(np.int64) * int(ny) + y
        return z, np.bincount(z, minlength=nz)
    from fsel.kernels._numba_joint import target_joint
    from fsel.utils.parallel import thread_map

    z = np.empty(s.size, dtype=np.int64)
    # each thread's counts on cache lines of its own (a row padded by a 64-byte line):
    # no line is written by two threads
    width = -(-nz // 8) * 8 + 8
    counts = np.zeros((len(parts), width), dtype=np.int64)
    thread_map(
        lambda t, r0, r1: target_joint(s, y, int(ny), z, counts[t], r0, r1),
        [(t, r0, r1) for t, (r0, r1) in enumerate(parts)],
        len(parts),
    )
    return z, counts[:, :nz].sum(axis=0)
