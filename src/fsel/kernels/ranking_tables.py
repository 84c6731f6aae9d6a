"""The tables behind the nonparametric ranking indices
(:mod:`fsel.kernels.ranking_indices`): validated feature and target tables, column
blocks under a size bound, the sort of every column and the ranks with ties, the
slices of the Kolmogorov-Smirnov indices, and the formulas that the dense path and the
sparse one (:mod:`fsel.kernels.ranking_sparse`) share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fsel.utils.parallel import is_sparse as _is_sparse

# Elements per processed block of columns (bounds the temporaries to a few MB each).
_BLOCK_ELEMENTS = 1 << 20


def resolve_slices(
    value: Any, n_samples: int, *, kind: str, name: str | None = None, owner: str = ""
) -> int:
    """The number of slices: ``value`` itself, or the ``"auto"`` rule.

    Parameters
    ----------
    value : int or "auto"
    n_samples : int
    kind : {"ks", "table"}
        ``"ks"``: ``clip(n // 20, 2, 10)``; ``"table"``: ``clip(floor(sqrt(n/5)), 2, 10)``.
    name : str, optional
        The parameter named in the error messages (default ``"n_slices"`` for ``"ks"``,
        ``"n_bins"`` for ``"table"``).
    owner : str, optional
        The estimator or function that opens the error messages.

    Examples
    --------
    >>> resolve_slices("auto", 200, kind="ks"), resolve_slices("auto", 200, kind="table")
    (10, 6)
    >>> resolve_slices(4, 200, kind="ks")
    4
    >>> resolve_slices(1, 200, kind="table", name="n_bins_y", owner="RankingIndex")
    Traceback (most recent call last):
    ...
    ValueError: RankingIndex: n_bins_y must be an int of at least 2 or 'auto', got 1
    """
    from fsel.utils.params import check_slice_count

    if name is None:
        name = "n_slices" if kind == "ks" else "n_bins"
    # one slice (or one bin) compares nothing: every index would be 0
    value = check_slice_count(value, name, owner)
    if isinstance(value, str):
        if kind == "ks":
            return int(np.clip(n_samples // 20, 2, 10))
        return int(np.clip(int(np.sqrt(n_samples / 5.0)), 2, 10))
    return value


@dataclass
class _Runs:
    """Runs of equal values along the rows of an ``(m, n)`` array in sorted order."""

    index: np.ndarray  # (m, n) run number of every element, counted over the whole array
    first: np.ndarray  # (n_runs,) flat position of each run's first element
    last: np.ndarray  # (n_runs,) flat position of each run's last element

    def mid(self, n: int) -> np.ndarray:
        """0-based mid position (within its row) of every element's run."""
        mid_run = 0.5 * (self.first + self.last) - (self.first // n) * n
        return mid_run[self.index]


def _runs(start: np.ndarray) -> _Runs:
    """Runs flagged by ``start`` (True at the first element of a run; column 0 True).

    One cumulative sum and a few gathers over the flat array; a run never crosses rows
    because every row starts one.
    """
    flat = start.ravel()
    first = np.flatnonzero(flat)
    last = np.empty_like(first)
    last[:-1] = first[1:] - 1
    last[-1] = flat.size - 1
    index = (np.cumsum(flat) - 1).reshape(start.shape)
    return _Runs(index, first, last)


@dataclass
class _Ranks:
    """Sort information of the rows of a ``(m, n)`` matrix (one sort per row)."""

    order: np.ndarray  # (m, n) argsort of each row
    mid: np.ndarray  # (m, n) 0-based mid position of the tie group, in sorted order
    dense: np.ndarray  # (m, n) tie-group number 0..a-1, in sorted order
    n_distinct: np.ndarray  # (m,)
    all_distinct: bool = False  # no ties at all: mid == dense == position

    def to_rows(self, values_sorted: np.ndarray) -> np.ndarray:
        """Scatter values given in sorted order back to the original positions."""
        out = np.empty_like(values_sorted)
        np.put_along_axis(out, self.order, values_sorted, axis=1)
        return out


def _sort(M: np.ndarray, *, stable_ties: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Argsort of every row and the 'equal to the previous value' flags in sorted order.

    With ``stable_ties`` the rows that hold ties are sorted again stably (rows without
    ties have one sort order only, so the fast default sort gives it).
    """
    order = np.argsort(M, axis=1)
    srt = np.take_along_axis(M, order, axis=1)
    tie = srt[:, 1:] == srt[:, :-1]
    if stable_ties:
        tied_rows = np.flatnonzero(tie.any(axis=1))
        if tied_rows.size:
            order[tied_rows] = np.argsort(M[tied_rows], axis=1, kind="stable")
    return order, tie


def _ranks(M: np.ndarray, sort: tuple[np.ndarray, np.ndarray] | None = None) -> _Ranks:
    """Mid ranks and tie groups of every row (``sort``: a ready ``_sort(M)`` result)."""
    m, n = M.shape
    order, tie = _sort(M) if sort is None else sort
    if not tie.any():  # continuous data: every value its own group
        pos = np.broadcast_to(np.arange(n), (m, n))
        return _Ranks(order, pos.astype(np.float64), pos, np.full(m, n), all_distinct=True)
    start = np.empty(M.shape, dtype=bool)
    start[:, 0] = True
    np.logical_not(tie, out=start[:, 1:])
    runs = _runs(start)
    dense = runs.index - runs.index[:, :1]
    return _Ranks(order, runs.mid(n), dense, dense[:, -1] + 1)


def slice_code_pair(
    two_p_plus_1: np.ndarray, n: int, n_slices: int
) -> tuple[np.ndarray, np.ndarray]:
    """The lower and the upper equal-count slice of items with mid position ``p``.

    .. math::

        u = \\frac{(2p + 1) H}{2n}, \\qquad
        \\mathrm{upper} = \\lfloor u \\rfloor, \\qquad
        \\mathrm{lower} = \\lceil u \\rceil - 1

    in exact integer arithmetic on ``(2p + 1) H`` and ``2n``. They differ only for an
    item centred exactly on a slice boundary (shared between the two slices; see the
    rules in :mod:`fsel.kernels.ranking_indices`).

    Parameters
    ----------
    two_p_plus_1 : int ndarray
        ``2p + 1`` of every item (``first + last + 1`` of its 0-based sorted positions).
    n : int
        The number of rows.
    n_slices : int
        ``H``.

    Returns
    -------
    lower, upper : int64 ndarrays of the shape of ``two_p_plus_1``

    Examples
    --------
    >>> lo, up = slice_code_pair(np.array([1, 3, 5]), 3, 2)  # the median is shared
    >>> lo.tolist(), up.tolist()
    ([0, 0, 1], [0, 1, 1])
    """
    num = np.asarray(two_p_plus_1, dtype=np.int64) * n_slices
    den = 2 * n
    return (num - 1) // den, num // den


def _slice_codes(r: _Ranks, n_slices: int) -> tuple[np.ndarray, np.ndarray]:
    """Equal-count slices in *sorted* order: the lower and the upper slice of every item
    (:func:`slice_code_pair`; one slice per distinct value when there are no more
    distinct values than slices)."""
    m, n = r.order.shape
    mid = r.mid[:1] if r.all_distinct else r.mid  # no ties: the same in every row
    two_p_plus_1 = (2.0 * mid + 1.0).astype(np.int64)  # mid is a multiple of 1/2
    lower, upper = slice_code_pair(two_p_plus_1, n, n_slices)
    by_value = r.n_distinct <= n_slices
    if by_value.any():
        dense = np.broadcast_to(r.dense, (m, n))
        upper = np.where(by_value[:, None], dense, upper)
        lower = np.where(by_value[:, None], dense, lower)
    return np.broadcast_to(lower, (m, n)), np.broadcast_to(upper, (m, n))


#: Bits of the low part when an integer deviation is split for exact sums.
_SPLIT_BITS = 31
_SPLIT_MASK = (1 << _SPLIT_BITS) - 1


def ks_numerators(two_inner_plus_1: Any, two_mid_plus_1: Any, size: Any, n: int) -> Any:
    """Integer numerators of the K-S deviations ``|rnk_h(x'_i) - x'_i|``.

    .. math::

        |\\mathrm{rnk}_h(x'_i) - x'_i|
        = \\Big|\\frac{r_{hi} + 1/2}{n_h} - \\frac{r_i + 1/2}{n}\\Big|
        = \\frac{|(2 r_{hi} + 1)\\, n - (2 r_i + 1)\\, n_h|}{2 n\\, n_h}

    with ``r_hi`` the 0-based mid rank of ``x_i`` among the ``n_h`` members of its slice
    and ``r_i`` its 0-based mid rank among all ``n`` rows (both multiples of 1/2, so the
    numerator is an integer). The indices are computed from integer maxima and sums of
    these numerators (:func:`ks_from_slices`), so they do not depend on the order of
    the rows nor on how the rows of a tie group are summed (one tied run of ``c`` rows
    adds ``c`` times its numerator, exactly).

    Parameters
    ----------
    two_inner_plus_1, two_mid_plus_1 : int64 arrays
        ``2 r_hi + 1`` and ``2 r_i + 1``.
    size : int64 array
        ``n_h``, broadcast against the others.
    n : int

    Returns
    -------
    int64 array

    Examples
    --------
    >>> int(ks_numerators(np.int64(1), np.int64(5), np.int64(2), 4))  # |1/4 - 5/8| = 3/8
    6
    """
    return np.abs(two_inner_plus_1 * np.int64(n) - two_mid_plus_1 * size)


def split_numerators(num: Any) -> tuple[Any, Any]:
    """``num`` as high and low parts (``num = hi 2^31 + lo``) whose sums stay exact in
    int64 for any realistic number of rows (a sum of ``|num| <= 2 n^2`` over ``n`` rows
    would overflow int64 above about 1.6 million rows)."""
    return num >> _SPLIT_BITS, num & _SPLIT_MASK


def ks_from_slices(
    num_max: np.ndarray, sum_hi: np.ndarray, sum_lo: np.ndarray, size: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``K1``, ``K2``, ``K3`` from the per-slice integer maxima and sums of the
    deviation numerators (:func:`ks_numerators`).

    .. math::

        M_h = \\frac{\\max_{i \\in h} \\mathrm{num}_i}{2 n\\, n_h},\\qquad
        A_h = \\frac{\\sum_{i \\in h} \\mathrm{num}_i}{2 n\\, n_h\\, n_h},\\qquad
        K^1 = \\operatorname{avg}_h M_h,\\quad K^2 = \\max_h M_h,\\quad
        K^3 = \\operatorname{avg}_h A_h

    over the non-empty slices ``h`` (``n_h > 0``). The averages add the slices in
    increasing order one after the other, so a column's value does not depend on the
    other columns scored with it.

    Parameters
    ----------
    num_max, sum_hi, sum_lo : int64 arrays of shape (m, H)
        Per column and slice: the largest numerator and the sums of the high and the
        low parts (:func:`split_numerators`) of the numerators.
    size : int64 array of shape (m, H)
        ``n_h`` (0 for an empty slice).
    n : int

    Returns
    -------
    k1, k2, k3 : ndarrays of shape (m,)
    """
    m, n_slices = size.shape
    nonempty = size > 0
    scale = 2.0 * n * np.where(nonempty, size, 1)
    total = sum_hi * float(1 << _SPLIT_BITS) + sum_lo
    slice_max = np.where(nonempty, num_max / scale, 0.0)
    slice_mean = np.where(nonempty, total / scale / np.where(nonempty, size, 1), 0.0)
    k1 = np.zeros(m)
    k3 = np.zeros(m)
    for h in range(n_slices):  # in order: the same sums for any set of columns
        k1 += slice_max[:, h]
        k3 += slice_mean[:, h]
    counts = nonempty.sum(axis=1)
    return k1 / counts, slice_max.max(axis=1), k3 / counts


def difference_terms(conc: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """The differences ``sum_j d_j y_(i+j)`` of every window of ``m + 1`` consecutive
    concomitants (along the last axis).

    .. math::

        t_i = \\sum_{j=0}^{m} d_j\\, y_{(i+j)}, \\qquad i = 0, \\dots, n - m - 1

    The terms are added in the order ``j = 0, 1, ..., m``, so a window gives the same
    number wherever its concomitants come from (a dense column or the stored values
    and zeros of a sparse one). The difference indices are ``scale * sum_i t_i^2``.

    Parameters
    ----------
    conc : ndarray of shape (..., n)
    coef : ndarray of shape (m + 1,)

    Returns
    -------
    ndarray of shape (..., n - m)

    Examples
    --------
    >>> difference_terms(np.array([0.0, 1.0, 3.0]), np.array([-1.0, 1.0])).tolist()
    [1.0, 2.0]
    """
    n = conc.shape[-1]
    m = coef.size - 1
    z = coef[0] * conc[..., : n - m]
    for j in range(1, m + 1):
        z += coef[j] * conc[..., j : n - m + j]
    return z


def table_scores(counts4: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Pearson chi-square and mutual information (bits) of contingency tables.

    .. math::

        \\chi^2 = \\sum_{s,t} \\frac{(N_{st} - E_{st})^2}{E_{st}},\\quad
        E_{st} = \\frac{N_{s\\cdot} N_{\\cdot t}}{N},\\qquad
        I = \\sum_{s,t} \\frac{N_{st}}{N}
        \\log_2 \\frac{N_{st} N}{N_{s\\cdot} N_{\\cdot t}}

    Cells of an empty row or column add nothing. The cells are added one after the
    other in row-major order, so a table's value does not depend on the other tables
    scored with it (the dense and the sparse paths give the same numbers).

    Parameters
    ----------
    counts4 : int64 array of shape (m, S, T)
        Four times the counts (a row shared between two slices counts one half, or one
        quarter in each of four cells, so these are integers).
    n : int
        ``N``.

    Returns
    -------
    chi2, mi : ndarrays of shape (m,)

    Examples
    --------
    >>> c, i = table_scores(4 * np.array([[[2, 0], [0, 2]]]), 4)
    >>> c.tolist(), i.tolist()
    ([4.0], [1.0])
    """
    m = counts4.shape[0]
    counts = counts4 / 4.0
    row = counts.sum(axis=2, keepdims=True)
    colm = counts.sum(axis=1, keepdims=True)
    expected = row * colm / n
    with np.errstate(divide="ignore", invalid="ignore"):
        chi = np.where(expected > 0, (counts - expected) ** 2 / expected, 0.0)
        mi = np.where(counts > 0, counts * np.log2(counts * n / (row * colm)), 0.0)
    chi = chi.reshape(m, -1)
    mi = mi.reshape(m, -1)
    chi_sum = np.zeros(m)
    mi_sum = np.zeros(m)
    for c in range(chi.shape[1]):  # in order: the same sums for any set of tables
        chi_sum += chi[:, c]
        mi_sum += mi[:, c]
    return chi_sum, np.maximum(mi_sum / n, 0.0)


def _gather(YT: np.ndarray, groups: int, order: np.ndarray) -> np.ndarray:
    """``YT`` (one row per target, each serving ``groups`` rows) taken in ``order``."""
    if YT.shape[0] == 1:
        return YT[0][order]
    return np.take_along_axis(np.repeat(YT, groups, axis=0), order, axis=1)


def _as_tables(X: Any, y: Any, *, allow_nan: bool = False) -> tuple[Any, np.ndarray]:
    """``X`` as float64 ``(n, d)`` and ``y`` as float64 ``(n, 1)`` or ``(n, d)``; a
    scipy.sparse ``X`` stays sparse (:func:`_as_sparse_table`).

    ``allow_nan`` lets NaN (a missing value) through in a dense ``X`` (never in ``y``,
    nor stored in a sparse ``X``: :func:`_as_sparse_table` refuses it)."""
    if _is_sparse(X):
        return _as_sparse_table(X, y, allow_nan=allow_nan)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 2 and y.shape[1] == 1 and X.shape[1] != 1:
        y = y[:, 0]
    if y.ndim == 1:
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} samples but y has {y.shape[0]}")
    elif y.shape != X.shape:
        raise ValueError(f"a 2-D y must have the shape of X {X.shape}, got {y.shape}")
    finite_x = not np.isinf(X).any() if allow_nan else np.isfinite(X).all()
    if not (finite_x and np.isfinite(y).all()):
        raise ValueError("X and y must not contain NaN or inf")
    if X.shape[0] < 2:
        raise ValueError(f"at least 2 samples are needed, got {X.shape[0]}")
    y = y[:, None] if y.ndim == 1 else y
    _check_not_constant(y)
    return X, y


def refuse_sparse_missing(X: Any) -> None:
    """Raise ``ValueError`` when a scipy.sparse ``X`` stores NaN (a missing value):
    ``missing="available"`` scores each column on its observed rows, which the sparse
    path (one sort of the stored values, the zeros one tied block) does not do.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> refuse_sparse_missing(sp.csr_matrix(np.eye(2)))
    >>> refuse_sparse_missing(sp.csr_matrix([[np.nan, 0.0], [0.0, 1.0]]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: missing='available' is not supported for a scipy.sparse X that stores NaN ...
    """
    data = np.asarray(X.data)
    if data.dtype.kind in "fc" and np.isnan(data).any():
        raise ValueError(
            "missing='available' is not supported for a scipy.sparse X that stores NaN "
            "(a missing value): pass a dense X (X.toarray()) to score each column on its "
            "observed rows, or fill the missing values"
        )


def _as_sparse_table(X: Any, y: Any, *, allow_nan: bool = False) -> tuple[Any, np.ndarray]:
    """A sparse ``X`` as a float64 CSC matrix (sorted, no stored zeros; never densified)
    and ``y`` as float64 ``(n, 1)``.

    A stored NaN is a missing value, which the sparse path does not score: with
    ``allow_nan`` (``missing="available"``) it is a ``ValueError`` that says so (the
    per-column deletion of :func:`_scores_available` works on dense columns)."""
    X = X.tocsc().astype(np.float64)  # a copy: the caller's matrix is not touched
    X.sum_duplicates()
    X.eliminate_zeros()
    X.sort_indices()
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"with a sparse X, y must be 1-D (n_samples,), got shape {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} samples but y has {y.shape[0]}")
    if allow_nan:
        refuse_sparse_missing(X)
    if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
        raise ValueError("X and y must not contain NaN or inf")
    if X.shape[0] < 2:
        raise ValueError(f"at least 2 samples are needed, got {X.shape[0]}")
    y = y[:, None]
    _check_not_constant(y)
    return X, y


def _constant_columns(Y: np.ndarray) -> np.ndarray:
    """Flags of the columns of ``Y`` (shape ``(n, g)``) that hold one value only."""
    return (Y == Y[:1]).all(axis=0)


def _check_not_constant(Y: np.ndarray, what: str = "column") -> None:
    """Raise ``ValueError`` when a target column of ``Y`` (shape ``(n, g)``) is constant."""
    const = _constant_columns(Y)
    if const.any():
        where = "" if Y.shape[1] == 1 else f" ({what} {int(np.flatnonzero(const)[0])})"
        raise ValueError(
            f"y is constant{where}: a ranking index needs a target that varies (every "
            "feature would score 0)"
        )


def _blocks(X: np.ndarray, Y: np.ndarray):  # type: ignore[no-untyped-def]
    """Yield ``(columns, XT, YT, groups)`` blocks in feature-major layout.

    ``Y`` has shape ``(n, g)``: column ``j`` of ``X`` is scored against column
    ``j // (d / g)`` of ``Y``. In a block, ``YT`` holds the distinct targets as rows and
    each serves ``groups`` consecutive rows of ``XT``.
    """
    n, d = X.shape
    g = Y.shape[1]
    per = d // g
    step = max(1, _BLOCK_ELEMENTS // n)
    if g > 1:
        step = max(per, step - step % per)
    for lo in range(0, d, step):
        hi = min(d, lo + step)
        XT = np.ascontiguousarray(X[:, lo:hi].T)
        if g == 1:
            yield slice(lo, hi), XT, Y.T, hi - lo
        else:
            YT = np.ascontiguousarray(Y[:, lo // per : hi // per].T)
            yield slice(lo, hi), XT, YT, per
