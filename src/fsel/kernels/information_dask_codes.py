"""Dask information criteria, the two passes before the greedy steps: per-chunk
statistics (column ranges, distinct values; merged on the client into bin edges, the
exact quantiles of :func:`fsel.kernels.binning.dask_quantiles`, and levels) and the
encoding of every chunk into integer codes, on the workers.
:mod:`fsel.kernels.information_dask` runs them and the steps.

Dask is never imported here; these functions run on numpy chunks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsel.kernels._counting import PACK_MAX_LEVELS
from fsel.kernels.discretize import apply_bin_edges, smallest_code_dtype
from fsel.utils.parallel import numba_available

MAX_CODE_LEVELS = 65536  # distinct values a code column (or the target) may have on Dask


def _kernels() -> Any:
    """The compiled kernels (imported on first use: numba stays optional)."""
    from fsel.kernels import _numba_discretize

    return _numba_discretize


# ------------------------------------------------------------------- pass 1: chunk stats


def _distinct(values: np.ndarray, cap: int, holes: bool = False) -> np.ndarray | None:
    """Sorted distinct values (None when more than ``cap``); O(n) for small integers.
    ``holes``: the (float) values hold NaN, which is not a value."""
    if holes:
        values = values[~np.isnan(values)]
    if values.dtype.kind in "iu" and values.size:
        lo, hi = values.min(), values.max()
        if int(hi) - int(lo) < 1 << 16:
            seen = np.bincount((values - lo).astype(np.intp, copy=False))
            u = (np.flatnonzero(seen) + int(lo)).astype(values.dtype)
            return u if u.size <= cap else None
    u = np.unique(values)
    return u if u.size <= cap else None


def _integer_distinct(x: np.ndarray) -> tuple | None:
    """Per-column minima and maxima (float64) and :func:`_distinct` of every column of
    a non-empty integer chunk in one row-major pass (numba), or None (no numba, or
    value ranges too wide for a presence table)."""
    if not numba_available():
        return None
    lo_x, hi_x = x.min(axis=0), x.max(axis=0)
    if x.dtype.itemsize == 8 and (lo_x.min() < -(1 << 53) or hi_x.max() > 1 << 53):
        return None  # not exact as float64 (nor as an int64 span)
    lo = lo_x.astype(np.int64)
    width = int((hi_x.astype(np.int64) - lo).max()) + 1
    if width > 1 << 16 or width * x.shape[1] > 1 << 24:
        return None
    present = np.zeros((x.shape[1], width), dtype=np.bool_)
    _kernels().presence(x, lo, present)
    out: list[np.ndarray | None] = []
    for j in range(x.shape[1]):
        u = (np.flatnonzero(present[j]) + lo[j]).astype(x.dtype)
        out.append(u if u.size <= MAX_CODE_LEVELS else None)
    return lo_x.astype(np.float64), hi_x.astype(np.float64), out


def _transposed(x: np.ndarray, rows: int = 16384, out: np.ndarray | None = None) -> np.ndarray:
    """A C-contiguous ``x.T``, copied in row blocks (several times faster than
    ``x.T.copy()`` for narrow dtypes: both sides stay in cache), into ``out`` when
    given."""
    if out is None:
        out = np.empty((x.shape[1], x.shape[0]), dtype=x.dtype)
    for i in range(0, x.shape[0], rows):
        out[:, i : i + rows] = x[i : i + rows].T
    return out


def _chunk_stats(
    x: np.ndarray, y: np.ndarray, code_cols: np.ndarray, n_bins: int, strategy: str | None
) -> dict[str, Any]:
    """Everything the client needs to choose codes and edges, for one chunk of rows."""
    x = np.asarray(x)
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if x.shape[0] != y.shape[0]:
        raise ValueError(
            f"X and y have inconsistent lengths in one partition: {x.shape[0]} and {y.shape[0]}"
        )
    d = x.shape[1]
    nan = np.zeros(d, dtype=bool)
    st: dict[str, Any] = {"n": x.shape[0], "nan": nan, "inf": None, "nonint": None}
    _target_stats(y, st)
    if x.dtype.kind == "f" and x.size:
        bad = ~np.isfinite(x)
        if bad.any():
            inf_cols = np.flatnonzero(np.isinf(x).any(axis=0))
            if inf_cols.size:
                st["inf"] = int(inf_cols[0])
                return st
            nan[:] = np.isnan(x).any(axis=0)  # holes: one more level (missing="level")
    holes = bool(nan.any())
    if x.dtype.kind in "iu" and x.shape[0] and bool(np.all(code_cols)):
        fast = _integer_distinct(x)  # every column is a code column: one pass
        if fast is not None:
            st["lo"], st["hi"], st["distinct"] = fast
            return st
    if x.shape[0]:  # fmin/fmax skip NaN (an all-missing column gives NaN)
        lo = np.fmin.reduce(x, axis=0).astype(np.float64)
        hi = np.fmax.reduce(x, axis=0).astype(np.float64)
    else:
        lo, hi = np.full(d, np.inf), np.full(d, -np.inf)
    st["lo"], st["hi"] = lo, hi
    distinct: list[np.ndarray | None] = []
    head = np.sort(x[: 8 * (n_bins + 1)], axis=0) if x.shape[0] else x
    if holes:  # distinct observed values in the head (NaN sorts last)
        step_ = np.diff(head, axis=0)
        n_head = (~np.isnan(head[0])).astype(np.int64) + np.count_nonzero(
            (step_ != 0) & ~np.isnan(step_), axis=0
        )
        few = n_head <= n_bins
    else:
        few = 1 + np.count_nonzero(np.diff(head, axis=0), axis=0) <= n_bins
    need = [j for j in range(d) if code_cols[j] or strategy is None or few[j]]
    # one transpose: the columns whose distinct values count as contiguous rows
    xt = _transposed(x if len(need) == d else x[:, need])
    row = {j: i for i, j in enumerate(need)}
    for j in range(d):
        if code_cols[j] or strategy is None:
            distinct.append(_distinct(xt[row[j]], MAX_CODE_LEVELS, bool(nan[j])))
        elif few[j]:
            distinct.append(_distinct(xt[row[j]], n_bins, bool(nan[j])))
        else:
            distinct.append(None)
    st["distinct"] = distinct
    if strategy is None and x.dtype.kind == "f":
        frac = x != np.round(x)
        if holes:
            frac &= ~np.isnan(x)
        nonint = np.flatnonzero(np.any(frac, axis=0))
        st["nonint"] = int(nonint[0]) if nonint.size else None
    return st


def _target_stats(y: np.ndarray, st: dict[str, Any]) -> None:
    """The target's part of :func:`_chunk_stats`, added to ``st``."""
    if y.dtype.kind == "f" and np.isnan(y).any():
        st["y_nan"] = True
    st["classes"] = _distinct(y, MAX_CODE_LEVELS)
    if y.dtype.kind == "f" and y.size:  # a continuous target is binned like a feature
        st["y_lo"], st["y_hi"] = float(y.min()), float(y.max())
        st["y_nonint"] = bool(np.any(y != np.round(y)))


#: integer codes up to this itemsize are transposed once per worker, as they are,
#: and encoded from that block (:func:`_prepare_group`)
_SMALL_CODES_ITEMSIZE = 2


def _prepare_group(all_codes: bool, *pairs: tuple) -> tuple | None:
    """The raw chunks ``(x, y)`` one worker holds, for :func:`_group_stats` and
    :func:`_encode_prepared`: when every column is a code column and every chunk holds
    small integers (one dtype, at most ``_SMALL_CODES_ITEMSIZE`` bytes), their values
    transposed once into one feature-major block and the labels concatenated,
    ``(xt, y)``; else None (the chunks are read as they are)."""
    xs = [np.asarray(x) for x, _ in pairs]
    ys = [np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y) for _, y in pairs]
    for x, y in zip(xs, ys, strict=True):
        if x.shape[0] != y.shape[0]:
            raise ValueError(
                f"X and y have inconsistent lengths in one partition: {x.shape[0]} and {y.shape[0]}"
            )
    dtypes = {x.dtype for x in xs}
    if not all_codes or len(dtypes) != 1:
        return None
    dt = dtypes.pop()
    if dt.kind not in "iu" or dt.itemsize > _SMALL_CODES_ITEMSIZE:
        return None
    n = sum(x.shape[0] for x in xs)
    xt = np.empty((xs[0].shape[1], n), dtype=dt)
    at = 0
    for x in xs:
        _transposed(x, out=xt[:, at : at + x.shape[0]])
        at += x.shape[0]
    return xt, np.concatenate(ys)


def _group_stats(
    prepared: tuple | None,
    code_cols: np.ndarray,
    n_bins: int,
    strategy: str | None,
    *pairs: tuple,
) -> dict[str, Any]:
    """:func:`_chunk_stats` of one worker's chunks, merged; from the transposed block
    of :func:`_prepare_group` when there is one (``"prepared": True``): per column
    min and max, and as its levels the run ``min..max`` when it spans fewer than
    :data:`fsel.kernels._counting.PACK_MAX_LEVELS` values (a superset of the values
    present: an empty level is an empty row of every count table, which changes no
    entropy), else the distinct values."""
    if prepared is None:
        parts = [_chunk_stats(x, y, code_cols, n_bins, strategy) for x, y in pairs]
        merged = _merge_stats(*parts, code_cols=_code_like(code_cols, strategy), n_bins=n_bins)
        return merged | {"prepared": False}
    xt, y = prepared
    d, n = xt.shape
    st: dict[str, Any] = {"n": n, "nan": np.zeros(d, dtype=bool), "inf": None, "nonint": None}
    _target_stats(y, st)
    st["prepared"] = True
    if not n:
        st["lo"], st["hi"] = np.full(d, np.inf), np.full(d, -np.inf)
        st["distinct"] = [xt[j] for j in range(d)]  # empty
        return st
    lo, hi = xt.min(axis=1), xt.max(axis=1)
    st["lo"], st["hi"] = lo.astype(np.float64), hi.astype(np.float64)
    st["distinct"] = [
        np.arange(int(lo[j]), int(hi[j]) + 1).astype(xt.dtype)
        if int(hi[j]) - int(lo[j]) < PACK_MAX_LEVELS
        else _distinct(xt[j], MAX_CODE_LEVELS)
        for j in range(d)
    ]
    return st


def _code_like(code_cols: np.ndarray, strategy: str | None) -> np.ndarray:
    """The columns whose distinct values are kept up to ``MAX_CODE_LEVELS`` when stats
    are merged: the code columns, every column under ``discretize=None``."""
    return code_cols if strategy is not None else np.ones_like(code_cols)


def _merge_union(a: np.ndarray | None, b: np.ndarray | None, cap: int) -> np.ndarray | None:
    if a is None or b is None:
        return None
    u = np.union1d(a, b)
    return u if u.size <= cap else None


def _merge_stats(*parts: dict[str, Any], code_cols: np.ndarray, n_bins: int) -> dict[str, Any]:
    out = dict(parts[0])
    for p in parts[1:]:
        out["n"] += p["n"]
        out["prepared"] = out.get("prepared", False) and p.get("prepared", False)
        for key in ("inf", "nonint"):
            if out[key] is None:
                out[key] = p[key]
        out["nan"] = out["nan"] | p["nan"]
        out["y_nan"] = out.get("y_nan", False) or p.get("y_nan", False)
        out["classes"] = _merge_union(out["classes"], p["classes"], MAX_CODE_LEVELS)
        if "y_lo" in p:
            if "y_lo" in out:
                out["y_lo"] = min(out["y_lo"], p["y_lo"])
                out["y_hi"] = max(out["y_hi"], p["y_hi"])
                out["y_nonint"] = out["y_nonint"] or p["y_nonint"]
            else:
                out.update({k: p[k] for k in ("y_lo", "y_hi", "y_nonint")})
        if "lo" not in p:
            continue
        if "lo" not in out:
            out.update({k: p[k] for k in ("lo", "hi", "distinct")})
            continue
        out["lo"] = np.fmin(out["lo"], p["lo"])
        out["hi"] = np.fmax(out["hi"], p["hi"])
        out["distinct"] = [
            _merge_union(a, b, MAX_CODE_LEVELS if code_cols[j] else n_bins)
            for j, (a, b) in enumerate(zip(out["distinct"], p["distinct"], strict=True))
        ]
    return out


# ------------------------------------------------------------------- pass 2: encoding


def _encode_chunk(
    x: np.ndarray,
    y: np.ndarray,
    edges: list[np.ndarray | None],
    levels: list[np.ndarray | None],
    classes: np.ndarray,
    dtype: Any,
    y_edges: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Feature-major codes of one chunk (binned columns: bin index; code columns: rank
    among the column's distinct values; a hole: the column's last code) and the class
    codes (a binned continuous target: its bin index)."""
    x = np.asarray(x)
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    codes = np.empty((x.shape[1], x.shape[0]), dtype=dtype)
    cut = [j for j, e in enumerate(edges) if e is not None]
    if cut:
        codes[cut] = apply_bin_edges(x, edges)[:, cut].T
        if x.dtype.kind == "f":  # a hole of a binned column: its missing level, the last
            for j in cut:
                hole = np.isnan(x[:, j])
                if hole.any():
                    codes[j][hole] = edges[j].size + 1
    kept = [j for j, lev in enumerate(levels) if lev is not None]
    xt = _transposed(x[:, kept] if len(kept) < x.shape[1] else x)
    return _code_columns(xt, kept, levels, codes), _target_codes(y, classes, y_edges)


def _code_columns(
    xt: np.ndarray, kept: list[int], levels: list[np.ndarray | None], codes: np.ndarray
) -> np.ndarray:
    """Write the codes of the code columns ``kept`` (their values, feature-major, are
    the rows of ``xt``) into ``codes``: the rank among the column's ``levels`` (NaN
    sorts last: the hole level). Returns ``codes``, or ``xt`` itself when every column
    is kept, its values already are its codes ``0..a-1`` and the dtypes agree (no
    copy)."""
    if xt.dtype.kind in "iu" and kept:
        # columns whose levels are a run lo..hi: the code is the value minus lo, for
        # all of them in one vectorised pass
        run = [
            i
            for i, j in enumerate(kept)
            if int(levels[j][-1]) - int(levels[j][0]) + 1 == levels[j].size
        ]
        if run:
            lo = np.array([levels[kept[i]][0] for i in run], dtype=xt.dtype)
            rows = np.asarray([kept[i] for i in run])
            if lo.any():
                codes[rows] = xt[run] - lo[:, None]
            elif len(run) == codes.shape[0] and xt.dtype == codes.dtype:
                codes = xt  # every column is already its codes 0..a-1: no copy
            else:
                codes[rows] = xt[run] if len(run) < len(kept) else xt
            done = set(run)
            kept_rest = [(i, j) for i, j in enumerate(kept) if i not in done]
        else:
            kept_rest = list(enumerate(kept))
    else:
        kept_rest = list(enumerate(kept))
    for i, j in kept_rest:
        lev, col = levels[j], xt[i]
        if col.dtype.kind in "iu" and int(lev[-1]) - int(lev[0]) < 1 << 16:
            lut = np.zeros(int(lev[-1]) - int(lev[0]) + 1, dtype=codes.dtype)
            lut[(lev - lev[0]).astype(np.intp)] = np.arange(lev.size)
            codes[j] = lut[col - lev[0]]  # every value is one of the column's levels
        else:
            codes[j] = np.searchsorted(lev, col)  # NaN sorts last: lev.size, the hole level
    return codes


def _target_codes(y: np.ndarray, classes: np.ndarray, y_edges: np.ndarray | None) -> np.ndarray:
    """The class codes of labels ``y`` (a binned continuous target: its bin index)."""
    if y_edges is not None:
        yc = np.searchsorted(y_edges, y, side="right")
        return yc.astype(smallest_code_dtype(y_edges.size + 1))
    return np.searchsorted(classes, y).astype(smallest_code_dtype(classes.size))
