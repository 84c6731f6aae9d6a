"""Missing values in the Relief family (SPEC section 10): Kononenko's expected
difference against brute-force references written here with plain loops, exact
agreement with the old results on complete data, recovery with 20% MCAR holes."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from fsel.selectors.relief import SURF, IRelief, MRelief, MultiSURF, PRelief, Relief, ReliefF

# the papers' formulas on min-max scaled features: scaling="range" (conftest)
# these tests check weights on small or noisy tables, where fewer weights than the
# count to select are often positive: the warning about that is tested in
# test_relief_ties.py
pytestmark = [
    pytest.mark.usefixtures("papers_relief_scaling"),
    pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning"),
]

ALL = (Relief, ReliefF, MRelief, SURF, MultiSURF, PRelief, IRelief)

# --------------------------------------------------------------------------------------
# brute force: Kononenko's diff with unknown values, plain loops


def _scale_observed(X):
    X = np.asarray(X, dtype=float)
    out = np.full_like(X, np.nan)
    for d in range(X.shape[1]):
        col = [v for v in X[:, d] if not math.isnan(v)]
        lo, hi = min(col), max(col)
        for n in range(X.shape[0]):
            v = X[n, d]
            if math.isnan(v):
                continue
            out[n, d] = (v - lo) / (hi - lo) if hi > lo else 0.0
    return out


class _Brute:
    """diff(k, i, j) with Kononenko's rule, from the observed values per class."""

    def __init__(self, Z, y, nominal=()):
        self.Z, self.y = Z, y
        self.nominal = set(nominal)
        N, D = Z.shape
        self.vals = {}
        for k in range(D):
            pooled = [Z[n, k] for n in range(N) if not math.isnan(Z[n, k])]
            for c in set(y.tolist()):
                own = [Z[n, k] for n in range(N) if y[n] == c and not math.isnan(Z[n, k])]
                self.vals[c, k] = own if own else pooled

    def one(self, c, k, v, sq=False):
        xs = self.vals[c, k]
        if k in self.nominal:
            return sum(1.0 for x in xs if x != v) / len(xs)
        if sq:
            return sum((x - v) ** 2 for x in xs) / len(xs)
        return sum(abs(x - v) for x in xs) / len(xs)

    def both(self, c1, c2, k, sq=False):
        a, b = self.vals[c1, k], self.vals[c2, k]
        if k in self.nominal:
            return sum(1.0 for u in a for v in b if u != v) / (len(a) * len(b))
        if sq:
            return sum((u - v) ** 2 for u in a for v in b) / (len(a) * len(b))
        return sum(abs(u - v) for u in a for v in b) / (len(a) * len(b))

    def diff(self, k, i, j, sq=False):
        a, b = self.Z[i, k], self.Z[j, k]
        ci, cj = self.y[i], self.y[j]
        if math.isnan(a) and math.isnan(b):
            return self.both(ci, cj, k, sq)
        if math.isnan(a):
            return self.one(ci, k, b, sq)
        if math.isnan(b):
            return self.one(cj, k, a, sq)
        if k in self.nominal:
            return 0.0 if a == b else 1.0
        return (a - b) ** 2 if sq else abs(a - b)

    def dist(self, i, j, metric):
        D = self.Z.shape[1]
        if metric == "manhattan":
            return sum(self.diff(k, i, j) for k in range(D))
        return math.sqrt(sum(self.diff(k, i, j, sq=True) for k in range(D)))

    def vec(self, i, j):
        return np.array([self.diff(k, i, j) for k in range(self.Z.shape[1])])


def brute_expected(X, y, metric="manhattan", mode="relieff", k=3, nominal=(), refs=None):
    Z = _scale_observed(X)
    N, D = Z.shape
    b = _Brute(Z, y, nominal)
    classes = sorted(set(y.tolist()))
    p = {c: float(np.mean(y == c)) for c in classes}
    dd = [[b.dist(i, j, metric) if i != j else 0.0 for j in range(N)] for i in range(N)]
    refs = range(N) if refs is None else refs
    total = np.zeros(D)
    for n in refs:
        m = np.zeros(D)

        def nearest(members, n=n):
            return sorted(members, key=lambda t: (dd[n][t], t))

        if mode in ("relief", "mrelief"):
            ph = 1.0 if mode == "relief" else 1.0 - p[y[n]]
            pm = 1.0 if mode == "relief" else p[y[n]]
            hits = [j for j in range(N) if j != n and y[j] == y[n]]
            misses = [j for j in range(N) if y[j] != y[n]]
            if hits:
                m -= ph * b.vec(n, nearest(hits)[0])
            if misses:
                m += pm * b.vec(n, nearest(misses)[0])
        elif mode == "relieff":
            for c in classes:
                members = [j for j in range(N) if j != n and y[j] == c]
                near = nearest(members)[:k]
                coef = -1.0 if c == y[n] else p[c] / (1 - p[y[n]])
                for j in near:
                    m += coef * b.vec(n, j) / len(near)
        else:  # surf / multisurf
            others = [dd[n][j] for j in range(N) if j != n]
            if mode == "surf":
                T = sum(dd[i][j] for i in refs for j in range(N) if i != j) / (len(refs) * (N - 1))
            else:
                mu = sum(others) / len(others)
                T = mu - math.sqrt(sum((v - mu) ** 2 for v in others) / len(others)) / 2
            for c in classes:
                js = [j for j in range(N) if j != n and y[j] == c and dd[n][j] < T]
                coef = -1.0 if c == y[n] else p[c] / (1 - p[y[n]])
                for j in js:
                    m += coef * b.vec(n, j) / len(js)
        total += m
    return total / len(refs)


def brute_prelief_expected(X, y, sigma):
    """P-Relief margins with each kernel value replaced by its expectation over the
    observed values of the missing side's class (plain loops over all pairs)."""
    Z = _scale_observed(X)
    N, D = Z.shape
    b = _Brute(Z, y)

    def kern(u, v, s):
        return math.exp(-((u - v) ** 2) / (2 * s * s))

    def ek(k, i, j, s):
        a, c = Z[i, k], Z[j, k]
        if math.isnan(a) and math.isnan(c):
            xs, ys = b.vals[y[i], k], b.vals[y[j], k]
            return sum(kern(u, v, s) for u in xs for v in ys) / (len(xs) * len(ys))
        if math.isnan(a):
            xs = b.vals[y[i], k]
            return sum(kern(u, c, s) for u in xs) / len(xs)
        if math.isnan(c):
            xs = b.vals[y[j], k]
            return sum(kern(a, v, s) for v in xs) / len(xs)
        return kern(a, c, s)

    total = np.zeros(D)
    for n in range(N):
        for k in range(D):
            hit = [ek(k, n, i, sigma[k]) for i in range(N) if i != n and y[i] == y[n]]
            miss = [ek(k, n, j, sigma[k]) for j in range(N) if y[j] != y[n]]
            total[k] += (sum(hit) / len(hit) if hit else 0.0) - sum(miss) / len(miss)
    return total / N


def _holey(n=14, d=4, rate=0.25, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = (X[:, 0] * classes).astype(int) % classes
    X[rng.random((n, d)) < rate] = np.nan
    X[0, 1] = X[1, 1] = np.nan  # a pair missing the same feature
    return X, y


@pytest.fixture(params=["numba", "numpy"])
def engine(request, monkeypatch):
    from fsel.kernels.distances import numba_available

    if request.param == "numpy":
        monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")
    elif not numba_available():
        pytest.skip("numba is not installed")
    return request.param


# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
@pytest.mark.parametrize(
    ("cls", "mode"),
    [(Relief, "relief"), (MRelief, "mrelief"), (ReliefF, "relieff")],
)
@pytest.mark.parametrize("classes", [2, 3])
def test_nearest_estimators_match_brute_force_expected_diff(cls, mode, metric, classes, engine):
    X, y = _holey(seed=classes, classes=classes)
    kw = {"n_neighbors": 3} if cls is ReliefF else {}
    est = cls(metric=metric, **kw).fit(X, y)
    np.testing.assert_allclose(
        est.margin_, brute_expected(X, y, metric, mode), rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
@pytest.mark.parametrize(("cls", "mode"), [(SURF, "surf"), (MultiSURF, "multisurf")])
def test_radius_estimators_match_brute_force_expected_diff(cls, mode, metric, engine):
    X, y = _holey(n=16, seed=5, classes=3)
    est = cls(metric=metric).fit(X, y)
    np.testing.assert_allclose(
        est.margin_, brute_expected(X, y, metric, mode), rtol=1e-10, atol=1e-12
    )


def test_nominal_feature_with_holes_uses_class_probabilities(engine):
    rng = np.random.default_rng(3)
    n = 16
    X = np.column_stack([rng.random(n), rng.integers(0, 3, n).astype(float), rng.random(n)])
    y = (X[:, 0] > 0.5).astype(int)
    X[[1, 4, 9], 1] = np.nan
    X[[2, 4], 2] = np.nan
    est = ReliefF(n_neighbors=2, categorical=[1]).fit(X, y)
    ref = brute_expected(X, y, "manhattan", "relieff", k=2, nominal=(1,))
    np.testing.assert_allclose(est.margin_, ref, rtol=1e-10, atol=1e-12)


def test_prelief_matches_brute_force_expected_kernel(engine):
    X, y = _holey(n=12, seed=4, classes=2)
    sigma = np.array([0.3, 0.2, 0.5, 0.4])
    est = PRelief(sigma=sigma).fit(X, y)
    np.testing.assert_allclose(est.margin_, brute_prelief_expected(X, y, sigma), atol=1e-11)


@pytest.mark.parametrize("cls", ALL)
def test_numpy_fallback_agrees_with_numba_on_holes(cls, monkeypatch):
    X, y = _holey(n=40, d=5, seed=9, classes=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fast = cls().fit(X, y).margin_
        monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")
        slow = cls().fit(X, y).margin_
    np.testing.assert_allclose(slow, fast, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls", ALL)
def test_complete_data_bit_identical_to_other_policies(cls):
    rng = np.random.default_rng(1)
    X = rng.random((50, 4))
    y = (X[:, 2] + 0.3 * rng.random(50) > 0.6).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        new = cls().fit(X, y)
        old = cls(missing="error").fit(X, y)
    assert new.missing == "expected"
    np.testing.assert_array_equal(new.margin_, old.margin_)
    np.testing.assert_array_equal(new.feature_importances_, old.feature_importances_)


@pytest.mark.parametrize("cls", ALL)
def test_recovers_relevant_features_with_20_percent_mcar(cls):
    rng = np.random.default_rng(0)
    n, d = 300, 8
    X = rng.random((n, d))
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(int) if cls is not PRelief else None
    if y is None:  # P-Relief scores features one at a time: a main effect
        y = (X[:, 0] + X[:, 1] > 1.0).astype(int)
    if cls is IRelief:
        y = (X[:, 0] + X[:, 1] > 1.0).astype(int)
    Xh = X.copy()
    Xh[rng.random((n, d)) < 0.2] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = cls().fit(Xh, y)
    assert set(est.selection_order_[:2].tolist()) == {0, 1}
    assert np.isnan(Xh).sum() > 0.15 * n * d  # input untouched, holes still there


def test_policies_and_tags():
    X, y = _holey(n=30, seed=2)
    for policy in ("impute-mean", "impute-median", "expected"):
        assert np.isfinite(ReliefF(missing=policy).fit(X, y).feature_importances_).all()
    with pytest.raises(ValueError, match="NaN"):
        ReliefF(missing="error").fit(X, y)
    with pytest.raises(ValueError, match="missing must be one of"):
        ReliefF(missing="drop").fit(X, y)
    assert ReliefF().__sklearn_tags__().input_tags.allow_nan
    assert not ReliefF(missing="error").__sklearn_tags__().input_tags.allow_nan


def test_pandas_missing_values_expected():
    pd = pytest.importorskip("pandas")
    X, y = _holey(n=30, seed=6)
    df = pd.DataFrame(X, columns=list("abcd")).astype("Float64")
    df.loc[3, "a"] = pd.NA
    X2 = X.copy()
    X2[3, 0] = np.nan
    np.testing.assert_allclose(ReliefF().fit(df, y).margin_, ReliefF().fit(X2, y).margin_)


# --------------------------------------------------------------------------- sample_size


@pytest.mark.parametrize("cls", [Relief, ReliefF, MRelief, SURF, MultiSURF])
def test_sample_size_all_equals_default_and_seed_reproducible(cls):
    rng = np.random.default_rng(4)
    X = rng.random((60, 5))
    y = (X[:, 1] > 0.5).astype(int)
    ref = cls().fit(X, y).margin_
    np.testing.assert_array_equal(cls(sample_size=60).fit(X, y).margin_, ref)
    np.testing.assert_array_equal(cls(sample_size=1.0).fit(X, y).margin_, ref)
    a = cls(sample_size=15, random_state=3).fit(X, y).margin_
    b = cls(sample_size=0.25, random_state=3).fit(X, y).margin_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, cls(sample_size=15, random_state=4).fit(X, y).margin_)


@pytest.mark.parametrize(
    ("cls", "mode"),
    [(Relief, "relief"), (ReliefF, "relieff"), (SURF, "surf"), (MultiSURF, "multisurf")],
)
def test_sample_size_matches_brute_force_over_the_references(cls, mode, engine):
    # the documented draw: np.random.RandomState(seed).choice(n, m, replace=False)
    X, y = _holey(n=18, seed=8, classes=2)
    refs = sorted(np.random.RandomState(5).choice(18, 7, replace=False).tolist())
    kw = {"n_neighbors": 3} if cls is ReliefF else {}
    est = cls(sample_size=7, random_state=5, **kw).fit(X, y)
    ref = brute_expected(X, y, "manhattan", mode, refs=refs)
    np.testing.assert_allclose(est.margin_, ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls", [Relief, ReliefF, MRelief, SURF, MultiSURF])
def test_sample_size_recovers_relevant_features(cls):
    rng = np.random.default_rng(2)
    n = 2000
    X = rng.random((n, 10))
    y = (X[:, 3] + X[:, 7] > 1.0).astype(int)
    est = cls(sample_size=100, random_state=0).fit(X, y)
    assert set(est.selection_order_[:2].tolist()) == {3, 7}


def test_sample_size_bad_values():
    X, y = _holey(n=20)
    for bad, match in [(0, "at least 1"), (1.5, r"\(0, 1\]"), ("all", "int, a float")]:
        with pytest.raises(ValueError, match=match):
            ReliefF(sample_size=bad).fit(X, y)
