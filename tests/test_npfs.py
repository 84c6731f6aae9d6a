"""NPFS: the threshold rule, p-values, the estimator with any base selector."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from joblib import parallel_config
from scipy.stats import binom
from sklearn.base import clone
from sklearn.feature_selection import RFE, SelectKBest, f_classif
from sklearn.tree import DecisionTreeClassifier

import fsel
from _joblib_backends import MP_MARKS
from fsel.datasets import make_npfs_uniform
from fsel.meta.npfs import (
    NPFS,
    NPFSPowerWarning,
    min_bootstraps,
    npfs_curve,
    npfs_pvalues,
    npfs_test,
    npfs_threshold,
)


# ------------------------------------------------------------- references (plain loops)
def _zeta_loop(n, p0, alpha):
    t = 0
    while binom.cdf(t, n, p0) < 1 - alpha:
        t += 1
    return t


def _poisson_binomial_pmf_loop(ps):
    pmf = [1.0]
    for p in ps:
        new = [0.0] * (len(pmf) + 1)
        for j, v in enumerate(pmf):
            new[j] += v * (1 - p)
            new[j + 1] += v * p
        pmf = new
    return pmf


def _first_k(k):
    def select(X, y):
        return list(range(k))

    return select


# ------------------------------------------------------------- the threshold
@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 400),
    K=st.integers(1, 300),
    data=st.data(),
    alpha=st.floats(1e-4, 0.5),
)
def test_threshold_matches_scipy_binom(n, K, data, alpha):
    k = data.draw(st.integers(0, K))
    zeta = npfs_threshold(n, k, K, alpha)
    assert zeta == _zeta_loop(n, k / K, alpha)
    # definition: CDF(zeta) >= 1 - alpha and (zeta == 0 or CDF(zeta - 1) < 1 - alpha)
    assert binom.cdf(zeta, n, k / K) >= 1 - alpha
    assert zeta == 0 or binom.cdf(zeta - 1, n, k / K) < 1 - alpha


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 200), K=st.integers(2, 100), data=st.data())
def test_pvalues_match_binom_sf_and_agree_with_threshold(n, K, data):
    k = data.draw(st.integers(1, K - 1))
    z = np.arange(n + 1)
    p = npfs_pvalues(z, n, k, K)
    np.testing.assert_allclose(p, binom.sf(z - 1, n, k / K), rtol=1e-12, atol=0)
    # z > zeta  <=>  P(Z >= z) <= alpha (away from exact float ties)
    zeta = npfs_threshold(n, k, K, 0.05)
    assert (p[z > zeta] <= 0.05 + 1e-12).all()
    assert (p[z <= zeta] > 0.05 - 1e-12).all()


def test_threshold_hand_values():
    # B(100, 0.2): P(Z <= 29) = 0.9888 < 0.99 <= P(Z <= 30) = 0.9939
    assert npfs_threshold(100, 5, 25, 0.01) == 30
    # B(10, 1/2): P(Z <= 8) = 1 - 11/1024 = 0.989 >= 0.95 > P(Z <= 7) = 0.945
    assert npfs_threshold(10, 1, 2, 0.05) == 8
    assert npfs_threshold(5, 0, 10, 0.01) == 0
    assert npfs_threshold(5, 10, 10, 0.01) == 5


def test_threshold_bad_input():
    with pytest.raises(ValueError, match="alpha"):
        npfs_threshold(10, 1, 5, 0.0)
    with pytest.raises(ValueError, match="k <= K"):
        npfs_threshold(10, 6, 5, 0.01)
    with pytest.raises(ValueError, match="at least 1"):
        npfs_threshold(0, 1, 5, 0.01)
    with pytest.raises(TypeError, match="int"):
        npfs_threshold(10.5, 1, 5, 0.01)


def test_min_bootstraps():
    for k, K, a in [(5, 25, 0.01), (10, 25, 0.01), (24, 25, 0.01), (1, 2, 0.001)]:
        n = min_bootstraps(k, K, a)
        assert npfs_threshold(n, k, K, a) < n
        assert n == 1 or npfs_threshold(n - 1, k, K, a) >= n - 1
    assert min_bootstraps(5, 5) is None


# ------------------------------------------------------------- the test on a matrix
def test_exact_small_case_by_hand():
    # K = 4 features, n = 10 bootstraps, k = 1: feature 0 in 10, feature 1 in 0,
    # feature 2 in 0, feature 3 in 0 -> B(10, 1/4): P(Z <= 6) = 0.99649 >= 0.99,
    # P(Z <= 5) = 0.98027 < 0.99 so zeta = 6; p-value of z=10 is 0.25**10.
    M = np.zeros((4, 10), dtype=bool)
    M[0] = True
    r = npfs_test(M.T, alpha=0.01)
    assert r.threshold == 6
    assert r.counts.tolist() == [10, 0, 0, 0]
    assert r.relevant.tolist() == [0]
    assert r.pvalues[0] == pytest.approx(0.25**10)
    assert r.pvalues[1:].tolist() == [1.0, 1.0, 1.0]
    assert r.p0 == 0.25


def test_varying_k_uses_poisson_binomial():
    # replicate sizes 1, 2, 3 of K = 4 -> Z ~ sum Bernoulli(.25, .5, .75)
    M = np.zeros((4, 3), dtype=bool)
    M[0, :] = True
    M[1, 1:] = True
    M[2, 2] = True
    r = npfs_test(M.T, alpha=0.2)
    pmf = _poisson_binomial_pmf_loop([0.25, 0.5, 0.75])
    cdf = np.cumsum(pmf)
    zeta = int(np.flatnonzero(cdf >= 0.8)[0])
    assert r.threshold == zeta
    np.testing.assert_allclose(r.pvalues, [pmf[3], sum(pmf[2:]), sum(pmf[1:]), 1.0])
    assert r.n_selected.tolist() == [1, 2, 3]


def test_corrections_nest_and_match_threshold():
    rng = np.random.default_rng(0)
    K, n = 60, 80
    probs = np.r_[np.full(8, 0.6), np.full(K - 8, 0.1)]
    M = rng.random((K, n)) < probs[:, None]
    plain = npfs_test(M.T, 0.05)
    bonf = npfs_test(M.T, 0.05, "bonferroni")
    bh = npfs_test(M.T, 0.05, "bh")
    for r in (plain, bonf, bh):
        np.testing.assert_array_equal(r.support, r.counts > r.threshold)
    assert set(bonf.relevant) <= set(bh.relevant) <= set(plain.relevant)
    assert bonf.alpha_effective == pytest.approx(0.05 / K)
    # Benjamini-Hochberg by hand
    p = plain.pvalues
    order = np.argsort(p)
    passed = [i for i in range(K) if p[order[i]] <= 0.05 * (i + 1) / K]
    expected = set(order[: max(passed) + 1].tolist()) if passed else set()
    assert set(bh.relevant.tolist()) == expected
    with pytest.raises(ValueError, match="correction"):
        npfs_test(M.T, 0.05, "holm")


def test_curve_prefixes():
    M = np.zeros((5, 30), dtype=bool)
    M[0] = True
    M[1, ::2] = True
    ns, counts = npfs_curve(M.T, [1, 5, 30], alpha=0.01)
    for m, c in zip(ns, counts, strict=True):
        assert c == npfs_test(M.T[:m], 0.01).n_relevant


# ------------------------------------------------------------- the estimator
@pytest.fixture(scope="module")
def uniform():
    return make_npfs_uniform(300, 15, 3, random_state=0)


def _selectors():
    return {
        "kbest": SelectKBest(f_classif, k=4),
        "rfe": RFE(DecisionTreeClassifier(max_depth=3), n_features_to_select=4, step=3),
        "callable": lambda X, y: np.argsort(-f_classif(X, y)[0], kind="stable")[:4],
        "jmi": fsel.JMI(4),
    }


@pytest.mark.parametrize("name", ["kbest", "rfe", "callable", "jmi"])
def test_any_selector_recovers_relevant(uniform, name):
    X, y, relevant = uniform
    npfs = NPFS(_selectors()[name], n_resamples=30, random_state=0).fit(X, y)
    assert set(relevant.tolist()) <= set(npfs.relevant_features_.tolist())
    assert npfs.selection_matrix_.shape == (30, 15)
    assert npfs.selection_matrix_.dtype == bool
    np.testing.assert_array_equal(npfs.counts_, npfs.selection_matrix_.sum(axis=0))
    assert (npfs.n_selected_per_replicate_ == 4).all()
    assert npfs.threshold_ == npfs_threshold(30, 4, 15, 0.01)
    np.testing.assert_array_equal(npfs.support_, npfs.counts_ > npfs.threshold_)
    np.testing.assert_allclose(npfs.pvalues_, npfs_pvalues(npfs.counts_, 30, 4, 15))
    np.testing.assert_array_equal(npfs.selection_order_, npfs.relevant_features_)
    np.testing.assert_array_equal(npfs.scores_, npfs.counts_)
    assert npfs.n_relevant_ == npfs.support_.sum() == npfs.relevant_features_.size
    # sorted by count desc, then index
    c = npfs.counts_[npfs.relevant_features_]
    assert (np.diff(c) <= 0).all()
    assert npfs.transform(X).shape == (X.shape[0], npfs.n_relevant_)
    # scikit-learn's RFE rule: 1 for every relevant feature, the others 2, 3, ... by
    # decreasing count, ties by index
    assert (npfs.ranking_[npfs.relevant_features_] == 1).all()
    rest = np.flatnonzero(~npfs.support_)
    by_count = rest[np.lexsort((rest, -npfs.counts_[rest]))]
    np.testing.assert_array_equal(npfs.ranking_[by_count], np.arange(2, rest.size + 2))


def test_callable_and_kbest_give_same_matrix(uniform):
    X, y, _ = uniform
    a = NPFS(_selectors()["kbest"], n_resamples=20, random_state=3).fit(X, y)
    b = NPFS(_selectors()["callable"], n_resamples=20, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.selection_matrix_, b.selection_matrix_)


_BACKENDS = [
    ("sequential", 1),
    ("threading", 2),
    ("loky", 2),
    pytest.param(
        "multiprocessing",
        2,
        marks=MP_MARKS,
    ),
]


@pytest.mark.parametrize("backend,n_jobs", _BACKENDS)
def test_same_result_for_any_backend(uniform, backend, n_jobs):
    X, y, _ = uniform
    ref = NPFS(SelectKBest(f_classif, k=4), n_resamples=16, random_state=11).fit(X, y)
    with parallel_config(backend=backend):
        got = NPFS(SelectKBest(f_classif, k=4), n_resamples=16, random_state=11, n_jobs=n_jobs).fit(
            X, y
        )
    np.testing.assert_array_equal(ref.selection_matrix_, got.selection_matrix_)


def test_randomised_base_is_reproducible(uniform):
    X, y, _ = uniform
    base = RFE(DecisionTreeClassifier(max_features=2), n_features_to_select=4, step=4)
    a = NPFS(base, n_resamples=10, random_state=1).fit(X, y)
    b = NPFS(clone(base), n_resamples=10, random_state=1, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.selection_matrix_, b.selection_matrix_)
    assert base.estimator.random_state is None  # the caller's selector is untouched


def test_replicates_differ_and_seed_matters(uniform):
    X, y, _ = uniform
    a = NPFS(SelectKBest(f_classif, k=6), n_resamples=20, random_state=1).fit(X, y)
    b = NPFS(SelectKBest(f_classif, k=6), n_resamples=20, random_state=2).fit(X, y)
    assert len({tuple(row) for row in a.selection_matrix_}) > 1
    assert not np.array_equal(a.selection_matrix_, b.selection_matrix_)


@pytest.mark.parametrize("scheme,n", [("subsample", 12), ("kfold", 5)])
def test_other_resampling_schemes(uniform, scheme, n):
    X, y, relevant = uniform
    npfs = NPFS(
        SelectKBest(f_classif, k=4), n_resamples=n, resampling=scheme, alpha=0.05, random_state=0
    ).fit(X, y)
    assert npfs.selection_matrix_.shape == (n, 15)
    assert set(relevant.tolist()) <= set(npfs.relevant_features_.tolist())


def test_input_not_modified(uniform):
    X, y, _ = uniform
    X0, y0 = X.copy(), y.copy()
    NPFS(SelectKBest(f_classif, k=4), n_resamples=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


def test_dataframe_feature_names(uniform):
    pd = pytest.importorskip("pandas")
    X, y, _ = uniform
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    npfs = NPFS(SelectKBest(f_classif, k=4), n_resamples=20, random_state=0).fit(df, y)
    assert list(npfs.feature_names_in_) == list(df.columns)
    assert set(npfs.get_feature_names_out()) >= {"f0", "f1", "f2"}


def test_power_warning_names_smallest_n(uniform):
    X, y, _ = uniform
    # p0 = 5/15: (1/3)**4 = 0.012 > 0.01 >= (1/3)**5
    with pytest.warns(NPFSPowerWarning, match=r"n_resamples >= 5"):
        npfs = NPFS(_first_k(5), n_resamples=2, random_state=0).fit(X, y)
    assert npfs.n_relevant_ == 0
    with pytest.warns(NPFSPowerWarning, match="all 15 features"):
        NPFS(_first_k(15), n_resamples=5, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NPFS(_first_k(5), n_resamples=5, random_state=0).fit(X, y)


def test_stability_report(uniform):
    X, y, _ = uniform
    npfs = NPFS(_first_k(5), n_resamples=5, random_state=0).fit(X, y)
    assert npfs.stability_.kuncheva == pytest.approx(1.0)
    assert npfs.stability_.nogueira.stability == pytest.approx(1.0)


@MP_MARKS[0]
@MP_MARKS[1]
def test_multiprocessing_backend_with_progress(uniform):
    # joblib's "multiprocessing" backend cannot stream results (return_as="generator");
    # the replicates still run there, identically, and the progress bar still advances
    from fsel.meta.resampling import selection_matrix

    X, y, _ = uniform
    ref = selection_matrix(SelectKBest(f_classif, k=3), X, y, 8, random_state=0)
    ticks = []
    with parallel_config(backend="multiprocessing"):
        got = selection_matrix(
            SelectKBest(f_classif, k=3),
            X,
            y,
            8,
            random_state=0,
            n_jobs=2,
            progress=lambda: ticks.append(1),
        )
    np.testing.assert_array_equal(ref, got)
    assert len(ticks) == 8


@pytest.mark.parametrize("correction", [None, "bonferroni", "bh"])
def test_relevant_curve_uses_the_fitted_alpha_and_correction(correction):
    pytest.importorskip("matplotlib")
    from fsel.meta.plots import plot_relevant_vs_bootstraps

    # graded relevance: some features pass at alpha=0.3 but not at 0.01
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 16))
    w = np.r_[1.0, 0.6, 0.4, 0.3, 0.25, 0.2, np.zeros(10)]
    y = (X @ w + rng.normal(size=150) > 0).astype(int)
    npfs = NPFS(
        SelectKBest(f_classif, k=4),
        n_resamples=25,
        alpha=0.3,
        correction=correction,
        random_state=0,
    ).fit(X, y)
    default = npfs_test(npfs.selection_matrix_, alpha=0.01, correction=correction)
    assert npfs.n_relevant_ > default.n_relevant  # a curve at 0.01 would end too low
    fig = plot_relevant_vs_bootstraps(npfs)
    (line,) = fig.axes[0].get_lines()
    xs, ys = line.get_data()
    assert xs[-1] == 25 and ys[-1] == npfs.n_relevant_
    expected = npfs_curve(npfs.selection_matrix_, alpha=0.3, correction=correction)[1]
    np.testing.assert_array_equal(ys, expected)
    # explicit arguments still override the fitted ones ("none": no correction)
    fig = plot_relevant_vs_bootstraps(npfs, alpha=0.01, correction=correction or "none")
    assert fig.axes[0].get_lines()[0].get_data()[1][-1] == default.n_relevant


def test_plots_smoke(uniform, tmp_path):
    pytest.importorskip("matplotlib")
    from fsel.meta.plots import plot_relevant_vs_bootstraps, plot_selection_matrix

    X, y, _ = uniform
    npfs = NPFS(SelectKBest(f_classif, k=4), n_resamples=10, random_state=0).fit(X, y)
    plot_selection_matrix(npfs, tmp_path / "m.png")
    plot_relevant_vs_bootstraps(npfs, tmp_path / "c.png", true_k=3)
    assert (tmp_path / "m.png").stat().st_size > 0 and (tmp_path / "c.png").stat().st_size > 0
    with pytest.raises(ValueError, match="not fitted"):
        plot_selection_matrix(NPFS(SelectKBest()))


@pytest.mark.parametrize(
    "params,err,match",
    [
        ({"selector": "jmi"}, TypeError, "selector"),
        ({"selector": DecisionTreeClassifier()}, TypeError, "get_support"),
        ({"n_resamples": 0}, ValueError, "n_resamples"),
        ({"alpha": 1.0}, ValueError, "alpha"),
        ({"correction": "holm"}, ValueError, "correction"),
        ({"resampling": "jackknife"}, ValueError, "resampling"),
    ],
)
def test_bad_params(uniform, params, err, match):
    X, y, _ = uniform
    kw = {"selector": SelectKBest(k=2), **params}
    with pytest.raises(err, match=match):
        NPFS(**kw).fit(X, y)


def test_bad_data():
    X = np.ones((10, 3))
    X[0, 0] = np.nan
    # missing values go through to the wrapped selector, which decides (SPEC section 10)
    with pytest.raises(ValueError, match="NaN"):
        NPFS(fsel.RankingIndex(index="K3", n_features_to_select=1, missing="error")).fit(
            X, np.arange(10) % 2
        )
    X[0, 0] = np.inf  # inf stays an error of NPFS itself
    with pytest.raises(ValueError, match="inf"):
        NPFS(SelectKBest(k=1)).fit(X, np.arange(10) % 2)
    with pytest.raises(ValueError, match="inconsistent"):
        NPFS(SelectKBest(k=1)).fit(np.ones((10, 3)), [0, 1])
    with pytest.raises(ValueError, match="returned feature index"):
        NPFS(lambda X, y: [7], n_resamples=2).fit(np.arange(30.0).reshape(10, 3), np.arange(10) % 2)


# ------------------------------------------------------------- statistical validity
def _random_k(k):
    def select(X, y):
        # the exact null of the test: k features drawn at random (seeded by the rows)
        seed = int(np.asarray(X)[:, 0].sum() * 1e6) % (2**32)
        return np.random.default_rng(seed).choice(X.shape[1], size=k, replace=False)

    return select


@pytest.mark.slow
def test_false_positive_rate_under_exact_null():
    # when the base selector picks at random, each feature is declared relevant with
    # probability P(Z > zeta) <= alpha
    rng = np.random.default_rng(0)
    alpha, K, k, n = 0.05, 40, 8, 60
    rates = []
    for r in range(40):
        X = rng.uniform(0, 10, (50, K))
        y = rng.integers(0, 2, 50)
        npfs = NPFS(_random_k(k), n_resamples=n, alpha=alpha, random_state=r).fit(X, y)
        rates.append(npfs.n_relevant_ / K)
    exact = binom.sf(npfs_threshold(n, k, K, alpha), n, k / K)
    assert exact <= alpha
    # 1600 feature tests: the mean rate is within 3 standard errors of the exact size
    se = np.sqrt(exact * (1 - exact) / (40 * K))
    assert np.mean(rates) <= exact + 3 * se


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="known limitation of NPFS (README caveat), measured: with y independent of X, "
    "39 of the 300 feature tests below pass (13%; 5-7 of K=50 per data set, JMI k=5, "
    "N=200, n=100 bootstraps, alpha=0.01), not the 3% this asserts. Why: the binomial "
    "null B(n, k/K) models a selector picking at random on each bootstrap, but every "
    "bootstrap resamples the SAME sample, so its chance correlations with y survive in "
    "all of them and JMI picks the same noise features again and again. The test "
    "measures consistent selection, not irrelevance in the population.",
)
def test_false_positive_rate_with_independent_target():
    rng = np.random.default_rng(0)
    rates = []
    for r in range(6):
        X = rng.uniform(0, 10, (200, 50))
        y = rng.integers(0, 2, 200)
        rates.append(NPFS(fsel.JMI(5), n_resamples=100, random_state=r).fit(X, y).n_relevant_)
    assert np.mean(rates) / 50 <= 0.03


def test_verbose_progress_gives_same_result(uniform, capsys):
    X, y, _ = uniform
    a = NPFS(SelectKBest(f_classif, k=4), n_resamples=8, random_state=0).fit(X, y)
    b = NPFS(SelectKBest(f_classif, k=4), n_resamples=8, random_state=0, verbose=1).fit(X, y)
    np.testing.assert_array_equal(a.selection_matrix_, b.selection_matrix_)
    # the bar draws only on a terminal; under pytest stderr is captured, not a tty
    assert "NPFS" not in capsys.readouterr().err
