"""The feature-major GPU table (``_VARIANT = "columns"``): its copy of the codes, its
counts under several plans of ``hist_columns`` and its fits, under numba's CUDA
simulator (tests/_gpu_sim_columns.py); the plan's rule without a GPU."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _simulator import run_simulated
from fsel.kernels.gpu.information_columns import column_plan


@pytest.fixture(scope="module")
def simulated() -> dict:
    pytest.importorskip("numba")
    return run_simulated("_gpu_sim_columns.py")


COUNT_CASES = ["37x7", "64x8", "17x13", "9x4", "301x9"]


@pytest.mark.parametrize("case", COUNT_CASES)
def test_columns_copy_and_count_what_a_plain_scatter_counts(simulated, case):
    """The copy is ``X.T`` with zero padding (rows read as words where ``K % 4 ==
    0``, bytes otherwise); every plan counts ``(Xk, Xj |Y| + Y)`` and ``(Xk, Xj)``
    as ``np.add.at`` does, labels through the lookup table or not, ``Z`` given on
    the GPU (CMI's joint), and the relevance pass that finds the levels; two or four
    loads in flight; the plans with 2000-byte blocks leave the relevance pass (256
    codes x classes) to the row kernels."""
    r = simulated["counts"][case]
    assert r["copy"] and r["padding_zero"]
    for plan in r["plans"]:
        assert plan["same"]
        assert "hist_columns" in plan["kernels"]


@pytest.mark.parametrize("case", COUNT_CASES)
def test_one_candidate_a_lane_counts_what_a_plain_scatter_counts(simulated, case):
    """``hist_owned`` (lane ``l`` of a warp counts candidate ``g0 + l`` into its own
    column of the shared histograms) counts what ``np.add.at`` counts: ``Z`` made by
    ``z_words`` or given on the GPU, one or three copies, one or two warps a block,
    a warp taking several chunks of words (301 rows), a last word of fewer than eight
    rows; where one copy does not fit (512 bytes: 32 cells), ``hist_columns``
    counts (and only there)."""
    plans = simulated["counts"][case]["owned"]
    for plan in plans:
        assert plan["same"]
    assert all("hist_owned" in p["kernels"] and "z_words" in p["kernels"] for p in plans[:2])
    lanes = 4  # the simulator's lanes a warp
    wider = plans[2]["largest_cells"] * lanes * 4 > 512
    assert ("hist_columns" in plans[2]["kernels"]) == wider


@pytest.mark.parametrize("case", COUNT_CASES)
def test_one_histogram_a_thread_counts_what_a_plain_scatter_counts(simulated, case):
    """``hist_private`` (thread ``t`` of a block counts into its own column of the
    shared histograms, plain adds) counts what ``np.add.at`` counts: two 16-bit or
    one 32-bit count a word, one or two waves of blocks (the grid's equal spans of
    the candidates' words end inside a candidate), ``Z`` made or given; where one
    histogram a thread does not fit (128 bytes), ``hist_columns`` counts (and only
    there; the narrower passes still count one histogram a thread)."""
    plans = simulated["counts"][case]["private"]
    for plan in plans:
        assert plan["same"]
    assert all("hist_private" in p["kernels"] and "z_words" in p["kernels"] for p in plans[:2])
    threads = 8  # the simulator's threads a block
    wider = 4 * threads * ((plans[2]["largest_cells"] + 1) // 2) > 128
    assert ("hist_columns" in plans[2]["kernels"]) == wider
    assert "hist_private" in plans[2]["kernels"]  # the narrower passes


def test_one_histogram_a_thread_flushes_before_a_count_overflows(simulated):
    """With a flush every two words a thread, a candidate's rows are added in many
    flushes (one cell taking every row: the 16-bit halves carried correctly): the
    counts are still the scatter's."""
    assert simulated["flush"] == {"half": True, "full": True}


@pytest.mark.parametrize("case", ["two-classes", "one-class", "beyond"])
def test_sums_made_on_the_gpu_are_the_hosts_bit_for_bit(simulated, case):
    """``device_sums`` (one thread a candidate adding the host's tabulated ``c log2
    c`` in cell order) gives ``sums_from_counts``' four arrays exactly, dtypes
    included; rows holding a count beyond the table go back to the host (the
    ``beyond`` case has such rows, the others none or some)."""
    r = simulated["sums"][case]
    assert r["same"]
    if case == "beyond":
        assert r["rows_beyond"] > 0
    if case == "two-classes":
        assert r["rows_beyond"] == 0


FIT_CASES = ["JMI-odd", "CMIM-lut", "CMI", "DISR-wide", "JMIM-bool", "MIM-50-classes"]


@pytest.mark.parametrize("variant", ["columns", "owned", "private"])
@pytest.mark.parametrize("case", FIT_CASES)
def test_fits_on_the_column_table_are_the_cpu_fits(simulated, case, variant):
    """Picks and relevance bit for bit (the same integer counts), scores to rounding
    (CMIM's CPU path sums its terms in another order: one ulp apart, as on the row
    table); the steps counted by ``hist_columns`` or one candidate a lane."""
    r = simulated["fits"][variant][case]
    (order_c, scores_c, rel_c), (order_g, scores_g, rel_g) = r["cpu"], r["gpu"]
    assert order_g == order_c
    assert rel_g == rel_c
    np.testing.assert_allclose(scores_g, scores_c, rtol=0, atol=1e-12)
    assert "columns_s" in r["timings"]


@settings(max_examples=300, deadline=None)
@given(
    n_features=st.integers(1, 700),
    cells=st.integers(1, 20_000),
    shared=st.integers(256, 64 * 1024),
    group_max=st.integers(1, 64),
    copies_max=st.integers(1, 8),
)
def test_column_plan_covers_every_candidate_within_the_shared_bytes(
    n_features, cells, shared, group_max, copies_max
):
    plan = column_plan(n_features, cells, shared, group_max, copies_max)
    if 4 * cells > shared:
        assert plan is None
        return
    group, n_groups, n_sub, nbytes = plan
    assert 1 <= group <= group_max
    assert n_groups * group >= n_features > (n_groups - 1) * group  # no empty block
    assert n_groups == -(-n_features // min(group_max, shared // (4 * cells)))
    assert 1 <= n_sub <= copies_max
    assert nbytes == 4 * cells * group * n_sub <= shared
    assert n_sub == copies_max or 4 * cells * group * (n_sub + 1) > shared
