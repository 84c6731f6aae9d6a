"""Per-feature class-by-class sums of the 1-D Gaussian kernel (P-Relief): exact to
a stated tolerance (:data:`GAUSS_TOL`) in ``O(N p)`` per feature rather than
``O(N^2)``, by a truncated expansion on unit boxes (:data:`GAUSS_P` terms, the
:data:`GAUSS_L` boxes on each side). The compiled kernel is
:func:`fsel.kernels._numba_gaussian_sums.gauss_sums`; ``_gauss_sums_numpy`` is its twin.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fsel.kernels.distances import _use_numba

__all__ = ["GAUSS_L", "GAUSS_P", "GAUSS_TOL", "gaussian_class_sums", "gaussian_hit_total_sums"]


def _kernels() -> Any:
    """The compiled kernel (imported on first use: numba stays optional)."""
    from fsel.kernels import _numba_gaussian_sums

    return _numba_gaussian_sums


GAUSS_P = 20
#: Boxes (of width sigma) visited on each side of a target's box.
GAUSS_L = 8
#: Bound on the absolute error of every per-sample kernel mean.
GAUSS_TOL = 1e-12


def _sqrt_factorials(p: int) -> np.ndarray:
    return np.sqrt(np.array([math.factorial(q) for q in range(p)], dtype=np.float64))


def _gauss_sums_numpy(t: np.ndarray, cnt: np.ndarray, p: int, L: int) -> np.ndarray:
    U, C = cnt.shape
    sf = _sqrt_factorials(p)
    lo = t[0]
    b = np.minimum(np.floor(t - lo).astype(np.intp), int(np.floor(t[-1] - lo)))
    nb = int(b[-1]) + 1
    u = t - (lo + b + 0.5)
    powers = np.exp(-0.5 * u * u)[:, None] * (u[:, None] ** np.arange(p)) / sf  # (U, p)
    starts = np.flatnonzero(np.r_[True, np.diff(b) > 0])
    M = np.zeros((nb, p, C))
    for c in range(C):
        M[b[starts], :, c] = np.add.reduceat(powers * cnt[:, c : c + 1], starts, axis=0)
    G = np.zeros((U, C))
    for o in range(-L, L + 1):
        bb = b + o
        ok = (bb >= 0) & (bb < nb)
        if not ok.any():
            continue
        v = t[ok] - (lo + bb[ok] + 0.5)
        P = np.exp(-0.5 * v * v)[:, None] * (v[:, None] ** np.arange(p)) / sf
        G[ok] += np.einsum("up,upc->uc", P, M[bb[ok]])
    return G


def gaussian_class_sums(
    X: np.ndarray,
    y: np.ndarray,
    sigma: np.ndarray,
    *,
    n_classes: int | None = None,
    use_numba: bool | None = None,
) -> np.ndarray:
    r"""Class-by-class sums of the per-feature Gaussian kernel.

    .. math::

        S_{d, c, c'} = \sum_{n: y_n = c} \sum_{j: y_j = c'}
            \exp\left(-\frac{(x_{nd} - x_{jd})^2}{2 \sigma_d^2}\right)

    (the ``n = j`` terms included). This is the only data-dependent quantity of the
    P-Relief margin.

    Algorithm and tolerance: per feature, the distinct values (with per-class counts)
    are put in boxes of width ``sigma_d``; each box's sources are summarised by
    ``GAUSS_P = 20`` Taylor moments of ``exp(u v)`` about the box centre (a 1-D fast
    Gauss transform), and every target adds the ``2 GAUSS_L + 1 = 17`` boxes around
    its own. Omitted boxes are farther than ``8 sigma`` (each term below
    ``exp(-32) = 1.3e-14``), and the Taylor remainder of the included ones is below
    ``1e-15`` per source point, so every kernel *mean* over a class (what the margin
    uses) is within ``GAUSS_TOL = 1e-12`` of the exact value. Cost: ``O(U p)`` per
    feature for ``U`` distinct values, independent of ``sigma``, instead of the
    ``O(N^2)`` kernel evaluations of the direct formula.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Class codes.
    sigma : ndarray of shape (d,)
        Positive kernel widths.

    Returns
    -------
    S : ndarray of shape (d, n_classes, n_classes)

    Examples
    --------
    >>> import numpy as np
    >>> S = gaussian_class_sums(np.array([[0.0], [0.0], [1.0]]), np.array([0, 1, 1]),
    ...                         np.array([1.0]))
    >>> np.round(S[0], 6).tolist()
    [[1.0, 1.606531], [1.606531, 3.213061]]
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.intp)
    sigma = np.broadcast_to(np.asarray(sigma, dtype=np.float64), (X.shape[1],))
    if not (np.all(np.isfinite(sigma)) and np.all(sigma > 0)):
        raise ValueError("sigma must be positive and finite for every feature")
    C = int(y.max()) + 1 if n_classes is None else int(n_classes)
    onehot = np.zeros((X.shape[0], C))
    onehot[np.arange(X.shape[0]), y] = 1.0
    numba_on = _use_numba(use_numba)
    sf = _sqrt_factorials(GAUSS_P)
    S = np.zeros((X.shape[1], C, C))
    for d in range(X.shape[1]):
        vals, inv = np.unique(X[:, d], return_inverse=True)
        inv = inv.reshape(-1)
        cnt = np.stack(
            [np.bincount(inv, weights=onehot[:, c], minlength=vals.size) for c in range(C)], axis=1
        )
        t = vals / sigma[d]
        if numba_on:
            G = np.zeros((vals.size, C))
            _kernels().gauss_sums(t, cnt, GAUSS_P, GAUSS_L, sf, G)
        else:
            G = _gauss_sums_numpy(t, cnt, GAUSS_P, GAUSS_L)
        S[d] = cnt.T @ G
    return S


def _value_sums(vals: np.ndarray, w: np.ndarray, sigma: float, numba_on: bool) -> np.ndarray:
    """``G[u] = sum_v w[v] exp(-(vals[u] - vals[v])^2 / (2 sigma^2))`` for sorted
    distinct ``vals`` (the transform of :func:`gaussian_class_sums`, one class)."""
    t = vals / sigma
    cnt = np.ascontiguousarray(np.asarray(w, dtype=np.float64)[:, None])
    if numba_on:
        G = np.zeros((vals.size, 1))
        _kernels().gauss_sums(t, cnt, GAUSS_P, GAUSS_L, _sqrt_factorials(GAUSS_P), G)
    else:
        G = _gauss_sums_numpy(t, cnt, GAUSS_P, GAUSS_L)
    return G[:, 0]


def gaussian_hit_total_sums(
    X: np.ndarray,
    y: np.ndarray,
    sigma: np.ndarray,
    *,
    n_classes: int | None = None,
    use_numba: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""The diagonal and the row sums of :func:`gaussian_class_sums`, in ``O(N)`` memory.

    ``hits[d, c] = S[d, c, c]`` and ``totals[d, c] = sum_c' S[d, c, c']``: all the
    P-Relief margin needs, without the ``C x C`` tables (with many classes, e.g. one
    sample per class, those would be ``8 C^2`` bytes per feature). The totals come from
    one transform over all samples; the hit sums from one transform per class (the
    direct ``n_c^2`` kernel sum for classes of at most 32 members), so the tolerance is
    that of :func:`gaussian_class_sums`.

    Examples
    --------
    >>> import numpy as np
    >>> X, y = np.array([[0.0], [0.0], [1.0]]), np.array([0, 1, 1])
    >>> hits, totals = gaussian_hit_total_sums(X, y, np.array([1.0]))
    >>> np.round(hits, 6).tolist(), np.round(totals, 6).tolist()
    ([[1.0, 3.213061]], [[2.606531, 4.819592]])
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.intp)
    sigma = np.broadcast_to(np.asarray(sigma, dtype=np.float64), (X.shape[1],))
    if not (np.all(np.isfinite(sigma)) and np.all(sigma > 0)):
        raise ValueError("sigma must be positive and finite for every feature")
    C = int(y.max()) + 1 if n_classes is None else int(n_classes)
    d = X.shape[1]
    numba_on = _use_numba(use_numba)
    order = np.argsort(y, kind="stable")
    bounds = np.searchsorted(y[order], np.arange(C + 1))
    hits = np.zeros((d, C))
    totals = np.zeros((d, C))
    for f in range(d):
        col = X[:, f : f + 1]
        s = sigma[f : f + 1]
        vals, inv = np.unique(col[:, 0], return_inverse=True)
        inv = inv.reshape(-1)
        g_all = _value_sums(vals, np.bincount(inv, minlength=vals.size), s[0], numba_on)
        per = g_all[inv]
        totals[f] = np.bincount(y, weights=per, minlength=C)
        for c in range(C):
            members = order[bounds[c] : bounds[c + 1]]
            if members.size == 0:
                continue
            v = col[members, 0]
            if members.size <= 32:
                t = (v[:, None] - v[None, :]) / s[0]
                hits[f, c] = np.exp(-0.5 * t * t).sum()
            else:
                u, iv = np.unique(v, return_inverse=True)
                w = np.bincount(iv.reshape(-1), minlength=u.size).astype(np.float64)
                hits[f, c] = float(w @ _value_sums(u, w, s[0], numba_on))
    return hits, totals
