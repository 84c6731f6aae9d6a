"""Nonparametric feature ranking indices of Yuan (docs/user_guide/ranking.rst).

Each index scores every column ``x`` of a matrix ``X`` against a numeric target ``y``
(a regression target, or class labels coded as numbers) and is computed for all
columns at once: one sort per column (``argsort`` along the samples), then
vectorised differences, ranks, segment reductions and contingency-table counts —
no Python loop over samples or features (the columns are processed in blocks only
to bound memory).

========  ==========================================================  ==========
name      index                                                       better
========  ==========================================================  ==========
``In``    ``(1/(2n)) sum_i (y_(i+1) - y_(i))^2``                      lower
``In3``   ``sum_i (.194 y_(i) + .281 y_(i+1) + .383 y_(i+2)           lower
          - .858 y_(i+3))^2``
``In5``   ``sum_i (.906 y_(i) - .26 y_(i+1) - .217 y_(i+2)            lower
          - .177 y_(i+3) - .142 y_(i+4) - .11 y_(i+5))^2``
``K1``    ``avg_h max_{i in h} |rnk_h(x'_i) - x'_i|``                 higher
``K2``    ``max_h max_{i in h} |rnk_h(x'_i) - x'_i|``                 higher
``K3``    ``avg_h avg_{i in h} |rnk_h(x'_i) - x'_i|``                 higher
``chi2``  Pearson chi-square of the ``S x T`` equal-count table       higher
``mi``    mutual information (bits) of the same table                 higher
========  ==========================================================  ==========

``y_(i)`` are the concomitants of ``y`` when the pairs are sorted by ``x``; ``x'`` is
the rank of ``x`` scaled to [0, 1], ``h`` runs over equal-count slices of ``y`` and
``rnk_h`` is the scaled rank of ``x'`` among the members of slice ``h``.

Rules where the paper is silent (all deterministic)
---------------------------------------------------
* **Ties in x, difference indices** (``In``, ``In3``, ``In5``): the pairs are sorted by
  ``x`` with a *stable* sort, so tied ``x`` keep their row order. The order of tied
  concomitants then does not depend on ``y``, which keeps ``I_n`` a difference
  estimate of the residual variance ``E[Var(y | x)]`` (sorting ties by ``y`` would
  make any discrete feature look noiseless). The value depends on the row order only
  through tied ``x`` values.
* **Scaled ranks** (K-S indices): ties get their average (mid) rank ``r`` (1-based)
  and a rank among ``m`` values is scaled to ``(r - 1/2) / m``, the midpoint plotting
  position in (0, 1). It is symmetric (reversing ``x`` maps ``u`` to ``1 - u``), so the
  K-S indices are invariant to every strictly monotone transform of ``x``.
* **Equal-count slices** (``y`` slices of the K-S indices, ``x`` and ``y`` slices of
  ``chi2``/``mi``): a variable with no more distinct values than slices gets one slice
  per distinct value (a class target gives one slice per class, as discretisation
  does in docs/user_guide/information.rst). Otherwise the sorted sample is cut by *items*: an item
  is
  one distinct value with all its ties, covering the 0-based sorted positions
  ``first..last``; its mid position is ``p = (first + last) / 2`` and its midpoint
  coordinate ``u = (p + 1/2) H / n``, in ``(0, H)``, is the centre of the interval
  ``[first, last + 1)`` it covers, in units of ``n / H`` positions. The item goes to
  slice ``floor(u)``. An item centred exactly on a boundary (``u = k``, an integer,
  ``0 < k < H``) is *shared*: the ``chi2``/``mi`` table counts it one half in slice
  ``k - 1`` and one half in slice ``k``; the K-S indices, which need one slice per
  member, put it in the lower slice ``k - 1``. The test is exact (integer arithmetic
  on ``(2p + 1) H`` and ``2n``). Every member of a tie group gets the same slice (or
  the same two halves), so tied values are always treated alike and never separated
  in value. Slices are of equal count when ``n`` is a multiple of ``H`` and there are
  no ties (then no item is shared, since ``(2p + 1) H / (2n)`` has an odd numerator
  over an even multiple of ``H``), and of near equal count otherwise. Empty slices are
  skipped in the averages.

  *Reversal symmetry.* Reversing the order (any strictly decreasing transform) maps
  ``p`` to ``n - 1 - p`` and ``u`` to ``H - u``. For a non-integer ``u``,
  ``floor(H - u) = H - 1 - floor(u)``, so slice ``h`` becomes slice ``H - 1 - h``; a
  shared item's pair ``{k - 1, k}`` becomes the mirrored pair ``{H - 1 - k, H - k}``.
  The table of a reversed ``x`` is therefore the original table with its rows in
  reverse order, and ``chi2`` and ``mi`` (sums over cells) are invariant to every
  strictly monotone transform of ``x`` (and of ``y``), increasing or decreasing. The
  shared items are necessary: with ``n`` odd, ``H`` even and no ties, the median is
  centred on the middle boundary, and no cut into ``H`` whole groups is its own mirror
  image (an even number of mirrored group sizes has an even total). The K-S indices
  slice ``y`` only and use the symmetric scaled ranks of ``x``, so they are invariant
  to every strictly monotone transform of ``x`` whichever slice a shared ``y`` item
  gets.
* **Chi-square expectation**: the expected count of cell ``(s, t)`` is
  ``N_s. N_.t / N``. With exactly equal-count slices this is ``N / (S T)``;
  with unequal slices (ties, bootstrap duplicates, discrete columns) it is the
  Pearson statistic of independence, so a feature is never rewarded for an uneven
  marginal. Cells of an empty row or column contribute nothing.
* ``n_slices``, ``n_bins_x`` and ``n_bins_y`` may be ``"auto"``:
  ``H = clip(n // 20, 2, 10)`` (about 20 samples per slice) and
  ``S = T = clip(floor(sqrt(n / 5)), 2, 10)`` (Cochran's five expected counts per
  cell); :func:`resolve_slices` gives the numbers.

A target must vary: every function here raises ``ValueError`` for a constant ``y``
(every index would be 0 for every feature, a ranking with no information);
:func:`ranking_scores_batch` can instead score such sets 0 on request
(``constant_target="zero"``), which :mod:`fsel.meta.bootstrap_ranking` uses for a
resample that happens to hold one target value only.

The target may be one vector shared by all columns, shape ``(n,)``, or one vector per
column, shape ``(n, d)`` — the second form lets a bootstrap or a simulation score many
resamples or data sets in one vectorised call (:func:`ranking_scores_batch`).

References
----------
J.-L. Yuan, "Bootstrapping nonparametric feature selection algorithms for mining
small data sets", (see ``papers/yuan_bootstrapping_nonparametric_ranking_indices``).

P. Hall, J. W. Kay and D. M. Titterington, "Asymptotically optimal difference-based
estimation of variance in nonparametric regression", Biometrika 77(3):521-528, 1990.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsel.kernels.ranking_sparse import sparse_scores
from fsel.kernels.ranking_tables import (
    _as_tables,
    _blocks,
    _check_not_constant,
    _constant_columns,
    _gather,
    _Ranks,
    _ranks,
    _runs,
    _slice_codes,
    _sort,
    difference_terms,
    ks_from_slices,
    ks_numerators,
    refuse_sparse_missing,
    resolve_slices,
    split_numerators,
    table_scores,
)
from fsel.utils.parallel import is_sparse

__all__ = [
    "INDEX_NAMES",
    "INDICES",
    "MISSING_RULES",
    "IndexSpec",
    "chi2_index",
    "difference_index",
    "get_index",
    "ks_indices",
    "mi_index",
    "ranking_scores",
    "ranking_scores_batch",
    "refuse_sparse_missing",
    "resolve_slices",
]

INDEX_NAMES = ("In", "In3", "In5", "K1", "K2", "K3", "chi2", "mi")

#: Difference sequences ``d_0..d_m`` and the scale of the sum (docs/user_guide/ranking.rst).
DIFFERENCE_COEFFICIENTS: dict[str, tuple[np.ndarray, str]] = {
    "In": (np.array([-1.0, 1.0]), "1/(2n)"),
    "In3": (np.array([0.194, 0.281, 0.383, -0.858]), "1"),
    "In5": (np.array([0.906, -0.26, -0.217, -0.177, -0.142, -0.11]), "1"),
}


# ------------------------------------------------------------------- the indices


def _difference_block(
    order: np.ndarray,
    YT: np.ndarray,
    groups: int,
    coefs: Sequence[np.ndarray],
    scales: list[float],
) -> list[np.ndarray]:
    conc = _gather(YT, groups, order)
    out = []
    for coef, scale in zip(coefs, scales, strict=True):
        z = difference_terms(conc, coef)
        out.append(np.einsum("ij,ij->i", z, z) * scale)
    return out


def difference_index(X: Any, y: Any, index: str = "In") -> np.ndarray:
    """Difference-based residual-variance indices ``In``, ``In3``, ``In5`` (lower is better).

    .. math::

        I_n = \\frac{1}{2n}\\sum_{i=1}^{n-1}(y_{(i+1)} - y_{(i)})^2, \\qquad
        I_n^m = \\sum_{i=1}^{n-m}\\Big(\\sum_{j=0}^{m} d_j\\, y_{(i+j)}\\Big)^2

    with the Hall, Kay & Titterington (1990) optimal sequences ``d`` for ``m = 3, 5``
    (docs/user_guide/ranking.rst), ``y_(i)`` the concomitants of ``y`` sorted by ``x`` (stable sort:
    tied ``x`` keep their row order).

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
    y : array of shape (n_samples,) or (n_samples, n_features)
    index : {"In", "In3", "In5"}

    Returns
    -------
    ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 3.0], [1.0, 1.0], [2.0, 0.0], [3.0, 2.0]])
    >>> y = np.array([0.0, 1.0, 2.0, 3.0])
    >>> difference_index(X, y, "In").tolist()  # (1+1+1)/8 and (1+4+9)/8
    [0.375, 1.75]
    """
    if index not in DIFFERENCE_COEFFICIENTS:
        raise ValueError(f"index must be 'In', 'In3' or 'In5', got {index!r}")
    X, y = _as_tables(X, y)
    return _scores(X, y, (index,), n_slices=10, n_bins_x=5, n_bins_y=5)[index]


def _ks_block(
    rx: _Ranks, ry: _Ranks, groups: int, n_slices: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m_rows, n = rx.order.shape
    # slice of every row, (g, n); a shared item goes to its lower slice
    ycode = ry.to_rows(_slice_codes(ry, n_slices)[0])
    # slices of the rows in x order; a stable sort on the small slice codes groups
    # them by slice while keeping the x order inside each slice (a counting sort)
    code_type = np.int16 if n_slices <= np.iinfo(np.int16).max else np.int32
    s_xord = _gather(ycode.astype(code_type), groups, rx.order)
    perm = np.argsort(s_xord, axis=1, kind="stable")
    g_s = np.take_along_axis(s_xord, perm, axis=1)
    # global 0-based mid rank of every element (sorted position == rank without ties)
    mid_perm = None if rx.all_distinct else np.take_along_axis(rx.mid, perm, axis=1)
    new_slice = np.empty((m_rows, n), dtype=bool)
    new_slice[:, 0] = True
    np.not_equal(g_s[:, 1:], g_s[:, :-1], out=new_slice[:, 1:])
    slices = _runs(new_slice)
    first = slices.first - (slices.first // n) * n
    size = slices.last - slices.first + 1
    # mid rank of every element inside its slice (ties in x share their mean position)
    if rx.all_distinct:
        inner = np.arange(n) - first[slices.index]
    else:
        g_x = np.take_along_axis(rx.dense, perm, axis=1)
        new_tie = new_slice.copy()
        new_tie[:, 1:] |= g_x[:, 1:] != g_x[:, :-1]
        inner = _runs(new_tie).mid(n) - first[slices.index]
    # integer deviation numerators (ks_numerators): exact per-slice maxima and sums
    two_mid = (2 * perm + 1) if rx.all_distinct else (2.0 * mid_perm + 1.0).astype(np.int64)
    num = ks_numerators((2.0 * inner + 1.0).astype(np.int64), two_mid, size[slices.index], n)
    starts = slices.first
    col = starts // n
    hi, lo = split_numerators(num.ravel())
    table = np.zeros((4, m_rows, n_slices), dtype=np.int64)
    where = (col, g_s.ravel()[starts])
    table[0][where] = np.maximum.reduceat(num.ravel(), starts)
    table[1][where] = np.add.reduceat(hi, starts)
    table[2][where] = np.add.reduceat(lo, starts)
    table[3][where] = slices.last - slices.first + 1
    return ks_from_slices(table[0], table[1], table[2], table[3], n)


def ks_indices(X: Any, y: Any, n_slices: int | str = "auto") -> dict[str, np.ndarray]:
    """Slice-based Kolmogorov-Smirnov indices ``K1``, ``K2``, ``K3`` (higher is better).

    .. math::

        K^1 = \\operatorname{avg}_h \\max_{i \\in h} |\\mathrm{rnk}_h(x'_i) - x'_i|,\\quad
        K^2 = \\max_h \\max_{i \\in h} |\\cdot|,\\quad
        K^3 = \\operatorname{avg}_h \\operatorname{avg}_{i \\in h} |\\cdot|

    ``x'`` is the scaled mid rank ``(r - 1/2)/n`` of ``x``, ``h`` runs over the
    non-empty equal-count slices of ``y`` (ties in ``y`` never split) and
    ``rnk_h(x'_i)`` is the scaled mid rank ``(r_h - 1/2)/n_h`` of ``x_i`` among the
    ``n_h`` members of its slice. Under independence every slice is a random sample of
    the ranks and the deviations shrink like ``n_h^(-1/2)``.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
    y : array of shape (n_samples,) or (n_samples, n_features)
    n_slices : int or "auto"
        ``H``, the number of slices of ``y``.

    Returns
    -------
    dict with keys "K1", "K2", "K3", each an ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(4.0)
    >>> X = np.column_stack([x, [1.0, 3.0, 0.0, 2.0]])
    >>> k = ks_indices(X, x, n_slices=2)  # slices {0, 1} and {2, 3}
    >>> k["K2"].tolist(), k["K3"].tolist()
    ([0.375, 0.125], [0.25, 0.125])
    """
    X, y = _as_tables(X, y)
    n_slices = resolve_slices(n_slices, X.shape[0], kind="ks")
    return _scores(X, y, ("K1", "K2", "K3"), n_slices=n_slices, n_bins_x=5, n_bins_y=5)


def _table_block(
    rx: _Ranks, ry: _Ranks, groups: int, n_bins_x: int, n_bins_y: int
) -> tuple[np.ndarray, np.ndarray]:
    m_rows, n = rx.order.shape
    xlo_s, xhi_s = _slice_codes(rx, n_bins_x)
    ylo_s, yhi_s = _slice_codes(ry, n_bins_y)
    xlo, ylo = rx.to_rows(xlo_s), ry.to_rows(ylo_s)
    if groups > 1:
        ylo = np.repeat(ylo, groups, axis=0)
    cells = n_bins_x * n_bins_y
    size = m_rows * cells
    offset = (np.arange(m_rows) * cells)[:, None]
    counts4 = 4 * np.bincount((xlo * n_bins_y + ylo + offset).ravel(), minlength=size)
    # shared items (centred on a slice boundary; few) get a quarter of every pairing of
    # their lower and upper slices instead of the whole lower-lower cell: counts4 holds
    # four times the counts, so the correction stays in integers
    xi, xj = np.nonzero(xlo_s != xhi_s)
    yi, yj = np.nonzero(ylo_s != yhi_s)
    if xi.size or yi.size:
        flat_x = xi * n + rx.order[xi, xj]  # flat positions in the (m_rows, n) layout
        rows_y = (yi[:, None] * groups + np.arange(groups)).ravel()  # targets serve groups
        flat_y = rows_y * n + np.repeat(ry.order[yi, yj], groups)
        flat = np.union1d(flat_x, flat_y)
        xl, yl = xlo.ravel()[flat], ylo.ravel()[flat]
        xh, yh = xl.copy(), yl.copy()
        xh[np.searchsorted(flat, flat_x)] = xhi_s[xi, xj]
        yh[np.searchsorted(flat, flat_y)] = np.repeat(yhi_s[yi, yj], groups)
        base = (flat // n) * cells
        for xc, yc, weight in ((xl, yl, -3), (xl, yh, 1), (xh, yl, 1), (xh, yh, 1)):
            counts4 += weight * np.bincount(base + xc * n_bins_y + yc, minlength=size)
    return table_scores(counts4.reshape(m_rows, n_bins_x, n_bins_y), n)


def chi2_index(
    X: Any, y: Any, n_bins_x: int | str = "auto", n_bins_y: int | str = "auto"
) -> np.ndarray:
    """Pearson chi-square of the ``S x T`` equal-count contingency table (higher is better).

    .. math::

        I_{\\chi^2} = \\sum_{s,t} \\frac{(N_{st} - E_{st})^2}{E_{st}},\\qquad
        E_{st} = N_{s\\cdot} N_{\\cdot t} / N

    which is Yuan's ``N theta_st = N/(S T)`` whenever the slices have equal counts.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
    y : array of shape (n_samples,) or (n_samples, n_features)
    n_bins_x, n_bins_y : int or "auto"
        ``S`` slices of ``x`` and ``T`` of ``y`` (``"auto"``:
        ``clip(floor(sqrt(n / 5)), 2, 10)``).

    Returns
    -------
    ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(8.0)
    >>> chi2_index(x[:, None], x, n_bins_x=2, n_bins_y=2).tolist()  # 4 cells of 4/2/2
    [8.0]
    """
    X, y = _as_tables(X, y)
    sx = resolve_slices(n_bins_x, X.shape[0], kind="table", name="n_bins_x")
    sy = resolve_slices(n_bins_y, X.shape[0], kind="table", name="n_bins_y")
    return _scores(X, y, ("chi2",), n_slices=10, n_bins_x=sx, n_bins_y=sy)["chi2"]


def mi_index(
    X: Any, y: Any, n_bins_x: int | str = "auto", n_bins_y: int | str = "auto"
) -> np.ndarray:
    """Mutual information (bits) of the ``S x T`` equal-count table (higher is better).

    .. math::

        I(x; y) = \\sum_{s,t} \\frac{N_{st}}{N}
        \\log_2 \\frac{N_{st} N}{N_{s\\cdot} N_{\\cdot t}}

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
    y : array of shape (n_samples,) or (n_samples, n_features)
    n_bins_x, n_bins_y : int or "auto"
        ``S`` slices of ``x`` and ``T`` of ``y`` (``"auto"``:
        ``clip(floor(sqrt(n / 5)), 2, 10)``).

    Returns
    -------
    ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(8.0)
    >>> mi_index(x[:, None], x, n_bins_x=2, n_bins_y=2).tolist()  # one bit
    [1.0]
    """
    X, y = _as_tables(X, y)
    sx = resolve_slices(n_bins_x, X.shape[0], kind="table", name="n_bins_x")
    sy = resolve_slices(n_bins_y, X.shape[0], kind="table", name="n_bins_y")
    return _scores(X, y, ("mi",), n_slices=10, n_bins_x=sx, n_bins_y=sy)["mi"]


# ------------------------------------------------------------------ the registry


@dataclass(frozen=True)
class IndexSpec:
    """One ranking index: its scoring function and direction.

    ``func(X, y, n_slices=..., n_bins_x=..., n_bins_y=...)`` returns one score per
    column; ``higher_is_better`` tells how to rank.
    """

    name: str
    higher_is_better: bool
    family: str
    summary: str

    def func(self, X: Any, y: Any, **params: Any) -> np.ndarray:
        return ranking_scores(X, y, (self.name,), **params)[self.name]


INDICES: dict[str, IndexSpec] = {
    "In": IndexSpec("In", False, "difference", "first-order difference variance"),
    "In3": IndexSpec("In3", False, "difference", "Hall-Kay-Titterington 3rd-order difference"),
    "In5": IndexSpec("In5", False, "difference", "Hall-Kay-Titterington 5th-order difference"),
    "K1": IndexSpec("K1", True, "ks", "mean over slices of the max K-S deviation"),
    "K2": IndexSpec("K2", True, "ks", "max over slices of the max K-S deviation"),
    "K3": IndexSpec("K3", True, "ks", "mean over slices of the mean K-S deviation"),
    "chi2": IndexSpec("chi2", True, "table", "chi-square of the equal-count table"),
    "mi": IndexSpec("mi", True, "table", "mutual information of the equal-count table"),
}


def get_index(name: Any) -> IndexSpec:
    """Look an index up by its exact name (``In, In3, In5, K1, K2, K3, chi2, mi``)."""
    if not isinstance(name, str) or name not in INDICES:
        raise ValueError(f"index must be one of {', '.join(INDEX_NAMES)}; got {name!r}")
    return INDICES[name]


def _check_names(names: Any) -> tuple[str, ...]:
    if isinstance(names, str):
        names = (names,)
    names = tuple(names)
    for nm in names:
        get_index(nm)
    return names


def _scores(
    X: np.ndarray,
    y: np.ndarray,
    names: tuple[str, ...],
    *,
    n_slices: int,
    n_bins_x: int,
    n_bins_y: int,
) -> dict[str, np.ndarray]:
    n, d = X.shape
    diff = [nm for nm in names if nm in DIFFERENCE_COEFFICIENTS]
    for nm in diff:
        need = DIFFERENCE_COEFFICIENTS[nm][0].size
        if n < need:
            raise ValueError(f"index {nm} needs at least {need} samples, got {n}")
    coefs = [DIFFERENCE_COEFFICIENTS[nm][0] for nm in diff]
    scales = [1.0 / (2 * n) if nm == "In" else 1.0 for nm in diff]
    want_ks = any(INDICES[nm].family == "ks" for nm in names)
    want_table = any(INDICES[nm].family == "table" for nm in names)
    out = {nm: np.empty(d) for nm in names}
    if is_sparse(X):  # stored values and counts of zeros only (ranking_sparse)
        params = {"n_slices": n_slices, "n_bins_x": n_bins_x, "n_bins_y": n_bins_y}
        differences = {nm: (c, sc) for nm, c, sc in zip(diff, coefs, scales, strict=True)}
        return sparse_scores(X, y, names, differences=differences, **params)
    for cols, XT, YT, groups in _blocks(X, y):
        found: dict[str, np.ndarray] = {}
        # one sort of every column serves all the indices (stable among tied x when a
        # difference index needs it; the rank indices do not depend on the tie order)
        sort = _sort(XT, stable_ties=bool(diff))
        if diff:
            values = _difference_block(sort[0], YT, groups, coefs, scales)
            found.update(zip(diff, values, strict=True))
        if want_ks or want_table:
            rx, ry = _ranks(XT, sort), _ranks(YT)
            if want_ks:
                values = _ks_block(rx, ry, groups, n_slices)
                found.update(zip(("K1", "K2", "K3"), values, strict=True))
            if want_table:
                values = _table_block(rx, ry, groups, n_bins_x, n_bins_y)
                found.update(zip(("chi2", "mi"), values, strict=True))
        for nm in names:
            out[nm][cols] = found[nm]
    return out


#: ``missing=`` rules of the ranking indices (docs/user_guide/missing_sparse.rst).
MISSING_RULES = ("available", "error")


def _check_missing(missing: Any) -> str:
    if not isinstance(missing, str) or missing not in MISSING_RULES:
        raise ValueError(f"missing must be one of {MISSING_RULES}, got {missing!r}")
    return missing


def _scores_available(
    X: np.ndarray, Y: np.ndarray, names: tuple[str, ...], raw: dict[str, Any]
) -> dict[str, np.ndarray]:
    """The indices of every column of ``X`` on the rows where that column is observed.

    ``X`` (n, m) may hold NaN; ``Y`` (n, g) as in :func:`_blocks` (column ``j`` of
    ``X`` against column ``j // (m / g)`` of ``Y``); ``raw`` the slice counts as given
    (``"auto"`` resolves with each column's number of observed rows). The columns are
    grouped by that number: in a group every column's observed rows are gathered to
    the top in row order (a stable sort of the missing flags) with their own targets,
    and the group is scored in one vectorised call with one target per column, so a
    column gets exactly what the complete-data kernel gives on its observed rows.

    A column whose observed rows are too few for an index (fewer than 2, or than the
    difference sequence needs) or hold one target value only gets NaN for it.
    """
    n, m = X.shape
    per = m // Y.shape[1]
    observed = ~np.isnan(X)
    count = observed.sum(axis=0)
    out = {nm: np.full(m, np.nan) for nm in names}
    for n_obs in np.unique(count):
        cols = np.flatnonzero(count == n_obs)
        if n_obs < 2:
            continue
        tcols = cols // per
        if n_obs == n:
            Xs, Ys = X[:, cols], Y[:, tcols]
        else:
            rows = np.argsort(~observed[:, cols], axis=0, kind="stable")[:n_obs]
            Xs = np.take_along_axis(X[:, cols], rows, axis=0)
            Ys = np.take_along_axis(Y[:, tcols], rows, axis=0)
        varies = ~_constant_columns(Ys)
        usable = [
            nm
            for nm in names
            if nm not in DIFFERENCE_COEFFICIENTS or DIFFERENCE_COEFFICIENTS[nm][0].size <= n_obs
        ]
        if not varies.any() or not usable:
            continue
        if not varies.all():
            cols, Xs, Ys = cols[varies], Xs[:, varies], Ys[:, varies]
        found = _scores(Xs, Ys, tuple(usable), **_resolve_params(int(n_obs), **raw))
        for nm in usable:
            out[nm][cols] = found[nm]
    return out


def ranking_scores(
    X: Any,
    y: Any,
    indices: str | Sequence[str] = INDEX_NAMES,
    *,
    n_slices: int | str = "auto",
    n_bins_x: int | str = "auto",
    n_bins_y: int | str = "auto",
    missing: str = "error",
) -> dict[str, np.ndarray]:
    """Several ranking indices of every column of ``X`` at once.

    Parameters
    ----------
    X : array or scipy.sparse matrix of shape (n_samples, n_features)
        A sparse ``X`` (with one target ``y`` for all columns) is never densified: each
        column sorts only its stored values, its zeros being one tied block placed by
        counts, in O(nnz log nnz + slices) per column (:mod:`fsel.kernels.ranking_sparse`);
        the scores equal the dense ones (``K1``-``K3``, ``chi2``, ``mi`` exactly, the
        difference indices to rounding). It must not store NaN (``ValueError``, whatever
        ``missing``).
    y : array of shape (n_samples,) or (n_samples, n_features)
        A numeric target shared by every column, or one target per column.
    indices : str or sequence of str
        Names from :data:`INDEX_NAMES`.
    n_slices : int or "auto"
        Slices of ``y`` for the K-S indices (``"auto"``: ``clip(n // 20, 2, 10)``).
    n_bins_x, n_bins_y : int or "auto"
        ``S`` and ``T`` of the chi-square / MI table (``"auto"``:
        ``clip(floor(sqrt(n / 5)), 2, 10)``).
    missing : {"error", "available"}, default="error"
        ``"error"``: NaN in ``X`` is a ``ValueError``. ``"available"``
        (docs/user_guide/missing_sparse.rst): every column is scored on the rows where it is
        observed, exactly as the
        complete-data indices score that sub-table (``"auto"`` slice counts resolve with
        its number of rows); a column with too few observed rows for an index, or whose
        observed rows hold one target value only, scores NaN. Without NaN both rules
        give the same numbers.

    Returns
    -------
    dict of name to ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 3))
    >>> y = X[:, 0] ** 2 + 0.1 * rng.standard_normal(200)
    >>> s = ranking_scores(X, y, ["In", "K3", "mi"])
    >>> [int(np.argmin(s["In"])), int(np.argmax(s["K3"])), int(np.argmax(s["mi"]))]
    [0, 0, 0]
    """
    names = _check_names(indices)
    available = _check_missing(missing) == "available"
    X, y = _as_tables(X, y, allow_nan=available)
    raw = {"n_slices": n_slices, "n_bins_x": n_bins_x, "n_bins_y": n_bins_y}
    params = _resolve_params(X.shape[0], **raw)
    if available and not is_sparse(X) and np.isnan(X).any():  # sparse X: no NaN here
        return _scores_available(X, y, names, raw)
    return _scores(X, y, names, **params)


def _resolve_params(
    n: int, *, n_slices: Any = "auto", n_bins_x: Any = "auto", n_bins_y: Any = "auto"
) -> dict[str, int]:
    return {
        "n_slices": resolve_slices(n_slices, n, kind="ks"),
        "n_bins_x": resolve_slices(n_bins_x, n, kind="table", name="n_bins_x"),
        "n_bins_y": resolve_slices(n_bins_y, n, kind="table", name="n_bins_y"),
    }


def ranking_scores_batch(
    X: Any,
    y: Any,
    indices: str | Sequence[str] = INDEX_NAMES,
    *,
    constant_target: str = "raise",
    missing: str = "error",
    **params: Any,
) -> dict[str, np.ndarray]:
    """Ranking indices of many data sets of the same shape in one vectorised call.

    Parameters
    ----------
    X : array of shape (n_sets, n_samples, n_features)
        E.g. the bootstrap resamples ``X[idx]`` of one table, or simulated data sets.
    y : array of shape (n_sets, n_samples)
    constant_target : {"raise", "zero"}, default="raise"
        What a set whose target is constant gets: ``"raise"`` a ``ValueError``;
        ``"zero"`` the score 0 for every feature and index (what the indices give
        there: an equal score for every feature, which leaves the ranking of a
        bootstrap mean unchanged).
    missing : {"error", "available"}, default="error"
        As in :func:`ranking_scores`: with ``"available"`` every column of every set is
        scored on the rows of that set where it is observed (NaN when they are too few
        or hold one target value while the set's target varies).
    indices, **params
        As in :func:`ranking_scores` (``"auto"`` resolves with ``n_samples``).

    Returns
    -------
    dict of name to ndarray of shape (n_sets, n_features)
        Equal to calling :func:`ranking_scores` on every set separately.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> X = rng.standard_normal((3, 50, 4))
    >>> y = X[:, :, 1] + 0.1 * rng.standard_normal((3, 50))
    >>> s = ranking_scores_batch(X, y, "K3", n_slices=5)
    >>> s["K3"].shape, np.argmax(s["K3"], axis=1).tolist()
    ((3, 4), [1, 1, 1])
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if X.ndim != 3 or y.ndim != 2 or y.shape != X.shape[:2]:
        raise ValueError(
            f"expected X of shape (n_sets, n_samples, n_features) and y of shape "
            f"(n_sets, n_samples); got {X.shape} and {y.shape}"
        )
    b, n, d = X.shape
    available = _check_missing(missing) == "available"
    finite_x = not np.isinf(X).any() if available else np.isfinite(X).all()
    if not (finite_x and np.isfinite(y).all()):
        raise ValueError("X and y must not contain NaN or inf")
    if n < 2:
        raise ValueError(f"at least 2 samples are needed, got {n}")
    if constant_target not in ("raise", "zero"):
        raise ValueError(f"constant_target must be 'raise' or 'zero', got {constant_target!r}")
    names = _check_names(indices)
    YT = np.ascontiguousarray(y.T)
    if constant_target == "raise":
        _check_not_constant(YT, what="set")
    X2 = X.transpose(1, 0, 2).reshape(n, b * d)
    resolved = _resolve_params(n, **params)
    if available and np.isnan(X2).any():
        out = _scores_available(X2, YT, names, params)
    else:
        out = _scores(X2, YT, names, **resolved)
    const = _constant_columns(YT)
    result = {nm: v.reshape(b, d) for nm, v in out.items()}
    if const.any():  # exact zeros (the kernels give 0 up to rounding)
        for v in result.values():
            v[const] = 0.0
    return result


INDEX_FUNCTIONS: dict[str, Callable[..., np.ndarray]] = {nm: INDICES[nm].func for nm in INDEX_NAMES}
