"""ReliefF's mean margin over a sample of reference rows, with the table on Dask workers.

The table stays in row chunks on the workers; four passes, each a tree reduction or a
small gather, so the client holds ``O(m D + m C k)`` numbers (``m`` references, ``D``
features, ``C`` classes, ``k`` neighbours), never ``O(N)``:

1. per-chunk row counts, column minima/maxima and class counts (min-max scaling and
   class priors, exactly as in memory);
2. the ``m`` reference rows (global indices, sorted) gathered to the client, scaled;
3. the references broadcast: each chunk finds, for every reference and every class,
   its ``k`` nearest rows among the chunk's rows (distances from
   :func:`fsel.kernels.distances.distance_block`, in row blocks under a memory budget;
   the reference itself excluded; distances within the tie tolerance of
   :func:`fsel.kernels.neighbors.tie_order` go to the smaller global index); the candidate
   lists of all chunks are merged in a tree, keeping the ``k`` best: the exact global
   ``k`` nearest neighbours, the same as in memory;
4. each chunk sums ``coef * |x_ref - x_nb|`` over the neighbours it holds (ReliefF's
   coefficients: ``-1/k_h`` for hits, ``p(c) / (1 - p(y_ref)) / k_c`` for the misses of
   class ``c``); the sums are added in a tree.

The mean margin is the total over the ``m`` references divided by ``m``; with every row
a reference it is the in-memory :class:`fsel.ReliefF` ``margin_``. Cost: ``O(m N D)``
distance work spread over the workers, ``O(m C k log)`` merging.
Dask is imported lazily.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from fsel.kernels._dask import add_arrays as _add
from fsel.kernels._dask import tree_reduce as _tree
from fsel.kernels.binning import dask_quantiles
from fsel.kernels.distances import DEFAULT_MEMORY_BUDGET, distance_block
from fsel.kernels.neighbors import relieff_coefficients, tie_order, tie_tolerance
from fsel.kernels.scaling import ROBUST_QUANTILES

__all__ = ["relieff_margin_dask"]


def _labels(y: Any) -> np.ndarray:
    return np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)


def _stats(x: np.ndarray, y: Any) -> dict[str, Any]:
    x = np.asarray(x, dtype=np.float64)
    y = _labels(y)
    if x.shape[0] != y.shape[0]:
        raise ValueError(
            f"X and y have inconsistent lengths in one partition: {x.shape[0]}, {y.size}"
        )
    labels, counts = np.unique(y, return_counts=True)
    finite = bool(np.isfinite(x).all())
    return {
        "n": [x.shape[0]],
        "lo": x.min(axis=0) if x.shape[0] else np.full(x.shape[1], np.inf),
        "hi": x.max(axis=0) if x.shape[0] else np.full(x.shape[1], -np.inf),
        "labels": dict(zip(labels.tolist(), counts.tolist(), strict=True)),
        "finite": finite,
    }


def _merge_stats(*parts: dict[str, Any]) -> dict[str, Any]:
    out = {"n": [], "lo": parts[0]["lo"], "hi": parts[0]["hi"], "labels": {}, "finite": True}
    for p in parts:
        out["n"] = out["n"] + p["n"]
        out["lo"] = np.minimum(out["lo"], p["lo"])
        out["hi"] = np.maximum(out["hi"], p["hi"])
        out["finite"] = out["finite"] and p["finite"]
        for lab, c in p["labels"].items():
            out["labels"][lab] = out["labels"].get(lab, 0) + c
    return out


def _scale(x: np.ndarray, lo: np.ndarray, ptp: np.ndarray, top: np.ndarray) -> np.ndarray:
    """``(clip(x, lo, top) - lo) / ptp`` per column (the clip is void under the range
    rule, whose ``lo``/``top`` are the column's min/max), 0 for constant columns."""
    z = np.zeros(x.shape, dtype=np.float64)
    ok = ptp > 0
    v = np.asarray(x, dtype=np.float64)[:, ok]
    z[:, ok] = (np.minimum(np.maximum(v, lo[ok]), top[ok]) - lo[ok]) / ptp[ok]
    return z


def _take_rows(x: np.ndarray, y: Any, local: np.ndarray, lo, ptp, top, classes) -> tuple:
    return _scale(np.asarray(x)[local], lo, ptp, top), np.searchsorted(classes, _labels(y)[local])


def _best_k(dist: np.ndarray, idx: np.ndarray, k: int, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Keep, along the last axis, the ``k`` first (distance, index) pairs in the
    neighbour search's order (:func:`~fsel.kernels.neighbors.tie_order`, tolerance
    ``eps``)."""
    order = tie_order(dist, idx, eps)[..., :k]
    return np.take_along_axis(dist, order, -1), np.take_along_axis(idx, order, -1)


def _chunk_neighbours(
    x: np.ndarray,
    y: Any,
    offset: int,
    R: np.ndarray,
    ref_index: np.ndarray,
    classes: np.ndarray,
    lo: np.ndarray,
    ptp: np.ndarray,
    top: np.ndarray,
    k: int,
    metric: str,
    memory_budget: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Per reference and class, the ``k`` nearest rows of this chunk: ``(m, C, k)``."""
    m, C = R.shape[0], classes.size
    dist = np.full((m, C, k), np.inf)
    idx = np.full((m, C, k), -1, dtype=np.int64)
    yc = np.searchsorted(classes, _labels(y))
    n = yc.size
    rows = max(1, int(memory_budget) // (8 * max(m, 1) * 3))
    rank_metric = "sqeuclidean" if metric == "euclidean" else metric
    eps = tie_tolerance(R.shape[1])
    for b0 in range(0, n, rows):
        b1 = min(n, b0 + rows)
        Z = _scale(np.asarray(x)[b0:b1], lo, ptp, top)
        D = distance_block(R, Z, metric=rank_metric)  # (m, b)
        gidx = np.arange(offset + b0, offset + b1, dtype=np.int64)
        D[ref_index[:, None] == gidx[None, :]] = np.inf  # a reference is not its neighbour
        for c in range(C):
            cols = np.flatnonzero(yc[b0:b1] == c)
            if not cols.size:
                continue
            take = min(k, cols.size)
            sub = D[:, cols]
            part = np.argpartition(sub, take - 1, axis=1)[:, :take] if take < cols.size else None
            if part is None:
                cand_d, cand_i = sub, np.broadcast_to(gidx[cols], sub.shape)
            else:
                cand_d = np.take_along_axis(sub, part, 1)
                cand_i = gidx[cols][part]
                # ties at the k-th distance (within eps): the tie rule picks among
                # every candidate up to it
                kth = cand_d.max(axis=1, keepdims=True) + eps
                tied = (sub <= kth).sum(axis=1) > take
                if tied.any():
                    for r in np.flatnonzero(tied):
                        keep = np.flatnonzero(sub[r] <= kth[r, 0])
                        d_r, i_r = _best_k(sub[r, keep], gidx[cols][keep], take, eps)
                        cand_d[r], cand_i[r] = d_r, i_r
            cand_i = np.where(np.isfinite(cand_d), cand_i, -1)
            dist[:, c], idx[:, c] = _best_k(
                np.concatenate([dist[:, c], cand_d], axis=1),
                np.concatenate([idx[:, c], cand_i], axis=1),
                k,
                eps,
            )
    return dist, idx


def _merge_neighbours(
    eps: float, *parts: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    k = parts[0][0].shape[-1]
    dist = np.concatenate([p[0] for p in parts], axis=-1)
    idx = np.concatenate([p[1] for p in parts], axis=-1)
    return _best_k(dist, idx, k, eps)


def _chunk_margin(
    x: np.ndarray,
    offset: int,
    R: np.ndarray,
    nb: np.ndarray,
    coef: np.ndarray,
    lo: np.ndarray,
    ptp: np.ndarray,
    top: np.ndarray,
) -> np.ndarray:
    """``sum coef * |R[ref] - x[nb]|`` over the neighbours held by this chunk."""
    n = np.asarray(x).shape[0]
    here = (nb >= offset) & (nb < offset + n)
    out = np.zeros(R.shape[1])
    if not here.any():
        return out
    ref, slot = np.nonzero(here)
    Z = _scale(np.asarray(x)[nb[ref, slot] - offset], lo, ptp, top)
    out += (coef[ref, slot][:, None] * np.abs(R[ref] - Z)).sum(axis=0)
    return out


def relieff_margin_dask(
    blocks: list[Any],
    y_blocks: list[Any],
    references: np.ndarray | Callable[[int], np.ndarray | None],
    n_neighbors: int = 10,
    *,
    metric: str = "manhattan",
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    estimator_name: str = "ReliefF",
    scaling: str = "range",
) -> dict[str, Any]:
    """ReliefF's mean margin over reference rows of a table held in Dask row chunks.

    Parameters
    ----------
    blocks, y_blocks : lists of dask.delayed.Delayed
        Matching row chunks of the features ``(n_i, D)`` (numbers, no missing values)
        and of the labels (:func:`fsel.utils.dask_table.check_dask_table` makes them).
    references : ndarray of int, or callable
        Global row indices of the reference rows (sorted and unique on return use;
        e.g. drawn with a seeded generator), or a function of the number of rows
        ``N`` (known after the first pass) returning them, None meaning every row.
    n_neighbors : int
        ``k`` nearest hits and ``k`` nearest misses per other class; a class with
        fewer rows gives all of them (``k`` is clipped to the largest class).
    metric : {"manhattan", "euclidean"}
        In the min-max scaled feature space.
    memory_budget : int
        Bytes per worker for a block of reference-to-row distances.
    estimator_name : str
        Named in error messages.
    scaling : {"range", "robust"}
        The difference scaling of :mod:`fsel.kernels.scaling` (``"rank"`` needs every
        row's rank: not on Dask).

    Returns
    -------
    dict
        ``margin`` (the mean margin, 0 for constant features), ``classes``,
        ``priors``, ``n_samples``, ``constant`` (bool mask), ``neighbours``
        (``(m, C, k)`` global indices, -1 where a class has fewer rows).
    """
    import dask

    if scaling not in ("range", "robust"):
        raise ValueError(
            f"{estimator_name}: scaling={scaling!r} is not supported on Dask input (ranks "
            "need the whole column); use scaling='robust' or 'range', or compute X and fit "
            "in memory"
        )
    if metric not in ("manhattan", "euclidean"):
        raise ValueError(f"metric must be 'manhattan' or 'euclidean', got {metric!r}")
    k = int(n_neighbors)
    if k < 1:
        raise ValueError(f"n_neighbors must be at least 1, got {n_neighbors}")
    st = _tree(
        [dask.delayed(_stats)(x, y) for x, y in zip(blocks, y_blocks, strict=True)], _merge_stats
    ).compute()
    name = estimator_name
    if not st["finite"]:
        raise ValueError(
            f"{name}: X has missing or infinite values; ReliefF on Dask needs finite values "
            "(impute them first, or compute X and fit in memory)"
        )
    sizes = np.asarray(st["n"], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n = int(offsets[-1])
    labels = list(st["labels"])
    if len(labels) < 2:
        raise ValueError(f"{name}: y has {len(labels)} class(es); at least two are needed")
    as_float = np.asarray(labels)
    if as_float.dtype.kind == "f" and not np.all(as_float == np.round(as_float)):
        raise ValueError(
            f"{name}: y is continuous (a regression target); RReliefF does not run on "
            "Dask: pass class labels, or compute X and fit in memory"
        )
    if callable(references):
        references = references(n)
        if references is None:
            references = np.arange(n)
    ref = np.unique(np.asarray(references, dtype=np.int64))
    if ref.size == 0 or ref[0] < 0 or ref[-1] >= n:
        raise ValueError(
            f"{name}: references must be row indices in [0, {n}), got {ref.size} of them"
        )
    classes = np.asarray(sorted(st["labels"]))
    counts = np.asarray([st["labels"][c] for c in classes.tolist()], dtype=np.float64)
    priors = counts / n
    # no class offers more neighbours than its rows: a larger k takes them all, as in
    # memory, and is clipped before any list is sized by it
    k = max(1, min(k, int(counts.max())))
    lo, hi = st["lo"], st["hi"]
    ptp = hi - lo
    constant = ptp == 0
    top = hi
    if scaling == "robust":  # exact 5%/95% quantiles, as fsel.kernels.scaling in memory
        q = np.array(dask_quantiles(blocks, np.arange(lo.size), np.array(ROBUST_QUANTILES)))
        use = q[:, 1] > q[:, 0]  # else the range rule, as in memory
        lo = np.where(use, q[:, 0], lo)
        top = np.where(use, q[:, 1], hi)
        ptp = np.where(use, q[:, 1] - q[:, 0], ptp)
    # 2. the references, gathered and scaled
    owner = np.searchsorted(offsets, ref, side="right") - 1
    pieces = [
        dask.delayed(_take_rows)(
            blocks[b], y_blocks[b], ref[owner == b] - offsets[b], lo, ptp, top, classes
        )
        for b in np.unique(owner).tolist()
    ]
    got = dask.compute(*pieces)
    R = np.concatenate([g[0] for g in got])
    ry = np.concatenate([g[1] for g in got])
    # 3. exact global k nearest per class, merged in a tree
    parts = [
        dask.delayed(_chunk_neighbours)(
            x, y, int(offsets[i]), R, ref, classes, lo, ptp, top, k, metric, int(memory_budget)
        )
        for i, (x, y) in enumerate(zip(blocks, y_blocks, strict=True))
    ]
    eps = tie_tolerance(R.shape[1])
    _, nb = _tree(parts, functools.partial(_merge_neighbours, eps)).compute()  # (m, C, k)
    m, C = ref.size, classes.size
    cls_coef = relieff_coefficients((nb >= 0).sum(axis=2), ry, priors)
    coef = np.repeat(cls_coef, k, axis=1)  # (m, C*k) matching nb.reshape(m, C*k)
    flat = nb.reshape(m, C * k)
    # 4. margins summed where the neighbours live
    sums = [
        dask.delayed(_chunk_margin)(x, int(offsets[i]), R, flat, coef, lo, ptp, top)
        for i, x in enumerate(blocks)
    ]
    margin = _tree(sums, _add).compute() / m
    margin[constant] = 0.0
    return {
        "margin": margin,
        "classes": classes,
        "priors": priors,
        "n_samples": n,
        "constant": constant,
        "neighbours": nb,
        "references": ref,
    }
