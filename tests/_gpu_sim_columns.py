"""Run by tests/test_gpu_columns.py in a subprocess with ``NUMBA_ENABLE_CUDASIM=1``:
the feature-major GPU table (:mod:`fsel.kernels.gpu.information_columns`) under
numba's CUDA simulator. Prints JSON: its copy of the codes against ``X.T``, its joint
counts against ``np.add.at`` (several plans of ``hist_columns``), and fits with it
against the CPU's."""

from __future__ import annotations

import json
import os

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"

from _simulator import fast_switching, locked_shared_arrays  # noqa: E402

fast_switching()
locked_shared_arrays()

from numba import cuda  # noqa: E402
from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray  # noqa: E402

import fsel  # noqa: E402
from fsel.kernels.gpu import information_columns, information_rows, tables  # noqa: E402

FakeCUDAArray.__cuda_array_interface__ = property(
    lambda self: {"shape": self.shape, "typestr": self._ary.dtype.str, "version": 3}
)

#: (rows, features, levels, classes, labels through the lookup table)
COUNT_CASES = [
    (37, 7, 5, 2, False),
    (64, 8, 4, 3, True),
    (17, 13, 3, 5, True),
    (9, 4, 2, 2, False),
    (301, 9, 3, 2, True),  # rows enough for a warp to take several chunks of words
]
#: plans: (shared bytes, group, copies, waves, wide)
PLANS = [
    (24 * 1024, 16, 8, 1, False),
    (2000, 2, 3, 2, True),
    (4096, 5, 1, 1, True),  # four loads in flight, then one alone
]
#: plans of ``hist_owned`` (one candidate a lane): (shared bytes, warps, copies); the
#: last fits only histograms of up to 32 cells (4 lanes), so the wider ones fall back
#: to ``hist_columns``
OWNED_PLANS = [(47 * 1024, 2, 1), (47 * 1024, 1, 3), (512, 2, 2)]
#: plans of ``hist_private`` (one histogram a thread): (shared bytes, two 16-bit
#: counts a word, waves); the last fits only histograms of up to 32 cells (8 threads,
#: 16-bit counts), so the wider ones fall back to ``hist_columns``
PRIVATE_PLANS = [(100 * 1024, True, 1), (100 * 1024, False, 2), (128, True, 1)]


def expected(X: np.ndarray, z: np.ndarray, nz: int, width: int) -> np.ndarray:
    """Every feature's joint counts with ``z`` by a plain scatter."""
    out = np.zeros((X.shape[1], width), dtype=np.int64)
    for k in range(X.shape[1]):
        np.add.at(out[k], X[:, k].astype(np.int64) * nz + z, 1)
    return out


def count_cases() -> dict[str, object]:
    launched: list[str] = []
    real = information_columns._launch

    def spy(kernel, *args, **kwargs):
        launched.append(kernel.fn.__name__)
        return real(kernel, *args, **kwargs)

    information_columns._launch = spy
    rng = np.random.default_rng(1)
    out: dict[str, object] = {}
    for n, K, levels, n_classes, lut in COUNT_CASES:
        X = rng.integers(0, levels, size=(n, K)).astype(np.uint8)
        y = rng.integers(0, n_classes, n).astype(np.uint8)
        if lut:  # label bytes that are not their codes
            y = (y * 3 + 1).astype(np.uint8)
        dX = cuda.to_device(X)
        words = information_columns.columns_of(dX).copy_to_host()
        as_bytes = words.view(np.uint8).reshape(K, -1)
        name = f"{n}x{K}"
        out[name] = {
            "copy": bool(np.array_equal(as_bytes[:, :n], X.T)),
            "padding_zero": not as_bytes[:, n:].any(),
            "plans": [],
        }
        labels = information_rows.device_labels(y, n, "test")
        codes = labels.host_codes().astype(np.int64)
        ny = int(codes.max()) + 1
        zg = rng.integers(0, 7, n).astype(np.uint8)
        for plan in PLANS:
            launched.clear()
            table = information_columns.GpuColumnTable(
                dX, labels, shared_bytes=plan[0], group=plan[1], copies=plan[2],
                waves=plan[3], wide=plan[4],
            )  # fmt: skip
            ok = same_counts(table, X, codes, ny, zg)
            out[name]["plans"].append({"same": ok, "kernels": sorted(set(launched))})
        for way, plans in (("owned", OWNED_PLANS), ("private", PRIVATE_PLANS)):
            out[name][way] = []
            for plan in plans:
                launched.clear()
                table = information_columns.GpuColumnTable(dX, labels, **{way: True})
                setattr(table, f"{way}_plan", plan)
                ok = same_counts(table, X, codes, ny, zg)
                largest = int(table.n_levels.max()) * max(int(table.n_levels.max()) * ny, 7)
                out[name][way].append(
                    {"same": ok, "kernels": sorted(set(launched)), "largest_cells": largest}
                )
    information_columns._launch = real
    return out


def flush_cases() -> dict[str, object]:
    """``hist_private`` with its flush every two words a thread (the real kernel: 8,191):
    rows enough for each thread to flush several times within a candidate, and a
    candidate whose rows all carry one ``(x, Z)`` cell (every row in one count)."""
    from fsel.kernels.gpu import _cuda_columns as kern

    saved = kern.PRIVATE_FLUSH_WORDS
    out: dict[str, object] = {}
    try:
        kern.PRIVATE_FLUSH_WORDS = 2
        rng = np.random.default_rng(3)
        n, K = 400, 3
        X = rng.integers(0, 3, size=(n, K)).astype(np.uint8)
        X[:, 2] = 1
        y = np.zeros(n, dtype=np.uint8)
        y[::7] = 1
        labels = information_rows.device_labels(y, n, "test")
        codes = labels.host_codes().astype(np.int64)
        for half in (True, False):
            table = information_columns.GpuColumnTable(cuda.to_device(X), labels, private=True)
            table.private_plan = (100 * 1024, half, 1)
            ny = int(codes.max()) + 1
            ok = True
            for j in range(K):
                nz = int(table.n_levels[j]) * ny
                z = X[:, j].astype(np.int64) * ny + codes
                a = int(table.n_levels.max())
                got = table._counts(nz, row=(j, ny, True))
                ok &= np.array_equal(got, expected(X, z, nz, a * nz))
            out["half" if half else "full"] = bool(ok)
    finally:
        kern.PRIVATE_FLUSH_WORDS = saved
    return out


def same_counts(table, X: np.ndarray, codes: np.ndarray, ny: int, zg: np.ndarray) -> bool:
    """Whether ``table`` finds the levels and counts, as ``np.add.at`` does, every
    feature against ``Xj |Y| + Y`` and against ``Xj`` alone, and against ``zg``
    given on the GPU (CMI's joint with the labels, one byte a row)."""
    a = int(table.n_levels.max())
    ok = np.array_equal(table.n_levels, X.max(axis=0).astype(np.int64) + 1)
    for j in range(X.shape[1]):
        nz = int(table.n_levels[j]) * ny
        z = X[:, j].astype(np.int64) * ny + codes
        ok &= np.array_equal(table._counts(nz, row=(j, ny, True)), expected(X, z, nz, a * nz))
        nz = int(table.n_levels[j])  # Xj alone
        got = table._counts(nz, row=(j, 1, False))
        ok &= np.array_equal(got, expected(X, X[:, j].astype(np.int64), nz, a * nz))
    got = table._counts(7, z=cuda.to_device(zg))
    ok &= np.array_equal(got, expected(X, zg.astype(np.int64), 7, a * 7))
    return bool(ok)


#: fits on codes on the GPU with ``_VARIANT`` ``"columns"``, ``"owned"``, ``"private"``:
#: (name, rows, features, levels, classes, criterion, y dtype, k)
FIT_CASES = [
    ("JMI-odd", 37, 7, 5, 2, "JMI", np.int8, 3),
    ("CMIM-lut", 45, 8, 4, 3, "CMIM", np.int16, 3),
    ("CMI", 29, 12, 3, 3, "CMI", np.int8, 3),  # Z from the joint: the row kernels
    ("DISR-wide", 21, 5, 30, 2, "DISR", np.uint8, 2),  # Z beyond a byte: the row kernels
    ("JMIM-bool", 50, 20, 2, 2, "JMIM", np.bool_, 3),
    ("MIM-50-classes", 26, 5, 3, 50, "MIM", np.uint8, 2),
]


def fit_cases(variant: str) -> dict[str, object]:
    default = tables._VARIANT
    tables._VARIANT = variant
    rng = np.random.default_rng(5)
    out: dict[str, object] = {}
    for name, n, d, levels, n_classes, crit, ydt, k in FIT_CASES:
        X = rng.integers(0, levels, size=(n, d))
        X[:, 1] = np.where(rng.random(n) < 0.7, X[:, 0], X[:, 1])
        y = ((X[:, 0] + rng.integers(0, 2, n)) % n_classes).astype(ydt)
        cls = getattr(fsel, crit)
        cpu = cls(k, discretize=None).fit(X, y)
        gpu = cls(k, discretize=None, device="cuda").fit(cuda.to_device(X.astype(np.uint8)), y)
        out[name] = {
            "cpu": [cpu.selection_order_.tolist(), cpu.scores_.tolist(), cpu.relevance_.tolist()],
            "gpu": [gpu.selection_order_.tolist(), gpu.scores_.tolist(), gpu.relevance_.tolist()],
            "timings": sorted(gpu.timings_),
        }
    tables._VARIANT = default
    return out


def sums_cases() -> dict[str, object]:
    """``device_sums`` against the host's ``sums_from_counts``: histograms with counts
    below the table's end, some beyond it (those rows summed on the host), empty
    rows, one and two classes; whether every number is the host's bit for bit and
    which rows went back."""
    from fsel.kernels.gpu.information import NlognTable, sums_from_counts
    from fsel.kernels.gpu.sums import device_sums

    rng = np.random.default_rng(11)
    table = NlognTable()
    small = cuda.to_device(table.small())
    out: dict[str, object] = {}
    for name, K, cells, group, top in [
        ("two-classes", 9, 40, 2, 3000),
        ("one-class", 5, 12, 1, 70_000),
        ("beyond", 6, 30, 3, 200_000),
    ]:
        hist = rng.integers(0, top, size=(K, cells)).astype(np.int32)
        hist[rng.random((K, cells)) < 0.3] = 0
        hist[1] = 0  # an empty row
        want = sums_from_counts(hist.astype(np.int64), group, table)
        got = device_sums(cuda.to_device(hist), group, table, small)
        same = all(
            np.array_equal(g, w) and g.dtype == w.dtype for g, w in zip(got, want, strict=True)
        )
        big = (hist >= NlognTable.SMALL).any(axis=1) | (
            hist.reshape(K, -1, group).sum(axis=2) >= NlognTable.SMALL
        ).any(axis=1)
        out[name] = {"same": bool(same), "rows_beyond": int(big.sum())}
    return out


if __name__ == "__main__":
    fits = {variant: fit_cases(variant) for variant in ("columns", "owned", "private")}
    found = {"counts": count_cases(), "fits": fits, "flush": flush_cases(), "sums": sums_cases()}
    print(json.dumps(found))
