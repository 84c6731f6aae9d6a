"""The knockoff filter: the Gaussian construction's defining property, the knockoff+
threshold against brute force, the flip-sign property of the statistics, recovery and
false-discovery-rate control on generated data, input handling."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import Lasso

import fsel
from fsel.meta._knockoff_construction import (
    asdp_s,
    ebh_select,
    equicorrelated_s,
    gaussian_knockoffs,
    knockoff_conditional,
    knockoff_evalues,
    knockoff_threshold,
    knockoff_w,
    max_feasible_scale,
    sdp_s,
    solve_s,
)
from fsel.meta.knockoffs import KnockoffFilter, knockoff_importances, rfe_ranking


def ar1(p: int, rho: float) -> np.ndarray:
    return rho ** np.abs(np.subtract.outer(np.arange(p), np.arange(p)))


def joint(sigma: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The covariance of [X, X~] that valid second-order knockoffs must have."""
    off = sigma - np.diag(s)
    return np.block([[sigma, off], [off, sigma]])


def swap(p: int, cols: list[int]) -> np.ndarray:
    """The column permutation of [X, X~] that swaps each j in cols with its knockoff."""
    perm = np.arange(2 * p)
    for j in cols:
        perm[j], perm[j + p] = j + p, j
    return perm


# ----------------------------------------------------------------- construction
@pytest.mark.parametrize("method", ["equicorrelated", "asdp", "sdp"])
@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
def test_conditional_law_gives_the_knockoff_covariance_exactly(method, rho):
    sigma = ar1(12, rho) * np.outer(np.arange(1, 13), np.arange(1, 13)) ** 0.5  # unequal vars
    s = solve_s(sigma, method, max_block=5)
    A, V = knockoff_conditional(sigma, s)
    # Cov(X, X~) = Sigma A = Sigma - S ; Cov(X~) = A' Sigma A + V = Sigma
    np.testing.assert_allclose(sigma @ A, sigma - np.diag(s), atol=1e-9)
    np.testing.assert_allclose(A.T @ sigma @ A + V, sigma, atol=1e-9)
    # the joint matrix is a covariance (PSD), and swapping is an exact symmetry of it
    G = joint(sigma, s)
    assert np.linalg.eigvalsh(G)[0] > -1e-9
    assert np.linalg.eigvalsh(V)[0] > -1e-9
    for cols in ([0], [3, 7], list(range(12))):
        P = swap(12, cols)
        np.testing.assert_array_equal(G[np.ix_(P, P)], G)
    assert np.all(s >= 0) and np.all(s <= np.diag(sigma) + 1e-12)


def test_swapping_leaves_the_empirical_joint_covariance_unchanged():
    p, n = 4, 200_000
    sigma = ar1(p, 0.6)
    rng = np.random.default_rng(0)
    X = rng.multivariate_normal(np.zeros(p), sigma, size=n)
    s = solve_s(sigma, "asdp")
    Xk = gaussian_knockoffs(X, np.zeros(p), sigma, s, np.random.default_rng(1))
    Z = np.hstack([X, Xk])
    G = joint(sigma, s)
    emp = np.cov(Z, rowvar=False)
    np.testing.assert_allclose(emp, G, atol=0.02)  # Monte Carlo sd about 1/sqrt(n) * 2
    for cols in ([0], [1, 2], [0, 1, 2, 3]):
        swapped = np.cov(Z[:, swap(p, cols)], rowvar=False)
        np.testing.assert_allclose(swapped, G, atol=0.02)
        # and the means are unchanged too
        np.testing.assert_allclose(Z[:, swap(p, cols)].mean(axis=0), 0.0, atol=0.02)


def test_s_choices_by_hand():
    C = np.array([[1.0, 0.8], [0.8, 1.0]])  # eigenvalues 0.2 and 1.8
    np.testing.assert_allclose(equicorrelated_s(C), [0.4, 0.4])
    assert max_feasible_scale(C, np.array([1.0, 1.0])) == pytest.approx(0.4)
    # the SDP optimum of two features with correlation r: s = min(1, 2 (1 - |r|)) each
    for r in (0.3, 0.8, -0.6):
        C = np.array([[1.0, r], [r, 1.0]])
        assert sdp_s(C).sum() == pytest.approx(2 * min(1.0, 2 * (1 - abs(r))), abs=5e-3)
    # independent blocks: ASDP is the blocks' SDP and is at least the equicorrelated sum
    C = np.kron(np.eye(3), np.array([[1.0, 0.7], [0.7, 1.0]]))
    s = asdp_s(C, max_block=2)
    assert s.sum() == pytest.approx(6 * 0.6, abs=1e-2)
    assert s.sum() >= equicorrelated_s(C).sum() - 1e-9


def test_asdp_p500_is_feasible_and_no_worse_than_equicorrelated():
    C = ar1(500, 0.5)
    s = solve_s(C, "asdp")
    assert np.linalg.eigvalsh(2 * C - np.diag(s))[0] > -1e-9
    assert s.sum() >= solve_s(C, "equicorrelated").sum() - 1e-6


# ----------------------------------------------------------------- threshold
def brute_force_threshold(W, q, offset):
    best = math.inf
    for t in sorted({abs(w) for w in W if w != 0}):
        neg = sum(1 for w in W if w <= -t)
        pos = sum(1 for w in W if w >= t)
        if (offset + neg) / max(1, pos) <= q:
            best = min(best, t)
    return best


@settings(max_examples=300, deadline=None)
@given(
    W=st.lists(st.integers(-6, 6).map(float), min_size=0, max_size=40),
    q=st.floats(0.01, 0.99),
    offset=st.sampled_from([0, 1]),
)
def test_knockoff_threshold_matches_brute_force(W, q, offset):
    assert knockoff_threshold(W, q, offset) == brute_force_threshold(W, q, offset)


def test_threshold_and_evalues_by_hand():
    W = [5, 4, 3, 2, 1, -1]
    assert knockoff_threshold(W, 0.5) == 1.0  # (1 + 1) / 5 = 0.4
    assert knockoff_threshold(W, 0.3) == 2.0  # t = 2: (1 + 0) / 4 = 0.25
    assert knockoff_threshold(W, 0.2) == math.inf
    assert knockoff_threshold([0.0, 0.0], 0.5) == math.inf
    np.testing.assert_allclose(knockoff_evalues(W, 2.0), [6, 6, 6, 6, 0, 0])  # 6 / (1 + 0)
    # e-BH, p = 4, q = 0.5: sorted e 12 >= 8, 9 >= 4, 3 >= 8/3, 1 < 2
    assert ebh_select([1.0, 9.0, 12.0, 3.0], 0.5).tolist() == [2, 1, 3]
    assert ebh_select([1.0, 1.0], 0.1).tolist() == []


def test_rfe_ranking():
    r = rfe_ranking(np.array([True, False, False, True]), np.array([1.0, 5.0, 5.0, 0.0]))
    assert r.tolist() == [1, 2, 3, 1]


# ----------------------------------------------------------------- statistics
def _swap_columns(X, Xk, cols):
    X2, Xk2 = X.copy(), Xk.copy()
    X2[:, cols], Xk2[:, cols] = Xk[:, cols], X[:, cols]
    return X2, Xk2


@pytest.mark.parametrize(
    "stat",
    [
        fsel.JMI(n_features_to_select=0.5),
        fsel.MIM(n_features_to_select=0.25),
        fsel.ReliefF(n_features_to_select=0.5),
        Lasso(alpha=0.05),
        lambda X2, y: np.abs((X2 - X2.mean(0)).T @ (y - y.mean())),
    ],
    ids=["JMI-order", "MIM-order", "ReliefF-order", "lasso", "callable"],
)
def test_flip_sign_property(stat):
    rng = np.random.default_rng(3)
    n, p = 300, 8
    sigma = ar1(p, 0.4)
    X = rng.multivariate_normal(np.zeros(p), sigma, size=n)
    Xk = gaussian_knockoffs(X, np.zeros(p), sigma, solve_s(sigma, "asdp"), rng)
    y = X[:, 0] + X[:, 1] - X[:, 2] + 0.5 * rng.normal(size=n)
    if type(stat).__module__.startswith("fsel"):
        y = (y > 0).astype(int)

    def W(A, B):
        return knockoff_w(knockoff_importances(stat, np.hstack([A, B]), y, statistic="auto"))

    base = W(X, Xk)
    cols = [0, 3, 5]
    flipped = W(*_swap_columns(X, Xk, cols))
    sign = np.ones(p)
    sign[cols] = -1
    np.testing.assert_allclose(flipped, sign * base, atol=1e-4)  # solver tolerance


# ----------------------------------------------------------------- the filter
def _logistic_data(seed, n=800, p=60, k=15, rho=0.3, amp=1.0):
    rng = np.random.default_rng(seed)
    X = rng.multivariate_normal(np.zeros(p), ar1(p, rho), size=n)
    rel = np.sort(rng.choice(p, k, replace=False))
    beta = np.zeros(p)
    beta[rel] = amp * rng.choice([-1.0, 1.0], k)
    y = (rng.random(n) < 1 / (1 + np.exp(-X @ beta))).astype(int)
    return X, y, rel


def test_recovers_the_relevant_features():
    X, y, rel = _logistic_data(0)
    kf = KnockoffFilter(fdr=0.2, random_state=0).fit(X, y)
    hits = np.isin(kf.relevant_features_, rel).sum()
    assert hits >= 10
    assert kf.relevant_features_.size - hits <= 0.4 * kf.relevant_features_.size  # one draw
    assert kf.support_.sum() == kf.relevant_features_.size
    assert np.all(kf.W_[kf.support_] >= kf.threshold_)
    assert set(kf.ranking_[kf.support_].tolist()) == {1}
    assert kf.W_draws_.shape == (1, 60)
    assert kf.transform(X).shape == (800, kf.support_.sum())


def test_regression_target_and_lasso_default():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 40))
    y = X[:, :12] @ np.full(12, 0.6) + rng.normal(size=500)
    kf = KnockoffFilter(fdr=0.2, random_state=0).fit(X, y)
    assert np.isin(np.arange(12), kf.relevant_features_).sum() >= 10
    assert (kf.relevant_features_ >= 12).sum() <= 3


def test_one_draw_gives_its_selector_the_threads(monkeypatch):
    """With one draw there is nothing to spread over workers: the draw runs here and a
    selector that leaves ``n_jobs`` unset fits in ``n_jobs`` threads (a clone: the
    caller's selector is untouched), with the same statistics."""
    import fsel.meta.knockoffs as ko

    X, y, _ = _logistic_data(3, n=300, p=12, k=4)
    seen = []
    real = ko._one_draw

    def spy(X, y, seed, **kw):
        seen.append(kw["selector"].get_params()["n_jobs"])
        return real(X, y, seed, **kw)

    monkeypatch.setattr(ko, "_one_draw", spy)
    selector = fsel.JMI(6)
    a = KnockoffFilter(selector, fdr=0.3, random_state=2).fit(X, y)
    b = KnockoffFilter(selector, fdr=0.3, random_state=2, n_jobs=2).fit(X, y)
    assert seen == [None, 2]
    assert selector.n_jobs is None
    np.testing.assert_array_equal(a.W_draws_, b.W_draws_)
    fixed = fsel.JMI(6, n_jobs=1)  # a setting of the caller's own is kept
    KnockoffFilter(fixed, fdr=0.3, random_state=2, n_jobs=2).fit(X, y)
    assert seen[-1] == 1


def test_seed_gives_identical_results_whatever_n_jobs():
    X, y, _ = _logistic_data(2, n=300, p=20, k=10)
    a = KnockoffFilter(fdr=0.3, n_draws=3, random_state=5).fit(X, y)
    b = KnockoffFilter(fdr=0.3, n_draws=3, random_state=5, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.W_draws_, b.W_draws_)
    np.testing.assert_array_equal(a.support_, b.support_)
    assert a.evalues_.shape == (20,)
    assert a.W_draws_.shape == (3, 20)
    # e-BH on the mean e-values, recomputed here from the draws
    e = np.mean([knockoff_evalues(w, knockoff_threshold(w, 0.15)) for w in a.W_draws_], axis=0)
    np.testing.assert_allclose(a.evalues_, e)
    np.testing.assert_array_equal(np.sort(ebh_select(e, 0.3)), np.flatnonzero(a.support_))


def test_dataframes_and_given_knockoffs():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    X, y, _ = _logistic_data(3, n=300, p=12, k=10)
    names = [f"f{j}" for j in range(12)]
    a = KnockoffFilter(fdr=0.3, random_state=0).fit(pd.DataFrame(X, columns=names), y)
    b = KnockoffFilter(fdr=0.3, random_state=0).fit(pl.DataFrame(X, schema=names), y)
    c = KnockoffFilter(fdr=0.3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.W_, c.W_)
    np.testing.assert_array_equal(b.W_, c.W_)
    assert a.feature_names_in_.tolist() == names
    # knockoffs you built: used as they are, kept on request
    Xk = np.random.default_rng(0).normal(size=X.shape)
    d = KnockoffFilter(fdr=0.3, knockoffs=Xk, keep_knockoffs=True, random_state=0).fit(X, y)
    np.testing.assert_array_equal(d.knockoffs_, Xk)
    e = KnockoffFilter(fdr=0.3, knockoffs=lambda X, rng: Xk, random_state=0).fit(X, y)
    np.testing.assert_array_equal(d.W_, e.W_)


def test_clear_errors():
    pd = pytest.importorskip("pandas")
    X, y, _ = _logistic_data(4, n=100, p=5, k=2)
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="missing values"):
        KnockoffFilter().fit(Xn, y)
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(5)])
    df["c"] = pd.Categorical(np.where(X[:, 0] > 0, "a", "b"))
    with pytest.raises(ValueError, match="categorical"):
        KnockoffFilter().fit(df, y)
    with pytest.raises(ValueError, match="categorical"):
        KnockoffFilter(categorical=[1]).fit(X, y)
    with pytest.raises(ValueError, match="fdr"):
        KnockoffFilter(fdr=1.5).fit(X, y)
    with pytest.raises(ValueError, match="shape"):
        KnockoffFilter(knockoffs=np.zeros((3, 3))).fit(X, y)
    with pytest.raises(TypeError, match="importances"):
        from sklearn.feature_selection import SelectKBest

        KnockoffFilter(SelectKBest(k=2)).fit(X, y)
    with pytest.raises(ValueError, match="s_method"):
        KnockoffFilter(s_method="x").fit(X, y)
    assert not np.isnan(X).any()  # inputs never modified


@pytest.mark.slow
def test_fdr_is_controlled_with_the_true_covariance():
    """Empirical FDR over replicates with valid knockoffs (true covariance) is at most
    q within Monte Carlo error (3 standard errors)."""
    p, n, k, q, reps = 50, 300, 12, 0.2, 60
    sigma = ar1(p, 0.5)
    s = solve_s(sigma, "asdp")
    fdp, power = [], []
    for r in range(reps):
        rng = np.random.default_rng(100 + r)
        X = rng.multivariate_normal(np.zeros(p), sigma, size=n)
        rel = rng.choice(p, k, replace=False)
        beta = np.zeros(p)
        beta[rel] = 0.7 * rng.choice([-1.0, 1.0], k)
        y = X @ beta + rng.normal(size=n)

        def true_knockoffs(X, rng):
            return gaussian_knockoffs(X, np.zeros(p), sigma, s, rng)

        kf = KnockoffFilter(Lasso(alpha=0.05), fdr=q, knockoffs=true_knockoffs, random_state=r)
        sel = kf.fit(X, y).relevant_features_
        tp = np.isin(sel, rel).sum()
        fdp.append((sel.size - tp) / max(1, sel.size))
        power.append(tp / k)
    se = np.std(fdp) / np.sqrt(reps)
    assert np.mean(fdp) <= q + 3 * se
    assert np.mean(power) > 0.5


@pytest.mark.parametrize(
    ("transform", "pattern"),
    [
        (lambda X: np.ones_like(X), r"column 0 has a variance of 0"),
        (lambda X: X * 1e200, r"column 0 has a variance of inf"),
        (lambda X: X * 1e-200, r"column 0 has a variance of 0"),
    ],
)
def test_gaussian_knockoffs_need_a_finite_positive_spread(transform, pattern):
    """A constant column, or values whose variance overflows or underflows float64,
    was a LinAlgError or scikit-learn's "Input contains NaN" from inside the fit."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match=pattern):
        KnockoffFilter(random_state=0).fit(transform(X), y)


@pytest.mark.filterwarnings("ignore:KnockoffFilter. no feature passed:UserWarning")  # 5 columns
def test_default_statistic_needs_ten_rows_and_takes_mixed_labels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    with pytest.raises(ValueError, match="at least 10 rows, got 3"):
        KnockoffFilter(random_state=0).fit(X[:3], y[:3])
    mixed = np.array([1 if v else "b" for v in y], dtype=object)  # numpy cannot sort it
    est = KnockoffFilter(random_state=0).fit(X, mixed)
    assert est.scores_.shape == (5,)


# ----------------------------------------------------------------- set-up reuse
def _per_draw_knockoffs(X, mu, sigma, s, rng):
    """The construction as it was before the set-up was shared: everything per draw."""
    S = np.diag(s)
    sinv_s = np.linalg.solve(sigma, S)
    A = np.eye(sigma.shape[0]) - sinv_s
    V = 2.0 * S - S @ sinv_s
    V = (V + V.T) / 2.0
    lam, U = np.linalg.eigh(V)
    L = U * np.sqrt(np.clip(lam, 0.0, None))
    E = rng.standard_normal(X.shape)
    return mu + (X - mu) @ A + E @ L.T


@pytest.mark.filterwarnings("ignore:KnockoffFilter. no feature passed:UserWarning")
@pytest.mark.parametrize("method", ["equicorrelated", "asdp"])
def test_shared_set_up_gives_the_per_draw_knockoffs_bit_for_bit(method):
    from fsel.meta._knockoff_construction import shrinkage_covariance
    from fsel.meta.resampling import replicate_seeds

    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 30)) @ rng.normal(size=(30, 30)) * 0.3 + rng.normal(size=(90, 30))
    y = (X[:, :4].sum(axis=1) > 0).astype(int)
    mu, sigma = shrinkage_covariance(X)
    s = solve_s(sigma, method)
    for seed in (0, 1):
        old = _per_draw_knockoffs(X, mu, sigma, s, np.random.default_rng(seed))
        np.testing.assert_array_equal(
            gaussian_knockoffs(X, mu, sigma, s, np.random.default_rng(seed)), old
        )
    _, V = knockoff_conditional(sigma, s)
    S = np.diag(s)
    V_dense = 2.0 * S - S @ np.linalg.solve(sigma, S)
    np.testing.assert_array_equal(V, (V_dense + V_dense.T) / 2.0)
    # the filter's draws: one seed each, drawn as before
    stat = lambda X2, y: np.abs(X2[:20].sum(axis=0))  # noqa: E731
    kf = KnockoffFilter(stat, s_method=method, n_draws=3, random_state=5, keep_knockoffs=True).fit(
        X, y
    )
    for seed, got in zip(replicate_seeds(5, 3), kf.knockoffs_, strict=True):
        old = _per_draw_knockoffs(X, mu, sigma, kf.s_, np.random.default_rng(seed))
        np.testing.assert_array_equal(got, old)


@pytest.mark.filterwarnings("ignore:KnockoffFilter. no feature passed:UserWarning")
def test_set_up_is_computed_once_per_fit(monkeypatch):
    from fsel.meta import _knockoff_construction as kc

    calls = []
    real = kc._psd_sqrt
    monkeypatch.setattr(kc, "_psd_sqrt", lambda V: calls.append(1) or real(V))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 10))
    y = (X[:, 0] > 0).astype(int)
    stat = lambda X2, y: np.abs(X2[:20].sum(axis=0))  # noqa: E731
    KnockoffFilter(stat, n_draws=4, random_state=0).fit(X, y)
    assert len(calls) == 1
    # a covariance changed in place is set up anew
    mu, sigma = kc.shrinkage_covariance(X)
    s = solve_s(sigma, "equicorrelated")
    a = gaussian_knockoffs(X, mu, sigma, s, np.random.default_rng(0))
    sigma *= 2.0
    b = gaussian_knockoffs(X, mu, sigma, s, np.random.default_rng(0))
    assert len(calls) == 3 and not np.array_equal(a, b)
    np.testing.assert_array_equal(b, _per_draw_knockoffs(X, mu, sigma, s, np.random.default_rng(0)))


def _three_strong(seed=9, n=600):
    """The audit's case: 3 strong relevant features among 30 (f_classif p < 1e-27)."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 30))
    y = ((Z[:, 0] + Z[:, 1] + Z[:, 2] + 0.5 * rng.normal(size=n)) > 0).astype(int)
    return Z, y


def test_an_empty_selection_warns_once():
    """Fewer relevant features than knockoff+ needs at this fdr (about 1/fdr = 10):
    nothing passes, and fit says why in one warning."""
    Z, y = _three_strong()
    with pytest.warns(UserWarning, match="no feature passed at fdr=0.1") as record:
        kf = KnockoffFilter(random_state=0).fit(Z, y)
    msgs = [str(w.message) for w in record if "no feature passed" in str(w.message)]
    assert len(msgs) == 1
    assert "1/fdr = 10" in msgs[0] and "offset=0" in msgs[0] and "NPFS" in msgs[0]
    assert kf.relevant_features_.size == 0 and math.isinf(kf.threshold_)


def test_a_non_empty_selection_does_not_warn():
    Z, y = _three_strong()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kf = KnockoffFilter(fdr=0.5, offset=0, random_state=0).fit(Z, y)
    assert kf.relevant_features_.size > 0
