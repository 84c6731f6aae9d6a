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
