"""The ranks of joint codes (:func:`fsel.kernels.information.value_ranks`), which CMI's
conditioning joint and pairwise deletion use at every step: the inverse of
``np.unique`` whether they come from the table of present states or from the sort."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fsel.kernels.information import InformationTable, value_ranks


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.integers(0, 5000), min_size=1, max_size=300),
    spare=st.integers(0, 3 << 20),
)
def test_value_ranks_are_the_inverse_of_np_unique(values, spare):
    v = np.array(values, dtype=np.int64)
    n_states = int(v.max()) + 1 + spare  # small: the table; large: the sort
    _, want = np.unique(v, return_inverse=True)
    got = value_ranks(v, n_states)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want.reshape(-1))


def test_joint_codes_number_the_tuples_in_sorted_order():
    # S = (0, 1, 1, 2), X1 = (1, 0, 1, 1): tuples (0,1) (1,0) (1,1) (2,1) -> 0 1 2 3
    codes = np.array([[0, 1, 1, 2], [1, 0, 1, 1]], dtype=np.uint8)
    table = InformationTable(codes, np.array([3, 2]), np.array([0, 1, 0, 1]))
    s = table.joint_codes(None, 0)
    assert s.tolist() == [0, 1, 1, 2]
    assert table.joint_codes(s, 1).tolist() == [0, 1, 2, 3]
    # S = (0, 0, 2, 2): tuples (0,1) (0,0) (2,1) (2,1) -> 1 0 2 2 (a repeated tuple
    # keeps one code; the absent S = 1 leaves no gap)
    assert table.joint_codes(np.array([0, 0, 2, 2]), 1).tolist() == [1, 0, 2, 2]


@settings(max_examples=60, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 6)), min_size=1, max_size=200),
    ny=st.integers(1, 4),
    n_jobs=st.sampled_from([1, 3]),
    threaded=st.booleans(),
)
def test_joint_ranks_and_target_are_the_numpy_expressions(pairs, ny, n_jobs, threaded):
    """joint_ranks is value_ranks of ``s * a + c`` and joint_target is ``s * ny + y``
    with its bincount, on numpy and (row ranges of 7 rows, in threads) numba alike."""
    import fsel.kernels.value_ranks as vr

    s = np.array([p[0] for p in pairs], dtype=np.int64)
    c = np.array([p[1] for p in pairs], dtype=np.uint8)
    y = (s + c) % ny
    before = vr.ROWS_PER_THREAD
    vr.ROWS_PER_THREAD = 7 if threaded else before
    try:
        got = vr.joint_ranks(s, c, 7, n_jobs)
        z, counts = vr.joint_target(s, y, ny, n_jobs)
    finally:
        vr.ROWS_PER_THREAD = before
    _, want = np.unique(s * 7 + c, return_inverse=True)
    np.testing.assert_array_equal(got, want.reshape(-1))
    assert z.tolist() == (s * ny + y).tolist()
    assert counts.tolist() == np.bincount(s * ny + y, minlength=(s.max() + 1) * ny).tolist()
