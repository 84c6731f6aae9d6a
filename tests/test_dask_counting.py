"""The counting kernels of the Dask information criteria: joint histograms of each
block (one and two features per pass, both back-ends) against brute force, and their
entropy sums."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("dask.array")

from _criteria import INFORMATION_CRITERIA
from fsel.kernels._counting import joint_histograms, nlogn, nlogn_table

ALL = INFORMATION_CRITERIA


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 60),
    k=st.integers(1, 4),
    a=st.integers(1, 5),
    nz=st.integers(1, 4),
    seed=st.integers(0, 2**16),
    cut=st.integers(0, 60),
)
def test_joint_histograms_brute_force_and_additive(n, k, a, nz, seed, cut):
    rng = np.random.default_rng(seed)
    C = rng.integers(0, a, size=(k, n)).astype(np.uint8)
    z = rng.integers(0, nz, size=n)
    H = joint_histograms(C, z, nz, a)
    ref = np.zeros((k, a, nz), dtype=np.int64)
    for f, i in itertools.product(range(k), range(n)):
        ref[f, C[f, i], z[i]] += 1
    np.testing.assert_array_equal(H, ref)
    cut = min(cut, n)
    parts = joint_histograms(C[:, :cut], z[:cut], nz, a) + joint_histograms(
        C[:, cut:], z[cut:], nz, a
    )
    np.testing.assert_array_equal(parts, H)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 80),
    k=st.integers(1, 5),
    a=st.integers(1, 16),
    extra=st.integers(0, 3),
    nz=st.integers(1, 5),
    seed=st.integers(0, 2**16),
)
def test_joint_histograms_two_features_per_pass_brute_force(n, k, a, extra, nz, seed):
    # the paired kernel: features packed two per byte, counted in one pass, summed out
    from fsel.kernels._counting import pack_pairs

    rng = np.random.default_rng(seed)
    C = rng.integers(0, a, size=(k, n)).astype(np.uint8)
    z = rng.integers(0, nz, size=n)
    width = int(C.max()) + 1 + extra  # the global width may exceed this chunk's levels
    H = joint_histograms(C, z, nz, width, pack_pairs(C))
    ref = np.zeros((k, width, nz), dtype=np.int64)
    for f, i in itertools.product(range(k), range(n)):
        ref[f, C[f, i], z[i]] += 1
    np.testing.assert_array_equal(H, ref)


def test_joint_histograms_packed_on_both_backends(backend):
    from fsel.kernels._counting import pack_pairs

    rng = np.random.default_rng(8)
    C = rng.integers(0, 9, size=(7, 2000)).astype(np.uint8)  # odd: the last one alone
    z = rng.integers(0, 6, size=2000)
    H = joint_histograms(C, z, 6, 11, pack_pairs(C))
    for f in range(7):
        for v, w in itertools.product(range(11), range(6)):
            assert H[f, v, w] == np.count_nonzero((C[f] == v) & (z == w))


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int64])
def test_integer_distinct_matches_unique(dtype, backend):
    from fsel.kernels.information_dask import _integer_distinct

    rng = np.random.default_rng(3)
    lo = 0 if np.dtype(dtype).kind == "u" else -7
    X = rng.choice(np.arange(lo, 60, 3), size=(500, 6)).astype(dtype)
    X[:, 4] = 5  # a single value
    got = _integer_distinct(X)
    if backend == "numpy":
        assert got is None  # the numpy path keeps the column-wise one
        return
    mins, maxs, distinct = got
    for j in range(6):
        np.testing.assert_array_equal(distinct[j], np.unique(X[:, j]))
        assert distinct[j].dtype == X.dtype
        assert (mins[j], maxs[j]) == (X[:, j].min(), X[:, j].max())
    wide = X.astype(np.int64)
    wide[0, 0] = 1 << 40  # too wide a range for a presence table
    assert _integer_distinct(wide) is None


def test_joint_histograms_numpy_and_numba_agree(backend):
    rng = np.random.default_rng(4)
    C = rng.integers(0, 7, size=(5, 3000)).astype(np.uint8)
    z = rng.integers(0, 6, size=3000)
    H = joint_histograms(C, z, 6, 7)
    assert H.sum() == 5 * 3000
    assert H[2, 3, 4] == np.count_nonzero((C[2] == 3) & (z == 4))


def test_nlogn_matches_the_table():
    counts = np.array([[0, 1, 2], [3, 1000, 7]])
    np.testing.assert_array_equal(nlogn(counts), nlogn_table(1000)[counts])
    assert nlogn(np.array([8]))[0] == 24.0
