r"""Nearest-neighbour estimates of mutual and conditional mutual information (no binning).

One estimator, in nats internally, in bits at the public surface like the rest of fsel:

.. math::

    \hat I(X;Y|Z) = \frac{1}{N}\sum_i \Big[\psi(k_i) + \psi(n_{z,i}+1)
        - \psi(n_{xz,i}+1) - \psi(n_{yz,i}+1)\Big]

(:func:`ksg_formula`). For each point ``i``, :math:`\rho_i` is the distance to its
``k``-th nearest neighbour in the joint space ``(X, Y, Z)`` under the max-norm, and
:math:`n_{xz,i}`, :math:`n_{yz,i}`, :math:`n_{z,i}` count the *other* points within
that distance in the subspaces ``(X, Z)``, ``(Y, Z)`` and ``Z``:

* :math:`\rho_i > 0`: Kraskov, Stoegbauer & Grassberger's algorithm 1 (2004), counts
  of points **strictly** closer than :math:`\rho_i`, :math:`k_i = k`; with ``Z`` empty
  (:math:`n_{z,i} = N - 1`) it is KSG's :math:`\psi(k) + \psi(N) - \langle\psi(n_x+1) +
  \psi(n_y+1)\rangle`, and with ``Z`` given Frenzel & Pompe's (2007) conditional form;
* :math:`\rho_i = 0` (the point has at least ``k`` exact duplicates in the joint space,
  i.e. ties or discrete columns): Gao, Kannan, Oh & Viswanath's (2017) rule,
  :math:`k_i` = the number of other points at distance 0 and the counts are of points
  at distance 0, which tends to the plug-in estimate on discrete data. We keep KSG's
  digamma form (:math:`\psi(N)`, :math:`\psi(n+1)` where Gao et al. write
  :math:`\log N`, :math:`\log(n+1)`: the same limit, and exactly KSG without ties).

A **discrete** variable (class labels; a 1-D integer array here) has distance 0 between
equal labels and infinity otherwise: neighbours are searched within the point's class.
With ``Z`` empty and ``Y`` discrete this is Ross's (2014) estimator, the one
scikit-learn's ``mutual_info_classif`` uses: :math:`\psi(N) + \psi(k) - \langle
\psi(N_c)\rangle - \langle\psi(m_i)\rangle`. As there, a class with ``N_c <= k`` uses
``k = N_c - 1`` for its points and the points of a class of one are left out.

Continuous columns are divided by their standard deviation (``ddof=0``, as
scikit-learn's ``scale``) so that the max-norm weighs them alike; a constant column
stays as it is (every distance along it is 0). Unlike scikit-learn no noise is added:
ties are handled by the rule above, and results are deterministic. Estimates are
clipped at 0 (a true mutual information is never negative; the estimator's variance
can make it so), as scikit-learn does.

The neighbour searches are k-d tree queries (:class:`scipy.spatial.cKDTree`, compiled,
``O(N log N)`` per term), the counts of the low-dimensional terms the selectors need
(one to three columns) are compiled numba sweeps when numba is installed
(:mod:`fsel.kernels._numba_knn`), with the same numbers.

References
----------
A. Kraskov, H. Stoegbauer and P. Grassberger. Estimating mutual information. Phys. Rev.
E 69, 066138, 2004.
S. Frenzel and B. Pompe. Partial mutual information for coupling analysis of
multivariate time series. Phys. Rev. Lett. 99, 204101, 2007.
B. C. Ross. Mutual information between discrete and continuous data sets. PLoS ONE
9(2): e87357, 2014.
W. Gao, S. Kannan, S. Oh and P. Viswanath. Estimating mutual information for
discrete-continuous mixtures. NeurIPS 2017.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = [
    "digamma_table",
    "knn_conditional_mutual_information",
    "knn_mutual_information",
    "ksg_formula",
    "ksg_nats",
    "scale_columns",
]

LN2 = float(np.log(2.0))


def digamma_table(n: int) -> np.ndarray:
    r"""``psi(m)`` for ``m = 0..n`` (``psi(0)`` is set to ``-inf``): the digamma
    function on the positive integers, :math:`\psi(m) = -\gamma + \sum_{t=1}^{m-1} 1/t`."""
    out = np.empty(n + 1, dtype=np.float64)
    out[0] = -np.inf
    if n >= 1:
        out[1] = -np.euler_gamma
        if n >= 2:
            out[2:] = -np.euler_gamma + np.cumsum(1.0 / np.arange(1, n, dtype=np.float64))
    return out


def ksg_formula(
    k_i: np.ndarray, n_z: np.ndarray, n_xz: np.ndarray, n_yz: np.ndarray, psi: np.ndarray
) -> float:
    r"""The KSG / Frenzel-Pompe / Gao estimate in nats from the per-point counts:

    .. math::

        \hat I = \frac1N\sum_i \psi(k_i) + \psi(n_{z,i}+1) - \psi(n_{xz,i}+1)
                 - \psi(n_{yz,i}+1),

    clipped at 0. ``psi`` is :func:`digamma_table` of at least ``max(counts) + 1``.
    Without conditioning ``n_z`` is ``N - 1`` for every point (the plain KSG MI)."""
    if k_i.size == 0:
        return 0.0
    val = psi[k_i].mean() + psi[n_z + 1].mean() - psi[n_xz + 1].mean() - psi[n_yz + 1].mean()
    return max(0.0, float(val))


def scale_columns(values: np.ndarray, scale: np.ndarray | None = None) -> np.ndarray:
    """Continuous columns divided by their standard deviation (``ddof=0``, over the
    observed values; a constant column is left as it is). ``scale`` (bool per column,
    default all) says which columns are scaled. Returns a new float64 array."""
    v = np.array(values, dtype=np.float64, copy=True)
    if v.ndim == 1:
        v = v[:, None]
    cols = np.arange(v.shape[1]) if scale is None else np.flatnonzero(scale)
    for c in cols:
        col = v[:, c]
        obs = col[~np.isnan(col)]
        # the standard deviation of col / max|col| (finite even for values near the
        # float range), then the column divided by max|col| * that
        top = float(np.abs(obs).max()) if obs.size else 0.0
        sd = float((obs / top).std()) if top > 0 else 0.0
        if sd > 0:
            col /= top
            col /= sd
    return v


# --------------------------------------------------------------------------- searches


def _use_numba() -> bool:
    from fsel.utils.parallel import numba_available

    return numba_available()


def _knn_radius(points: np.ndarray, k: int, n_jobs: int) -> np.ndarray:
    """Max-norm distance of every point to its ``k``-th nearest other point."""
    if _use_numba():
        from fsel.kernels import _numba_knn

        return _numba_knn.knn_radius(np.ascontiguousarray(points), int(k), _numba_knn.LEAF)
    from scipy.spatial import cKDTree

    tree = cKDTree(points, leafsize=16, balanced_tree=False, compact_nodes=False)
    d, _ = tree.query(points, k=[k + 1], p=np.inf, workers=n_jobs)
    return d[:, 0]


def _count_within(points: np.ndarray, radius: np.ndarray, n_jobs: int) -> np.ndarray:
    """Number of *other* points within max-norm distance ``radius[i]`` (``<=``) of each
    point (callers pass ``nextafter(rho, 0)`` for a strict count)."""
    if _use_numba():
        from fsel.kernels import _numba_knn

        pts = np.ascontiguousarray(points)
        return _numba_knn.count_within_all(pts, np.ascontiguousarray(radius), _numba_knn.LEAF)
    if points.shape[1] == 1:
        return _count_within_1d(points[:, 0], radius)
    from scipy.spatial import cKDTree

    tree = cKDTree(points, leafsize=16, balanced_tree=False, compact_nodes=False)
    n = tree.query_ball_point(points, radius, p=np.inf, return_length=True, workers=n_jobs)
    return np.asarray(n, dtype=np.int64) - 1


def _count_within_1d(x: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """:func:`_count_within` on one column: two binary searches in the sorted values."""
    s = np.sort(x)
    n = s.size
    # searchsorted on x +- r is a first guess: x + r rounds, the distance is s - x;
    # the bounds are then moved until the distance test itself holds at them
    hi = np.searchsorted(s, x + radius, side="right")
    lo = np.searchsorted(s, x - radius, side="left")
    while True:
        up = (hi < n) & (s[np.minimum(hi, n - 1)] - x <= radius)
        down = (hi > 0) & (s[np.maximum(hi - 1, 0)] - x > radius)
        if not (up.any() or down.any()):
            break
        hi = hi + up - down
    while True:
        up = (lo < n) & (x - s[np.minimum(lo, n - 1)] > radius)
        down = (lo > 0) & (x - s[np.maximum(lo - 1, 0)] <= radius)
        if not (up.any() or down.any()):
            break
        lo = lo + up - down
    return (hi - lo - 1).astype(np.int64)


def _space(columns: list[np.ndarray], rows: np.ndarray | None) -> np.ndarray | None:
    """The continuous columns of a subspace (rows ``rows``), or None when it has none."""
    cols = [c if rows is None else c[rows] for c in columns]
    cols = [c[:, None] if c.ndim == 1 else c for c in cols]
    cols = [c for c in cols if c.shape[1]]
    if not cols:
        return None
    return np.ascontiguousarray(np.hstack(cols), dtype=np.float64)


def _grouped(
    fn: Any, points: np.ndarray | None, group: np.ndarray | None, arg: Any, n_jobs: int
) -> np.ndarray:
    """Apply a per-point search within each group (the whole set when ``group`` is None).

    ``arg`` is the per-point radius array (indexed by group) or the int ``k``."""
    n = group.size if group is not None else points.shape[0]
    if group is None:
        return fn(points, arg, n_jobs)
    out = np.empty(n, dtype=np.float64 if fn is _knn_radius else np.int64)
    order = np.argsort(group, kind="stable")
    bounds = np.flatnonzero(np.diff(group[order])) + 1
    for rows in np.split(order, bounds):
        if points is None:  # no continuous column: every member is at distance 0
            out[rows] = 0.0 if fn is _knn_radius else rows.size - 1
            continue
        a = arg if isinstance(arg, int) else arg[rows]
        if isinstance(arg, int):
            a = min(arg, rows.size - 1)
        out[rows] = fn(points[rows], a, n_jobs)
    return out


def ksg_nats(
    x: list[np.ndarray],
    y: list[np.ndarray],
    z: list[np.ndarray],
    group: np.ndarray | None,
    group_in: str,
    k: int,
    n_jobs: int = 1,
) -> float:
    """``I(X;Y|Z)`` in nats (clipped at 0) of already scaled, complete columns.

    ``x``, ``y``, ``z`` are lists of 1-D or 2-D float arrays (the continuous columns of
    each variable, possibly none); ``group`` (1-D int codes) is a discrete variable that
    belongs to ``group_in`` (``"x"``, ``"y"`` or ``"z"``), or None. See the module
    docstring for the estimator; :func:`ksg_formula` holds its formula.
    """
    n = (x + y + z)[0].shape[0] if (x + y + z) else group.size
    rows = None
    k_eff: np.ndarray | int = k
    if group is not None:
        group = np.asarray(group, dtype=np.int64)
        _, inv, counts = np.unique(group, return_inverse=True, return_counts=True)
        size = counts[inv.reshape(-1)]
        if (size < 2).any():  # a class of one has no neighbour: its points are left out
            rows = np.flatnonzero(size >= 2)
            group, size = group[rows], size[rows]
        n = group.size
        k_eff = np.minimum(k, size - 1)
    if n < 2 or (group is None and n <= k):
        return 0.0
    joint = _space(x + y + z, rows)
    g = {s: (group if group_in == s else None) for s in "xyz"}

    def sub(names: str) -> tuple[np.ndarray | None, np.ndarray | None]:
        cols = [c for s in names for c in {"x": x, "y": y, "z": z}[s]]
        grp = group if any(g[s] is not None for s in names) else None
        return _space(cols, rows), grp

    if joint is None:  # only the discrete variable: nothing to estimate against
        return 0.0
    rho = _grouped(_knn_radius, joint, group, k, n_jobs)
    zero = rho == 0
    radius = np.where(zero, 0.0, np.nextafter(rho, 0))
    k_i = np.broadcast_to(np.asarray(k_eff, dtype=np.int64), (n,)).copy()
    if zero.any():  # Gao et al.: k_i = the other points at distance 0
        k_i[zero] = _grouped(_count_within, joint, group, radius, n_jobs)[zero]
    counts = {}
    for names in ("xz", "yz", "z"):
        pts, grp = sub(names)
        if pts is None and grp is None:
            counts[names] = np.full(n, n - 1, dtype=np.int64)
        else:
            counts[names] = _grouped(_count_within, pts, grp, radius, n_jobs)
    psi = digamma_table(n + 1)
    return ksg_formula(k_i, counts["z"], counts["xz"], counts["yz"], psi)


def _as_variable(v: Any, name: str) -> tuple[np.ndarray | None, np.ndarray | None]:
    """A user variable: a 1-D integer/bool/object array is discrete (labels), else
    float columns. Returns (columns, codes)."""
    a = np.asarray(v)
    if a.ndim == 1 and a.dtype.kind in "iubOUS":
        _, codes = np.unique(a, return_inverse=True)
        return None, codes.reshape(-1).astype(np.int64)
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} holds NaN or inf; drop or fill those rows first")
    return scale_columns(a), None


def knn_conditional_mutual_information(
    x: Any, y: Any, z: Any = None, *, n_neighbors: int = 3, base: float = 2.0
) -> float:
    """``I(X;Y|Z)`` by the nearest-neighbour estimator (module docstring), in bits by
    default (``base``).

    Parameters
    ----------
    x, y, z : array-like of shape (n_samples,) or (n_samples, d)
        Float arrays are continuous columns (each scaled to unit standard deviation);
        a 1-D integer, boolean or string array is a discrete variable (at most one of
        the three). ``z=None``: the unconditional mutual information.
    n_neighbors : int, default=3
        ``k``, as scikit-learn's default.
    base : float, default=2
        Logarithm base of the result.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel.kernels.knn_mi import knn_conditional_mutual_information
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=2000)
    >>> x = z + 0.5 * rng.normal(size=2000)
    >>> y = z + 0.5 * rng.normal(size=2000)
    >>> knn_conditional_mutual_information(x, y) > 0.5  # dependent through z
    True
    >>> knn_conditional_mutual_information(x, y, z) < 0.05  # independent given z
    True
    """
    if not isinstance(n_neighbors, (int, np.integer)) or isinstance(n_neighbors, bool):
        raise TypeError(f"n_neighbors must be an int, got {type(n_neighbors).__name__}")
    if n_neighbors < 1:
        raise ValueError(f"n_neighbors must be >= 1, got {n_neighbors}")
    parts = {"x": x, "y": y} | ({} if z is None else {"z": z})
    cont: dict[str, list[np.ndarray]] = {"x": [], "y": [], "z": []}
    group, group_in = None, "x"
    n = None
    for name, v in parts.items():
        cols, codes = _as_variable(v, name)
        m = codes.size if codes is not None else cols.shape[0]
        if n is not None and m != n:
            raise ValueError(f"x, y and z must have the same number of rows, got {n} and {m}")
        n = m
        if codes is not None:
            if group is not None:
                raise ValueError("at most one of x, y, z may be discrete")
            group, group_in = codes, name
        else:
            cont[name] = [cols]
    nats = ksg_nats(cont["x"], cont["y"], cont["z"], group, group_in, int(n_neighbors))
    return nats / float(np.log(base))


def knn_mutual_information(x: Any, y: Any, *, n_neighbors: int = 3, base: float = 2.0) -> float:
    """``I(X;Y)`` by the nearest-neighbour estimator, in bits by default: see
    :func:`knn_conditional_mutual_information` (``z=None``).

    Examples
    --------
    >>> import numpy as np
    >>> from fsel.kernels.knn_mi import knn_mutual_information
    >>> rng = np.random.default_rng(0)
    >>> xy = rng.multivariate_normal([0, 0], [[1, 0.9], [0.9, 1]], size=4000)
    >>> exact = -0.5 * np.log2(1 - 0.9**2)  # bits
    >>> bool(abs(knn_mutual_information(xy[:, 0], xy[:, 1]) - exact) < 0.05)
    True
    """
    return knn_conditional_mutual_information(x, y, None, n_neighbors=n_neighbors, base=base)


# --------------------------------------------------------------------------- the table

#: the target's place in a term: ``"T"`` in a list of feature indices
TARGET = -1


class KNNInformationTable:
    """The greedy engine's information table with the nearest-neighbour estimator.

    Every term the criteria read is one :func:`ksg_nats` call on the columns it names
    (bits): ``relevance`` ``I(Xk;Y)``; per newest pick ``j`` (only the fields a
    criterion asks for, :meth:`pair_term_blocks`) ``I(Xk;Xj)``, ``I(Xk;Xj|Y)``,
    ``I(XkXj;Y)`` and ``I(Xk;Y|Xj)``; for CMI ``I(Xk;Y|S)`` with ``S`` the selected
    columns together. ``H(Xk,Xj,Y)`` (DISR's normaliser) has no nearest-neighbour
    analogue here and is refused. Terms of a feature already passed as a pick are not
    computed (0: the engine never scores a selected feature).

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_features)
        Numeric values, NaN where missing. Columns flagged in ``scale`` are divided by
        their standard deviation (:func:`scale_columns`); the others (codes) are kept.
    y : ndarray of shape (n_samples,)
        Class codes (``y_discrete=True``, searched within class: Ross's estimator) or
        continuous values (scaled like a feature).
    y_discrete : bool
    n_neighbors : int
    scale : ndarray of bool or None
        Columns to scale (default all).
    n_jobs : int
        Threads for the neighbour searches.

    Notes
    -----
    Missing values: each term is estimated on the rows where all its columns are
    observed (pairwise deletion), with its own sample size, so the terms do not come
    from one joint distribution (the chain rule need not hold between them).
    """

    partial_terms = True

    def __init__(
        self,
        values: np.ndarray,
        y: np.ndarray,
        *,
        y_discrete: bool,
        n_neighbors: int = 3,
        scale: np.ndarray | None = None,
        n_jobs: int = 1,
    ) -> None:
        self.values = scale_columns(values, scale)
        self.observed = ~np.isnan(self.values)
        self._complete = self.observed.all(axis=0)
        self.y_discrete = bool(y_discrete)
        if self.y_discrete:
            self.y = np.asarray(y, dtype=np.int64)
        else:
            self.y = scale_columns(np.asarray(y, dtype=np.float64))[:, 0]
        self.k = int(n_neighbors)
        self.n_jobs = max(1, int(n_jobs))
        self.n_samples = self.values.shape[0]
        self._passed: set[int] = set()
        every = np.arange(self.n_features)
        self.relevance = self._map(lambda c: self.term([c], [TARGET]), every)

    @property
    def n_features(self) -> int:
        return self.values.shape[1]

    @property
    def constant_features(self) -> np.ndarray:
        """Mask of the features with one observed value (none observed counts too):
        the greedy engine takes them after every other feature."""
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-missing column
            lo, hi = np.nanmin(self.values, axis=0), np.nanmax(self.values, axis=0)
        return ~(hi > lo)

    def term(self, x: list[int], y: list[int], z: tuple[int, ...] | list[int] = ()) -> float:
        """``I(X;Y|Z)`` in bits for lists of column indices (``TARGET`` is the
        target), on the rows where every named column is observed."""
        cols = [c for c in (*x, *y, *z) if c != TARGET]
        rows = None
        if not self._complete[cols].all():
            rows = np.flatnonzero(self.observed[:, cols].all(axis=1))
        group, group_in = None, "x"
        parts: dict[str, list[np.ndarray]] = {}
        for name, idx in (("x", x), ("y", y), ("z", z)):
            parts[name] = []
            for c in idx:
                if c == TARGET and self.y_discrete:
                    group, group_in = self.y if rows is None else self.y[rows], name
                    continue
                col = self.y if c == TARGET else self.values[:, c]
                parts[name].append(col if rows is None else col[rows])
        nats = ksg_nats(parts["x"], parts["y"], parts["z"], group, group_in, self.k)
        return nats / LN2

    def _map(self, fn: Any, cand: np.ndarray) -> np.ndarray:
        """``[fn(c) for c in cand]`` in ``n_jobs`` threads (the searches release the
        GIL); each term is computed alone, so the values never depend on ``n_jobs``."""
        from fsel.utils.parallel import spans, thread_map

        out = np.zeros(self.n_features)
        if cand.size == 0:
            return out
        parts = spans(cand.size, 4 * self.n_jobs if self.n_jobs > 1 else 1)
        parts = thread_map(lambda a, b: [fn(int(c)) for c in cand[a:b]], parts, self.n_jobs)
        out[cand] = [v for part in parts for v in part]
        return out

    def _candidates(self, j: int) -> np.ndarray:
        self._passed.add(int(j))
        return np.array([c for c in range(self.n_features) if c not in self._passed], dtype=int)

    def pair_term_blocks(self, j: int, terms: Any) -> Any:
        """One block, all candidates: the :class:`PairTerms` fields ``terms`` names."""
        yield slice(None), self.pair_terms(j, terms)

    def pair_terms(self, j: int, terms: Any = None) -> Any:
        """The pair terms of every candidate against feature ``j`` (those ``terms``
        names, default all but ``joint_entropy``)."""
        from fsel.kernels.information import PairTerms

        terms = ("mi", "cmi_given_y", "joint_mi", "cmi_given_j") if terms is None else terms
        if "joint_entropy" in terms:
            raise ValueError(
                "H(Xk,Xj,Y) (DISR's normaliser) has no nearest-neighbour estimate; use "
                "a binned estimator with DISR"
            )
        spec = {
            "mi": lambda c: self.term([c], [j]),
            "cmi_given_y": lambda c: self.term([c], [j], [TARGET]),
            "joint_mi": lambda c: self.term([c, j], [TARGET]),
            "cmi_given_j": lambda c: self.term([c], [TARGET], [j]),
        }
        cand = self._candidates(j)
        out = {}
        for name in terms:
            out[name] = self._map(spec[name], cand)
        return PairTerms(**out)

    def pair_mi(self, j: int) -> np.ndarray:
        """``I(Xk;Xj)`` of every candidate (MIFS, mRMR)."""
        return self.pair_terms(j, ("mi",)).mi

    def lazy_cmim(self, k: int, tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Fleuret's lazy CMIM (:func:`fsel.kernels.lazy_cmim.lazy_cmim_search`): the
        same picks and step scores as the engine's vectorised CMIM, with far fewer
        terms. A refresh's terms (each candidate against each pick it has not seen)
        are spread over the threads."""
        from fsel.kernels.lazy_cmim import lazy_cmim_search
        from fsel.utils.parallel import spans, thread_map

        def refresh(top: np.ndarray, seen: np.ndarray, order: list[int], t: int) -> np.ndarray:
            pairs = [(i, order[s]) for i in range(top.size) for s in range(int(seen[i]), t)]
            out = np.full(top.size, np.inf)

            def terms(a: int, b: int) -> list[float]:
                return [self.term([int(top[i])], [TARGET], [j]) for i, j in pairs[a:b]]

            parts = spans(len(pairs), 4 * self.n_jobs if self.n_jobs > 1 else 1)
            values = [v for part in thread_map(terms, parts, self.n_jobs) for v in part]
            for (i, _), v in zip(pairs, values, strict=True):
                out[i] = min(out[i], v)
            return out

        return lazy_cmim_search(self.relevance, k, tol, refresh, last=self.constant_features)

    def joint_codes(self, s: tuple[int, ...] | None, j: int) -> tuple[int, ...]:
        """CMI's conditioning set: here the tuple of selected columns."""
        self._passed.add(int(j))
        return (int(j),) if s is None else (*s, int(j))

    def conditional_relevance(self, s: tuple[int, ...]) -> np.ndarray:
        """``I(Xk;Y|X_S)`` of every candidate (0 for the members of ``S``)."""
        cand = np.array([c for c in range(self.n_features) if c not in s], dtype=int)
        return self._map(lambda c: self.term([c], [TARGET], list(s)), cand)
