"""RankingIndex and BootstrapRanking: estimator contract, direction, bootstrap identity."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from fsel import BootstrapRanking, RankingIndex
from fsel.datasets import make_yuan_regression
from fsel.kernels.ranking_indices import INDEX_NAMES, ranking_scores
from fsel.meta import bootstrap_ranking as br
from fsel.meta.bootstrap_ranking import bootstrap_scores
from fsel.meta.resampling import resample_indices


@pytest.mark.parametrize("index", INDEX_NAMES)
def test_ranking_index_scores_and_direction(index):
    X, y, _ = make_yuan_regression(1, n_samples=200, random_state=3)
    sel = RankingIndex(index=index, n_features_to_select=4, n_slices=10).fit(X, y)
    expected = ranking_scores(X, y, index, n_slices=10)[index]
    np.testing.assert_array_equal(sel.index_values_, expected)
    order = np.argsort(expected) if index.startswith("In") else np.argsort(-expected)
    np.testing.assert_array_equal(sel.selection_order_, order[:4])
    assert sel.higher_is_better_ == (not index.startswith("In"))
    assert sel.ranking_[order[0]] == 1 and sel.support_.sum() == 4
    # scores_ is higher-is-better: the index negated for In*, the index otherwise
    sign = -1.0 if index.startswith("In") else 1.0
    np.testing.assert_array_equal(sel.scores_, sign * expected)
    # ranking_ as scikit-learn's RFE: 1 for the kept ones, then 2, 3, ... best first
    np.testing.assert_array_equal(
        sel.ranking_[order], np.r_[[1] * 4, np.arange(2, expected.size - 2)]
    )
    # model 1's genuine features: the rank indices find them (Yuan: rates >= .94)
    if index in ("K1", "K3", "chi2", "mi"):
        assert sorted(sel.selection_order_.tolist()) == [0, 1, 2, 3]


def test_ties_in_scores_go_to_the_lower_index():
    X = np.tile(np.arange(10.0)[:, None], (1, 3))
    y = np.arange(10.0) ** 2
    sel = RankingIndex(3, index="K3").fit(X, y)
    np.testing.assert_array_equal(sel.selection_order_, [0, 1, 2])


def test_class_targets_and_dataframes():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    labels = rng.choice(["a", "b", "c"], 150)
    signal = (labels == "b") * 2.0 + rng.standard_normal(150)
    df = pd.DataFrame(
        {"noise": rng.standard_normal(150), "signal": signal, "noise2": rng.standard_normal(150)}
    )
    for index in INDEX_NAMES:
        # the difference indices read class codes as numbers: use a binary target
        target = labels == "b" if index.startswith("In") else labels
        sel = RankingIndex(index=index, n_features_to_select=1).fit(df, target)
        assert sel.get_feature_names_out().tolist() == ["signal"], index


def _integer_target_data():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((90, 5))
    # integer-valued regression target with gaps between its values (not 0..c-1)
    y_int = np.round(10 * X[:, 0] + 3 * X[:, 2] ** 2 + rng.standard_normal(90)).astype(np.int64)
    return X, y_int


@pytest.mark.parametrize("index", INDEX_NAMES)
def test_integer_target_is_used_by_value(index):
    X, y_int = _integer_target_data()
    assert np.unique(y_int).size > 10 and not np.array_equal(
        np.unique(y_int), np.arange(np.unique(y_int).size)
    )
    y_float = y_int.astype(np.float64)
    by_int = RankingIndex(index=index).fit(X, y_int)
    by_float = RankingIndex(index=index).fit(X, y_float)
    np.testing.assert_array_equal(by_int.index_values_, by_float.index_values_)
    np.testing.assert_array_equal(by_int.selection_order_, by_float.selection_order_)
    # the kernel on the values themselves (not on class codes 0..c-1)
    direct = ranking_scores(X, y_float, index)[index]
    np.testing.assert_array_equal(by_int.index_values_, direct)
    for dtype in (np.int32, np.uint16):  # any integer dtype
        shifted = (y_int - y_int.min()).astype(dtype)
        other = RankingIndex(index=index).fit(X, shifted)
        if index in ("In", "In3", "In5"):  # shift-invariant differences
            np.testing.assert_allclose(other.index_values_, by_float.index_values_, rtol=1e-9)
        else:
            np.testing.assert_array_equal(other.index_values_, by_float.index_values_)
    boot_int = BootstrapRanking(index=index, n_resamples=6, random_state=1).fit(X, y_int)
    boot_float = BootstrapRanking(index=index, n_resamples=6, random_state=1).fit(X, y_float)
    np.testing.assert_array_equal(boot_int.resample_scores_, boot_float.resample_scores_)
    np.testing.assert_array_equal(boot_int.index_values_, boot_float.index_values_)


def test_difference_index_of_integer_target_by_hand():
    # x sorts the rows as given; y = 0, 10, 20 -> In = (100 + 100) / (2 * 3), not the
    # (1 + 1) / 6 of the class codes 0, 1, 2
    X = np.array([[0.0], [1.0], [2.0]])
    sel = RankingIndex(index="In").fit(X, np.array([0, 10, 20]))
    assert sel.index_values_[0] == pytest.approx(200 / 6)
    # string labels are classes: coded 0, 1, 2 in sorted order
    sel = RankingIndex(index="In").fit(X, np.array(["a", "b", "c"]))
    assert sel.index_values_[0] == pytest.approx(2 / 6)


def test_rank_indices_see_numeric_labels_and_their_codes_alike():
    rng = np.random.default_rng(5)
    labels = rng.choice([-3, 7, 40], 120)
    X = rng.standard_normal((120, 4))
    X[:, 1] += (labels == 7) * 1.5
    codes = np.unique(labels, return_inverse=True)[1]
    strings = np.array(["a", "b", "c"])[codes]
    for index in ("K1", "K2", "K3", "chi2", "mi"):
        a = RankingIndex(index=index).fit(X, labels).index_values_
        np.testing.assert_array_equal(a, RankingIndex(index=index).fit(X, codes).index_values_)
        np.testing.assert_array_equal(a, RankingIndex(index=index).fit(X, strings).index_values_)
        assert int(np.argmax(a)) == 1


def test_nullable_integer_series_is_numeric():
    pd = pytest.importorskip("pandas")
    X, y_int = _integer_target_data()
    series = pd.Series(y_int, dtype="Int64")
    a = RankingIndex(index="In5").fit(X, series).index_values_
    np.testing.assert_array_equal(
        a, RankingIndex(index="In5").fit(X, y_int.astype(float)).index_values_
    )


def test_bootstrap_of_a_rare_class_tolerates_constant_resamples():
    # one positive in 12 rows: about a third of the resamples miss it (constant y)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 3))
    y = np.zeros(12, dtype=int)
    y[5] = 1
    X[5, 2] = 10.0
    sel = BootstrapRanking(index="K3", n_resamples=40, random_state=0).fit(X, y)
    rows = resample_indices(12, 40, resampling="bootstrap", random_state=0)
    missed = [b for b, r in enumerate(rows) if 5 not in r]
    assert missed, "some resample should miss the positive"
    np.testing.assert_array_equal(sel.resample_scores_[missed], 0.0)
    kept = [b for b, r in enumerate(rows) if 5 in r]
    direct = np.array([ranking_scores(X[rows[b]], y[rows[b]], "K3")["K3"] for b in kept])
    np.testing.assert_allclose(sel.resample_scores_[kept], direct, rtol=1e-13, atol=1e-15)
    with pytest.raises(ValueError, match="constant"):
        bootstrap_scores(X, np.ones(12), "K3", n_resamples=3)


def test_regression_target_with_bootstrap_recovers_model_5():
    X, y, genuine = make_yuan_regression(5, n_samples=200, random_state=1)
    sel = BootstrapRanking(
        index="chi2", n_resamples=20, n_features_to_select=2, random_state=0
    ).fit(X, y)
    assert sorted(sel.selection_order_.tolist()) == genuine.tolist()
    assert sel.score_std_.shape == (10,) and np.all(sel.score_std_ > 0)


@pytest.mark.parametrize("index", ["In", "K1", "mi"])
def test_bootstrap_mean_and_std_equal_a_direct_loop(index):
    X, y, _ = make_yuan_regression(3, n_samples=60, random_state=2)
    sel = BootstrapRanking(X.shape[1], index=index, n_resamples=12, random_state=7, n_slices=4).fit(
        X, y
    )
    rows = resample_indices(60, 12, resampling="bootstrap", random_state=7)
    direct = np.array([ranking_scores(X[r], y[r], index, n_slices=4)[index] for r in rows])
    np.testing.assert_allclose(sel.resample_scores_, direct, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(sel.index_values_, direct.mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(sel.score_std_, direct.std(axis=0, ddof=1), rtol=1e-12)
    order = np.argsort(direct.mean(0)) if index == "In" else np.argsort(-direct.mean(0))
    np.testing.assert_array_equal(sel.selection_order_, order)


def test_bootstrap_identical_for_any_n_jobs_backend_and_batch(monkeypatch):
    X, y, _ = make_yuan_regression(6, n_samples=80, random_state=0)
    ref = BootstrapRanking(index="K3", n_resamples=16, random_state=3).fit(X, y)
    two = BootstrapRanking(index="K3", n_resamples=16, random_state=3, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(ref.resample_scores_, two.resample_scores_)
    joblib = pytest.importorskip("joblib")
    with joblib.parallel_config(backend="threading"):
        thr = BootstrapRanking(index="K3", n_resamples=16, random_state=3, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(ref.resample_scores_, thr.resample_scores_)
    monkeypatch.setattr(br, "_BATCH_ELEMENTS", 1)  # one replicate per kernel call
    one = BootstrapRanking(index="K3", n_resamples=16, random_state=3).fit(X, y)
    np.testing.assert_array_equal(ref.resample_scores_, one.resample_scores_)
    other = BootstrapRanking(index="K3", n_resamples=16, random_state=4).fit(X, y)
    assert not np.array_equal(ref.resample_scores_, other.resample_scores_)


def test_resample_scores_all_indices_share_resamples():
    X, y, _ = make_yuan_regression(2, n_samples=50, random_state=0)
    allb = bootstrap_scores(X, y, n_resamples=6, random_state=1)
    for index in ("In5", "K2", "chi2"):
        one = bootstrap_scores(X, y, index, n_resamples=6, random_state=1)[index]
        np.testing.assert_array_equal(allb[index], one)
    for batch in (1, 4, 6):
        b = bootstrap_scores(X, y, "K2", n_resamples=6, random_state=1, batch_size=batch)
        np.testing.assert_array_equal(allb["K2"], b["K2"])
    with pytest.raises(ValueError, match="batch_size"):
        bootstrap_scores(X, y, n_resamples=6, batch_size=0)
    with pytest.raises(ValueError, match="at least 1"):
        bootstrap_scores(X, y, n_resamples=0)
    with pytest.raises(TypeError, match="n_resamples"):
        bootstrap_scores(X, y, n_resamples=2.5)


def test_single_bootstrap_has_zero_std():
    X, y, _ = make_yuan_regression(2, n_samples=50, random_state=0)
    sel = BootstrapRanking(index="In", n_resamples=1, random_state=0).fit(X, y)
    np.testing.assert_array_equal(sel.score_std_, np.zeros(10))


@pytest.mark.parametrize("cls", [RankingIndex, BootstrapRanking])
def test_bad_input_errors(cls):
    X, y, _ = make_yuan_regression(1, n_samples=40, random_state=0)
    with pytest.raises(ValueError, match="constant"):
        cls().fit(X, np.ones(40))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        cls(missing="error").fit(Xn, y)
    assert cls(n_features_to_select=1).fit(Xn, y).n_features_in_ == 10  # SPEC 10 default
    yn = y.copy()
    yn[1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        cls().fit(X, yn)
    with pytest.raises(ValueError, match="index must be one of"):
        cls(index="k3").fit(X, y)
    with pytest.raises(ValueError, match="larger than the number of features"):
        cls(n_features_to_select=11).fit(X, y)
    with pytest.raises(ValueError, match="single class"):
        cls().fit(X, np.zeros(40, dtype=int))


def test_inputs_not_modified():
    X, y, _ = make_yuan_regression(4, n_samples=40, random_state=0)
    X0, y0 = X.copy(), y.copy()
    RankingIndex(index="In5").fit(X, y)
    BootstrapRanking(index="K2", n_resamples=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


def test_registry_and_cli_parameter_names():
    from fsel._registry import get_method

    est = get_method("k3").make(n_slices=10)
    assert isinstance(est, RankingIndex) and est.index == "K3"
    assert get_method("mi-index").make().index == "mi"
    params = BootstrapRanking().get_params()
    for name in ("n_slices", "n_bins_x", "n_bins_y", "n_resamples", "n_jobs", "random_state"):
        assert name in params


@pytest.mark.skipif(importlib.util.find_spec("fsel.meta.npfs") is None, reason="NPFS not yet")
@pytest.mark.parametrize(
    "base",
    [
        BootstrapRanking(index="K3", n_resamples=10, n_features_to_select=3, random_state=0),
        RankingIndex(index="In5", n_features_to_select=3),
    ],
)
def test_works_as_npfs_base_selector(base):
    from fsel import NPFS

    X, y, genuine = make_yuan_regression(1, n_samples=200, random_state=0)
    npfs = NPFS(base, n_resamples=30, random_state=0).fit(X, y)
    assert set(npfs.relevant_features_.tolist()) <= set(genuine.tolist())
    assert npfs.n_relevant_ >= 3
    assert npfs.selection_matrix_.sum(axis=1).tolist() == [3] * 30
