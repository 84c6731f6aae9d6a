"""ReliefF's mean margin on Dask (reference sample, exact k-NN merged across chunks)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import fsel  # noqa: E402
from fsel.kernels.relief_dask import relieff_margin_dask  # noqa: E402
from fsel.utils.dask_table import check_dask_table  # noqa: E402

# these tests check weights on small or noisy tables, where fewer weights than the
# count to select are often positive: the warning about that is tested in
# test_relief_ties.py
pytestmark = pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning")

UNEVEN = (37, 200, 1, 262)


@pytest.fixture(autouse=True)
def _threads():
    with dask.config.set(scheduler="threads"):
        yield


def _data(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.random((500, 6))
    X[:, 5] = 3.0  # constant
    X[:, 4] = np.round(X[:, 4] * 4)  # many tied distances
    y = (X[:, 0] + X[:, 2] > 1).astype(int) + (X[:, 1] > 0.7)
    return X, y


def _blocks(X, y):
    t = check_dask_table(da.from_array(X, chunks=(UNEVEN, X.shape[1])), da.from_array(y, UNEVEN))
    return t.blocks, t.y_blocks


def _brute_force(X, y, refs, k, metric):
    """ReliefF's mean margin over the reference rows, written out row by row."""
    ptp = X.max(0) - X.min(0)
    Z = np.where(ptp > 0, (X - X.min(0)) / np.where(ptp > 0, ptp, 1), 0.0)
    classes, yc = np.unique(y, return_inverse=True)
    p = np.bincount(yc) / y.size
    total = np.zeros(X.shape[1])
    for r in refs:
        diff = Z - Z[r]
        d = np.abs(diff).sum(1) if metric == "manhattan" else (diff**2).sum(1)
        for c in range(classes.size):
            rows = np.flatnonzero((yc == c) & (np.arange(y.size) != r))
            nb = rows[np.lexsort((rows, d[rows]))][:k]
            if not nb.size:
                continue
            w = -1.0 if c == yc[r] else p[c] / (1 - p[yc[r]])
            total += w * np.abs(Z[nb] - Z[r]).mean(0)
    total[ptp == 0] = 0.0
    return total / len(refs)


@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
def test_all_rows_as_references_is_the_in_memory_relieff(metric):
    X, y = _data()
    mem = fsel.ReliefF(n_neighbors=7, metric=metric, scaling="range").fit(X, y)
    out = relieff_margin_dask(*_blocks(X, y), np.arange(500), 7, metric=metric)
    np.testing.assert_allclose(out["margin"], mem.margin_, atol=1e-12)
    np.testing.assert_array_equal(out["constant"], np.arange(6) == 5)


@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
def test_a_reference_sample_equals_the_brute_force(metric):
    X, y = _data(1)
    refs = np.sort(np.random.default_rng(3).choice(500, 60, replace=False))
    out = relieff_margin_dask(*_blocks(X, y), refs, 5, metric=metric)
    np.testing.assert_allclose(out["margin"], _brute_force(X, y, refs, 5, metric), atol=1e-12)
    assert out["neighbours"].shape == (60, 3, 5)


def test_small_class_and_relevant_features():
    X, y = _data(2)
    y = y.copy()
    y[:3] = 7  # a class of 3 rows: fewer than k neighbours
    refs = np.arange(0, 500, 4)
    out = relieff_margin_dask(*_blocks(X, y), refs, 10)
    np.testing.assert_allclose(out["margin"], _brute_force(X, y, refs, 10, "manhattan"), atol=1e-12)
    assert (out["neighbours"][:, 3, 3:] == -1).all()
    assert set(np.argsort(-out["margin"])[:3].tolist()) == {0, 1, 2}


def test_bad_input():
    X, y = _data()
    with pytest.raises(ValueError, match="references"):
        relieff_margin_dask(*_blocks(X, y), np.array([0, 500]), 3)
    with pytest.raises(ValueError, match="metric"):
        relieff_margin_dask(*_blocks(X, y), np.arange(5), 3, metric="cosine")
    X[7, 1] = np.nan
    with pytest.raises(ValueError, match="missing or infinite"):
        relieff_margin_dask(*_blocks(X, y), np.arange(5), 3)


# ------------------------------------------------------------ the estimator on Dask
def _refs(n, size, seed):
    """The reference draw, written out: ``size`` rows without replacement, sorted."""
    return np.sort(np.random.RandomState(seed).choice(n, size, replace=False))


@pytest.mark.parametrize("metric", ["manhattan", "euclidean"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_relieff_estimator_on_dask_equals_in_memory(metric, n_classes):
    X, y = _data(4)
    if n_classes == 2:
        y = (y > 0).astype(int)
    params = {"n_neighbors": 6, "metric": metric, "sample_size": 70, "random_state": 11}
    params["scaling"] = "range"  # the brute force below scales by the range
    mem = fsel.ReliefF(**params).fit(X, y)
    dk = fsel.ReliefF(**params).fit(da.from_array(X, chunks=(UNEVEN, 6)), y)
    np.testing.assert_allclose(dk.margin_, mem.margin_, atol=1e-12)
    np.testing.assert_allclose(dk.feature_importances_, mem.feature_importances_, atol=1e-12)
    np.testing.assert_array_equal(dk.selection_order_, mem.selection_order_)
    np.testing.assert_array_equal(dk.classes_, np.arange(n_classes))
    assert dk.n_features_in_ == 6
    # and both are ReliefF's margin over the drawn references, written out
    brute = _brute_force(X, y, _refs(500, 70, 11), 6, metric)
    np.testing.assert_allclose(dk.margin_, brute, atol=1e-12)
    assert dk.margin_[5] == 0.0  # the constant feature


def test_relieff_on_dask_fraction_labels_and_selection():
    X, y = _data(5)
    labels = np.array(["a", "b", "c"])[y]
    est = fsel.ReliefF(3, n_neighbors=4, sample_size=0.25, random_state=2, scaling="range")
    dk = est.fit(da.from_array(X, chunks=(UNEVEN, 6)), da.from_array(labels, chunks=UNEVEN))
    brute = _brute_force(X, y, _refs(500, 125, 2), 4, "manhattan")
    np.testing.assert_allclose(dk.margin_, brute, atol=1e-12)
    assert dk.classes_.tolist() == ["a", "b", "c"]
    assert sorted(dk.selection_order_.tolist()) == [0, 1, 2]
    assert dk.transform(X).shape == (500, 3)


def test_relieff_on_a_dask_dataframe_with_its_target_column():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = _data(6)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)]).assign(t=y)
    ddf = dd.from_pandas(frame, npartitions=3)
    est = fsel.ReliefF(n_neighbors=5, metric="euclidean", sample_size=50, random_state=0)
    dk = est.fit(ddf.drop(columns="t"), ddf["t"])
    mem = fsel.ReliefF(n_neighbors=5, metric="euclidean", sample_size=50, random_state=0)
    mem.fit(frame.drop(columns="t"), y)
    np.testing.assert_allclose(dk.margin_, mem.margin_, atol=1e-12)
    assert dk.feature_names_in_.tolist() == [f"f{j}" for j in range(6)]


def test_relieff_on_dask_refuses_what_it_cannot_do():
    X, y = _data(7)
    Xd = da.from_array(X, chunks=(UNEVEN, 6))
    with pytest.raises(TypeError, match="without sample_size"):
        fsel.ReliefF().fit(Xd, y)
    with pytest.raises(ValueError, match="categorical"):
        fsel.ReliefF(sample_size=10, categorical=[4]).fit(Xd, y)
    with pytest.raises(ValueError, match="impute-mean"):
        fsel.ReliefF(sample_size=10, missing="impute-mean").fit(Xd, y)
    with pytest.raises(ValueError, match="continuous"):
        fsel.ReliefF(sample_size=10).fit(Xd, X[:, 0])
    with pytest.raises(ValueError, match="continuous"):
        fsel.ReliefF(sample_size=10).fit(Xd, da.from_array(X[:, 0], chunks=UNEVEN))
    with pytest.raises(ValueError, match="at least two"):
        fsel.ReliefF(sample_size=10).fit(Xd, np.zeros(500, dtype=int))
    with pytest.raises(ValueError, match="n_neighbors"):
        fsel.ReliefF(sample_size=10, n_neighbors=0).fit(Xd, y)
    with pytest.raises(ValueError, match="sample_size"):
        fsel.ReliefF(sample_size=1.5).fit(Xd, y)
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"ReliefF: X has missing"):
        fsel.ReliefF(sample_size=10).fit(da.from_array(Xn, chunks=(UNEVEN, 6)), y)


@pytest.mark.parametrize("name", ["Relief", "MRelief", "SURF", "MultiSURF"])
def test_other_relief_estimators_refuse_dask_input(name):
    X, y = _data()
    with pytest.raises(TypeError, match=r"Dask collection.*runs in memory"):
        getattr(fsel, name)(sample_size=10).fit(da.from_array(X, chunks=(UNEVEN, 6)), y)


@settings(max_examples=15, deadline=None)
@given(
    cuts=st.lists(st.integers(1, 79), max_size=4, unique=True),
    size=st.integers(1, 80),
    seed=st.integers(0, 2**31 - 1),
    metric=st.sampled_from(["manhattan", "euclidean"]),
)
def test_relieff_on_dask_does_not_depend_on_the_chunking(cuts, size, seed, metric):
    rng = np.random.default_rng(seed)
    # Manhattan on small integers: many exactly tied distances, broken by the row
    # index as in memory. Euclidean distances come from a BLAS product whose rounding
    # depends on the block shapes, so exact ties are left out for it.
    if metric == "manhattan":
        X = rng.integers(0, 4, size=(80, 4)).astype(float)
    else:
        X = rng.random((80, 4))
    y = rng.integers(0, 3, size=80)
    chunks = tuple(np.diff([0, *sorted(cuts), 80]).tolist())
    params = {"n_neighbors": 3, "metric": metric, "sample_size": size, "random_state": seed}
    mem = fsel.ReliefF(**params).fit(X, y)
    dk = fsel.ReliefF(**params).fit(da.from_array(X, chunks=(chunks, 4)), y)
    np.testing.assert_allclose(dk.margin_, mem.margin_, atol=1e-12)
