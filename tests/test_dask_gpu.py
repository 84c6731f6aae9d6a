"""``device="cuda"`` on Dask input: each worker counts its blocks with the GPU kernels.

The GPU half runs under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) in a
subprocess (tests/_dask_gpu_sim_worker.py: the simulator must be chosen before
``numba.cuda`` is first imported), on a 200 x 8 table in three chunks: Dask's threaded
scheduler and a ``distributed`` cluster of two thread workers. The counts are integers
summed on the client as on the CPU, so a GPU fit on Dask gives the Dask CPU fit's
numbers bit for bit, and the in-memory fit's selection (scores to rounding). The
errors without a GPU are checked here with a fake device hook.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

import fsel
from _simulator import run_simulated
from fsel.kernels.gpu import _device

da = pytest.importorskip("dask.array")

ROOT = Path(__file__).resolve().parents[1]
CASES = [
    ("threads", "JMI"),
    ("client", "JMI"),
    ("client", "MRMR"),
    ("client", "CMI"),
    ("mixed", "JMI"),
]


@pytest.fixture(scope="module")
def simulated() -> dict:
    pytest.importorskip("numba")
    pytest.importorskip("distributed")
    return run_simulated("_dask_gpu_sim_worker.py")


@pytest.mark.parametrize(("where", "name"), CASES)
def test_dask_on_the_gpu_selects_what_the_cpu_selects(simulated, where, name):
    r = simulated[where][name]
    assert r["dask"]["order"] == r["cpu"]["order"] == r["dask_cpu"]["order"]
    # the same integer counts, summed and turned into bits by the same client code
    assert r["dask"]["scores"] == r["dask_cpu"]["scores"]
    assert r["dask"]["relevance_"] == r["dask_cpu"]["relevance_"]
    np.testing.assert_allclose(r["dask"]["scores"], r["cpu"]["scores"], rtol=0, atol=1e-9)
    assert r["dask_cpu"]["device_"] == "cpu" and "timings" not in r["dask_cpu"]
    assert r["dask"]["device_"] == ("cuda+cpu" if where == "mixed" else "cuda")
    assert r["dask"]["timings"] == ["count_s", "select_s", "setup_s", "transfer_s"]


def test_a_block_counts_on_the_gpu_as_on_the_cpu(simulated):
    # resident, streamed in row blocks, and rebuilt after pickling (a block moved)
    b = simulated["block"]
    assert b["resident"] and b["streamed"]
    assert b["resident_blocks"] == 1 < b["streamed_blocks"]


def test_a_worker_without_a_gpu_refuses_device_cuda_in_one_line(simulated):
    msg = simulated["mixed-cuda-error"]
    assert msg.startswith("JMI: device='cuda' but no CUDA device found (fake)")
    assert "on Dask worker" in msg and "\n" not in msg


# ------------------------------------------------------------- without a GPU, no simulator


def _table(n: int = 120):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(n, 4))
    y = (X[:, 0] + rng.integers(0, 2, n)) % 2
    return X, y, da.from_array(X, chunks=(50, 4)), da.from_array(y, chunks=(50,))


@contextmanager
def _thread_client():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _no_gpu(monkeypatch):
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.setattr(_device, "cuda_problem", lambda: "no CUDA device found (fake)")


def test_device_cuda_on_dask_without_a_gpu_is_the_in_memory_error(monkeypatch):
    _no_gpu(monkeypatch)
    X, y, Xd, yd = _table()
    with pytest.raises(RuntimeError) as memory:
        fsel.JMI(2, device="cuda").fit(X, y)
    import dask

    with dask.config.set(scheduler="threads"), pytest.raises(RuntimeError) as local:
        fsel.JMI(2, device="cuda").fit(Xd, yd)
    assert (
        str(local.value)
        == str(memory.value)
        == ("JMI: device='cuda' but no CUDA device found (fake)")
    )
    with _thread_client(), pytest.raises(RuntimeError) as remote:
        fsel.MRMR(2, device="cuda").fit(Xd, yd)  # checked on every worker, before any pass
    msg = str(remote.value)
    assert msg.startswith("MRMR: device='cuda' but no CUDA device found (fake) (on Dask worker ")
    assert "\n" not in msg


def test_device_auto_on_dask_without_a_gpu_counts_on_the_cpu(monkeypatch):
    _no_gpu(monkeypatch)
    X, y, Xd, yd = _table()
    mem = fsel.JMI(3).fit(X, y)
    with _thread_client():
        auto = fsel.JMI(3, device="auto").fit(Xd, yd)
    assert auto.device_ == "cpu" and not hasattr(auto, "timings_")
    assert auto.selection_order_.tolist() == mem.selection_order_.tolist()
    np.testing.assert_allclose(auto.scores_, mem.scores_, rtol=0, atol=1e-9)


def test_a_bad_device_value_on_dask_is_refused():
    _, _, Xd, yd = _table()
    with pytest.raises(ValueError, match="device must be one of"):
        fsel.JMI(1, device="gpu").fit(Xd, yd)
