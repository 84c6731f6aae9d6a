"""CMI with ``device="cuda"``: its conditioning joint kept on the GPU
(:mod:`fsel.kernels.gpu.conditional`) gives the CPU's picks and scores on every route
its counts can take. The kernels run under numba's CUDA simulator in a subprocess
(tests/_gpu_sim_conditional.py), on tiny tables; the plans are checked here."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _simulator import run_simulated


@pytest.fixture(scope="module")
def simulated() -> dict:
    pytest.importorskip("numba")
    return run_simulated("_gpu_sim_conditional.py")


#: each route and the kernels that must have counted on it
ROUTES = {
    "cond-shared": {"z_block_counts", "mark_states", "rank_present", "joint_states"},
    "cond-sorted": {"z_block_counts", "block_bases", "scatter_block", "hist_sorted"},
    "cond-global": {"z_global_counts", "scatter_global", "hist_sorted"},
    "cond-chunks": {"scatter_block", "hist_sorted"},
    "cond-host-ranks": {"rank_present", "joint_states", "hist_sorted"},
    "cond-off": set(),
}


@pytest.mark.parametrize("case", sorted(ROUTES))
def test_cmi_on_the_gpu_gives_the_cpu_picks_and_scores(simulated, case):
    """The same integer counts as the CPU, so the same picks and scores bit for bit
    (all four steps taken: ``tol=-1``), with the route's kernels launched."""
    r = simulated[case]
    assert r["gpu"]["order"] == r["cpu"]["order"]
    assert len(r["gpu"]["order"]) == 4
    assert r["gpu"]["scores"] == r["cpu"]["scores"]
    assert r["gpu"]["selection_scores_"] == r["cpu"]["selection_scores_"]
    assert ROUTES[case] <= set(r["kernels"])
    if case == "cond-shared":
        assert "hist_sorted" not in r["kernels"]
    # the third pick's joint could have more states than twice the rows: on the host
    assert (r["host_ranks"] > 0) == (case == "cond-host-ranks")
    if case == "cond-off":
        assert not r["kernels"]


def test_joint_codes_on_the_gpu_are_the_ranks_of_the_rows_tuples(simulated):
    r = simulated["joint"]
    assert r["first"] == r["x0"]  # one feature: its codes
    assert r["codes"] == r["want"]
    assert r["n_states"] == r["want_states"]


@settings(max_examples=60, deadline=None)
@given(
    counts=st.lists(st.integers(0, 30), min_size=1, max_size=40),
    span=st.integers(1, 9),
    tile_rows=st.integers(1, 12),
)
def test_sorted_tiles_cover_the_rows_once_within_their_values(counts, span, tile_rows):
    """Tiles of the rows sorted by Z: in order, no gap or overlap, at most
    ``tile_rows`` rows, each row's value within the tile's ``span`` values."""
    pytest.importorskip("numba")
    from fsel.kernels.gpu.conditional import sorted_tiles

    offsets = np.concatenate([[0], np.cumsum(counts)])
    z0, p0, p1 = sorted_tiles(offsets, span, tile_rows)
    z_of_row = np.repeat(np.arange(len(counts)), counts)
    assert p0.tolist() == [0, *p1[:-1].tolist()] if p0.size else offsets[-1] == 0
    if p0.size:
        assert p1[-1] == offsets[-1]
    assert np.all(p1 > p0) and np.all(p1 - p0 <= tile_rows)
    assert np.all(z0 % span == 0)
    for a, b, z in zip(p0, p1, z0, strict=True):
        assert np.all((z_of_row[a:b] >= z) & (z_of_row[a:b] < z + span))


@given(k=st.integers(1, 300), levels=st.integers(1, 256), budget=st.integers(256, 60000))
def test_sorted_plan_fits_the_shared_budget(k, levels, budget):
    pytest.importorskip("numba")
    from fsel.kernels.gpu.conditional import SPAN_MIN, sorted_plan

    group, span = sorted_plan(k, levels, budget)
    assert 1 <= group <= k and span >= 1
    assert group * levels * span <= budget
    if group < k:  # fewer candidates only where one more would leave under SPAN_MIN
        assert (group + 1) * levels * SPAN_MIN > budget
    if group > 1:
        assert span >= SPAN_MIN
