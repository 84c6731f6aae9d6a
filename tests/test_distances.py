"""Tests of the one distance kernel, ``fsel.kernels.distances``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fsel.kernels.distances import (
    METRICS,
    block_rows_for_budget,
    distance_block,
    distance_blocks,
)


def _loops(X, Y, metric):
    out = np.zeros((X.shape[0], Y.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            diff = X[i] - Y[j]
            if metric == "manhattan":
                out[i, j] = np.sum(np.abs(diff))
            elif metric == "euclidean":
                out[i, j] = np.sqrt(np.sum(diff * diff))
            else:
                out[i, j] = np.sum(diff * diff)
    return out


def test_hand_computed():
    X = np.array([[0.0, 0.0], [3.0, 4.0]])
    assert distance_block(X, X, metric="manhattan").tolist() == [[0.0, 7.0], [7.0, 0.0]]
    np.testing.assert_allclose(distance_block(X, X, metric="euclidean"), [[0, 5], [5, 0]])
    np.testing.assert_allclose(distance_block(X, X, metric="sqeuclidean"), [[0, 25], [25, 0]])


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("use_numba", [True, False, None])
def test_blocks_cover_all_rows_and_match_loops(metric, use_numba):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(23, 4))
    Y = rng.normal(size=(7, 4))
    ref = _loops(X, X, metric)
    budget = 2 * 8 * 23 * 5  # 5 rows per block
    blocks = list(distance_blocks(X, metric=metric, memory_budget=budget, use_numba=use_numba))
    assert [b[0] for b in blocks] == [0, 5, 10, 15, 20]
    full = np.vstack([b[2] for b in blocks])
    np.testing.assert_allclose(full, ref, atol=1e-10)
    assert np.all(np.diag(full) == 0)
    cross = np.vstack([b[2] for b in distance_blocks(X, Y, metric=metric, use_numba=use_numba)])
    np.testing.assert_allclose(cross, _loops(X, Y, metric), atol=1e-10)


def test_input_not_modified_and_errors():
    X = np.random.default_rng(1).random((5, 3))
    X0 = X.copy()
    list(distance_blocks(X, metric="manhattan"))
    distance_block(X, X, metric="euclidean")
    np.testing.assert_array_equal(X, X0)
    with pytest.raises(ValueError, match="metric"):
        list(distance_blocks(X, metric="cosine"))
    with pytest.raises(ValueError, match="metric"):
        distance_block(X, X, metric="chebyshev")
    with pytest.raises(ValueError, match="memory_budget"):
        block_rows_for_budget(3, 0)


@settings(max_examples=30, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(2, 8), st.integers(1, 5)), elements=st.floats(-100, 100)
    )
)
def test_metric_properties(X):
    D = distance_block(X, X, metric="manhattan", use_numba=False)
    np.testing.assert_allclose(D, D.T)
    assert np.all(D >= 0)
    E = distance_block(X, X, metric="euclidean")
    # L2 <= L1 <= sqrt(d) L2 (up to the rounding of the BLAS form)
    tol = 1e-6 * (1 + np.abs(X).max() ** 2)
    assert np.all(E <= D + tol)
    assert np.all(D <= np.sqrt(X.shape[1]) * E + np.sqrt(tol) * 10 + tol)
