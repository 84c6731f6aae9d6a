"""Tests of the Relief family: hand-computed margins, brute-force references written
independently here (plain loops over all pairs), recovery of interacting features,
estimator checks and bad input."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import fsel
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
# independent brute-force references (plain loops)


def _scale(X):
    X = np.asarray(X, dtype=float)
    out = np.zeros_like(X)
    for d in range(X.shape[1]):
        lo, hi = X[:, d].min(), X[:, d].max()
        if hi > lo:
            out[:, d] = (X[:, d] - lo) / (hi - lo)
    return out


def _dist(a, b, metric):
    if metric == "manhattan":
        return sum(abs(a[k] - b[k]) for k in range(len(a)))
    return math.sqrt(sum((a[k] - b[k]) ** 2 for k in range(len(a))))


def _unit(m):
    w = np.maximum(np.asarray(m, dtype=float), 0.0)
    n = math.sqrt(float((w * w).sum()))
    return w / n if n > 0 else w


def _sorted_members(Z, n, members, metric):
    return sorted(members, key=lambda j: (_dist(Z[n], Z[j], metric), j))


def brute_relief(X, y, metric="manhattan", mode="relief", k=10):
    Z = _scale(X)
    N, D = Z.shape
    classes = sorted(set(y.tolist()))
    p = {c: float(np.mean(y == c)) for c in classes}
    total = np.zeros(D)
    for n in range(N):
        hits = [j for j in range(N) if j != n and y[j] == y[n]]
        misses = [j for j in range(N) if y[j] != y[n]]
        m = np.zeros(D)
        if mode in ("relief", "mrelief"):
            ph = 1.0 if mode == "relief" else 1.0 - p[y[n]]
            pm = 1.0 if mode == "relief" else p[y[n]]
            if hits:
                h = _sorted_members(Z, n, hits, metric)[0]
                m -= ph * np.abs(Z[n] - Z[h])
            if misses:
                mm = _sorted_members(Z, n, misses, metric)[0]
                m += pm * np.abs(Z[n] - Z[mm])
        elif mode == "relieff":
            hs = _sorted_members(Z, n, hits, metric)[:k]
            for h in hs:
                m -= np.abs(Z[n] - Z[h]) / len(hs)
            for c in classes:
                if c == y[n]:
                    continue
                ms = _sorted_members(Z, n, [j for j in range(N) if y[j] == c], metric)[:k]
                for j in ms:
                    m += p[c] / (1 - p[y[n]]) * np.abs(Z[n] - Z[j]) / len(ms)
        total += m
    return total / N


def brute_radius(X, y, metric="manhattan", mode="surf"):
    Z = _scale(X)
    N, D = Z.shape
    classes = sorted(set(y.tolist()))
    p = {c: float(np.mean(y == c)) for c in classes}
    dd = [[_dist(Z[i], Z[j], metric) for j in range(N)] for i in range(N)]
    if mode == "surf":
        T_all = sum(dd[i][j] for i in range(N) for j in range(N) if i != j) / (N * (N - 1))
    total = np.zeros(D)
    for n in range(N):
        others = [dd[n][j] for j in range(N) if j != n]
        if mode == "surf":
            T = T_all
        else:
            mu = sum(others) / len(others)
            sd = math.sqrt(sum((v - mu) ** 2 for v in others) / len(others))
            T = mu - sd / 2
        near = [j for j in range(N) if j != n and dd[n][j] < T]
        m = np.zeros(D)
        for c in classes:
            js = [j for j in near if y[j] == c]
            if not js:
                continue
            coef = -1.0 if c == y[n] else p[c] / (1 - p[y[n]])
            for j in js:
                m += coef * np.abs(Z[n] - Z[j]) / len(js)
        total += m
    return total / N


def brute_prelief(X, y, sigma):
    Z = _scale(X)
    N, D = Z.shape
    total = np.zeros(D)
    for n in range(N):
        for d in range(D):
            hit = [
                math.exp(-((Z[i, d] - Z[n, d]) ** 2) / (2 * sigma[d] ** 2))
                for i in range(N)
                if i != n and y[i] == y[n]
            ]
            miss = [
                math.exp(-((Z[j, d] - Z[n, d]) ** 2) / (2 * sigma[d] ** 2))
                for j in range(N)
                if y[j] != y[n]
            ]
            total[d] += (sum(hit) / len(hit) if hit else 0.0) - sum(miss) / len(miss)
    return total / N


def brute_irelief(X, y, sigma, theta, max_iter, metric="manhattan"):
    Z = _scale(X)
    N, D = Z.shape
    w = np.full(D, 1 / math.sqrt(D))
    for it in range(1, max_iter + 1):
        z = np.zeros(D)
        for n in range(N):
            d = {i: _dist(w * Z[n], w * Z[i], metric) for i in range(N) if i != n}
            f = {i: math.exp(-d[i] / sigma) for i in d}
            M = [i for i in d if y[i] != y[n]]
            H = [i for i in d if y[i] == y[n]]
            sm = sum(f[i] for i in M)
            sh = sum(f[i] for i in H)
            gamma = sm / (sm + sh)
            if sm > 0:
                for i in M:
                    z += (1 - gamma) * f[i] / sm * np.abs(Z[n] - Z[i])
            if sh > 0:
                for i in H:
                    z -= (1 - gamma) * f[i] / sh * np.abs(Z[n] - Z[i])
        z /= N
        w_new = _unit(z)
        done = np.linalg.norm(w_new - w) < theta
        w = w_new
        if done:
            return w, it
    return w, max_iter


@pytest.fixture(params=[(0, 2), (1, 3)], ids=["binary", "3class"])
def small(request):
    seed, n_classes = request.param
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(36, 5)) * np.array([1.0, 3.0, 0.5, 2.0, 1.0])
    y = rng.integers(0, n_classes, size=36)
    X[:, 0] += y  # one informative feature
    return X, y


# --------------------------------------------------------------------------------------
# hand-computed margins

SQUARE = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
SQUARE_Y = np.array([0, 0, 1, 1])
LINE = np.array([[0.0], [0.2], [0.4], [1.0]])
LINE_Y = np.array([0, 0, 0, 1])


@pytest.mark.parametrize(
    ("est", "margin"),
    [
        (Relief(2), [1.0, -1.0]),
        (MRelief(2), [0.5, -0.5]),
        (ReliefF(2, n_neighbors=1), [1.0, -1.0]),
        (SURF(2), [1.0, -1.0]),
        (MultiSURF(2), [1.0, -1.0]),
    ],
)
def test_square_margins(est, margin):
    est.fit(SQUARE, SQUARE_Y)
    np.testing.assert_allclose(est.margin_, margin, atol=1e-15)
    np.testing.assert_allclose(est.feature_importances_, [1.0, 0.0])
    assert est.selection_order_.tolist() == [0, 1]


def test_line_margins_by_hand():
    # nearest hits/misses worked out by hand (ties -> smaller index; the lone
    # class-1 sample has no hit)
    assert Relief().fit(LINE, LINE_Y).margin_ == pytest.approx([0.6], abs=1e-15)
    assert MRelief().fit(LINE, LINE_Y).margin_ == pytest.approx([0.45], abs=1e-15)
    assert ReliefF(n_neighbors=2).fit(LINE, LINE_Y).margin_ == pytest.approx([0.575], abs=1e-15)
    est = Relief().fit(LINE, LINE_Y)
    assert est.nearest_hits_.tolist() == [1, 0, 1, -1]
    assert est.nearest_misses_.tolist() == [3, 3, 3, 2]


def test_prelief_margin_by_hand():
    X = np.array([[0.0], [0.5], [1.0]])
    y = np.array([0, 0, 1])
    e5, e2 = math.exp(-0.5), math.exp(-2.0)
    expected = (0.5 * e5 - 1.5 * e2) / 3
    est = PRelief(sigma=0.5).fit(X, y)
    assert est.margin_[0] == pytest.approx(expected, abs=1e-13)


# --------------------------------------------------------------------------------------
# agreement with the brute-force references


@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
@pytest.mark.parametrize(
    ("cls", "mode"), [(Relief, "relief"), (MRelief, "mrelief"), (ReliefF, "relieff")]
)
def test_nearest_neighbour_estimators_match_brute_force(small, metric, cls, mode):
    X, y = small
    params = {"n_neighbors": 4} if cls is ReliefF else {}
    est = cls(metric=metric, **params).fit(X, y)
    ref = brute_relief(X, y, metric, mode, k=4)
    np.testing.assert_allclose(est.margin_, ref, atol=1e-10)
    np.testing.assert_allclose(est.feature_importances_, _unit(ref), atol=1e-10)


@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
@pytest.mark.parametrize(("cls", "mode"), [(SURF, "surf"), (MultiSURF, "multisurf")])
def test_radius_estimators_match_brute_force(small, metric, cls, mode):
    X, y = small
    est = cls(metric=metric).fit(X, y)
    np.testing.assert_allclose(est.margin_, brute_radius(X, y, metric, mode), atol=1e-10)


@pytest.mark.parametrize("sigma", [0.01, 0.2, 3.0, "silverman", "paper"])
def test_prelief_matches_brute_force(small, sigma):
    X, y = small
    est = PRelief(sigma=sigma).fit(X, y)
    ref = brute_prelief(X, y, est.sigma_)
    # documented tolerance: each kernel mean within 1e-12
    np.testing.assert_allclose(est.margin_, ref, atol=1e-10)


def test_prelief_sigma_rules():
    X = np.random.default_rng(0).random((50, 3))
    y = np.arange(50) % 2
    assert np.all(PRelief(sigma="paper").fit(X, y).sigma_ == 0.01)
    est = PRelief(sigma=[0.1, 0.2, 0.3]).fit(X, y)
    assert est.sigma_.tolist() == [0.1, 0.2, 0.3]


@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
def test_irelief_matches_brute_force(metric):
    rng = np.random.default_rng(3)
    X = rng.random((24, 4))
    y = (X[:, 0] + 0.3 * rng.random(24) > 0.6).astype(int)
    est = IRelief(sigma=0.5, theta=1e-4, max_iter=30, metric=metric).fit(X, y)
    w, it = brute_irelief(X, y, 0.5, 1e-4, 30, metric)
    assert est.n_iter_ == it
    np.testing.assert_allclose(est.feature_importances_, w, atol=1e-10)


def test_irelief_one_iteration_by_hand():
    # Four points already in [0, 1] (min-max scaling leaves them unchanged), classes
    # {0, 1} and {2, 3}; sigma = 0.5 and the starting weights w = (1/sqrt2, 1/sqrt2), so
    # d_w(n, i) = (|dx0| + |dx1|) / sqrt2 and f(d) = exp(-d / 0.5) = exp(-sqrt2 * L1)
    # with L1 = |dx0| + |dx1|. Pairs, |x_n - x_i| and L1:
    #   0-1 (0.4, 0.2) 0.6 | 0-2 (1.0, 0.4) 1.4 | 0-3 (0.6, 0.8) 1.4
    #   1-2 (0.6, 0.6) 1.2 | 1-3 (0.2, 1.0) 1.2 | 2-3 (0.4, 0.4) 0.8
    # Every sample has one hit (beta = 1) and two misses. Sun 2007 (SPEC 3):
    #   m_n = (1 - gamma_n) (sum_M alpha_i |x_n - x_i| - sum_H beta_i |x_n - x_i|),
    #   1 - gamma_n = f(hit) / (f(hit) + sum_M f),  alpha_i = f_i / sum_M f.
    X = np.array([[0.0, 0.2], [0.4, 0.0], [1.0, 0.6], [0.6, 1.0]])
    y = np.array([0, 0, 1, 1])

    def f(l1):
        return math.exp(-math.sqrt(2.0) * l1)

    # n = 0: hit 1 (0.6), misses 2 and 3 both at 1.4 -> alpha = 1/2 each
    #   1 - gamma = 1 / (1 + 2 exp(-0.8 sqrt2)) = 0.60784
    #   m_0 = 0.60784 * ((1.0 + 0.6) / 2 - 0.4, (0.4 + 0.8) / 2 - 0.2) = 0.60784 * (0.4, 0.4)
    k0 = f(0.6) / (f(0.6) + 2 * f(1.4))
    m0 = k0 * np.array([0.4, 0.4])
    # n = 1: hit 0 (0.6), misses 2 and 3 both at 1.2 -> alpha = 1/2 each
    #   1 - gamma = 1 / (1 + 2 exp(-0.6 sqrt2)) = 0.53877
    #   m_1 = 0.53877 * ((0.6 + 0.2) / 2 - 0.4, (0.6 + 1.0) / 2 - 0.2) = 0.53877 * (0, 0.6)
    k1 = f(0.6) / (f(0.6) + 2 * f(1.2))
    m1 = k1 * np.array([0.0, 0.6])
    # n = 2: hit 3 (0.8), misses 0 (1.4) and 1 (1.2):
    #   alpha_0 = f(1.4) / (f(1.4) + f(1.2)) = 0.42976, alpha_1 = 0.57024
    #   1 - gamma = f(0.8) / (f(0.8) + f(1.4) + f(1.2)) = 0.50100
    # n = 3: hit 2 (0.8), misses 0 (1.4) and 1 (1.2): the same alpha and 1 - gamma
    a0 = f(1.4) / (f(1.4) + f(1.2))
    a1 = f(1.2) / (f(1.4) + f(1.2))
    k2 = f(0.8) / (f(0.8) + f(1.4) + f(1.2))
    m2 = k2 * (a0 * np.array([1.0, 0.4]) + a1 * np.array([0.6, 0.6]) - np.array([0.4, 0.4]))
    m3 = k2 * (a0 * np.array([0.6, 0.8]) + a1 * np.array([0.2, 1.0]) - np.array([0.4, 0.4]))
    # m_2 = (0.18632, 0.05714), m_3 = (-0.01408, 0.25754)
    z = (m0 + m1 + m2 + m3) / 4  # = (0.10385, 0.22027)
    w = z / math.hypot(z[0], z[1])  # both positive: = (0.42643, 0.90452)
    assert z == pytest.approx([0.103845, 0.220268], abs=1e-6)
    assert w == pytest.approx([0.426435, 0.904518], abs=1e-6)
    with pytest.warns(ConvergenceWarning):  # ||w - w0|| = 0.3 > theta after one step
        est = IRelief(2, sigma=0.5, max_iter=1).fit(X, y)
    assert est.n_iter_ == 1 and not est.converged_
    np.testing.assert_allclose(est.margin_, z, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(est.feature_importances_, w, rtol=1e-12)
    assert est.selection_order_.tolist() == [1, 0]


def test_irelief_converges_and_recovers_relevant_features():
    rng = np.random.default_rng(0)
    X = rng.random((150, 20))
    y = (X[:, 3] + X[:, 7] > 1.0).astype(int)  # linearly separable on features 3, 7
    est = IRelief(n_features_to_select=2).fit(X, y)
    assert est.converged_
    assert 1 <= est.n_iter_ < 20
    assert sorted(est.selection_order_.tolist()) == [3, 7]
    assert np.linalg.norm(est.feature_importances_) == pytest.approx(1.0)


def test_irelief_warns_when_not_converged():
    rng = np.random.default_rng(0)
    X = rng.random((40, 6))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.warns(ConvergenceWarning):
        est = IRelief(max_iter=1, theta=1e-12).fit(X, y)
    assert est.n_iter_ == 1 and not est.converged_


# --------------------------------------------------------------------------------------
# recovery of interacting features


def _xor_data(n=400, n_noise=100, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_noise + 2))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(int)
    return X, y


@pytest.mark.parametrize(
    "est", [ReliefF(n_neighbors=10), MultiSURF(), SURF(), ReliefF(metric="euclidean")]
)
def test_xor_pair_ranked_first(est):
    X, y = _xor_data()
    est.fit(X, y)
    assert sorted(est.selection_order_[:2].tolist()) == [0, 1]


@pytest.mark.datasets
def test_gametes_epistasis_recovered(shared_datasets):
    from fsel.datasets import load

    ds = load("gametes_epistasis_2_way_20atts_0.4h_edm_1_1", path=shared_datasets)
    rows = np.random.default_rng(0).permutation(ds.X.shape[0])[:800]
    est = MultiSURF().fit(ds.X[rows], ds.y[rows])
    # GAMETES names the two interacting SNPs P1 and P2 (the other 18 are noise)
    top = {str(ds.feature_names[i]) for i in est.selection_order_[:2]}
    assert top == {"P1", "P2"}


# --------------------------------------------------------------------------------------
# general behaviour


@pytest.mark.parametrize("cls", ALL)
def test_weights_nonnegative_unit_norm_constant_zero_and_input_untouched(cls):
    rng = np.random.default_rng(1)
    X = rng.random((60, 6))
    X[:, 4] = 3.0  # constant
    y = (X[:, 0] > 0.5).astype(int)
    X0 = X.copy()
    est = cls(n_features_to_select=2).fit(X, y)
    np.testing.assert_array_equal(X, X0)
    w = est.feature_importances_
    assert np.all(w >= 0)
    assert np.linalg.norm(w) == pytest.approx(1.0)
    assert w[4] == 0.0
    assert est.selection_order_[0] == 0
    assert est.support_.sum() == 2
    np.testing.assert_array_equal(est.scores_, w)
    assert est.transform(X).shape == (60, 2)


@pytest.mark.parametrize("cls", ALL)
def test_n_jobs_and_memory_budget_do_not_change_results(cls):
    X, y = _xor_data(n=120, n_noise=8, seed=2)
    y = y + (X[:, 3] > 1).astype(int)  # three classes
    ref = cls().fit(X, y).feature_importances_
    np.testing.assert_array_equal(cls(n_jobs=2).fit(X, y).feature_importances_, ref)
    small_budget = cls(n_jobs=2, memory_budget=3 * 8 * 120 * 7).fit(X, y)
    if issubclass(cls, (SURF, MultiSURF)):
        # the full-matrix path visits each pair once (radius_margin_sum), the row-block
        # path each row's neighbours: the same sum in another order
        np.testing.assert_allclose(small_budget.feature_importances_, ref, rtol=1e-12, atol=1e-15)
    else:
        np.testing.assert_array_equal(small_budget.feature_importances_, ref)
    np.testing.assert_array_equal(
        cls(n_jobs=2, memory_budget=3 * 8 * 120 * 7).fit(X, y).feature_importances_,
        cls(n_jobs=1, memory_budget=3 * 8 * 120 * 7).fit(X, y).feature_importances_,
    )


@pytest.mark.parametrize("cls", [SURF, MultiSURF])
@pytest.mark.parametrize("holes", [False, True])
@pytest.mark.parametrize("sample_size", [23, None])
def test_radius_margins_at_reference_rows_do_not_depend_on_n_jobs(cls, holes, sample_size):
    """Reference rows (or missing values) take the row-block path, whose blocks get
    smaller with more threads: the margins are added in runs that no block splits, so
    the weights are the same, bit for bit, for every n_jobs and budget."""
    X, y = _xor_data(n=150, n_noise=6, seed=4)
    if holes:
        X = X.copy()
        X[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan
    for budget in ({}, {"memory_budget": 3 * 8 * 150 * 9}):  # whole matrix; row blocks
        kw = {"sample_size": sample_size, "random_state": 0, **budget}
        ref = cls(**kw).fit(X, y).feature_importances_
        for n_jobs in (2, 3, 5):
            got = cls(n_jobs=n_jobs, **kw).fit(X, y).feature_importances_
            np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("kind", ["sparse", "holes"])
def test_irelief_blocks_do_not_change_results(kind):
    """I-Relief's blocks of distances get smaller with more threads (and a smaller
    budget); its sparse margins are added in runs no block splits, its dense ones row
    by row: the same weights, bit for bit, for every n_jobs."""
    import scipy.sparse as sp

    rng = np.random.default_rng(5)
    if kind == "sparse":
        X = sp.random(200, 30, density=0.2, format="csr", random_state=2)
    else:
        X = rng.normal(size=(200, 30))
        X[rng.random(X.shape) < 0.05] = np.nan
    y = rng.integers(0, 2, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for budget in ({}, {"memory_budget": 40_000}):
            ref = IRelief(max_iter=3, **budget).fit(X, y).feature_importances_
            for n_jobs in (2, 3):
                got = IRelief(max_iter=3, n_jobs=n_jobs, **budget).fit(X, y)
                np.testing.assert_array_equal(got.feature_importances_, ref)


def test_expected_tables_without_holes_are_the_sorted_ones():
    """Without a hole no segment is looked up: ExpectedDiff skips the sort, and what it
    keeps is what the sort gives."""
    from fsel.kernels.relief_margins import ExpectedDiff

    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(40, 5)), rng.integers(0, 3, 40)
    ed = ExpectedDiff(X, y, 3)
    want = ed._segments_numpy(X, 3, np.zeros(5, dtype=bool))
    got = (ed.vals, ed.cum, ed.off, ed.cnt.reshape(4, 5), ed.mu, ed.var)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert (ed.eff == 3).all()  # every class falls back to the pooled (empty) segment


def _traced_peak(fit):
    """Peak bytes traced by tracemalloc (numpy registers its buffers) during ``fit()``."""
    import tracemalloc

    if tracemalloc.is_tracing():
        pytest.skip("tracemalloc already running")
    tracemalloc.start()
    try:
        fit()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    ("n", "budget"),
    [
        (1000, 12 * 10**6),  # the full matrix (8 MB) fits: the full-matrix paths
        (3000, 2 * 2**20),
        pytest.param(12000, 16 * 2**20, marks=pytest.mark.slow),
    ],
    ids=["1000-full-12MB", "3000-2MiB", "12000-16MiB"],
)
@pytest.mark.parametrize("engine", ["numba", "numpy"])
@pytest.mark.parametrize("name", ["IRelief", "ReliefF", "MultiSURF"])
def test_peak_memory_within_budget(name, n, budget, engine, monkeypatch):
    # Full-matrix path (N = 1000) and block path (the full N x N matrix does not fit),
    # with the compiled kernels and with the pure-numpy fallback. The budget covers the
    # distance matrix or blocks and their work arrays; on top of it the estimators hold
    # O(N D) arrays (validated, scaled, class-sorted and weighted copies, per-row
    # margins and their sum: at most 8 of the input's size), O(N) vectors and
    # ReliefF's neighbour lists (N x classes x k indices and distances, 16 bytes each),
    # plus a stated slack of 256 KiB for interpreter bookkeeping. Before the fix
    # I-Relief held about 8 block-sized temporaries (2.2x the budget at N = 20000,
    # D = 5, 64 MiB); the numpy fallback of MultiSURF held 3 full matrices.
    from fsel.kernels.distances import numba_available

    if engine == "numpy":
        monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")
    elif not numba_available():
        pytest.skip("numba is not installed")
    d = 5
    rng = np.random.default_rng(0)
    X = rng.random((n, d))
    y = (X[:, 0] + 0.2 * rng.random(n) > 0.6).astype(int)
    make = {
        "IRelief": lambda: IRelief(max_iter=1, memory_budget=budget),
        "ReliefF": lambda: ReliefF(memory_budget=budget),
        "MultiSURF": lambda: MultiSURF(memory_budget=budget),
    }[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # compile the numba kernels (and import lazily loaded modules) outside the
        # trace, on the same path: the budget scaled with the full matrix
        small = {"IRelief": IRelief, "ReliefF": ReliefF, "MultiSURF": MultiSURF}[name]
        kw = {"max_iter": 1} if name == "IRelief" else {}
        small(memory_budget=budget * 300**2 // n**2, **kw).fit(X[:300], y[:300])
        peak = _traced_peak(lambda: make().fit(X, y))
    io = 8 * X.nbytes + 8 * 8 * n
    if name == "ReliefF":
        io += n * 2 * 10 * 16
    slack = 256 * 2**10
    assert peak <= budget + io + slack, (
        f"{name}: peak {peak / 2**20:.2f} MiB > budget {budget / 2**20:.0f} MiB "
        f"+ inputs/outputs {io / 2**20:.2f} MiB + slack"
    )


@pytest.mark.parametrize("cls", ALL)
def test_multiclass(cls):
    rng = np.random.default_rng(4)
    X = rng.random((150, 6))
    y = np.digitize(X[:, 2], [0.3, 0.6, 0.8])  # 4 imbalanced classes
    est = cls(n_features_to_select=1).fit(X, y)
    assert est.selection_order_.tolist() == [2]
    assert est.classes_.tolist() == [0, 1, 2, 3]


def test_permuting_columns_permutes_weights():
    X, y = _xor_data(n=150, n_noise=6, seed=5)
    perm = np.random.default_rng(0).permutation(X.shape[1])
    for cls in (ReliefF, MultiSURF, PRelief):
        a = cls().fit(X, y).feature_importances_
        b = cls().fit(X[:, perm], y).feature_importances_
        np.testing.assert_allclose(b, a[perm], atol=1e-12)


def test_scaling_invariance():
    X, y = _xor_data(n=100, n_noise=4, seed=6)
    a = ReliefF().fit(X, y).feature_importances_
    b = ReliefF().fit(X * 1000.0 + 7.0, y).feature_importances_
    np.testing.assert_allclose(a, b, atol=1e-10)


def test_nominal_features_count_as_zero_one_difference():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, size=80)
    y = (codes == 2).astype(int)
    X = np.column_stack([codes, rng.random(80)])
    est = Relief(categorical=[0]).fit(X, y)
    # with the 0/1 difference the one-hot distance equals the indicator
    ref = brute_relief_nominal(X, y)
    np.testing.assert_allclose(est.margin_, ref, atol=1e-12)


def brute_relief_nominal(X, y):
    N = X.shape[0]
    c = X[:, 1]
    cs = (c - c.min()) / (c.max() - c.min())

    def diff(i, j):
        return np.array([float(X[i, 0] != X[j, 0]), abs(cs[i] - cs[j])])

    total = np.zeros(2)
    for n in range(N):
        hits = sorted(
            (j for j in range(N) if j != n and y[j] == y[n]), key=lambda j: (diff(n, j).sum(), j)
        )
        misses = sorted((j for j in range(N) if y[j] != y[n]), key=lambda j: (diff(n, j).sum(), j))
        total += diff(n, misses[0]) - diff(n, hits[0])
    return total / N


def test_missing_values_error_and_imputation():
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = (X[:, 0] > 0.5).astype(int)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ReliefF(missing="error").fit(Xn, y)
    Xn0 = Xn.copy()
    est = ReliefF(missing="impute-mean").fit(Xn, y)
    np.testing.assert_array_equal(np.isnan(Xn), np.isnan(Xn0))  # caller's array untouched
    Xi = Xn0.copy()
    Xi[3, 1] = np.nanmean(Xn0[:, 1])
    np.testing.assert_allclose(est.feature_importances_, ReliefF().fit(Xi, y).feature_importances_)
    est = ReliefF(missing="impute-median").fit(Xn, y)
    assert np.isfinite(est.feature_importances_).all()


def test_pandas_input_and_feature_names():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.random((50, 3)), columns=["a", "b", "c"])
    y = (df["b"] > 0.5).astype(int)
    est = ReliefF(n_features_to_select=1).fit(df, y)
    assert est.get_feature_names_out().tolist() == ["b"]


@pytest.mark.parametrize(
    ("est", "match"),
    [
        (ReliefF(metric="cosine"), "metric"),
        (ReliefF(n_neighbors=0), "n_neighbors"),
        (PRelief(sigma=-1.0), "sigma"),
        (PRelief(sigma="wide"), "sigma"),
        (PRelief(sigma=[0.1, 0.2]), "sigma"),
        (IRelief(sigma=0.0), "sigma"),
        (IRelief(theta=-1.0), "theta"),
        (IRelief(max_iter=0), "max_iter"),
        (Relief(memory_budget=0), "memory_budget"),
        (Relief(n_jobs=0), "n_jobs"),
        (Relief(missing="drop"), "missing"),
        (Relief(n_features_to_select=9), "n_features_to_select"),
    ],
)
def test_bad_parameters(est, match):
    X = np.random.default_rng(0).random((20, 3))
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_bad_parameter_types():
    X = np.random.default_rng(0).random((20, 3))
    y = np.arange(20) % 2
    with pytest.raises(TypeError, match=r"^ReliefF: n_neighbors must be an int, got 2\.5$"):
        ReliefF(n_neighbors=2.5).fit(X, y)


def test_bad_input():
    X = np.random.default_rng(0).random((20, 3))
    with pytest.raises(ValueError, match="single class"):
        Relief().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="inconsistent"):
        Relief().fit(X, np.arange(19) % 2)
    with pytest.raises(ValueError, match="2-D"):
        Relief().fit(X[:, 0], np.arange(20) % 2)
    with pytest.raises(ValueError, match="minimum of 2"):
        Relief().fit(X[:1], [0])


def test_registry_and_select_api():
    from fsel._registry import get_method

    for name, cls in [
        ("relief", Relief),
        ("relieff", ReliefF),
        ("irelief", IRelief),
        ("prelief", PRelief),
        ("mrelief", MRelief),
        ("surf", SURF),
        ("multisurf", MultiSURF),
    ]:
        assert get_method(name).load() is cls
        assert getattr(fsel, cls.__name__) is cls
    est = get_method("relieff").make(
        n_neighbors=3, metric="euclidean", n_jobs=2, memory_budget=10**6
    )
    assert est.get_params()["n_neighbors"] == 3


@pytest.mark.parametrize("cls", ALL)
def test_numpy_fallback_agrees_with_numba(cls, monkeypatch):
    X, y = _xor_data(n=90, n_noise=5, seed=7)
    y = y + (X[:, 2] > 0.8).astype(int)
    fast = cls().fit(X, y).feature_importances_
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")
    slow = cls().fit(X, y).feature_importances_
    np.testing.assert_allclose(slow, fast, atol=1e-12)


def test_dataframe_imputation_and_categorical_dtype():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(0)
    X = rng.random((60, 3))
    X[2, 1] = np.nan
    y = (X[:, 0] > 0.5).astype(int)
    ref = ReliefF(missing="impute-mean").fit(X, y).feature_importances_
    pdf = pl.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2]})
    np.testing.assert_allclose(ReliefF(missing="impute-mean").fit(pdf, y).feature_importances_, ref)
    codes = rng.integers(0, 3, 60)
    df = pd.DataFrame({"a": X[:, 0], "d": pd.Categorical(codes)})
    by_dtype = Relief().fit(df, y).margin_
    by_param = Relief(categorical=[1]).fit(np.column_stack([X[:, 0], codes]), y).margin_
    np.testing.assert_allclose(by_dtype, by_param)


@pytest.mark.parametrize("name", ["ReliefF", "Relief", "PRelief"])
def test_peak_memory_within_budget_one_sample_per_class(name):
    # issue 17 item 6: with one sample per class, the neighbour lists (N x C x k) and
    # P-Relief's class-pair tables (d x C x C) grew as N^2; now the budget holds
    # whatever the class count (same allowance as test_peak_memory_within_budget)
    n, d, budget = 3000, 3, 16 * 2**20
    rng = np.random.default_rng(0)
    X = rng.random((n, d))
    y = np.arange(n)
    cls = {"ReliefF": ReliefF, "Relief": Relief, "PRelief": PRelief}[name]
    cls(memory_budget=budget).fit(X[:200], y[:200])  # compile outside the trace
    peak = _traced_peak(lambda: cls(memory_budget=budget).fit(X, y))
    io = 8 * X.nbytes + 8 * 8 * n
    slack = 256 * 2**10
    assert peak <= budget + io + slack, f"{name}: peak {peak / 2**20:.2f} MiB"


def test_prelief_many_classes_path_matches_tables():
    # the diagonal/row-sum path (tiny budget) against the C x C tables (default)
    rng = np.random.default_rng(1)
    X = rng.random((200, 3))
    X[:, 2] = rng.integers(0, 4, 200)
    y = rng.integers(0, 7, 200)
    ref = PRelief(categorical=[2]).fit(X, y).margin_
    low = PRelief(categorical=[2], memory_budget=4096).fit(X, y).margin_
    np.testing.assert_allclose(low, ref, rtol=1e-9, atol=1e-13)


def _irelief_reference(D, bounds, sigma):
    """I-Relief's coefficients by a plain loop, each sum in logarithms (log-sum-exp):
    an independent twin of ``irelief_coefficients`` for every ``sigma``."""
    import math

    n = D.shape[0]
    cls = [int(np.searchsorted(bounds, i, side="right") - 1) for i in range(n)]
    out = np.zeros_like(D)

    def lse(vals):
        m = max(vals)
        return m + math.log(sum(math.exp(v - m) for v in vals))

    for i in range(n):
        hits = [j for j in range(n) if j != i and cls[j] == cls[i]]
        misses = [j for j in range(n) if cls[j] != cls[i]]
        if not hits:
            continue  # gamma = 1: the row contributes nothing
        lh = lse([-D[i, j] / sigma for j in hits])
        lm = lse([-D[i, j] / sigma for j in misses]) if misses else -math.inf
        t = lm - lh  # 1 - gamma = 1 / (1 + e^t), without overflow
        keep = math.exp(-t) / (1.0 + math.exp(-t)) if t > 0 else 1.0 / (1.0 + math.exp(t))
        for j in misses:
            out[i, j] = keep * math.exp(-D[i, j] / sigma - lm)
        for j in hits:
            out[i, j] = -keep * math.exp(-D[i, j] / sigma - lh)
    return out


@pytest.mark.parametrize("sigma", [1e-12, 1e-6, 1e-3, 0.3, 1.0, 10.0])
def test_irelief_coefficients_match_a_plain_loop_for_every_sigma(sigma):
    """Down to sigma = 1e-12 (where every miss weight used to underflow to 0 and the
    weights came out all zero) the coefficients are I-Relief's, as a log-sum-exp loop
    computes them."""
    from fsel.selectors.relief._iterative import irelief_coefficients

    rng = np.random.default_rng(3)
    pts = rng.normal(size=(9, 2))
    D = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2)
    bounds = np.array([0, 4, 7, 9])  # three classes, sorted
    got = irelief_coefficients(D, 0, bounds, sigma)
    np.testing.assert_allclose(got, _irelief_reference(D, bounds, sigma), rtol=1e-9, atol=1e-12)
