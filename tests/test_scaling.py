"""The Relief family's difference scaling: scaling="range"|"robust"|"rank"."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import fsel
from fsel.kernels.scaling import scale_dense, scale_sparse


def test_rules_by_hand():
    x = np.array([[3.0], [1.0], [1.0], [10.0], [np.nan], [2.0]])
    z, constant = scale_dense(x, "rank")
    # observed 3, 1, 1, 10, 2: average ranks 4, 1.5, 1.5, 5, 3 -> (r - 1) / 4
    np.testing.assert_allclose(z[[0, 1, 2, 3, 5], 0], [0.75, 0.125, 0.125, 1.0, 0.5])
    z6, _ = scale_dense(np.array([[5.0], [1], [2], [4], [3], [6]]), "rank")
    np.testing.assert_array_equal(z6[:, 0], np.array([4, 0, 1, 3, 2, 5]) / 8)  # 2**3 >= 5
    assert np.isnan(z[4, 0]) and not constant[0]
    z, _ = scale_dense(x, "range")
    np.testing.assert_allclose(z[[0, 1, 3, 5], 0], [2 / 9, 0.0, 1.0, 1 / 9])
    # robust: 5% and 95% quantiles of the observed values (linear rule, by hand)
    s = np.array([1.0, 1.0, 2.0, 3.0, 10.0])
    q05 = s[0] + 0.2 * (s[1] - s[0])  # (n - 1) * 0.05 = 0.2
    q95 = s[3] + 0.8 * (s[4] - s[3])  # (n - 1) * 0.95 = 3.8
    z, _ = scale_dense(x, "robust")
    want = (np.clip(np.array([3.0, 1, 1, 10, 2]), q05, q95) - q05) / (q95 - q05)
    np.testing.assert_allclose(z[[0, 1, 2, 3, 5], 0], want)


def test_robust_falls_back_to_range_and_constants_are_zero():
    x = np.zeros((100, 2))
    x[:3, 0] = [5.0, 7.0, 9.0]  # 97% at one value: q05 == q95
    z, constant = scale_dense(x, "robust")
    np.testing.assert_allclose(z[:3, 0], [5 / 9, 7 / 9, 1.0])
    assert constant.tolist() == [False, True] and not z[:, 1].any()


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(2, 25), st.integers(1, 3)),
        elements=st.sampled_from([0.0, 0.0, 0.0, -2.0, -0.5, 1.0, 3.0, 1e6]),
    ),
    st.sampled_from(["range", "robust", "rank"]),
)
def test_sparse_scaling_gives_the_dense_differences(X, rule):
    Z, c_sparse = scale_sparse(sp.csc_matrix(X), rule)
    D, c_dense = scale_dense(X, rule)
    assert c_sparse.tolist() == c_dense.tolist()
    Zd = Z.toarray()
    for j in range(X.shape[1]):
        np.testing.assert_allclose(
            Zd[:, j, None] - Zd[None, :, j], D[:, j, None] - D[None, :, j], atol=1e-12
        )
    assert Z.nnz <= sp.csc_matrix(X).nnz  # the zeros stay implicit


@pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning")  # small table
@pytest.mark.parametrize("rule", ["range", "robust", "rank"])
def test_relieff_sparse_equals_dense(rule):
    rng = np.random.default_rng(0)
    X = np.exp(2 * rng.normal(size=(150, 6))) * (rng.random((150, 6)) < 0.5)
    y = (X[:, 2] > np.median(X[:, 2])).astype(int)
    a = fsel.ReliefF(scaling=rule).fit(X, y)
    b = fsel.ReliefF(scaling=rule).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.feature_importances_, b.feature_importances_, atol=1e-10)


@pytest.mark.parametrize("rule", ["range", "robust"])
def test_relieff_dask_equals_memory(rule):
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 5))
    X[rng.random(X.shape) < 0.02] = 999999.0
    y = (X[:, 1] + X[:, 3] > 0).astype(int)
    mem = fsel.ReliefF(sample_size=80, random_state=0, scaling=rule).fit(X, y)
    dsk = fsel.ReliefF(sample_size=80, random_state=0, scaling=rule).fit(
        da.from_array(X, chunks=(130, 5)), y
    )
    np.testing.assert_allclose(mem.feature_importances_, dsk.feature_importances_, atol=1e-10)


def test_rank_is_refused_on_dask_and_bad_values_everywhere():
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(2).normal(size=(50, 3))
    y = np.arange(50) % 2
    with pytest.raises(ValueError, match="scaling='rank' is not supported on Dask"):
        fsel.ReliefF(sample_size=10, scaling="rank").fit(da.from_array(X, chunks=(20, 3)), y)
    for est in (fsel.ReliefF, fsel.Relief, fsel.SURF, fsel.MultiSURF, fsel.IRelief):
        with pytest.raises(ValueError, match="scaling must be one of"):
            est(scaling="minmax").fit(X, y)


def test_outlier_cells_defeat_the_range_but_not_robust_or_rank():
    rng = np.random.default_rng(3)
    n, d = 400, 20
    X = np.exp(0.5 * rng.normal(size=(n, d)))
    y = ((X[:, 0] > np.median(X[:, 0])) ^ (X[:, 1] > np.median(X[:, 1]))).astype(int)
    X[rng.random((n, d)) < 0.02] = 999999.0  # sentinel cells
    found = {}
    for rule in ("range", "robust", "rank"):
        sel = fsel.ReliefF(2, scaling=rule).fit(X, y)
        found[rule] = len({0, 1} & set(sel.selection_order_.tolist()))
    assert found["robust"] == 2 and found["rank"] == 2
    assert found["range"] < 2


@pytest.mark.parametrize("scaling", ["robust", "rank"])
def test_scale_dense_threads_give_the_same_columns(scaling):
    # each column is scaled on its own: threads over the columns change nothing
    rng = np.random.default_rng(5)
    X = rng.lognormal(0.0, 2.0, size=(300, 9))
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 4] = 1.0  # a constant column stays zero
    one, c1 = scale_dense(X, scaling, n_jobs=1)
    three, c3 = scale_dense(X, scaling, n_jobs=3)
    np.testing.assert_array_equal(c1, c3)
    np.testing.assert_array_equal(one, three)


@pytest.mark.parametrize("holes", [False, True])
def test_robust_bounds_of_large_tables_equal_the_numpy_path(holes):
    """Above the small-table size the robust rule's quantiles come from the compiled
    selection (numba): the same scaled table as numpy's partition, constant columns
    and columns whose q05 == q95 (the range fall-back) included."""
    import fsel.kernels.scaling as sc

    pytest.importorskip("numba")
    rng = np.random.default_rng(11)
    X = rng.standard_t(1.5, size=(400, 7))
    X[:, 2] = 4.0  # constant
    X[:, 5] = np.where(rng.random(400) < 0.95, 1.0, rng.standard_normal(400))  # q05 == q95
    if holes:
        X[rng.random(X.shape) < 0.15] = np.nan
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("fsel.kernels.quantiles.SMALL_TABLE_CELLS", 0)
        fast, c_fast = sc.scale_dense(X, "robust", n_jobs=2)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("fsel.kernels.quantiles.numba_available", lambda: False)
        plain, c_plain = sc.scale_dense(X, "robust")
    np.testing.assert_array_equal(c_fast, c_plain)
    np.testing.assert_array_equal(fast, plain)
    assert c_fast[2] and not c_fast[5]
