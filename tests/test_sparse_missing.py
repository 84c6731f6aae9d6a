"""Sparse input with missing values (SPEC sections 10 and 11): a stored NaN is a missing
value. Supported combinations equal the dense path on ``X.toarray()``; the others raise
a clear ``ValueError`` instead of giving a silent wrong answer."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import get_tags

import fsel
from fsel.kernels.discretize_sparse import discretize_sparse
from fsel.kernels.information_sparse import SparseInformationTable
from fsel.kernels.ranking_indices import ranking_scores
from fsel.meta.bootstrap_ranking import bootstrap_scores

NOT_SPARSE = "not supported for .*sparse"


def _data(n: int = 160, d: int = 12, seed: int = 0, *, floats: bool = False):
    """Sparse counts (or floats) with a few stored NaN; column 3 follows the class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    vals = np.round(rng.standard_normal((n, d)), 1) if floats else rng.integers(1, 4, (n, d))
    dense = np.where(rng.random((n, d)) < 0.25, vals, 0).astype(np.float64)
    dense[:, 3] = np.where(rng.random(n) < 0.8, y + 1, 0)
    holes = rng.random((n, d)) < 0.04
    holes[:, 5] = False  # a column without holes
    dense[holes] = np.nan
    X = sp.csc_matrix(dense)  # the holes are stored NaN (NaN != 0)
    assert np.isnan(X.data).sum() == holes.sum()
    np.testing.assert_array_equal(X.toarray(), dense)
    return X, dense, y


@pytest.mark.parametrize("method", ["MIM", "JMI", "MRMR", "CMIM", "DISR"])
@pytest.mark.parametrize("floats", [False, True])
def test_information_criteria_level_rule_sparse_equals_dense(method, floats):
    X, dense, y = _data(floats=floats)
    # equal-width bins: under the quantile default CMIM's lazy dense kernel leaves a
    # stale bound as the score of one unselected feature (the codes, the selection and
    # a full ranking's scores agree)
    kw = {"n_features_to_select": 5, "missing": "level", "discretize": "uniform", "n_bins": 5}
    a = getattr(fsel, method)(**kw).fit(X.tocsr(), y)
    b = getattr(fsel, method)(**kw).fit(dense, y)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.relevance_, b.relevance_, rtol=1e-10, atol=1e-12)
    # the default rule is "level" as well
    c = getattr(fsel, method)(5, discretize="uniform", n_bins=5).fit(X, y)
    np.testing.assert_array_equal(c.selection_order_, a.selection_order_)


def test_level_rule_sparse_equals_dense_on_the_numpy_backend(monkeypatch):
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")
    X, dense, y = _data(floats=True, seed=4)
    a = fsel.JMI(4).fit(X, y)
    b = fsel.JMI(4).fit(dense, y)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-10, atol=1e-12)


def test_stored_nan_takes_the_last_code_of_its_column():
    X, _, _ = _data(floats=True)
    codes, levels, _ = discretize_sparse(X, np.zeros(X.shape[1], bool), 5, "uniform")
    for k in range(X.shape[1]):
        col = X[:, [k]].toarray().ravel()
        row = codes.row(k)
        if np.isnan(col).any():
            assert set(row[np.isnan(col)].tolist()) == {int(levels[k]) - 1}
            assert (row[~np.isnan(col)] < levels[k] - 1).all()


@pytest.mark.filterwarnings(
    "ignore:.*take a single value on the training rows:UserWarning"
)  # all-zero columns
def test_information_available_rule_refuses_stored_nan():
    X, dense, y = _data()
    with pytest.raises(ValueError, match="missing='available' is not supported for sparse"):
        fsel.JMI(3, missing="available").fit(X, y)
    # without a stored NaN, "available" is "level" and the sparse path runs
    clean = np.nan_to_num(dense, nan=0.0)
    a = fsel.JMI(3, missing="available").fit(sp.csr_matrix(clean), y)
    b = fsel.JMI(3, missing="available").fit(clean, y)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)


def test_information_error_rule_refuses_stored_nan():
    X, _, y = _data()
    with pytest.raises(ValueError, match="missing values"):
        fsel.MRMR(3, missing="error").fit(X, y)


def test_sparse_table_refuses_pairwise_deletion():
    X, _, y = _data()
    codes, levels, _ = discretize_sparse(X, np.ones(X.shape[1], bool))
    miss = np.where(np.isnan(X.toarray()).any(axis=0), levels - 1, -1)
    with pytest.raises(ValueError, match="not supported on sparse codes"):
        SparseInformationTable(codes, levels, y, missing_codes=miss)
    # no missing code at all: the ordinary table
    table = SparseInformationTable(codes, levels, y, missing_codes=np.full(X.shape[1], -1))
    assert table.missing_codes is None


@pytest.mark.parametrize("index", ["In", "K3", "chi2"])
def test_ranking_indices_refuse_stored_nan(index):
    X, dense, y = _data()
    yf = y.astype(float)
    with pytest.raises(ValueError, match=NOT_SPARSE):
        ranking_scores(X, yf, index, missing="available")
    with pytest.raises(ValueError, match="NaN"):
        ranking_scores(X, yf, index)  # missing="error"
    with pytest.raises(ValueError, match=NOT_SPARSE):
        fsel.RankingIndex(3, index=index).fit(X, y)  # the default rule, "available"
    with pytest.raises(ValueError, match="missing values"):
        fsel.RankingIndex(3, index=index, missing="error").fit(X, y)
    with pytest.raises(ValueError, match=NOT_SPARSE):
        fsel.BootstrapRanking(index=index, n_resamples=4, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=NOT_SPARSE):
        bootstrap_scores(X, yf, index, n_resamples=4, random_state=0, missing="available")
    # the dense table with the same holes is scored feature by feature
    scores = fsel.RankingIndex(3, index=index).fit(dense, y).scores_
    assert np.isfinite(scores).all()


def test_ranking_indices_sparse_without_nan_under_available():
    _, dense, y = _data()
    clean = np.nan_to_num(dense, nan=0.0)
    a = fsel.RankingIndex(4, index="K3").fit(sp.csr_matrix(clean), y)
    b = fsel.RankingIndex(4, index="K3").fit(clean, y)
    np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-12)
    kw = dict(n_resamples=6, n_features_to_select=4, random_state=0)
    c = fsel.BootstrapRanking(index="In", **kw).fit(sp.csr_matrix(clean), y)
    e = fsel.BootstrapRanking(index="In", **kw).fit(clean, y)
    np.testing.assert_allclose(c.resample_scores_, e.resample_scores_, atol=1e-12)


@pytest.mark.filterwarnings(
    "ignore:.*take a single value on the training rows:UserWarning"
)  # all-zero columns
def test_npfs_passes_stored_nan_to_the_wrapped_rule():
    X, dense, y = _data()
    a = fsel.NPFS(fsel.JMI(3), n_resamples=8, random_state=0).fit(X, y)
    b = fsel.NPFS(fsel.JMI(3), n_resamples=8, random_state=0).fit(dense, y)
    np.testing.assert_array_equal(a.selection_matrix_, b.selection_matrix_)
    with pytest.raises(ValueError, match=NOT_SPARSE):
        fsel.NPFS(fsel.RankingIndex(3, index="K3"), n_resamples=4, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="missing values"):
        fsel.NPFS(fsel.JMI(3, missing="error"), n_resamples=4, random_state=0).fit(X, y)


def test_npfs_tags_follow_the_wrapped_selector():
    tags = get_tags(fsel.NPFS(fsel.JMI(3))).input_tags
    assert tags.sparse and tags.allow_nan
    assert get_tags(fsel.NPFS(fsel.RankingIndex())).input_tags.sparse
    tags = get_tags(fsel.NPFS(lambda X, y: [0])).input_tags
    assert tags.sparse and tags.allow_nan


@pytest.mark.filterwarnings(
    "ignore:.*take a single value on the training rows:UserWarning"
)  # all-zero columns
def test_select_api_on_sparse_with_missing_values():
    X, dense, y = _data()
    a = fsel.select(X, y, method="jmi", n_features_to_select=4, missing="level")
    b = fsel.select(dense, y, method="jmi", n_features_to_select=4, missing="level")
    np.testing.assert_array_equal(a.features, b.features)
    with pytest.raises(ValueError, match=NOT_SPARSE):
        fsel.select(X, y, method="jmi", n_features_to_select=4, missing="available")
