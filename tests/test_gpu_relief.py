"""``device="cuda"`` for the Relief family: the GPU kernels (neighbours, ReliefF's
set-up, its checks of X) agree with the CPU path.

The kernels run under numba's CUDA simulator in a subprocess
(tests/_gpu_sim_worker.py, its ``relief`` part), on tiny tables; the same kernels run
on a real GPU in benchmarks/bench_gpu.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from _simulator import assert_same_fit, run_simulated

RELIEF = [
    "ReliefF", "ReliefF-euclidean-all", "ReliefF-blocks", "ReliefF-no-thread", "Relief",
    "MRelief", "SURF", "MultiSURF-euclidean", "Relief-ties", "ReliefF-ties-euclidean",
]  # fmt: skip


@pytest.fixture(scope="module")
def simulated() -> dict:
    """CPU and simulated-GPU fits of the Relief family, and ReliefF's GPU set-up."""
    pytest.importorskip("numba")
    return run_simulated("_gpu_sim_worker.py", "relief")


@pytest.mark.parametrize("case", RELIEF)
def test_gpu_selects_what_the_cpu_selects(simulated, case):
    assert_same_fit(simulated[case])


@pytest.mark.parametrize("case", RELIEF)
def test_gpu_fit_reports_its_timings(simulated, case):
    """X checked and scaled on the GPU (ReliefF, SURF, MultiSURF; not Relief's)."""
    on_gpu = case.startswith(("ReliefF", "SURF", "MultiSURF"))
    want = ["check_s"] * on_gpu + ["scale_s"] * on_gpu + ["search_s", "transfer_s"]
    assert simulated[case]["timings"] == want


@pytest.mark.parametrize("case", ["order-statistics", "order-statistics-runs"])
def test_order_statistics_on_the_gpu_are_those_of_a_sort(simulated, case):
    """Ties, -0.0, -inf; long runs of one value and repeated ranks (the kernel's
    run-length counts and targets that share a prefix)."""
    r = simulated[case]
    assert r["gpu"] == r["sorted"]


@pytest.mark.parametrize("sort", ["", "-unsorted"])
@pytest.mark.parametrize("scaling", ["range", "robust"])
def test_relieff_scaling_on_the_gpu_is_the_cpu_rule(simulated, scaling, sort):
    """The GPU's scaled, class-sorted matrix is scale_dense's in class order (or in
    its own order, for SURF and MultiSURF): the same operations on the same numbers,
    so equal bit for bit."""
    r = simulated[f"scaled-{scaling}{sort}"]
    assert r["gpu"] == r["cpu"]
    assert r["constant"][0] == r["constant"][1]


def test_the_transposing_pass_flags_what_the_host_validation_refuses(simulated):
    """transpose_checked: the feature-major copy, and per column the bits of a NaN (1),
    an infinite value (2) and a value beyond half the largest float64 (4)."""
    r = simulated["transpose-checked"]
    assert r["xt"] == r["want_xt"]
    assert r["flags"] == [0, 1, 2, 4, 2 | 1, 0]


@pytest.mark.parametrize(
    "case",
    [
        "inf",
        "-inf",
        "nan-error",
        "nan-expected",
        "range-overflow",
        "labels",
        "sample-size",
        "sample-size-and-k",
        "sample-size-and-inf",
    ],
)
def test_relieff_on_the_gpu_refuses_bad_input_as_the_cpu_does(simulated, case):
    """X checked on the GPU: the CPU's one-line error for every bad table (the host
    checks again once the GPU finds a problem), NaN with missing="expected" the GPU
    path's own refusal, as before."""
    r = simulated["relief-errors"][case]
    assert r["gpu"] is not None and "\n" not in r["gpu"]
    if case == "nan-expected":
        assert "device='cuda' needs dense X without missing values" in r["gpu"]
    else:
        assert r["gpu"] == r["cpu"]


def test_relieff_on_the_gpu_skips_the_host_value_checks_only_when_clean(simulated):
    """Clean X: the host validation is told the values were checked (no host pass);
    a value near the float64 limit (its range still finite): the host checks it once
    the GPU has flagged it, and the fit reuses the table already on the GPU, with the
    CPU's result."""
    r = simulated["relief-checked"]
    assert r["clean"] == [True]
    assert r["huge"] == [True, False]
    assert r["huge_fit"]["gpu"]["order"] == r["huge_fit"]["cpu"]["order"]
    np.testing.assert_allclose(
        r["huge_fit"]["gpu"]["margin_"], r["huge_fit"]["cpu"]["margin_"], rtol=0, atol=1e-12
    )
    assert r["huge_uploads"] == 1


def test_relieff_on_the_gpu_draws_from_the_global_generator_as_the_cpu(simulated):
    """random_state=None: the references come from numpy's global generator, drawn
    once per fit on both devices (the same references, the generator left in the
    same state)."""
    r = simulated["relief-global-draws"]
    assert r["gpu"][0]["order"] == r["cpu"][0]["order"]
    np.testing.assert_allclose(r["gpu"][0]["margin_"], r["cpu"][0]["margin_"], atol=1e-12)
    assert r["gpu"][1] == r["cpu"][1]


def test_a_staged_copy_puts_the_same_table_on_the_gpu(simulated):
    """upload_staged (row blocks of 3 rows through two pinned buffers, 14 blocks):
    the same table on the GPU, and the CPU's fit."""
    r = simulated["relief-staged"]
    assert r["xt"] == r["want_xt"]
    assert r["fit"]["gpu"]["order"] == r["fit"]["cpu"]["order"]
    np.testing.assert_allclose(
        r["fit"]["gpu"]["margin_"], r["fit"]["cpu"]["margin_"], rtol=0, atol=1e-12
    )


def test_stable_class_order_and_inverse_permutation():
    from fsel.kernels.gpu.relief import (
        class_order_positions,
        inverse_permutation,
        stable_class_order,
    )

    rng = np.random.default_rng(4)
    for y in (rng.integers(0, 3, 500), rng.integers(0, 300, 500), np.zeros(0, dtype=int)):
        order = stable_class_order(y)
        assert order.tolist() == np.argsort(y, kind="stable").tolist()
        assert inverse_permutation(order).tolist() == np.argsort(order).tolist()
        if y.size:
            rows = rng.choice(y.size, 60, replace=False)
            got = class_order_positions(order, y, np.bincount(y), rows)
            assert got.tolist() == np.argsort(order)[rows].tolist()
