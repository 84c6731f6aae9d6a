"""Host-side rules of the GPU kernels: how the row-major information table
(:mod:`fsel.kernels.gpu.information_rows`) splits the features among thread blocks
and codes byte-sized labels, and how ReliefF's GPU set-up turns order statistics into
numpy's quantiles (:mod:`fsel.kernels.quantiles`). No GPU and no numba needed; the
kernels themselves are checked under the simulator in tests/test_gpu.py and
test_gpu_tables.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsel.kernels.gpu.information_rows import ROW_THREADS, byte_classes, row_groups
from fsel.kernels.gpu.lanes import LANE_TILE, lane_groups, lane_word_plan
from fsel.kernels.quantiles import linear_quantile, quantile_ranks


@settings(max_examples=300, deadline=None)
@given(
    n_features=st.integers(1, 700),
    cells=st.integers(1, 3_000),
    half=st.booleans(),
    budget=st.integers(1024, 200 * 1024),
)
def test_lane_groups_give_each_lane_its_columns_within_the_budget(n_features, cells, half, budget):
    """The lane kernel's plan: whole slices of 32 features (one shared-memory column a
    lane), four at most (a lane reads four bytes of a row), as even as possible, every
    feature in exactly one block, the block's histograms and staged Z within budget."""
    cw = -(-cells // 2) if half else cells
    plan = lane_groups(n_features, cells, half, budget)
    if 4 * 32 * cw + 4 * LANE_TILE > budget:
        assert plan is None
        return
    nf, n_groups, shared = plan
    assert nf % 32 == 0 and 32 <= nf <= 128
    assert shared == (nf // 32) * 4 * 32 * cw + 4 * LANE_TILE <= budget
    assert n_groups * nf >= n_features > (n_groups - 1) * nf  # no empty block
    # no plan with fewer blocks fits: the groups are as few as the budget allows
    most = min(4, (budget - 4 * LANE_TILE) // (4 * 32 * cw))
    slices = -(-n_features // 32)
    assert n_groups == -(-slices // most)


@settings(max_examples=300, deadline=None)
@given(
    n_features=st.integers(1, 700),
    cells=st.integers(1, 3_000),
    half=st.booleans(),
    budget=st.integers(1024, 200 * 1024),
)
def test_lane_word_plan_gives_each_lane_one_word_of_a_row(n_features, cells, half, budget):
    """The word kernel's plan: rows of whole 4-byte words only; 128 features (a word
    a lane) a block, every feature in exactly one block; four 32-lane slices of
    histograms (one per byte of a word) within budget (Z is not staged); never a
    plan where the byte kernel has none."""
    cw = -(-cells // 2) if half else cells
    plan = lane_word_plan(n_features, cells, half, budget)
    shared = 4 * 4 * 32 * cw
    if n_features % 4 or shared > budget:
        assert plan is None
        return
    n_groups, got = plan
    assert got == shared
    assert n_groups * 128 >= n_features > (n_groups - 1) * 128
    if 4 * 32 * cw + 4 * LANE_TILE <= budget:  # the byte kernel's one slice and Z
        assert lane_groups(n_features, cells, half, budget) is not None


@settings(max_examples=300, deadline=None)
@given(
    n_features=st.integers(1, 700),
    cells=st.integers(1, 20_000),
    budget=st.integers(64, 12_032),
    half=st.booleans(),
)
def test_row_groups_cover_every_feature_within_the_shared_budget(n_features, cells, budget, half):
    per_word = 2 if half else 1
    plan = row_groups(n_features, cells, budget, half=half)
    if cells > budget * per_word:
        assert plan is None
        return
    group, n_groups, wpr, n_sub = plan
    words = -(-group * cells // per_word)
    assert words * n_sub <= budget  # the block's shared histograms fit
    assert 1 <= n_sub <= max(1, ROW_THREADS // 32)
    assert n_groups * group >= n_features > (n_groups - 1) * group  # no empty block
    # every row's span of every group lies in at most wpr 4-byte words
    for r in range(4):
        for g in range(n_groups):
            f0 = g * group
            nf = min(group, n_features - f0)
            first, last = (r * n_features + f0) // 4, (r * n_features + f0 + nf - 1) // 4
            assert last - first + 1 <= wpr


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.integers(0, 255), min_size=1, max_size=60),
    dtype=st.sampled_from([np.int8, np.uint8, np.bool_]),
)
def test_byte_classes_code_labels_as_np_unique_does(values, dtype):
    raw = np.array(values, dtype=np.uint8)
    if dtype is np.bool_:
        raw = (raw > 127).astype(np.uint8)
    y = raw.view(dtype)
    counts = np.bincount(raw, minlength=256)
    classes, lut = byte_classes(counts, dtype)
    want_classes, want_codes = np.unique(y, return_inverse=True)
    assert classes.dtype == y.dtype
    assert classes.tolist() == want_classes.tolist()
    assert lut[raw].tolist() == want_codes.reshape(-1).tolist()


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False), min_size=1, max_size=80
    ),
    q=st.sampled_from([0.05, 0.95, 0.5, 0.25, 0.99, 0.0, 1.0, 0.3]),
)
def test_linear_quantile_from_order_statistics_is_np_quantile(values, q):
    v = np.array(values)
    s = np.sort(v)
    lo, hi, gamma = quantile_ranks(v.size, [q])
    got = linear_quantile(s[lo], s[hi], gamma)
    assert float(got[0]) == float(np.quantile(v, q))  # bit for bit


#: histograms of GPU counts for the host-sum tests: candidates, code levels, and
#: (Z values, the coarse group)
HISTOGRAMS = {
    "seed": st.integers(0, 2**32 - 1),
    "kb": st.integers(1, 9),
    "x_levels": st.integers(1, 5),
    "nz": st.sampled_from([(1, 1), (2, 2), (6, 3), (8, 2)]),
}


@settings(max_examples=60, deadline=None)
@given(**HISTOGRAMS, n_jobs=st.integers(2, 4))
def test_host_sums_in_threads_equal_one_thread(seed, kb, x_levels, nz, n_jobs):
    """``sums_from_counts`` over blocks of candidates in threads (the cell threshold
    lifted) gives the one-thread sums bit for bit, and they are the plain-loop
    ``sum c log2 c`` in cell order."""
    import fsel.kernels.gpu.information as gi
    from fsel.kernels._counting import nlogn_table

    width, group = nz
    rng = np.random.default_rng(seed)
    full = rng.integers(0, 6, size=(kb, x_levels * width)) * (rng.random((kb, 1)) < 0.8)
    table = nlogn_table(int(full.max(initial=0)) * group + 1)
    one = gi.sums_from_counts(full, group, table)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gi, "SUMS_THREAD_CELLS", 1)
        many = gi.sums_from_counts(full, group, table, n_jobs)
    for a, b in zip(one, many, strict=True):
        np.testing.assert_array_equal(a, b)
    for k in range(kb):  # the plain loop: terms added in cell order
        s = 0.0
        for c in full[k].tolist():
            s += table[c]
        assert one[0][k] == s
        coarse = full[k].reshape(-1, group).sum(axis=1)
        assert one[3][k] == np.count_nonzero(coarse)


@settings(max_examples=60, deadline=None)
@given(
    **HISTOGRAMS,
    top=st.sampled_from([6, 40_000, 70_000]),
    n_jobs=st.integers(1, 3),
    lazy_table=st.booleans(),
)
def test_compiled_host_sums_equal_the_numpy_sums(seed, kb, x_levels, nz, top, n_jobs, lazy_table):
    """The compiled sums of the GPU's counts (``histogram_nlogn``, its kernel
    ``histogram_sums``; the cell threshold lowered) are numpy's bit for bit, with a
    tabulated or a lazy ``c log2 c`` table; counts whose coarse sums may pass the lazy
    table's small range (70,000 x group) take numpy's path; the input is left as it
    was."""
    pytest.importorskip("numba")
    import fsel.kernels.gpu.information as gi
    from fsel.kernels._counting import nlogn_table

    width, group = nz
    rng = np.random.default_rng(seed)
    full = rng.integers(0, top, size=(kb, x_levels * width)) * (rng.random((kb, 1)) < 0.8)
    table = gi.NlognTable() if lazy_table else nlogn_table(int(full.max(initial=0)) * group + 1)
    before = full.copy()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gi, "COMPILED_SUMS_CELLS", 1 << 60)
        numpy_sums = gi.sums_from_counts(full, group, table)
        mp.setattr(gi, "COMPILED_SUMS_CELLS", 1)
        compiled = gi.sums_from_counts(full, group, table, n_jobs)
        lazy_small = lazy_table and int(full.max(initial=0)) * group >= gi.NlognTable.SMALL
        assert (gi._dense_table(full, group, table) is None) == lazy_small
    for a, b in zip(numpy_sums, compiled, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(full, before)
