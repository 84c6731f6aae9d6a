"""Relief, ReliefF, M-Relief, SURF and MultiSURF: margins from nearest hits/misses.

All five share :class:`fsel.selectors.relief._base.BaseRelief`; they differ only in
which neighbours enter the margin ``m_n`` and with which coefficients.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from fsel.kernels.distances import (
    DEFAULT_MEMORY_BUDGET,
    ROW_RUN,
    fits_full,
    full_distance_matrix,
    map_distance_rows,
)
from fsel.kernels.neighbors import (
    absdiff_sparse,
    radius_margin_rows,
    radius_margin_rows_at,
    radius_margin_sum,
    relieff_coefficients,
    row_mean_std,
    tie_order,
    tie_radius,
    tie_tolerance,
)
from fsel.kernels.scaling import scale_dense
from fsel.selectors.relief._base import DEFAULT_SCALING, BaseRelief, positive_unit
from fsel.utils.dask_table import check_dask_table, is_dask
from fsel.utils.parallel import effective_n_jobs, take_rows
from fsel.utils.targets import is_continuous_target
from fsel.utils.validation import check_n_features_to_select, is_sparse

_SAMPLE_DOC = """    sample_size : int, float or None, default=None
        Reference samples whose margins are averaged: None uses every sample (the
        classical definition), an int is a count, a float in (0, 1] a fraction of the
        samples. The references are drawn without replacement with ``random_state``
        (``check_random_state(random_state).choice(N, m, replace=False)``, sorted);
        their neighbours are searched among *all* samples, so the cost is
        ``O(m N D)`` for ``m`` references instead of ``O(N^2 D)``.
    random_state : int, RandomState instance or None, default=None
        Seed of the reference draw (used only with ``sample_size``).
    device : {"cpu", "cuda", "auto"}, default="cpu"
        Where the neighbour search runs: ``"cuda"`` on a GPU through numba's CUDA
        target (``pip install 'fsel[cuda]'``; the CPU's neighbours and weights, a
        ``RuntimeError`` naming what is missing when there is no usable GPU),
        ``"auto"`` on the GPU when one is usable, else the CPU (``device_`` says
        which; ``timings_`` holds the GPU's transfer and search seconds). Relief,
        M-Relief and ReliefF run there on dense data without missing values (at most
        64 neighbours per reference, ``n_classes * n_neighbors``), as do SURF and
        MultiSURF (their radii and margins summed on the GPU in a fixed order: the
        CPU's weights to rounding).
"""

#: Bytes per neighbour slot of ReliefF's neighbour lists in flight (index, distance,
#: coefficient and its repetition, with room for the kernels' copies).
_LIST_BYTES = 48

__all__ = ["SURF", "MRelief", "MultiSURF", "Relief", "ReliefF"]


def _nearest_hit_miss(
    idx: np.ndarray, dist: np.ndarray, y: np.ndarray, metric: str, n_features: int
):
    """Nearest hit and nearest miss of any other class, from each class's nearest
    (:func:`~fsel.kernels.neighbors.knn_by_class`), by the neighbour search's tie rule
    (:func:`~fsel.kernels.neighbors.tie_order`: distances, squared for the Euclidean
    metric, within the tie tolerance are equal; the smaller index wins)."""
    n = y.size
    rows = np.arange(n)
    hit = idx[rows, y, 0]
    d1 = dist[:, :, 0].copy()
    if metric == "euclidean":  # ranked on squares, as in the search
        np.multiply(d1, d1, out=d1)
    d1[rows, y] = np.inf
    first = tie_order(d1, idx[:, :, 0], tie_tolerance(n_features))[:, 0]
    miss = idx[rows, first, 0]
    miss[~np.isfinite(d1[rows, first])] = -1
    return hit, miss


class _Sampled(BaseRelief):
    """A Relief estimator with reference samples (``sample_size``, ``random_state``)."""

    _param_kinds: ClassVar[dict[str, Any]] = {
        **BaseRelief._param_kinds,
        "random_state": "random_state",
    }

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        metric: str = "manhattan",
        n_jobs: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        missing: str = "expected",
        categorical: Any = "auto",
        scaling: str = DEFAULT_SCALING,
        sample_size: int | float | None = None,
        random_state: Any = None,
        device: str = "cpu",
    ) -> None:
        super().__init__(
            n_features_to_select,
            metric=metric,
            n_jobs=n_jobs,
            memory_budget=memory_budget,
            missing=missing,
            categorical=categorical,
            scaling=scaling,
        )
        self.sample_size = sample_size
        self.random_state = random_state
        self.device = device

    def _spans(self, n_ref: int, slots: int) -> list[tuple[int, int]]:
        """Chunks of reference rows whose neighbour lists (``slots`` per row) fit half
        the budget."""
        per = _LIST_BYTES * max(slots, 1)
        step = max(1, (int(self.memory_budget) // 2) // per)
        return [(a, min(a + step, n_ref)) for a in range(0, n_ref, step)]


class _OneNeighbour(_Sampled):
    """Relief-type margin with one nearest hit and one nearest miss (any class)."""

    def _coefficients(self, y: np.ndarray, priors: np.ndarray):  # pragma: no cover
        raise NotImplementedError

    def _mean_margin(self, Z, y, priors, nominal=None):
        C = priors.size
        n = y.size
        budget = int(self.memory_budget)
        rows = self._ref_rows
        ed = self._expected_model(Z, y, C)
        n_ref = n if rows is None else rows.size
        sparse = is_sparse(Z)
        # sparse (often wide): the per-row margins are not kept, only chunk sums
        spans = self._spans(n_ref, C + (Z.shape[1] // 6 if sparse else 0))
        if rows is None and ed is None and len(spans) == 1 and not sparse:
            idx, dist = self._knn(Z, y, 1, C)
            hit, miss = _nearest_hit_miss(idx, dist, y, self.metric, Z.shape[1])
            c_hit, c_miss = self._coefficients(y, priors)
            nb = np.stack([hit, miss], axis=1)
            coef = np.stack([c_hit, c_miss], axis=1)
            self.nearest_hits_ = hit
            self.nearest_misses_ = miss
            return absdiff_sparse(Z, nb, coef, memory_budget=budget).sum(axis=0) / y.size
        ref = np.arange(n) if rows is None else rows
        self.nearest_hits_ = np.full(n, -1, dtype=np.intp)
        self.nearest_misses_ = np.full(n, -1, dtype=np.intp)
        # per-row margins summed once in row order: independent of the chunking
        out = np.empty((1 if sparse else n_ref, Z.shape[1]))
        total = np.zeros(Z.shape[1])
        for a, b in spans:
            r = ref[a:b]
            rk = None if rows is None and len(spans) == 1 else r
            idx, dist = self._knn(Z, y, 1, C, rows=rk, expected=ed, memory_budget=budget // 2)
            hit, miss = _nearest_hit_miss(idx, dist, y[r], self.metric, Z.shape[1])
            self.nearest_hits_[r] = hit
            self.nearest_misses_[r] = miss
            c_hit, c_miss = self._coefficients(y[r], priors)
            nb = np.stack([hit, miss], axis=1)
            coef = np.stack([c_hit, c_miss], axis=1)
            m = absdiff_sparse(Z, nb, coef, rows=r, memory_budget=budget // 2, expected=ed)
            if sparse:
                total += m.sum(axis=0)
            else:
                out[a:b] = m
        return (total if sparse else out.sum(axis=0)) / n_ref


class Relief(_OneNeighbour):
    """The logic of :class:`fsel.selectors.relief.Relief` (documented there)."""

    def _coefficients(self, y, priors):
        return -np.ones(y.size), np.ones(y.size)


class MRelief(_OneNeighbour):
    """The logic of :class:`fsel.selectors.relief.MRelief` (documented there)."""

    def _coefficients(self, y, priors):
        p = priors[y]
        return -(1.0 - p), p


class ReliefF(_Sampled):
    _supports_regression = True

    """The logic of :class:`fsel.selectors.relief.ReliefF` (documented there)."""

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        n_neighbors: int = 10,
        metric: str = "manhattan",
        n_jobs: int | None = None,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        missing: str = "expected",
        categorical: Any = "auto",
        scaling: str = DEFAULT_SCALING,
        sample_size: int | float | None = None,
        random_state: Any = None,
        device: str = "cpu",
    ) -> None:
        super().__init__(
            n_features_to_select,
            metric=metric,
            n_jobs=n_jobs,
            memory_budget=memory_budget,
            missing=missing,
            categorical=categorical,
            scaling=scaling,
            sample_size=sample_size,
            random_state=random_state,
            device=device,
        )
        self.n_neighbors = n_neighbors

    _param_kinds: ClassVar[dict[str, Any]] = {
        **_Sampled._param_kinds,
        "n_neighbors": "positive_int",
    }

    def _mean_margin(self, Z, y, priors, nominal=None):
        n, C = y.size, priors.size
        # k nearest hits and misses, all of them where a class has fewer: no class
        # offers more than n - 1 neighbours, so a larger k is clipped here, before
        # anything is sized by it (the margins are those of k = n - 1)
        k = max(1, min(int(self.n_neighbors), n - 1))
        # the mean margin is a sum over samples: group them by class for the neighbour
        # kernel (a stable order keeps the index tie-break within every class)
        if getattr(self, "_y_target", None) is not None:
            return self._rrelieff(Z, k)
        if getattr(Z, "on_gpu", False):
            return self._mean_margin_gpu(Z, y, priors, k)
        order = np.argsort(y, kind="stable")
        Z, y = take_rows(Z, order, effective_n_jobs(self.n_jobs)), y[order]
        budget = int(self.memory_budget)
        rows = self._ref_rows
        if rows is not None:
            rows = np.sort(np.argsort(order, kind="stable")[rows])
        ed = self._expected_model(Z, y, C)
        n_ref = n if rows is None else rows.size
        # a class never offers more than its size: with many small classes (one
        # sample each) the lists hold one slot per class, not k
        k_eff = max(1, min(k, int(np.bincount(y, minlength=C).max())))
        sparse = is_sparse(Z)
        # sparse (often wide): the per-row margins are not kept, only chunk sums
        spans = self._spans(n_ref, C * k_eff + (Z.shape[1] // 6 if sparse else 0))
        if rows is None and ed is None and len(spans) == 1 and not sparse:
            idx = self._knn(Z, y, k_eff, C)[0]
            margins = self._margins(Z, y, priors, idx, None, None, budget)
            return margins.sum(axis=0) / n
        if rows is None and len(spans) == 1 and not sparse:
            # holes, all rows at once: the budget less the expected-difference tables
            # for the distances (the full pair-symmetric matrix when that fits)
            knn_budget = max(budget // 2, budget - ed.table_bytes)
            idx = self._knn(Z, y, k_eff, C, expected=ed, memory_budget=knn_budget)[0]
            return self._margins(Z, y, priors, idx, np.arange(n), ed, budget).sum(axis=0) / n
        ref = np.arange(n) if rows is None else rows
        # per-row margins summed once in row order: independent of the chunking
        out = np.empty((1 if sparse else n_ref, Z.shape[1]))
        total = np.zeros(Z.shape[1])
        for a, b in spans:
            r = ref[a:b]
            rk = None if rows is None and len(spans) == 1 else r
            idx = self._knn(Z, y, k_eff, C, rows=rk, expected=ed, memory_budget=budget // 2)[0]
            m = self._margins(Z, y, priors, idx, r, ed, budget // 2)
            if sparse:
                total += m.sum(axis=0)
            else:
                out[a:b] = m
        return (total if sparse else out.sum(axis=0)) / n_ref

    _gpu_scaling = True

    def _mean_margin_gpu(self, Z, y, priors, k):
        """:meth:`_mean_margin` on samples scaled and sorted on the GPU
        (:class:`fsel.kernels.gpu.relief.GpuScaledSamples`): the neighbours found there,
        the margins computed on the host by :meth:`_margins` from the rows they read."""
        from fsel.kernels.gpu.relief import class_order_positions, relieff_neighbours_gpu

        C = priors.size
        counts = np.bincount(y, minlength=C)
        ys = np.repeat(np.arange(C, dtype=y.dtype), counts)  # y[Z.order]
        rows = self._ref_rows
        if rows is not None:  # the references' positions in the class order
            rows = np.sort(class_order_positions(Z.order, y, counts, rows))
        k_eff = max(1, min(k, int(counts.max())))
        Zc, yc, rc, idx = relieff_neighbours_gpu(Z, ys, k_eff, C, metric=self.metric, rows=rows)
        m = self._margins(Zc, yc, priors, idx, rc, None, int(self.memory_budget))
        return m.sum(axis=0) / rc.size

    def _fit_dask(self, X: Any, y: Any, params: dict[str, Any]) -> ReliefF:
        """ReliefF on a row-chunked Dask table (the same margins as in memory).

        The references are drawn exactly as in memory (:meth:`_reference_rows` once the
        number of rows is known), the exact ``k`` nearest hits/misses are found chunk by
        chunk on the workers and merged
        (:func:`fsel.kernels.relief_dask.relieff_margin_dask`)."""
        from fsel.kernels.relief_dask import relieff_margin_dask

        name = type(self).__name__
        if self.sample_size is None:
            raise TypeError(
                f"{name}: X is a Dask collection, and {name} without sample_size runs in "
                "memory (every sample a reference, O(N^2)); set sample_size (e.g. 1000) to "
                "run it on Dask, or call X.compute() first if it fits"
            )
        if self.missing not in ("expected", "error"):
            raise ValueError(
                f"{name}: missing={self.missing!r} is not supported on Dask input; impute "
                "the holes first (missing values are refused on Dask)"
            )
        data = check_dask_table(X, y, categorical=params["categorical"], estimator_name=name)
        d = data.discrete.size
        if data.categorical.any():
            raise ValueError(
                f"{name}: categorical features are not supported on Dask input; encode "
                "them as numbers or fit in memory"
            )
        k = check_n_features_to_select(self.n_features_to_select, d)
        if not is_dask(y) and is_continuous_target(y):
            raise ValueError(
                f"{name}: y is continuous (a regression target); RReliefF does not run on "
                "Dask: pass class labels, or compute X and fit in memory"
            )

        def draw(n: int) -> np.ndarray | None:
            if n < 2:
                raise ValueError(f"{name}: found {n} sample(s), at least 2 are needed")
            return self._reference_rows(n)

        out = relieff_margin_dask(
            data.blocks,
            data.y_blocks,
            draw,
            int(self.n_neighbors),
            metric=self.metric,
            memory_budget=int(self.memory_budget),
            estimator_name=name,
            scaling=self.scaling,
        )
        self._target_kind = "classification"
        self.n_features_in_ = d
        self.feature_types_ = ["integer" if k else "numeric" for k in data.discrete.tolist()]
        if data.feature_names is not None and all(isinstance(c, str) for c in data.feature_names):
            self.feature_names_in_ = data.feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.classes_ = out["classes"]
        self.margin_ = out["margin"]
        w = positive_unit(self.margin_)
        self.feature_importances_ = w
        self._select_by_weight(w, k)
        return self

    def _target_scale(self, t: np.ndarray) -> tuple[np.ndarray, float]:
        """The target as RReliefF compares it and the divisor of its differences: by
        the ``scaling`` rule of the features (:mod:`fsel.kernels.scaling`), so that
        ``|t_a - t_b|`` lies in ``[0, 1]`` with the same robustness. ``"range"``: the
        target itself and its range (the paper's rule, its numbers); the other rules:
        the scaled target and 1 (a constant target: 0 and 1, every difference 0)."""
        if self.scaling == "range":
            return t, float(np.ptp(t))
        z, _ = scale_dense(t[:, None], self.scaling)
        return np.ascontiguousarray(z[:, 0]), 1.0

    def _rrelieff(self, Z, k):
        """RReliefF's weights for a continuous target (see the class docstring)."""
        t = self._y_target
        n, d = Z.shape[0], Z.shape[1]
        budget = int(self.memory_budget)
        y0 = np.zeros(n, dtype=np.intp)
        rows = self._ref_rows
        ref = np.arange(n) if rows is None else rows
        ed = self._expected_model(Z, y0, 1)
        k_eff = max(1, min(k, n - 1))
        sig = k_eff / 3.0
        spans = self._spans(ref.size, 2 * k_eff + (d // 6 if is_sparse(Z) else 0))
        tz, span_t = self._target_scale(t)
        n_dc = 0.0
        n_da = np.zeros(d)
        n_dcda = np.zeros(d)
        for a, b in spans:
            r = ref[a:b]
            rk = None if rows is None and len(spans) == 1 else r
            idx = self._knn(Z, y0, k_eff, 1, rows=rk, expected=ed, memory_budget=budget // 2)[0]
            idx = idx[:, 0, :]  # (rows, k): nearest first, -1 past the end
            found = idx >= 0
            rank = np.arange(1, k_eff + 1, dtype=np.float64)
            infl = np.where(found, np.exp(-((rank / sig) ** 2))[None, :], 0.0)
            infl /= infl.sum(axis=1, keepdims=True)
            dt = np.where(found, np.abs(tz[r][:, None] - tz[np.maximum(idx, 0)]) / span_t, 0.0)
            n_dc += float(np.sum(dt * infl))
            rr = None if rk is None else r
            n_da += absdiff_sparse(
                Z, idx, infl, rows=rr, memory_budget=budget // 2, expected=ed
            ).sum(axis=0)
            n_dcda += absdiff_sparse(
                Z, idx, dt * infl, rows=rr, memory_budget=budget // 2, expected=ed
            ).sum(axis=0)
        m = float(ref.size)
        with np.errstate(divide="ignore", invalid="ignore"):
            first = n_dcda / n_dc if n_dc > 0 else np.zeros(d)
            second = (n_da - n_dcda) / (m - n_dc) if m - n_dc > 0 else np.zeros(d)
        return first - second

    @staticmethod
    def _margins(Z, y, priors, idx, rows, ed, budget):
        """Per-row margins of the rows ``rows`` (None: all) from their neighbour lists."""
        m, C, k = idx.shape
        yr = y if rows is None else y[rows]
        cls_coef = relieff_coefficients((idx >= 0).sum(axis=2), yr, priors)
        coef = np.repeat(cls_coef, k, axis=1)  # (m, C*k) matching idx.reshape(m, C*k)
        return absdiff_sparse(
            Z, idx.reshape(m, C * k), coef, rows=rows, memory_budget=budget, expected=ed
        )


class _RadiusRelief(_Sampled):
    """SURF-type margin: every neighbour closer than a threshold."""

    def _thresholds(self, a: int, b: int, D: np.ndarray, n: int) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _prepare(self, Z, D_full):  # hook for SURF's global threshold
        return None

    def _thresholds_at(
        self, selfs: np.ndarray, D: np.ndarray, n: int
    ) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _mean_margin(self, Z, y, priors, nominal=None):
        n = y.size
        budget = int(self.memory_budget)
        rows = self._ref_rows
        if getattr(self, "device_", "cpu") == "cuda":
            return self._mean_margin_gpu(Z, y, priors, rows)
        if rows is not None or is_sparse(Z) or np.isnan(Z).any():
            return self._mean_margin_at(Z, y, priors, rows)
        if fits_full(n, budget):
            # the mean margin is a sum over samples: group them by class (the compiled
            # pair kernel then sets weights run by run) and visit every pair once
            order = np.argsort(y, kind="stable")
            Z, y = Z[order], y[order]
            D_full = full_distance_matrix(Z, metric=self.metric, n_jobs=self.n_jobs)
            self._prepare(Z, D_full)
            T = tie_radius(self._thresholds(0, n, D_full, n), Z.shape[1])
            margin = radius_margin_sum(
                Z, D_full, T, y, priors, n_jobs=self.n_jobs, memory_budget=budget - 8 * n * n
            )
            return margin / n
        self._prepare(Z, None)

        def fn(a: int, b: int, D: np.ndarray) -> np.ndarray:
            T = tie_radius(self._thresholds(a, b, D, n), Z.shape[1])
            return radius_margin_rows(Z, a, D, T, y, priors)

        parts = map_distance_rows(
            Z, fn, metric=self.metric, memory_budget=budget, n_jobs=self.n_jobs
        )
        # per-row margins, summed in row order: independent of the block partition
        return np.concatenate(parts).sum(axis=0) / n

    #: X checked and scaled on the GPU (kept in its order: no sort by class)
    _gpu_scaling = True
    _gpu_sort = False

    def _mean_margin_gpu(self, Z, y, priors, rows):
        """The mean margin on the GPU (:func:`fsel.kernels.gpu.relief.radius_margin_gpu`):
        dense data without holes only; ``Z`` scaled there
        (:class:`fsel.kernels.gpu.relief.GpuScaledSamples`, unsorted) or on the host."""
        from fsel.kernels.gpu.relief import GpuSamples, radius_margin_gpu

        if getattr(Z, "on_gpu", False):
            gpu = Z
        elif is_sparse(Z) or np.isnan(Z).any():
            raise ValueError(
                f"{type(self).__name__}: device='cuda' needs dense X without missing values; "
                "use device='cpu' (or impute: missing='impute-mean')"
            )
        else:
            gpu = GpuSamples(Z)
        rule = "surf" if isinstance(self, SURF) else "multisurf"
        margin, threshold = radius_margin_gpu(gpu, y, priors, rule, metric=self.metric, rows=rows)
        if threshold is not None:
            self.threshold_ = threshold
        self._gpu_samples = gpu  # its timings become timings_
        return margin / (y.size if rows is None else rows.size)

    def _mean_margin_at(self, Z, y, priors, rows):
        """Reference rows and/or missing values: row blocks of the references against
        all samples, margins with the expected differences."""
        n = y.size
        C = priors.size
        budget = int(self.memory_budget)
        order = np.argsort(y, kind="stable")
        Z, y = Z[order], y[order]
        if rows is not None:
            rows = np.sort(np.argsort(order, kind="stable")[rows])
        ref = np.arange(n) if rows is None else rows
        ed = self._expected_model(Z, y, C, always=True)
        self._prepare_at(Z, ref, ed)

        def fn(a: int, b: int, D: np.ndarray) -> np.ndarray:
            selfs = ref[a:b]
            T = tie_radius(self._thresholds_at(selfs, D, n), Z.shape[1])
            m = radius_margin_rows_at(ed, selfs, D, T, y, priors, memory_budget=budget, X=Z)
            # sums of runs of ROW_RUN rows, which no block splits: the total below
            # does not depend on where the blocks fall (n_jobs)
            return np.add.reduceat(m, np.arange(0, b - a, ROW_RUN), axis=0)

        parts = map_distance_rows(
            Z,
            fn,
            metric=self.metric,
            memory_budget=budget,
            n_jobs=self.n_jobs,
            expected=ed,
            rows=rows,
            align=ROW_RUN,
        )
        return np.concatenate(parts).sum(axis=0) / ref.size

    def _prepare_at(self, Z, ref, ed):  # hook for SURF's global threshold
        return None


class SURF(_RadiusRelief):
    """The logic of :class:`fsel.selectors.relief.SURF` (documented there)."""

    def _prepare(self, Z, D_full):
        n = Z.shape[0]
        parts = map_distance_rows(
            Z,
            lambda a, b, D: D.sum(axis=1),
            metric=self.metric,
            memory_budget=int(self.memory_budget),
            n_jobs=self.n_jobs,
            D_full=D_full,
        )
        self.threshold_ = float(np.concatenate(parts).sum() / (n * (n - 1)))

    def _thresholds(self, a, b, D, n):
        return np.full(b - a, self.threshold_)

    def _prepare_at(self, Z, ref, ed):
        n = Z.shape[0]
        parts = map_distance_rows(
            Z,
            lambda a, b, D: D.sum(axis=1),
            metric=self.metric,
            memory_budget=int(self.memory_budget),
            n_jobs=self.n_jobs,
            expected=ed,
            rows=None if ref.size == n else ref,
        )
        self.threshold_ = float(np.concatenate(parts).sum() / (ref.size * (n - 1)))

    def _thresholds_at(self, selfs, D, n):
        return np.full(selfs.size, self.threshold_)


class MultiSURF(_RadiusRelief):
    """The logic of :class:`fsel.selectors.relief.MultiSURF` (documented there)."""

    def _thresholds(self, a, b, D, n):
        mean, std = row_mean_std(D, a)
        return mean - 0.5 * std

    def _thresholds_at(self, selfs, D, n):
        rows = D.shape[0]
        mean = D.sum(axis=1) / (n - 1)  # the row's own entry is 0
        var = np.empty(rows)
        step = max(1, -(-rows // 8))  # one temporary of an eighth of the block
        for a in range(0, rows, step):
            b = min(a + step, rows)
            tmp = D[a:b] - mean[a:b, None]
            tmp[np.arange(b - a), selfs[a:b]] = 0.0
            var[a:b] = np.einsum("ij,ij->i", tmp, tmp) / (n - 1)
        return mean - 0.5 * np.sqrt(var)
