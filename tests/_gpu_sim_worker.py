"""Run by tests/test_gpu.py in a subprocess with ``NUMBA_ENABLE_CUDASIM=1`` (the
simulator must be chosen before ``numba.cuda`` is first imported): fits every selector
that has ``device="cuda"`` on the CPU and on the (simulated) GPU, and prints the
selections and scores of both as JSON. Tiny tables: the simulator runs one Python
thread per GPU thread."""

from __future__ import annotations

import json
import os
import sys

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"

import fsel  # noqa: E402
from fsel.kernels.information import InformationTable  # noqa: E402

INFORMATION = [
    "MIM", "MIFS", "MRMR", "JMI", "CMIM", "DISR", "ICAP", "CIFE", "CondRed", "CMI",
    "BetaGamma", "JMIM",
]  # fmt: skip


def codes_table(seed: int = 0, n: int = 120, d: int = 5):
    """Integer codes of 4 levels and 3 classes; features 0 and 2 carry the class,
    3 copies 0 with noise."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, d))
    X[:, 3] = np.where(rng.random(n) < 0.7, X[:, 0], X[:, 3])
    y = (X[:, 0] + X[:, 2] + rng.integers(0, 2, n)) % 3
    return X, y


def fitted(est):
    out = {"order": est.selection_order_.tolist(), "scores": est.scores_.tolist()}
    for attr in ("selection_scores_", "relevance_", "margin_"):
        if hasattr(est, attr):
            out[attr] = np.asarray(getattr(est, attr)).tolist()
    out["device_"] = getattr(est, "device_", None)
    return out


def pair(cls, X, y, **kw):
    cpu = cls(**kw).fit(X, y)
    gpu = cls(device="cuda", **kw).fit(X, y)
    return {"cpu": fitted(cpu), "gpu": fitted(gpu), "timings": sorted(gpu.timings_)}


def main() -> None:
    from numba import cuda

    from fsel.kernels.gpu.information import GpuInformationTable

    X, y = codes_table()
    res: dict[str, object] = {}
    for name in INFORMATION:
        res[name] = pair(getattr(fsel, name), X, y, n_features_to_select=3, discretize=None)
    res["JMI-miller_madow"] = pair(
        fsel.JMI, X, y, n_features_to_select=3, discretize=None, mi_estimator="miller_madow"
    )
    rng = np.random.default_rng(1)
    Xf = X + rng.random(X.shape)  # floats, binned into 4 uniform bins on both devices
    res["MRMR-binned-floats"] = pair(fsel.MRMR, Xf, y, n_features_to_select=3, n_bins=4)
    # codes already on the GPU (sample-major uint8)
    gpu = fsel.JMI(3, discretize=None, device="cuda").fit(cuda.to_device(X.astype(np.uint8)), y)
    res["JMI-device-array"] = {"gpu": fitted(gpu)}
    # a table larger than its GPU budget streams through in row blocks
    codes = np.ascontiguousarray(X.T.astype(np.uint8))
    ref = InformationTable(codes, np.full(X.shape[1], 4), y)
    streamed = GpuInformationTable(codes, np.full(X.shape[1], 4), y, memory_budget=900)
    res["streamed"] = {
        "resident": streamed.codes.dev is not None,
        "blocks": len(streamed.codes.blocks()),
        "relevance": [ref.relevance.tolist(), streamed.relevance.tolist()],
        "joint_mi": [ref.pair_terms(2).joint_mi.tolist(), streamed.pair_terms(2).joint_mi.tolist()],
    }
    # the Relief family: floats, two classes
    rng = np.random.default_rng(2)
    Xr = rng.random((40, 5))
    yr = (Xr[:, 0] + Xr[:, 2] + 0.3 * rng.random(40) > 1.1).astype(int)
    res["ReliefF"] = pair(
        fsel.ReliefF, Xr, yr, n_features_to_select=2, n_neighbors=3, sample_size=8, random_state=0
    )
    res["ReliefF-euclidean-all"] = pair(
        fsel.ReliefF, Xr, yr, n_features_to_select=2, n_neighbors=2, metric="euclidean"
    )
    res["Relief"] = pair(fsel.Relief, Xr, yr, n_features_to_select=2, sample_size=8, random_state=3)
    res["MRelief"] = pair(
        fsel.MRelief, Xr, yr, n_features_to_select=2, sample_size=8, random_state=4
    )
    sampled = {"n_features_to_select": 2, "sample_size": 8}
    res["SURF"] = pair(fsel.SURF, Xr, yr, random_state=5, **sampled)
    res["MultiSURF-euclidean"] = pair(
        fsel.MultiSURF, Xr, yr, random_state=6, metric="euclidean", **sampled
    )
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
