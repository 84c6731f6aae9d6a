"""Stability selection (bounds by hand, complementary pairs, a plain-loop twin, recovery),
calibrated NPFS (permutation null) and the estimator checks of both new
meta-estimators and the knockoff filter."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fsel
from fsel.meta.npfs import NPFS, npfs_permutation_test
from fsel.meta.stability_selection import (
    StabilitySelection,
    complementary_pairs,
    meinshausen_buhlmann_bound,
    unimodal_bound,
)


def test_meinshausen_buhlmann_bound_by_hand():
    assert meinshausen_buhlmann_bound(5, 100, 0.6) == pytest.approx(25 / 20)
    assert meinshausen_buhlmann_bound(5, 100, 0.75) == pytest.approx(25 / 50)
    assert meinshausen_buhlmann_bound(10, 1000, 0.9) == pytest.approx(100 / 800)
    assert meinshausen_buhlmann_bound(3, 10, 1.0) == pytest.approx(0.9)
    assert meinshausen_buhlmann_bound(3, 10, 0.5) == math.inf


def test_unimodal_bound_by_hand():
    # theta = 0.05, B = 50: range starts at min(0.5 + 0.0025, 0.5 + 0.01 + 0.001875)
    assert unimodal_bound(5, 100, 0.6, 50) == pytest.approx(0.25 / (2 * (0.2 - 0.01)))
    assert unimodal_bound(5, 100, 0.75, 50) == pytest.approx(0.25 / (2 * (0.5 - 0.01)))
    assert unimodal_bound(5, 100, 0.9, 50) == pytest.approx(0.25 * 4 * 0.11 / 1.02)
    assert unimodal_bound(5, 100, 1.0, 50) == pytest.approx(0.25 * 4 * 0.01 / 1.02)
    assert unimodal_bound(5, 100, 0.54, 50) == pytest.approx(0.25 / (2 * (0.08 - 0.01)))
    assert math.isnan(unimodal_bound(5, 100, 0.5025, 50))  # the open end of the range
    # theta = 0.2: the range starts at min(0.54, 0.51 + 0.03) = 0.54 (with theta, not
    # its square, at 0.66: the bound was withheld there)
    assert unimodal_bound(20, 100, 0.6, 50) == pytest.approx(4 / (2 * (0.2 - 0.01)))
    # theta = 0.6: min(0.86, 0.51 + 0.27) = 0.78 > 3/4, no first case at all
    assert math.isnan(unimodal_bound(60, 100, 0.7, 50))
    # tighter than Meinshausen & Buhlmann's where both apply
    for t in (0.6, 0.7, 0.8, 0.9):
        assert unimodal_bound(5, 100, t, 50) < meinshausen_buhlmann_bound(5, 100, t)


def test_complementary_pairs_are_disjoint_halves():
    halves = complementary_pairs(101, 7, random_state=3)
    assert len(halves) == 14
    for a, b in zip(halves[::2], halves[1::2], strict=True):
        assert a.size == b.size == 50
        assert np.intersect1d(a, b).size == 0
    again = complementary_pairs(101, 7, random_state=3)
    assert all((x == y).all() for x, y in zip(halves, again, strict=True))


def _data(seed=0, n=400, p=30):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + X[:, 1] + X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def top_corr(k):
    def select(X, y):
        c = np.abs(np.corrcoef(np.column_stack([X, y]), rowvar=False)[-1, :-1])
        return np.argsort(-c, kind="stable")[:k]

    return select


def test_frequencies_match_a_plain_loop_twin():
    X, y = _data(1)
    ss = StabilitySelection(top_corr(4), threshold=0.7, n_resamples=10, random_state=2).fit(X, y)
    M = np.zeros((20, 30), dtype=bool)
    for r, idx in enumerate(complementary_pairs(400, 10, random_state=2)):
        M[r, top_corr(4)(X[idx], y[idx])] = True
    np.testing.assert_array_equal(ss.selection_matrix_, M)
    np.testing.assert_allclose(ss.selection_frequencies_, M.mean(axis=0))
    assert ss.average_selected_ == 4.0
    assert ss.error_bound_ == pytest.approx(16 / (0.4 * 30))
    assert ss.unimodal_error_bound_ == pytest.approx(unimodal_bound(4, 30, 0.7, 10))
    np.testing.assert_array_equal(ss.support_, M.mean(axis=0) >= 0.7)
    assert ss.ranking_[ss.support_].tolist() == [1] * int(ss.support_.sum())


def test_recovery_seed_and_n_jobs():
    X, y = _data(2)
    a = StabilitySelection(fsel.JMI(3), n_resamples=10, random_state=0).fit(X, y)
    b = StabilitySelection(fsel.JMI(3), n_resamples=10, random_state=0, n_jobs=2).fit(X, y)
    assert a.relevant_features_.tolist() == [0, 1, 2] or set(a.relevant_features_) == {0, 1, 2}
    np.testing.assert_array_equal(a.selection_matrix_, b.selection_matrix_)
    c = StabilitySelection(fsel.JMI(3), n_resamples=10, resampling="subsample", random_state=0)
    assert set(c.fit(X, y).relevant_features_) == {0, 1, 2}
    assert math.isnan(c.unimodal_error_bound_)
    assert c.selection_matrix_.shape == (10, 30)


def test_stability_selection_errors():
    X, y = _data(3, n=40, p=4)
    with pytest.raises(ValueError, match="threshold"):
        StabilitySelection(fsel.JMI(2), threshold=1.5).fit(X, y)
    with pytest.raises(ValueError, match="resampling"):
        StabilitySelection(fsel.JMI(2), resampling="kfold").fit(X, y)
    with pytest.raises(TypeError, match="selector"):
        StabilitySelection(None).fit(X, y)


# ----------------------------------------------------------------- calibrated NPFS
def test_permutation_test_by_hand():
    M = np.zeros((10, 3), dtype=bool)  # replicates x features
    M[:9, 0] = True  # count 9
    M[:4, 1] = True  # count 4
    null = np.array([[4, 3, 2], [5, 2, 1]])  # pooled: 1 2 2 3 4 5
    r = npfs_permutation_test(M, null, alpha=0.2)
    # F(4) = 5/6 >= 0.8 > F(3) = 4/6: zeta = 4
    assert r.threshold == 4
    assert r.relevant.tolist() == [0]
    np.testing.assert_allclose(r.pvalues, [1 / 7, 3 / 7, 1.0])
    rb = npfs_permutation_test(M, null, alpha=0.5, correction="bh")
    # BH on 1/7, 3/7, 1 at 0.5: 1/7 <= 1/6, 3/7 <= 1/3? no -> one feature
    assert rb.relevant.tolist() == [0]


@pytest.mark.slow
def test_calibrated_npfs_holds_alpha_when_y_is_unrelated():
    """README's finding: with y unrelated to X, JMI + NPFS's binomial null lets many
    features through; the permutation null keeps the share near alpha."""
    rng = np.random.default_rng(0)
    n, p, alpha = 200, 40, 0.05
    found_binom, found_perm = [], []
    for r in range(4):
        X = rng.integers(0, 4, size=(n, p)) * rng.uniform(0.5, 2, size=p)  # unequal levels
        X[:, : p // 2] = np.round(X[:, : p // 2] + rng.normal(size=(n, p // 2)), 1)
        y = rng.integers(0, 2, n)
        base = NPFS(fsel.JMI(4), n_resamples=30, alpha=alpha, random_state=r).fit(X, y)
        cal = NPFS(
            fsel.JMI(4),
            n_resamples=30,
            alpha=alpha,
            random_state=r,
            null="permutation",
            n_permutations=10,
        ).fit(X, y)
        found_binom.append(base.n_relevant_ / p)
        found_perm.append(cal.n_relevant_ / p)
    assert np.mean(found_perm) <= alpha + 0.05
    assert np.mean(found_perm) < np.mean(found_binom)
