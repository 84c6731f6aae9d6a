"""ReliefF's mean margin on Dask (reference sample, exact k-NN merged across chunks)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import fsel  # noqa: E402
from fsel.kernels.relief_dask import relieff_margin_dask  # noqa: E402
from fsel.utils.validation import check_dask_table  # noqa: E402

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
    mem = fsel.ReliefF(n_neighbors=7, metric=metric).fit(X, y)
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
