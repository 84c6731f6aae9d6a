"""``device="cuda"`` on the row-major table: codes read in place on the GPU, and
host arrays coded on the host or uploaded as given, agree with the CPU path.

The kernels run under numba's CUDA simulator in a subprocess
(tests/_gpu_sim_worker.py, its ``tables`` part), on tiny tables; the same kernels run
on a real GPU in benchmarks/bench_gpu.py.
"""

from __future__ import annotations

import pytest

from _simulator import run_simulated


@pytest.fixture(scope="module")
def simulated() -> dict:
    """CPU and simulated-GPU fits on codes on the GPU and on host arrays."""
    pytest.importorskip("numba")
    return run_simulated("_gpu_sim_worker.py", "tables")


ROW_CASES = [
    "rows-JMI-odd", "rows-CMI", "rows-MRMR-int64", "rows-JMIM-bool", "rows-JMI-50-classes",
    "rows-DISR-wide", "rows-DISR-wide-chunked", "rows-JMI-40-features",
]  # fmt: skip


@pytest.mark.parametrize("case", ROW_CASES)
def test_codes_read_in_place_on_the_gpu_select_what_the_cpu_selects(simulated, case):
    """The row-major table (codes read where they are, labels coded by a lookup in the
    kernels): the CPU's picks, levels and classes, and its scores bit for bit (the same
    integer counts, the entropies computed from them as on the CPU); edge cases in the
    names."""
    r = simulated[case]
    assert r["gpu"]["order"] == r["cpu"]["order"]
    assert r["gpu"]["scores"] == r["cpu"]["scores"]
    assert r["gpu"]["relevance_"] == r["cpu"]["relevance_"]
    assert r["gpu"]["n_levels_"] == r["max_plus_one"]
    assert r["gpu"]["classes_"] == r["cpu"]["classes_"]
    assert {"labels_s", "layout_s", "table_s", "relevance_s"} <= set(r["timings"])
    if case.endswith("-chunked"):  # global-memory counts, one candidate at a time
        assert r["global_chunks"] and set(r["global_chunks"]) == {1}


@pytest.mark.parametrize(
    ("case", "table"),
    [
        ("host-JMI-uint8-as-given", "as given: GpuColumnTable"),
        ("host-MRMR-bool-as-given", "GpuColumnTable"),  # validated to another dtype
        ("host-CMI-9-integers", "GpuRowTable"),
        ("host-JMI-missing", "GpuRowTable"),
        ("host-JMI-features", "GpuInformationTable"),
    ],
)
def test_host_arrays_on_the_gpu_select_what_the_cpu_selects(simulated, case, table):
    """A host array with device="cuda": a C-order uint8 or boolean matrix of codes
    (discretize=None) uploaded as it is (then copied feature-major on the GPU: the
    default table); otherwise coded on the host (integer columns; binned floats with
    missing values, a hole one more level), its codes uploaded once and counted by
    the row table (or the feature-major one of before, kept as a variant). The CPU's
    picks and scores bit for bit, and its numbers of levels (distinct codes: 4 for
    codes 0, 2, 4, 6, not 7) and classes."""
    r = simulated[case]
    assert r["table"] == table
    assert r["gpu"]["order"] == r["cpu"]["order"]
    assert r["gpu"]["scores"] == r["cpu"]["scores"]
    assert r["gpu"]["relevance_"] == r["cpu"]["relevance_"]
    assert r["n_levels_"][0] == r["n_levels_"][1]
    assert r["classes_"][0] == r["classes_"][1]
    if case == "host-JMI-uint8-as-given":
        assert r["n_levels_"][1][:2] == [4, 1]


@pytest.mark.parametrize(
    "case", ["words-JMI-8", "words-JMI-132", "words-JMI-8-small-blocks", "words-CMI-8"]
)
def test_rows_read_as_words_give_the_cpu_selection(simulated, case):
    """hist_lane_words (rows of whole 4-byte words, eight rows a warp at a time): the
    CPU's picks and scores bit for bit, with rows past a block's end and a second
    block of features holding one word, and CMI's conditioning joint given from the
    host. The relevance pass too (256 possible codes a feature before the levels are
    known: one block a multiprocessor)."""
    r = simulated[case]
    assert "hist_lane_words" in r["kernels"]
    if case != "words-CMI-8":  # CMI's third step outgrows the word plan
        assert "hist_lanes" not in r["kernels"]
    assert r["gpu"]["order"] == r["cpu"]["order"]
    assert r["gpu"]["scores"] == r["cpu"]["scores"]
    assert r["gpu"]["relevance_"] == r["cpu"]["relevance_"]


def test_rows_not_whole_words_fall_back_to_byte_reads(simulated):
    r = simulated["words-JMI-9"]
    assert "hist_lanes" in r["kernels"] and "hist_lane_words" not in r["kernels"]
    assert r["gpu"]["order"] == r["cpu"]["order"]
    assert r["gpu"]["scores"] == r["cpu"]["scores"]


def test_a_refused_large_opt_in_counts_the_relevance_pass_with_byte_reads(simulated):
    """Where the driver refuses hist_lane_words its 225 KiB (a card with less shared
    memory a block), the relevance pass falls back to hist_lanes within the opt-in
    budget and the steps still read words: the CPU's picks and scores."""
    r = simulated["words-JMI-8-no-large-opt-in"]
    assert {"hist_lanes", "hist_lane_words"} <= set(r["kernels"])
    assert r["gpu"]["order"] == r["cpu"]["order"]
    assert r["gpu"]["scores"] == r["cpu"]["scores"]
