"""``device="cuda"``: the information criteria's GPU kernels agree with the CPU path,
the kernels compile for a real GPU, and the errors without a GPU name what is missing.

The kernels run under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), in a
subprocess (the simulator must be chosen before ``numba.cuda`` is first imported;
tests/_gpu_sim_worker.py, its ``information`` part), on tiny tables: the simulator
runs one Python thread per GPU thread. The row table and the Relief family have their
own modules (test_gpu_tables.py, test_gpu_relief.py): pytest-xdist keeps a file's
tests on one worker (``--dist loadfile``), so the three simulator runs happen side by
side, each once. The same kernels run on a real GPU in benchmarks/bench_gpu.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel
from _simulator import assert_same_fit, run_simulated
from fsel.kernels.gpu import _device

ROOT = Path(__file__).resolve().parents[1]

INFORMATION = [
    "MIM", "MIFS", "MRMR", "JMI", "CMIM", "DISR", "ICAP", "CIFE", "CondRed", "CMI",
    "BetaGamma", "JMIM",
]  # fmt: skip
COMPARED = [*INFORMATION, "JMI-miller_madow", "MRMR-binned-floats"]


@pytest.fixture(scope="module")
def simulated() -> dict:
    """CPU and simulated-GPU fits of every information criterion."""
    pytest.importorskip("numba")
    return run_simulated("_gpu_sim_worker.py", "information")


@pytest.mark.parametrize("case", COMPARED)
def test_gpu_selects_what_the_cpu_selects(simulated, case):
    assert_same_fit(simulated[case])


@pytest.mark.parametrize("case", COMPARED)
def test_gpu_fit_reports_its_timings(simulated, case):
    """The phases of every GPU fit, and for CMI where its steps go (the joint's codes,
    Z, the conditional counts and sums; its histograms fit shared memory here)."""
    expected = {"count_s", "select_s", "setup_s", "transfer_s"}
    if case == "CMI":
        expected |= {"joint_s", "z_s", "conditional_count_s", "conditional_sums_s"}
    assert set(simulated[case]["timings"]) == expected


@pytest.mark.parametrize(
    "case",
    [
        "JMI-device-array",
        "JMI-device-array-features",
        "JMI-device-array-rows",
        "JMI-device-array-lanes",
        "JMI-device-array-lanes48",
        "JMI-device-array-rows16",
        "JMI-device-array-rows16-small-blocks",
        "JMI-device-array-lanes-small-blocks",
    ],
)
def test_codes_already_on_the_gpu_give_the_host_selection(simulated, case):
    """Codes on the GPU copied feature-major on the GPU (the default), or read in
    place and counted one shared-memory bank per lane (also within 48 KiB of shared
    memory) or by the word kernel of before, or the feature-major table of before
    that (kept for side-by-side timing), or with two 16-bit counts per shared word
    (the grid sized so that no block counts more than HALF_MAX_ROWS rows, here forced
    to 16): the CPU's picks and scores."""
    assert simulated[case]["gpu"]["order"] == simulated["JMI"]["cpu"]["order"]
    np.testing.assert_allclose(
        simulated[case]["gpu"]["scores"], simulated["JMI"]["cpu"]["scores"], atol=1e-12
    )


def test_a_table_over_the_gpu_budget_streams_in_row_blocks(simulated):
    s = simulated["streamed"]
    assert not s["resident"] and s["blocks"] > 1
    assert s["relevance"][0] == s["relevance"][1]  # bit for bit: counts, then the CPU's sums
    assert s["joint_mi"][0] == s["joint_mi"][1]


# ----------------------------------------------------------------- without a GPU


def test_sums_from_counts_match_a_plain_loop():
    from fsel.kernels._counting import nlogn_table
    from fsel.kernels.gpu.information import sums_from_counts

    rng = np.random.default_rng(0)
    full = rng.integers(0, 5, size=(3, 12))
    s_full, s_coarse, m_full, m_coarse = sums_from_counts(full, 3, nlogn_table(100))
    for k in range(3):
        coarse = [sum(full[k, 3 * q : 3 * q + 3]) for q in range(4)]
        assert s_full[k] == pytest.approx(sum(c * np.log2(c) for c in full[k] if c))
        assert s_coarse[k] == pytest.approx(sum(c * np.log2(c) for c in coarse if c))
        assert m_full[k] == sum(1 for c in full[k] if c)
        assert m_coarse[k] == sum(1 for c in coarse if c)


@settings(max_examples=40, deadline=None)
@given(
    counts=st.lists(st.integers(0, 200_000), min_size=1, max_size=30),
    small=st.booleans(),
)
def test_nlogn_lookup_is_the_cpu_table_bit_for_bit(counts, small):
    """NlognTable looks small counts up in a table and computes the others: both give
    nlogn_table's values exactly, whatever the dtype."""
    from fsel.kernels._counting import nlogn_table
    from fsel.kernels.gpu.information import NlognTable

    c = np.array(counts) % (1 << 16) if small else np.array(counts)
    table = NlognTable()
    want = nlogn_table(int(c.max()))[c]
    for dtype in (np.int64, np.int32, np.float64):
        assert table[c.astype(dtype)].tolist() == want.tolist()


def test_cuda_problem_names_a_missing_numba(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)
    assert _device.cuda_problem().startswith("numba is not installed")


def test_cuda_problem_names_a_missing_numba_cuda(monkeypatch):
    numba = pytest.importorskip("numba")
    monkeypatch.delattr(numba, "cuda", raising=False)
    monkeypatch.setitem(sys.modules, "numba.cuda", None)
    assert "numba's CUDA target (numba-cuda) cannot be imported" in _device.cuda_problem()


def _fake_driver(monkeypatch, count=None, error=None):
    pytest.importorskip("numba")
    try:
        from numba.cuda.cudadrv import driver as drv
    except Exception:  # pragma: no cover - numba-cuda not importable here
        pytest.skip("numba.cuda does not import here")
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)

    def get_device_count():
        if error is not None:
            raise drv.CudaSupportError(error)
        return count

    monkeypatch.setattr(drv.driver, "get_device_count", get_device_count, raising=False)
    from numba import cuda

    monkeypatch.setattr(cuda, "is_available", lambda: False)


def test_cuda_problem_names_a_missing_driver(monkeypatch):
    _fake_driver(monkeypatch, error="Error at driver init: CUDA driver library cannot be found.")
    assert _device.cuda_problem().startswith("no CUDA driver found")


def test_cuda_problem_names_a_missing_device(monkeypatch):
    _fake_driver(monkeypatch, count=0)
    assert _device.cuda_problem().startswith("no CUDA device found")


@pytest.mark.parametrize(
    "est", [fsel.JMI(2, device="cuda"), fsel.MIM(2, device="cuda"), fsel.ReliefF(2, device="cuda")]
)
def test_device_cuda_without_a_gpu_is_a_one_line_error(monkeypatch, est):
    _fake_driver(monkeypatch, count=0)
    X = np.random.default_rng(0).integers(0, 3, size=(30, 4))
    y = X[:, 0] % 2
    with pytest.raises(RuntimeError, match=r"device='cuda' but no CUDA device found") as info:
        est.fit(X, y)
    assert "\n" not in str(info.value)


def test_device_auto_without_a_gpu_runs_on_the_cpu(monkeypatch):
    _fake_driver(monkeypatch, count=0)
    X = np.random.default_rng(0).integers(0, 3, size=(30, 4))
    y = X[:, 0] % 2
    auto = fsel.JMI(2, device="auto").fit(X, y)
    cpu = fsel.JMI(2).fit(X, y)
    assert auto.device_ == "cpu" and cpu.device_ == "cpu"
    assert auto.selection_order_.tolist() == cpu.selection_order_.tolist()
    assert not hasattr(auto, "timings_")


def test_bad_device_value_is_refused():
    X = np.zeros((10, 2), dtype=int)
    with pytest.raises(ValueError, match="device must be one of"):
        fsel.JMI(1, device="gpu").fit(X, np.arange(10) % 2)


def test_unsupported_combinations_refuse_cuda(monkeypatch):
    import scipy.sparse as sp

    monkeypatch.setattr(_device, "cuda_problem", lambda: None)  # a GPU "is there"
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(30, 4)).astype(float)
    y = X[:, 0].astype(int) % 2
    with pytest.raises(ValueError, match="device='cuda' does not take sparse X"):
        fsel.JMI(2, device="cuda").fit(sp.csr_matrix(X), y)
    holes = X.copy()
    holes[0, 1] = np.nan
    with pytest.raises(ValueError, match="missing='available'"):
        fsel.JMI(2, device="cuda", missing="available").fit(holes, y)
    # no GPU here to check X on: the host's check (the simulator test checks the GPU's)
    from fsel.selectors.relief._base import BaseRelief

    monkeypatch.setattr(BaseRelief, "_gpu_upload", lambda self, X, options: None)
    for cls in (fsel.ReliefF, fsel.SURF, fsel.MultiSURF):
        with pytest.raises(ValueError, match="without missing values"):
            cls(2, device="cuda").fit(holes, y)
    assert "device" not in fsel.IRelief().get_params()  # other variants: CPU only


def test_cli_device_flag(tmp_path, capsys, monkeypatch):
    from fsel.cli.main import main

    _fake_driver(monkeypatch, count=0)
    rng = np.random.default_rng(0)
    path = tmp_path / "t.csv"
    X = rng.integers(0, 3, size=(40, 3))
    y = X[:, 1] % 2
    rows = (",".join(map(str, [*r, t])) for r, t in zip(X, y, strict=True))
    path.write_text("a,b,c,y\n" + "\n".join(rows))
    code = main(["select", str(path), "--target", "y", "-k", "1", "--device", "cuda", "-q"])
    assert code != 0
    assert "no CUDA device found" in capsys.readouterr().err


def _ptx_signatures():
    """Every CUDA kernel with the argument types the host code passes it."""
    from numba import types as t

    from fsel.kernels.gpu import _cuda_columns as kcol
    from fsel.kernels.gpu import _cuda_conditional as kc
    from fsel.kernels.gpu import _cuda_information as ki
    from fsel.kernels.gpu import _cuda_relief as kr
    from fsel.kernels.gpu import _cuda_sums as ks

    def a(dt, nd):
        return t.Array(dt, nd, "C")

    i64, f64, b = t.int64, t.float64, t.boolean
    hist = a(t.int32, 2)
    u8, i32 = a(t.uint8, 1), a(t.int32, 1)
    u64, cols = a(t.uint64, 1), a(t.uint64, 2)
    return [
        (kcol.columns_from_rows, (a(t.uint32, 1), u8, i64, i64, b, cols)),
        (kcol.hist_columns, (cols, *[i64] * 5, u64, b, b, i32, u64, b, *[i64] * 3, b, hist)),
        (kcol.z_words, (cols, u64, i64, i64, b, b, i32, u64)),
        (kcol.hist_owned, (cols, i64, i64, u64, i64, i64, i64, hist)),
        (kcol.hist_private, (cols, i64, i64, u64, i64, i64, i64, hist)),
        (kcol.pad_bytes, (u8, i64, u8)),
        (ks.nlogn_rows, (hist, i64, a(f64, 1), a(f64, 1), a(f64, 1), a(i64, 1), a(i64, 1), u8)),
        (kc.mark_states, (u8, i64, i64, i64, i32, i64, u8)),
        (kc.count_present, (u8, i64, i32)),
        (kc.rank_present, (u8, i64, i32, i32)),
        (kc.joint_states, (u8, i64, i64, i64, i32, b, i64, i32, i32)),
        *[
            (kc.z_block_counts, (i32, u8, b, i32, *[i64] * 4, zt, hist, a(i64, 1)))
            for zt in (u8, i32)
        ],
        (kc.z_global_counts, (i32, u8, b, i32, i64, i64, i32, a(i64, 1))),
        (kc.block_bases, (hist, i32, i64)),
        (kc.scatter_block, (i32, i64, i64, i64, hist, i32, i32)),
        (kc.scatter_global, (i32, i64, i32, i32, i32)),
        (kc.hist_sorted, (u8, i64, *[i32] * 5, *[i64] * 5, hist)),
        (ki.hist_shared, (a(t.uint32, 2), a(t.uint32, 1), b, i64, i64, i64, i64, hist)),
        (ki.hist_shared, (a(t.uint32, 2), a(t.int32, 1), b, i64, i64, i64, i64, hist)),
        (ki.hist_global, (a(t.uint8, 2), a(t.uint32, 1), b, i64, i64, hist)),
        (ki.hist_global, (a(t.int32, 2), a(t.int32, 1), b, i64, i64, hist)),
        (ki.pair_z, (a(t.uint8, 2), i64, a(t.uint8, 1), i64, i64, a(t.uint8, 1))),
        (ki.pair_z, (a(t.uint8, 2), i64, a(t.uint8, 1), i64, i64, a(t.int32, 1))),
        (ki.transpose_codes, (a(t.int64, 2), a(t.uint8, 2))),
        (ki.column_range, (a(t.uint8, 2), i64, a(i64, 1), a(i64, 1))),
        *[
            (
                ki.hist_rows,
                (
                    a(t.uint32, 1),
                    a(t.uint8, 1),
                    *([i64] * 6),
                    a(zt, 1),
                    b,
                    b,
                    a(t.int32, 1),
                    i64,
                    i64,
                    i64,
                    b,
                    hist,
                ),
            )
            for zt in (t.uint8, t.int32)
        ],
        *[
            (
                ki.hist_lanes,
                (a(t.uint8, 1), *([i64] * 7), a(zt, 1), b, b, a(t.int32, 1), i64, i64, b, hist),
            )
            for zt in (t.uint8, t.int32)
        ],
        *[
            (
                ki.hist_lane_words,
                (
                    *(a(t.uint32, 1), a(t.uint8, 1), *([i64] * 5), a(zt, 1), b, b),
                    *(a(t.int32, 1), i64, i64, b, hist),
                ),
            )
            for zt in (t.uint8, t.int32)
        ],
        *[
            (
                ki.hist_rows_global,
                (a(t.uint8, 1), *[i64] * 6, a(zt, 1), b, b, a(t.int32, 1), i64, hist),
            )
            for zt in (t.uint8, t.int32)
        ],
        (ki.zero_cells, (hist,)),
        (ki.byte_counts, (a(t.uint8, 1), a(i64, 1))),
        (ki.column_rows, (a(t.uint8, 1), i64, i64, i64, a(t.uint8, 1))),
        (ki.narrow_codes, (t.Array(t.int64, 2, "A"), a(t.uint8, 2))),
        (ki.narrow_codes, (t.Array(t.boolean, 2, "A"), a(t.uint8, 2))),
        (kr.transpose, (a(f64, 2), a(f64, 2))),
        (kr.transpose_checked, (a(f64, 2), a(f64, 2), a(t.int32, 1))),
        (kr.distances, (a(f64, 2), a(f64, 2), b, a(f64, 2))),
        (
            kr.nearest_by_class,
            (
                *(a(f64, 2), a(i64, 1), a(i64, 1), i64, i64, f64),
                *(a(f64, 3), a(i64, 3), a(f64, 3), a(i64, 3)),
            ),
        ),
        (kr.row_sums, (a(f64, 2), a(i64, 1), a(f64, 1), b, a(f64, 1))),
        (kr.radius_counts, (a(f64, 2), a(i64, 1), a(f64, 1), a(i64, 1), a(i64, 2))),
        (kr.radius_weights, (a(f64, 2), a(i64, 1), a(f64, 1), a(i64, 1), a(f64, 2))),
        (kr.weighted_absdiff, (a(f64, 2), a(f64, 2), a(f64, 2), a(f64, 2))),
        (kr.sqrt_inplace, (a(f64, 2),)),
        (kr.radix_counts, (a(t.uint64, 2), a(t.uint64, 2), t.uint64, t.uint64, a(i64, 3))),
        (kr.scale_sorted, (a(f64, 2), a(i64, 1), *[a(f64, 1)] * 4, a(f64, 2))),
        (kr.gather_rows, (a(f64, 2), a(i64, 1), a(f64, 2))),
    ]


def _device_functions_for_sm90(monkeypatch) -> None:
    """A kernel calling a device function compiles that function for the current
    device's compute capability; with no device here, name the one compiled for."""
    from types import SimpleNamespace

    from numba.cuda import dispatcher

    if hasattr(dispatcher, "get_current_device"):
        sm90 = SimpleNamespace(compute_capability=(9, 0))
        monkeypatch.setattr(dispatcher, "get_current_device", lambda: sm90)


def test_kernels_compile_for_a_real_gpu(monkeypatch):
    """The kernels type-check and compile to PTX (sm_90) with the argument types the
    host code passes: what the simulator, which runs them as Python, cannot check.
    Needs numba's CUDA target and libNVVM (a CUDA toolkit), not a GPU."""
    pytest.importorskip("numba")
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        pytest.skip("the simulator has no compiler")
    try:
        from numba import cuda
        from numba import types as t

        cuda.compile_ptx(lambda x: None, t.void(t.int32[:]), cc=(9, 0))
    except Exception as exc:  # no libNVVM here
        pytest.skip(f"numba cannot compile CUDA kernels here: {str(exc).splitlines()[0][:80]}")
    from numba import types as t

    _device_functions_for_sm90(monkeypatch)
    for kernel, sig in _ptx_signatures():
        ptx, _ = cuda.compile_ptx(kernel.py_func, t.void(*sig), cc=(9, 0))
        assert ".entry" in ptx


@pytest.mark.parametrize(
    "labels",
    [
        [1, 0, 1, 1],  # already the codes 0..m-1: a view comes back
        [5, 3, 5, 9],  # gaps
        [-2, 7, 7, -2, 0],  # negative labels, int8 and wider
        [3, 3, 3],
    ],
)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.bool_])
def test_encode_labels_agrees_with_np_unique(labels, dtype):
    pytest.importorskip("numba")
    from fsel.kernels.gpu.information import encode_labels

    y = np.array(labels)
    if dtype is np.bool_:
        y = y > 2
    elif dtype is np.uint8:
        y = np.abs(y)
    y = y.astype(dtype)
    before = y.copy()
    classes, codes = encode_labels(y)
    want_classes, want_codes = np.unique(y, return_inverse=True)
    assert classes.tolist() == want_classes.tolist()
    assert classes.dtype == y.dtype
    assert codes.tolist() == want_codes.reshape(-1).tolist()
    np.testing.assert_array_equal(y, before)  # the input is not modified


def test_byte_label_counts_is_bincount():
    pytest.importorskip("numba")
    from fsel.kernels.gpu.information import byte_label_counts

    y = np.random.default_rng(0).integers(0, 256, 1001).astype(np.uint8)
    assert byte_label_counts(y).tolist() == np.bincount(y, minlength=256).tolist()


def test_row_kernel_registers_allow_its_blocks_per_multiprocessor(tmp_path, monkeypatch):
    """The row kernel's grid assumes ROW_BLOCKS_PER_SM blocks of ROW_THREADS threads fit
    a multiprocessor's 65,536 registers together, and the lane kernel's that the four
    blocks of LANE_TILE threads its shared memory allows for JMI's step do (and
    the word kernel's): ptxas
    (sm_90) must agree. Needs libNVVM and ptxas (a CUDA toolkit), not a GPU."""
    import shutil

    pytest.importorskip("numba")
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        pytest.skip("the simulator has no compiler")
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("no ptxas here")
    try:
        from numba import cuda
        from numba import types as t

        cuda.compile_ptx(lambda x: None, t.void(t.int32[:]), cc=(9, 0))
    except Exception as exc:  # no libNVVM here
        pytest.skip(f"numba cannot compile CUDA kernels here: {str(exc).splitlines()[0][:80]}")
    from fsel.kernels.gpu import _cuda_columns as kcol
    from fsel.kernels.gpu import _cuda_conditional as kc
    from fsel.kernels.gpu import _cuda_information as ki
    from fsel.kernels.gpu.conditional import THREADS
    from fsel.kernels.gpu.information_rows import ROW_BLOCKS_PER_SM, ROW_THREADS
    from fsel.kernels.gpu.lanes import LANE_TILE, LANE_WORD_THREADS_PER_SM

    _device_functions_for_sm90(monkeypatch)
    lanes = LANE_TILE * 4
    blocks = {ki.hist_rows: ROW_THREADS * ROW_BLOCKS_PER_SM, ki.hist_lanes: lanes}
    blocks[ki.hist_lane_words] = LANE_WORD_THREADS_PER_SM
    blocks[kc.hist_sorted] = THREADS * 4  # four blocks of 48 KiB a multiprocessor
    # the column table's grids count on these registers a thread
    blocks[kcol.hist_columns] = 65536 // kcol.COLUMN_REGISTERS
    blocks[kcol.hist_owned] = 2048
    blocks[kcol.hist_private] = 65536 // kcol.PRIVATE_REGISTERS
    for kernel, sig in _ptx_signatures():
        if kernel not in blocks:
            continue
        ptx, _ = cuda.compile_ptx(kernel.py_func, t.void(*sig), cc=(9, 0))
        (tmp_path / "k.ptx").write_text(ptx)
        limit = kernel.targetoptions.get("max_registers")  # what the linker is told
        cap = [f"-maxrregcount={limit}"] if limit else []
        ptx_file, out = str(tmp_path / "k.ptx"), str(tmp_path / "k.o")
        run = subprocess.run(
            [ptxas, "-arch=sm_90", "-v", *cap, ptx_file, "-o", out],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        registers = int(run.stderr.split("Used ")[1].split(" registers")[0])
        assert " 0 bytes spill stores" in run.stderr, (kernel, run.stderr[-500:])
        assert registers * blocks[kernel] <= 65536, (kernel, registers)
