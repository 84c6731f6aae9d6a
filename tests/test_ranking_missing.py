"""Missing values in the ranking indices (SPEC section 10): ``missing="available"``.

The reference drops, for every feature separately, the rows where that feature is
missing and scores the remaining column with the complete-data kernel, one feature at
a time (no grouping, no shared calls).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsel import BootstrapRanking, RankingIndex
from fsel.kernels.ranking_indices import (
    INDEX_NAMES,
    ranking_scores,
    ranking_scores_batch,
)
from fsel.meta.bootstrap_ranking import bootstrap_scores
from fsel.meta.resampling import resample_indices

NEED = {"In": 2, "In3": 4, "In5": 6}


def reference_available(X: np.ndarray, y: np.ndarray, name: str) -> np.ndarray:
    """Per feature: drop its NaN rows and score it alone (NaN when not scorable)."""
    out = np.full(X.shape[1], np.nan)
    for j in range(X.shape[1]):
        keep = ~np.isnan(X[:, j])
        xj, yj = X[keep, j : j + 1], y[keep]
        if keep.sum() < max(2, NEED.get(name, 2)) or np.all(yj == yj[0]):
            continue
        out[j] = ranking_scores(xj, yj, name)[name][0]
    return out


def _holes(rng: np.random.Generator, X: np.ndarray, rate: float) -> np.ndarray:
    X = X.copy()
    X[rng.random(X.shape) < rate] = np.nan
    return X


@pytest.mark.parametrize("name", INDEX_NAMES)
def test_available_matches_per_feature_deletion(name: str) -> None:
    rng = np.random.default_rng(3)
    n, d = 120, 7
    X = rng.standard_normal((n, d))
    X[:, 5] = rng.integers(0, 3, n)  # ties
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.standard_normal(n)
    Xm = _holes(rng, X, 0.25)
    Xm[:, 6] = X[:, 6]  # one complete column beside incomplete ones
    got = ranking_scores(Xm, y, name, missing="available")[name]
    np.testing.assert_allclose(got, reference_available(Xm, y, name), rtol=1e-12, atol=1e-14)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(6, 40),
    rate=st.floats(0.0, 0.9),
    classes=st.booleans(),
)
def test_available_property(seed: int, n: int, rate: float, classes: bool) -> None:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, 4)).astype(float)
    y = rng.integers(0, 3, n).astype(float) if classes else rng.standard_normal(n)
    if np.all(y == y[0]):
        y[0] += 1.0
    Xm = _holes(rng, X, rate)
    names = ("In", "In5", "K1", "K3", "chi2", "mi")
    got = ranking_scores(Xm, y, names, missing="available", n_slices=3, n_bins_x=2, n_bins_y=2)
    for nm in names:
        ref = np.full(4, np.nan)
        for j in range(4):
            keep = ~np.isnan(Xm[:, j])
            yj = y[keep]
            if keep.sum() < max(2, NEED.get(nm, 2)) or np.all(yj == yj[0]):
                continue
            ref[j] = ranking_scores(
                Xm[keep, j : j + 1], yj, nm, n_slices=3, n_bins_x=2, n_bins_y=2
            )[nm][0]
        np.testing.assert_allclose(got[nm], ref, rtol=1e-12, atol=1e-14)


def test_no_nan_is_bit_identical_and_error_rule() -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((80, 5))
    y = X[:, 2] + rng.standard_normal(80)
    a = ranking_scores(X, y, missing="available")
    b = ranking_scores(X, y)
    for nm in INDEX_NAMES:
        assert np.array_equal(a[nm], b[nm])
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ranking_scores(X, y)
    with pytest.raises(ValueError, match="missing must be one of"):
        ranking_scores(X, y, missing="drop")
    X[4, 1] = np.inf
    with pytest.raises(ValueError, match="inf"):
        ranking_scores(X, y, missing="available")


def test_selector_available_and_error() -> None:
    rng = np.random.default_rng(1)
    n = 200
    X = rng.standard_normal((n, 6))
    y = np.sin(2 * X[:, 4]) + X[:, 1] + 0.2 * rng.standard_normal(n)
    Xm = _holes(rng, X, 0.2)
    Xm[:, 0] = np.nan
    Xm[:5, 0] = X[:5, 0]  # only 5 rows observed: too few for In5
    X_before = Xm.copy()
    sel = RankingIndex(index="In5", n_features_to_select=2).fit(Xm, y)
    np.testing.assert_array_equal(Xm, X_before)  # input untouched
    np.testing.assert_allclose(sel.index_values_, reference_available(Xm, y, "In5"), rtol=1e-12)
    assert np.isnan(sel.index_values_[0]) and sel.ranking_[0] == 5  # a NaN score ranks last
    assert sorted(sel.selection_order_.tolist()) == [1, 4]
    assert sel.__sklearn_tags__().input_tags.allow_nan
    strict = RankingIndex(index="K3", missing="error")
    assert not strict.__sklearn_tags__().input_tags.allow_nan
    with pytest.raises(ValueError, match="missing values"):
        strict.fit(Xm, y)
    with pytest.raises(ValueError, match="missing must be one of"):
        RankingIndex(missing="mean").fit(Xm, y)
    # without NaN the default and "error" agree exactly
    a = RankingIndex(index="chi2").fit(X, y).index_values_
    b = RankingIndex(index="chi2", missing="error").fit(X, y).index_values_
    assert np.array_equal(a, b)


def test_selector_pandas_nullable() -> None:
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    n = 60
    x0 = rng.integers(0, 5, n)
    y = x0 + 0.1 * rng.standard_normal(n)
    col = pd.array(x0, dtype="Int64")
    col[[2, 7, 11]] = pd.NA
    df = pd.DataFrame({"a": col, "b": rng.standard_normal(n)})
    sel = RankingIndex(index="K3").fit(df, y)
    Xf = np.column_stack([x0.astype(float), df["b"].to_numpy()])
    Xf[[2, 7, 11], 0] = np.nan
    np.testing.assert_allclose(sel.index_values_, reference_available(Xf, y, "K3"), rtol=1e-12)


def test_batch_available_matches_sets() -> None:
    rng = np.random.default_rng(2)
    b, n, d = 4, 50, 3
    X = _holes(rng, rng.standard_normal((b, n, d)), 0.3)
    y = rng.standard_normal((b, n))
    y[2] = 1.0  # a constant set scores 0 with constant_target="zero"
    got = ranking_scores_batch(
        X, y, ("In3", "K2", "mi"), constant_target="zero", missing="available"
    )
    for s in range(b):
        for nm in ("In3", "K2", "mi"):
            if s == 2:
                assert np.array_equal(got[nm][s], np.zeros(d))
            else:
                np.testing.assert_allclose(
                    got[nm][s], reference_available(X[s], y[s], nm), rtol=1e-12, atol=1e-14
                )


def test_bootstrap_inherits_available() -> None:
    rng = np.random.default_rng(4)
    n, d = 60, 4
    X = rng.standard_normal((n, d))
    y = X[:, 3] + 0.3 * rng.standard_normal(n)
    Xm = _holes(rng, X, 0.2)
    boot = bootstrap_scores(Xm, y, "K3", n_resamples=6, random_state=7, missing="available")["K3"]
    rows = resample_indices(n, 6, random_state=7)
    for b, idx in enumerate(rows):
        np.testing.assert_allclose(
            boot[b], reference_available(Xm[idx], y[idx], "K3"), rtol=1e-12, atol=1e-14
        )
    sel = BootstrapRanking(index="K3", n_resamples=6, random_state=7, n_features_to_select=1).fit(
        Xm, y
    )
    np.testing.assert_allclose(sel.resample_scores_, boot, rtol=0, atol=0)
    assert sel.selection_order_.tolist() == [3]
    # without NaN: the default rule gives exactly the strict result
    a = BootstrapRanking(index="In", n_resamples=5, random_state=0).fit(X, y)
    c = BootstrapRanking(index="In", n_resamples=5, random_state=0, missing="error").fit(X, y)
    assert np.array_equal(a.index_values_, c.index_values_) and np.array_equal(
        a.score_std_, c.score_std_
    )
    with pytest.raises(ValueError, match="missing values"):
        BootstrapRanking(index="In", n_resamples=5, missing="error").fit(Xm, y)


def test_bootstrap_nan_resamples_left_out_of_mean() -> None:
    rng = np.random.default_rng(8)
    n = 30
    X = rng.standard_normal((n, 2))
    y = X[:, 1] + 0.1 * rng.standard_normal(n)
    X[:, 0] = np.nan
    X[:3, 0] = [0.0, 1.0, 2.0]  # 3 observed rows: In5 never scorable, In sometimes
    sel = BootstrapRanking(index="In", n_resamples=20, random_state=1).fit(X, y)
    col = sel.resample_scores_[:, 0]
    ok = ~np.isnan(col)
    assert 0 < ok.sum() < 20
    assert sel.index_values_[0] == pytest.approx(col[ok].mean(), rel=1e-12)
    X[1:, 0] = np.nan  # one observed row: its copies hold one target value only
    sel1 = BootstrapRanking(2, index="K3", n_resamples=5, random_state=1).fit(X, y)
    assert np.isnan(sel1.resample_scores_[:, 0]).all()
    assert np.isnan(sel1.index_values_[0]) and np.isnan(sel1.score_std_[0])
    assert sel1.selection_order_.tolist() == [1, 0]
