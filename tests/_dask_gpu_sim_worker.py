"""Run by tests/test_dask_gpu.py in a subprocess with ``NUMBA_ENABLE_CUDASIM=1`` (the
simulator must be chosen before ``numba.cuda`` is first imported): fits information
criteria on a tiny table in memory on the CPU and on Dask with ``device="cuda"`` (each
worker's blocks counted by the GPU kernels, here simulated), and prints the selections,
scores and ``device_`` of each as JSON.

Dask runs on a ``distributed.LocalCluster`` of two thread workers in this process (so
they see the simulator) and on Dask's local threaded scheduler (no client). A mixed
cluster (``device="auto"`` where one worker has no GPU) is made by a fake device hook
that reports no device on the worker named 1.

The simulator runs one kernel at a time per process ("concurrent simulated kernel not
supported"): the thread workers' launches are serialised here by a lock (a real GPU
takes concurrent launches from the threads of one process).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"

from _simulator import fast_switching, locked_shared_arrays  # noqa: E402

fast_switching()
locked_shared_arrays()

import threading  # noqa: E402

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import distributed  # noqa: E402

import fsel  # noqa: E402
from fsel.kernels.gpu import _device  # noqa: E402
from fsel.kernels.gpu import information as gpu_information  # noqa: E402

_LOCK = threading.Lock()
_real_launch = gpu_information._launch


def _one_launch_at_a_time(*args, **kwargs):
    with _LOCK:
        return _real_launch(*args, **kwargs)


gpu_information._launch = _one_launch_at_a_time

CRITERIA = ["JMI", "MRMR", "CMI"]  # the pair terms, I(Xk;Xj) alone, I(Xk;Y|S)
CHUNKS = (70, 80, 50)  # three uneven row chunks


def codes_table(seed: int = 0, n: int = 200, d: int = 8):
    """Integer codes of 4 levels and 3 classes; features 0 and 2 carry the class, 3 and
    5 are noisy copies of 0 and 2."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, d))
    X[:, 3] = np.where(rng.random(n) < 0.7, X[:, 0], X[:, 3])
    X[:, 5] = np.where(rng.random(n) < 0.6, X[:, 2], X[:, 5])
    y = (X[:, 0] + X[:, 2] + rng.integers(0, 2, n)) % 3
    return X, y


def fitted(est):
    out = {
        "order": est.selection_order_.tolist(),
        "scores": est.scores_.tolist(),
        "relevance_": est.relevance_.tolist(),
        "device_": est.device_,
    }
    if hasattr(est, "timings_"):
        out["timings"] = sorted(est.timings_)
    return out


def fits(X, y, Xd, yd, device, names=CRITERIA, **kw):
    """Per criterion: the in-memory CPU fit, the Dask CPU fit and the Dask fit on
    ``device``."""
    out = {}
    for name in names:
        cls = getattr(fsel, name)
        out[name] = {
            "cpu": fitted(cls(3, **kw).fit(X, y)),
            "dask_cpu": fitted(cls(3, **kw).fit(Xd, yd)),
            "dask": fitted(cls(3, device=device, **kw).fit(Xd, yd)),
        }
    return out


def block_counts() -> dict[str, bool]:
    """One block's GPU counts against the CPU's, resident, streamed through a small
    budget and after a pickle round trip (a block moved to another worker)."""
    import pickle

    from fsel.kernels._counting import joint_histograms
    from fsel.kernels.gpu.information import GpuBlockCounts

    X, y = codes_table(1, n=37, d=6)
    C = np.ascontiguousarray(X.T.astype(np.uint8))
    n_levels, ny = np.full(6, 6), 3  # wider than this block's codes (0..3)
    z = (X[:, 1] * ny + y).astype(np.int64)
    want_y = joint_histograms(C, y, ny, 6)
    want_pair = joint_histograms(C, z, 4 * ny, 6)
    out = {}
    for name, budget in (("resident", None), ("streamed", 200)):
        g = GpuBlockCounts(C, y, n_levels, ny, memory_budget=budget)
        again = pickle.loads(pickle.dumps(g))
        out[name] = all(
            np.array_equal(h.joint_counts(ny), want_y)
            and np.array_equal(h.joint_counts(4 * ny, row=(1, ny, True)), want_pair)
            and np.array_equal(h.joint_counts(4 * ny, z=z), want_pair)
            for h in (g, again)
        )
        out[name + "_blocks"] = len(g.codes.blocks())
    return out


def main() -> None:
    X, y = codes_table()
    res: dict[str, object] = {"block": block_counts()}
    Xd, yd = da.from_array(X, chunks=(CHUNKS, X.shape[1])), da.from_array(y, chunks=(CHUNKS,))
    with dask.config.set(scheduler="threads"):  # no client: this process's (simulated) GPU
        res["threads"] = fits(X, y, Xd, yd, "cuda", ["JMI"], discretize=None)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        Xp, yp = client.persist([Xd, yd])
        distributed.wait([Xp, yp])
        res["client"] = fits(X, y, Xp, yp, "cuda", discretize=None)
        real = _device.cuda_problem

        def worker_1_has_none():  # the fake device hook: no GPU on worker 1
            try:
                name = distributed.get_worker().name
            except ValueError:
                name = None
            return "no CUDA device found (fake)" if name == 1 else real()

        _device.cuda_problem = worker_1_has_none
        try:
            res["mixed"] = fits(X, y, Xp, yp, "auto", ["JMI"], discretize=None)
            try:
                fsel.JMI(3, discretize=None, device="cuda").fit(Xp, yp)
                res["mixed-cuda-error"] = None
            except RuntimeError as exc:
                res["mixed-cuda-error"] = str(exc)
        finally:
            _device.cuda_problem = real
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
