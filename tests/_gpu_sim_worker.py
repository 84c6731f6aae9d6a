"""Run by tests/test_gpu.py, test_gpu_tables.py and test_gpu_relief.py in a
subprocess with ``NUMBA_ENABLE_CUDASIM=1`` (the simulator must be chosen before
``numba.cuda`` is first imported): fits the selectors that have ``device="cuda"`` on
the CPU and on the (simulated) GPU, and prints the selections and scores of both as
JSON; the first argument names the part (:data:`PARTS`). Tiny tables: the simulator
runs one Python thread per GPU thread."""

from __future__ import annotations

import json
import os
import sys

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"

from _simulator import fast_switching, locked_shared_arrays  # noqa: E402

fast_switching()
locked_shared_arrays()

from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray  # noqa: E402

import fsel  # noqa: E402

# numba's simulated device arrays lack ``__cuda_array_interface__``: give them one, so
# that a fit on them takes the path of codes already on a GPU (as a real device array)
FakeCUDAArray.__cuda_array_interface__ = property(
    lambda self: {"shape": self.shape, "typestr": self._ary.dtype.str, "version": 3}
)
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


#: codes already on the GPU, read in place (GpuRowTable), against the CPU: (name,
#: rows, features, levels, classes, criterion, X dtype, y dtype, y on the GPU, k)
ROW_CASES = [
    ("rows-JMI-odd", 37, 7, 5, 2, "JMI", np.uint8, np.int8, False, 3),  # K % 4 != 0
    ("rows-CMI", 31, 6, 3, 3, "CMI", np.uint8, np.int8, True, 3),  # Z from the host
    ("rows-MRMR-int64", 29, 5, 3, 3, "MRMR", np.int64, np.int64, True, 3),  # narrowed
    ("rows-JMIM-bool", 23, 5, 2, 2, "JMIM", np.uint8, np.bool_, True, 2),
    ("rows-JMI-50-classes", 26, 5, 3, 50, "JMI", np.uint8, np.uint8, False, 2),  # range pass
    ("rows-DISR-wide", 21, 4, 80, 2, "DISR", np.uint8, np.int8, False, 2),  # wide codes
    # the global kernel within a 64-byte budget: one candidate at a time
    ("rows-DISR-wide-chunked", 21, 4, 100, 2, "DISR", np.uint8, np.int8, False, 2),
    ("rows-JMI-40-features", 19, 42, 2, 2, "JMI", np.uint8, np.int8, False, 2),  # wpr > threads
]


def row_table_cases() -> dict[str, object]:
    """Each of :data:`ROW_CASES`: the CPU fit on the host array against the GPU fit
    on the codes put on the (simulated) GPU; feature 1 has a single level, the labels
    are negative where their dtype allows (int8 255 is -1: the lookup table)."""
    from numba import cuda

    from fsel.kernels.gpu import information_rows

    budget = information_rows._device_budget
    counted = information_rows.GpuRowTable._counts_global
    chunks: list[int] = []

    def counts_global(self, cells, nz, zargs, group=None):  # records each launch's candidates
        out = counted(self, cells, nz, zargs, group)
        chunks.append(max(1, min(self.n_features, (self._budget // 4) // (cells * 4))))
        return out

    information_rows.GpuRowTable._counts_global = counts_global
    out: dict[str, object] = {}
    rng = np.random.default_rng(7)
    for name, n, d, levels, ny, crit, xdt, ydt, ydev, k in ROW_CASES:
        information_rows._device_budget = (lambda _b: 64) if "chunked" in name else budget
        X = rng.integers(0, levels, size=(n, d))
        X[:, 1] = levels - 1  # a single-level column
        X[:, 3] = np.where(rng.random(n) < 0.6, X[:, 0], X[:, 3])
        y = (X[:, 0] + rng.integers(0, 2, n)) % ny
        if np.dtype(ydt).kind == "i":
            y = y - 1  # a negative label
        y = y.astype(ydt)
        cls = getattr(fsel, crit)
        cpu = cls(k, discretize=None).fit(X, y)
        dy = cuda.to_device(y) if ydev else y
        gpu = cls(k, discretize=None, device="cuda").fit(cuda.to_device(X.astype(xdt)), dy)
        out[name] = {"cpu": fitted(cpu), "gpu": fitted(gpu)}
        for est, key in ((cpu, "cpu"), (gpu, "gpu")):
            out[name][key]["n_levels_"] = est.n_levels_.tolist()
            out[name][key]["classes_"] = est.classes_.tolist()
        out[name]["timings"] = sorted(gpu.timings_)
        out[name]["max_plus_one"] = (X.max(axis=0) + 1).tolist()  # codes taken as given
        out[name]["global_chunks"], chunks[:] = list(chunks), []
    information_rows._device_budget = budget
    information_rows.GpuRowTable._counts_global = counted
    return out


def gpu_scaling_cases() -> dict[str, object]:
    """ReliefF's set-up on the GPU: the columns' order statistics (ties, a -0.0, an
    infinite value) against a sort, and the matrix scaled and sorted by class there
    against :func:`fsel.kernels.scaling.scale_dense` of the rows in class order (a
    constant column, a column whose quantiles coincide, negative values)."""
    from numba import cuda

    from fsel.kernels.gpu.relief import GpuScaledSamples, order_statistics_gpu
    from fsel.kernels.scaling import scale_dense

    rng = np.random.default_rng(3)
    x = np.round(rng.standard_normal((3, 41)) * 3, 1)
    x[1, :30] = 0.0
    x[1, 3] = -0.0
    x[2, 5] = -np.inf
    ranks = np.array([0, 40, 2, 3, 37, 38])
    out: dict[str, object] = {
        "order-statistics": {
            "gpu": order_statistics_gpu(cuda.to_device(x), ranks).tolist(),
            "sorted": np.sort(x, axis=1)[:, ranks].tolist(),
        }
    }
    # long runs of one value, repeated ranks (targets sharing a prefix: aliased)
    runs = np.repeat(np.array([[2.0, -1.0, 2.0, 0.5, 7.0], [0.0, 0.0, 3.0, 3.0, -2.0]]), 19, axis=1)
    runs[0, ::7] = rng.standard_normal(runs[0, ::7].size)
    ranks = np.array([0, 94, 4, 5, 5, 94])
    out["order-statistics-runs"] = {
        "gpu": order_statistics_gpu(cuda.to_device(runs), ranks).tolist(),
        "sorted": np.sort(runs, axis=1)[:, ranks].tolist(),
    }
    v = rng.standard_normal((43, 4)) * 5
    v[:, 1] = 2.5  # constant
    v[:, 2] = np.where(rng.random(43) < 0.95, -1.0, v[:, 2])  # q05 == q95: range rule
    y = rng.integers(0, 3, 43)
    for scaling in ("range", "robust"):
        gpu = GpuScaledSamples(v, y, scaling)
        want, constant = scale_dense(v, scaling)
        out[f"scaled-{scaling}"] = {
            "gpu": gpu.xt.copy_to_host().T.tolist(),
            "cpu": want[np.argsort(y, kind="stable")].tolist(),
            "constant": [gpu.constant.tolist(), constant.tolist()],
        }
        gpu = GpuScaledSamples(v, y, scaling, sort=False)
        out[f"scaled-{scaling}-unsorted"] = {
            "gpu": gpu.xt.copy_to_host().T.tolist(),
            "cpu": want.tolist(),
            "constant": [gpu.constant.tolist(), constant.tolist()],
        }
    return out


def relief_check_cases() -> dict[str, object]:
    """ReliefF's values checked on the GPU: the transposing pass's flags, the errors
    of bad tables on both devices, and whether the host skipped its value checks."""
    from numba import cuda

    from fsel.kernels.gpu import _cuda_relief as kern
    from fsel.kernels.gpu import relief
    from fsel.selectors import _core

    rng = np.random.default_rng(5)
    x = rng.standard_normal((13, 6))
    x[4, 1] = np.nan
    x[7, 2] = np.inf
    x[2, 3] = -1e308  # beyond half the largest float64
    x[0, 4], x[9, 4] = -np.inf, np.nan
    x[5, 5] = 8e307  # below it
    out_xt = cuda.device_array((6, 13), dtype=np.float64)
    flags = cuda.to_device(np.zeros(6, dtype=np.int32))
    relief._launch(kern.transpose_checked, (2, 1), (8, 8), cuda.to_device(x), out_xt, flags)
    res: dict[str, object] = {
        "transpose-checked": {
            "xt": np.nan_to_num(out_xt.copy_to_host(), nan=-7.0).tolist(),
            "want_xt": np.nan_to_num(x.T, nan=-7.0).tolist(),
            "flags": flags.copy_to_host().tolist(),
        }
    }
    X = rng.random((30, 4))
    y = (X[:, 0] > 0.5).astype(int)
    kw = {"n_features_to_select": 2, "n_neighbors": 2}

    def error(Xb, yb, **extra):
        msgs = []
        for device in ("cpu", "cuda"):
            try:
                fsel.ReliefF(device=device, **{**kw, **extra}).fit(Xb, yb)
                msgs.append(None)
            except (ValueError, TypeError) as exc:
                msgs.append(str(exc))
        return {"cpu": msgs[0], "gpu": msgs[1]}

    errors = {}
    for case, value in (("inf", np.inf), ("-inf", -np.inf)):
        Xb = X.copy()
        Xb[3, 2] = value
        errors[case] = error(Xb, y)
    Xb = X.copy()
    Xb[3, 2] = np.nan
    errors["nan-error"] = error(Xb, y, missing="error")
    errors["nan-expected"] = error(Xb, y)
    Xb = X.copy()
    Xb[3, 1], Xb[5, 1] = 1e308, -1e308
    errors["range-overflow"] = error(Xb, y)
    Xb = X.copy()
    Xb[3, 2] = np.inf  # X and y both bad: the error of X first, as on the CPU
    errors["labels"] = error(Xb, np.zeros(30, dtype=int))
    # the references drawn while X travels: a bad sample_size after the other checks
    errors["sample-size"] = error(X, y, sample_size=0, random_state=1)
    errors["sample-size-and-k"] = error(X, y, sample_size=0, random_state=1, n_features_to_select=9)
    errors["sample-size-and-inf"] = error(Xb, y, sample_size=0, random_state=1)
    res["relief-errors"] = errors
    # the host's value checks skipped only for a clean table; the upload reused
    checked: list[bool] = []
    made = _core.check_table
    uploads = relief.GpuRawSamples.__init__

    def spy(*args, **kwargs):
        checked.append(kwargs.get("values_checked", False))
        return made(*args, **kwargs)

    count = [0]

    def counted(self, values, *args):
        count[0] += 1
        uploads(self, values, *args)

    _core.check_table = spy
    relief.GpuRawSamples.__init__ = counted
    fsel.ReliefF(device="cuda", **kw).fit(X, y)
    clean = list(checked)
    checked.clear()
    Xh = X.copy()
    Xh[3, 1] = 1e308  # near the limit, a finite range
    count[0] = 0
    huge_fit = pair(fsel.ReliefF, Xh, y, **kw)
    res["relief-checked"] = {
        "clean": clean,
        "huge": checked[1:],  # [0]: the CPU fit's
        "huge_fit": huge_fit,
        "huge_uploads": count[0],
    }
    _core.check_table = made
    relief.GpuRawSamples.__init__ = uploads
    # references from the global generator (random_state=None): drawn where they were
    fits = []
    for device in ("cpu", "cuda"):
        np.random.seed(8)  # noqa: NPY002
        est = fsel.ReliefF(device=device, sample_size=9, **kw).fit(X, y)
        after = float(np.random.random())  # noqa: NPY002
        fits.append((fitted(est), after))
    res["relief-global-draws"] = {"cpu": fits[0], "gpu": fits[1]}
    # the staged copy: row blocks of 3 rows through the two pinned buffers
    relief._STAGED_UPLOAD, relief.STAGE_BYTES = True, 3 * 8 * X.shape[1]
    Xs = rng.random((41, 4))
    res["relief-staged"] = {
        "xt": relief.GpuRawSamples(Xs, 2).xt.copy_to_host().tolist(),
        "want_xt": Xs.T.tolist(),
        "fit": pair(fsel.ReliefF, Xs, (Xs[:, 1] > 0.4).astype(int), n_jobs=2, **kw),
    }
    relief._STAGED_UPLOAD, relief.STAGE_BYTES = True, 1 << 26
    relief._STAGES.clear()
    return res


def host_cases() -> dict[str, object]:
    """Host arrays with ``device="cuda"``: coded on the host, then counted by the row
    table (codes uploaded sample-major) or, with ``_VARIANT="features"``, by the
    feature-major table; the table used is recorded."""
    from fsel.kernels.gpu import information_rows, tables

    made = tables.host_table
    used: list[str] = []

    def host_table(*args, **kw):
        info = made(*args, **kw)
        used.append(type(info).__name__)
        return info

    tables.host_table = host_table
    made_device = tables.device_table

    def device_table(*args, **kw):  # a host matrix of codes taken as given
        info, classes = made_device(*args, **kw)
        used.append("as given: " + type(info).__name__)
        return info, classes

    tables.device_table = device_table
    default = tables._VARIANT
    rng = np.random.default_rng(11)
    X, y = codes_table(seed=3, n=40, d=9)  # 9 features: more than 4, not a multiple of 4
    Xm = X + rng.random(X.shape)
    Xm[rng.random(X.shape) < 0.1] = np.nan  # missing values: one more level
    out: dict[str, object] = {}
    X8 = (X * 2).astype(np.uint8)  # codes with holes: 0, 2, 4, 6
    X8[:, 1] = 7  # and a feature of a single code
    y3 = np.array(["b", "a", "c"])[y % 3]
    cases = [
        ("host-JMI-uint8-as-given", fsel.JMI, X8, {"discretize": None}, default),
        ("host-MRMR-bool-as-given", fsel.MRMR, X8 > 3, {"discretize": None}, default),
        ("host-CMI-9-integers", fsel.CMI, X, {"discretize": None}, "rows"),
        ("host-JMI-missing", fsel.JMI, Xm, {"n_bins": 3}, "rows"),
        ("host-JMI-features", fsel.JMI, Xm, {"n_bins": 3}, "features"),
    ]
    information_rows.GRID_Y_MAX = 2  # codes moved to the rows in chunks of 16 samples
    for name, cls, Xc, kw, variant in cases:
        tables._VARIANT = variant
        yc = y3 if name.endswith("as-given") else y  # text labels: classes_ kept
        out[name] = pair(cls, Xc, yc, n_features_to_select=3, **kw)
        out[name]["table"] = used.pop()
        for attr in ("n_levels_", "classes_"):
            out[name][attr] = [
                np.asarray(
                    getattr(cls(device=dev, n_features_to_select=3, **kw).fit(Xc, yc), attr)
                ).tolist()
                for dev in ("cpu", "cuda")
            ]
    tables._VARIANT = default
    information_rows.GRID_Y_MAX = 65535
    tables.host_table = made
    tables.device_table = made_device
    return out


def information_cases() -> dict[str, object]:
    """Every information criterion on host codes, JMI on codes already on the GPU
    under each kernel variant, and a table streamed through a small GPU budget."""
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
    from fsel.kernels.gpu import information_rows, tables

    default = tables._VARIANT  # "columns": a feature-major copy on the GPU
    # the feature-major table of before (codes made on the host); the word kernel
    # (before); 16-bit counts with it; the lane kernel (one shared-memory bank per
    # lane, before), also within 48 KiB of shared memory
    for variant in ("features", "rows", "lanes", "lanes48", "rows16"):
        tables._VARIANT = variant
        dX = cuda.to_device(X.astype(np.uint8))
        gpu = fsel.JMI(3, discretize=None, device="cuda").fit(dX, y)
        res[f"JMI-device-array-{variant}"] = {"gpu": fitted(gpu)}
    # 16-bit counts with at most 16 rows a block: the grid grows to keep counts exact
    information_rows.HALF_MAX_ROWS = 16
    for variant in ("rows16", "lanes"):
        tables._VARIANT = variant
        gpu = fsel.JMI(3, discretize=None, device="cuda").fit(dX, y)
        res[f"JMI-device-array-{variant}-small-blocks"] = {"gpu": fitted(gpu)}
    information_rows.HALF_MAX_ROWS = 65535
    tables._VARIANT = default
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
    return res


def relief_cases() -> dict[str, object]:
    """The Relief family on both devices, ReliefF's set-up on the GPU, and its checks
    of bad input."""
    res: dict[str, object] = {}
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
    from fsel.kernels.gpu import relief as gpu_relief

    budget = gpu_relief.DISTANCE_BYTES
    gpu_relief.DISTANCE_BYTES = 8 * 40 * 16  # 16 references a block: 3 blocks, one short
    res["ReliefF-blocks"] = pair(
        fsel.ReliefF, Xr, yr, n_features_to_select=2, n_neighbors=3, scaling="range"
    )
    gpu_relief.DISTANCE_BYTES = budget
    gpu_relief._UPLOAD_IN_THREAD = False  # X copied in the calling thread: the same fit
    res["ReliefF-no-thread"] = pair(
        fsel.ReliefF, Xr, yr, n_features_to_select=2, n_neighbors=3, sample_size=8, random_state=0
    )
    gpu_relief._UPLOAD_IN_THREAD = True
    res["Relief"] = pair(fsel.Relief, Xr, yr, n_features_to_select=2, sample_size=8, random_state=3)
    res["MRelief"] = pair(
        fsel.MRelief, Xr, yr, n_features_to_select=2, sample_size=8, random_state=4
    )
    # integer values: distances equal on paper, summed in another order on the GPU
    Xt = np.random.default_rng(7).integers(0, 7, (30, 4)).astype(float)
    Xt[Xt < 2] = 0.0
    yt = np.arange(30) % 3
    res["Relief-ties"] = pair(fsel.Relief, Xt, yt, n_features_to_select=2)
    res["ReliefF-ties-euclidean"] = pair(
        fsel.ReliefF, Xt, yt, n_features_to_select=2, n_neighbors=2, metric="euclidean"
    )
    sampled = {"n_features_to_select": 2, "sample_size": 8}
    res["SURF"] = pair(fsel.SURF, Xr, yr, random_state=5, **sampled)
    res["MultiSURF-euclidean"] = pair(
        fsel.MultiSURF, Xr, yr, random_state=6, metric="euclidean", **sampled
    )
    res.update(gpu_scaling_cases())
    res.update(relief_check_cases())
    return res


def lane_word_cases() -> dict[str, object]:
    """``hist_lane_words`` (``_VARIANT = "lane_words"``) on codes on the GPU whose rows
    are whole 4-byte words: 8 features (two words a row, most lanes idle; 45 rows, not
    a multiple of the eight a warp reads), 132 features (two blocks along the
    features, the second with one word), and 8 features with at most 16 rows a block
    (blocks ending inside a group of eight rows), CMI (its conditioning joint made on
    the host; once it has 129 values the histograms outgrow the word plan and
    hist_lanes counts); 9
    features fall back to ``hist_lanes``. The CPU's picks and scores, and the kernels
    launched."""
    from numba import cuda

    from fsel.kernels.gpu import information_rows, tables

    real = information_rows._launch
    launched: list[str] = []

    def launch(kernel, *args, **kwargs):
        launched.append(kernel.fn.__name__)
        return real(kernel, *args, **kwargs)

    information_rows._launch = launch
    default = tables._VARIANT
    tables._VARIANT = "lane_words"
    rng = np.random.default_rng(13)
    out: dict[str, object] = {}
    for name, n, d, levels, half_max in (
        ("words-JMI-8", 45, 8, 4, 65535),
        ("words-JMI-132", 19, 132, 2, 65535),
        ("words-JMI-8-small-blocks", 45, 8, 3, 16),
        ("words-JMI-9", 30, 9, 3, 65535),
        ("words-CMI-8", 60, 8, 9, 65535),  # Z from the host
    ):
        information_rows.HALF_MAX_ROWS = half_max
        X = rng.integers(0, levels, size=(n, d))
        X[:, 3] = np.where(rng.random(n) < 0.7, X[:, 0], X[:, 3])
        y = (X[:, 0] + X[:, d - 1] + rng.integers(0, 2, n)) % 3
        cls = getattr(fsel, name.split("-")[1])
        cpu = cls(3, discretize=None).fit(X, y)
        launched.clear()
        gpu = cls(3, discretize=None, device="cuda").fit(cuda.to_device(X.astype(np.uint8)), y)
        out[name] = {"cpu": fitted(cpu), "gpu": fitted(gpu), "kernels": sorted(set(launched))}
    # a card whose blocks cannot opt in to 225 KiB: the relevance pass falls back to
    # hist_lanes within the 100 KiB budget, the steps keep hist_lane_words
    allowed = information_rows.allow_shared
    information_rows.allow_shared = lambda kernel, args, nbytes: nbytes <= 100 * 1024
    X = rng.integers(0, 4, size=(45, 8))
    y = (X[:, 0] + rng.integers(0, 2, 45)) % 3
    launched.clear()
    gpu = fsel.JMI(3, discretize=None, device="cuda").fit(cuda.to_device(X.astype(np.uint8)), y)
    cpu = fsel.JMI(3, discretize=None).fit(X, y)
    out["words-JMI-8-no-large-opt-in"] = {
        "cpu": fitted(cpu),
        "gpu": fitted(gpu),
        "kernels": sorted(set(launched)),
    }
    information_rows.allow_shared = allowed
    information_rows.HALF_MAX_ROWS = 65535
    tables._VARIANT = default
    information_rows._launch = real
    return out


#: the parts a run computes, by the name its first argument gives (one test module
#: each, so that pytest-xdist runs them side by side)
PARTS = {
    "information": information_cases,
    "tables": lambda: {**row_table_cases(), **host_cases(), **lane_word_cases()},
    "relief": relief_cases,
}


def main() -> None:
    json.dump(PARTS[sys.argv[1]](), sys.stdout)


if __name__ == "__main__":
    main()
