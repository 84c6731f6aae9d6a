"""Run by tests/test_gpu_conditional.py under numba's CUDA simulator (in a subprocess,
as tests/_gpu_sim_worker.py): CMI with its conditioning joint kept on the GPU
(:mod:`fsel.kernels.gpu.conditional`) against the CPU, on each of its routes, and
the joint's codes against :func:`~fsel.kernels.value_ranks.value_ranks`. Prints JSON."""

from __future__ import annotations

import json
import sys

import numpy as np
from numba import cuda

import fsel
from _gpu_sim_worker import fitted  # its import readies the simulated arrays
from fsel.kernels.gpu import conditional, information_rows, tables
from fsel.kernels.value_ranks import value_ranks

#: (name, rows, features, levels, classes, the settings of the route)
CASES = [
    # Z counted by the table's shared-memory kernels; int8 labels, one negative (the
    # labels' lookup table in the kernels)
    ("cond-shared", 60, 7, 4, 3, {}),
    # the rows sorted by Z, cut into tiles of 7 rows, 2 candidates a block (7
    # features: a last group of one), runs of 9 values of Z
    ("cond-sorted", 60, 7, 4, 3, {"fits": False, "SORTED_CELLS": 72, "TILE_ROWS": 7}),
    # more values of Z than a block's shared memory holds: counts and cursors in
    # global memory
    ("cond-global", 60, 7, 4, 3, {"fits": False, "SHARED_CELLS": 4, "TILE_ROWS": 7}),
    # the histograms over a memory budget: one candidate a pass
    ("cond-chunks", 60, 5, 4, 2, {"fits": False, "budget": 64, "TILE_ROWS": 11}),
    # too many states for the flag table: the joint's codes ranked on the host
    ("cond-host-ranks", 60, 5, 9, 3, {"fits": False, "RANK_TABLE_MIN": 0}),
    # the host path of before (each step's column copied to the host, Z uploaded)
    ("cond-off", 60, 5, 4, 3, {"ON_DEVICE": False}),
]


def table(seed: int, n: int, d: int, levels: int, ny: int):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, d))
    X[:, 3] = np.where(rng.random(n) < 0.6, X[:, 0], X[:, 3])
    y = ((X[:, 0] + X[:, 2] + rng.integers(0, 2, n)) % ny - 1).astype(np.int8)
    return X, y


def cmi_cases() -> dict[str, object]:
    real_launch, real_fits = conditional._launch, conditional._fits_shared
    real_budget = information_rows._device_budget
    defaults = {k: getattr(conditional, k) for k in ("SORTED_CELLS", "TILE_ROWS", "SHARED_CELLS")}
    defaults.update(RANK_TABLE_MIN=conditional.RANK_TABLE_MIN, ON_DEVICE=conditional.ON_DEVICE)
    launched: list[str] = []

    def launch(kernel, *args, **kwargs):
        launched.append(kernel.fn.__name__)
        return real_launch(kernel, *args, **kwargs)

    ranked: list[int] = []
    real_ranks = conditional.value_ranks

    def ranks(values, n_states):  # the joint's codes made on the host
        ranked.append(n_states)
        return real_ranks(values, n_states)

    conditional._launch, conditional.value_ranks = launch, ranks
    out: dict[str, object] = {}
    for i, (name, n, d, levels, ny, route) in enumerate(CASES):
        route = dict(route)
        if not route.pop("fits", True):
            conditional._fits_shared = lambda table, cells: False
        if "budget" in route:
            nbytes = route.pop("budget")
            information_rows._device_budget = lambda _b, nbytes=nbytes: nbytes
        for key, value in route.items():
            setattr(conditional, key, value)
        X, y = table(i, n, d, levels, ny)
        cpu = fsel.CMI(4, discretize=None, tol=-1.0).fit(X, y)
        launched.clear()
        ranked.clear()
        dX = cuda.to_device(X.astype(np.uint8))
        gpu = fsel.CMI(4, discretize=None, tol=-1.0, device="cuda").fit(dX, cuda.to_device(y))
        out[name] = {"cpu": fitted(cpu), "gpu": fitted(gpu), "kernels": sorted(set(launched))}
        out[name]["host_ranks"] = len(ranked)
        for key, value in defaults.items():
            setattr(conditional, key, value)
        conditional._fits_shared, information_rows._device_budget = real_fits, real_budget
    conditional._launch, conditional.value_ranks = real_launch, real_ranks
    return out


def joint_code_cases() -> dict[str, object]:
    """The joint of features 0, 3 and 2 as :func:`conditional.joint_codes` numbers it
    on the GPU, with its number of states, against the ranks of the rows' tuples."""
    X, y = table(9, 50, 5, 5, 2)
    X[:, 2] = X[:, 2] * 2  # codes with holes (0, 2, .., 8): a wider key
    info, _ = tables.device_table(cuda.to_device(X.astype(np.uint8)), y)
    s = info.joint_codes(None, 0)
    first = s.dev.copy_to_host().tolist()
    s = info.joint_codes(info.joint_codes(s, 3), 2)
    want = value_ranks(X[:, 0] * 100 + X[:, 3] * 10 + X[:, 2], 1000)
    return {
        "first": first,
        "x0": X[:, 0].tolist(),
        "codes": s.dev.copy_to_host().tolist(),
        "n_states": s.n_states,
        "want": want.tolist(),
        "want_states": int(np.unique(want).size),
    }


def main() -> None:
    json.dump({**cmi_cases(), "joint": joint_code_cases()}, sys.stdout)


if __name__ == "__main__":
    main()
