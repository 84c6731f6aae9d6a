"""Benchmark: the GPU back-end (``device="cuda"``) against one CPU core and all cores.

One prepared run for a machine with a CUDA GPU (numba's CUDA target), in one process:

1. **JMI(20)** on ``rows x 100`` ``uint8`` codes of 10 levels with a binary ``y`` (the
   table of :func:`bench_dask.make_chunk`, default 20,000,000 rows): the CPU with
   ``n_jobs=1`` and with every core, and the GPU with the codes already on it (the
   host-to-GPU copy timed apart) and from the host array (what ``fit(X, y)`` on a
   numpy array costs, its validation on the CPU included; ``uint8`` codes with
   ``discretize=None`` are uploaded as they are and coded on the GPU). With the codes
   on the GPU, the tables side by side (:data:`VARIANTS`): read in place
   (``GpuRowTable``) counted with one shared-memory bank per lane (the default; with
   and without more than 48 KiB of shared memory a block), the same counted by the
   word kernel of before, and the feature-major copy of before that; and the default
   with ``y`` on the GPU too. Each
   reports its set-up phases (``timings_``: labels, layout, table, relevance) and its
   greedy step. The selections and scores must agree (checked at full size:
   identical picks, scores to 1e-9).
2. **Every CLM criterion** (MIM, MIFS, mRMR, JMI, CMIM, DISR, ICAP, CIFE, CondRed,
   BetaGamma, JMIM) on the GPU, the same data already there, ``k = 20``, on each table
   (target: each within 2x of JMI; the picks of the tables must agree); then CMI with
   ``k = 4`` (its conditioning joint has ``10^t`` states at step ``t``, so its
   histograms grow with every pick) with the joint kept on the GPU (the default: rows
   sorted by the joint, counted in shared memory) and made on the host (before),
   against JMI with ``k = 4`` on the same table.
3. **ReliefF** (``n_neighbors=10``, Manhattan) on ``1,000,000 x 100`` floats with
   1,000 references on the GPU, against one CPU core timed on ``--cpu-refs``
   references (default 100) and scaled linearly to 1,000 (its cost is linear in the
   references: one pass over the table each); the GPU and the CPU fits on the same
   ``--cpu-refs`` references must give the same features (checked). The GPU fits run
   four times: with X's checks, the scaling and the sort by class on the GPU (the
   default), the same with X copied through pinned staging buffers, the same with 512
   threads a reference selecting the neighbours, and with the scaling and sort on the
   host (before).

4. **SURF and MultiSURF** with ``--cpu-refs`` references on a tenth of the Relief
   rows: one CPU core against the GPU, the same features (checked).

5. **Dask** (where ``dask.distributed`` is installed): the same JMI on the codes held
   by a local cluster of one worker process (every core, and the GPU) in eight row
   chunks, the blocks counted on the CPU and with ``device="cuda"`` on the GPU, side by
   side; the picks checked against the in-memory fit.

Reported next to the anchors: cells (rows x candidate features) per second per core
and per GPU for a greedy step; fast-mRMR's best single core, about 4.4e8 cells/s; the
Spark information-theoretic framework on ECBDL14 (64M x 631), about one minute per
selected feature on 400 cores (about 1.7e6 cells/s per core); the card's bandwidth
bound (a step reads ``N x (K + 2)`` bytes: codes, ``y`` and ``Xj``).

Each part is timed after a warm-up on a small slice (numba's CPU kernels and the CUDA
kernels compiled; the CUDA kernels are cached on disk, ``cache=True``). A part that
fails is reported (its error) and the run goes on. Progress is printed as it goes.

Needs numpy, numba and numba's CUDA target (numba-cuda; under numpy 2.5 numba-cuda
0.30 does not import: put numpy 2.4 first on ``PYTHONPATH``). fsel's estimators are
used through their logic classes, which need neither scikit-learn nor scipy.

Run (from the repository root)::

    python benchmarks/bench_gpu.py            # full size (3-4 min on an H200 before
                                              # the side-by-side runs were added)
    python benchmarks/bench_gpu.py --quick    # 2,000,000 rows, 100,000 Relief rows

Results go to ``benchmarks/results/gpu[_quick].{json,md}``. Explicit sizes
(``--rows`` ...) write to ``--out`` (default ``/tmp/bench_gpu``), as does a run under
numba's simulator (``NUMBA_ENABLE_CUDASIM=1``, for checking the script itself).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import _provenance  # first: this checkout's src/ is the fsel measured
import numpy as np
from _gpu_report import DEFAULT, VARIANTS, markdown, summarize

HERE = Path(__file__).resolve().parent
K_SELECT = 20
CLM = ["MIM", "MIFS", "MRMR", "JMI", "CMIM", "DISR", "ICAP", "CIFE", "CondRed", "BetaGamma", "JMIM"]


def say(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def machine() -> dict[str, Any]:
    out: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
    }
    try:
        with open("/proc/cpuinfo") as fh:
            out["cpu"] = next(
                line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")
            )
    except (OSError, StopIteration):
        out["cpu"] = platform.processor()
    try:
        q = "name,memory.total,driver_version"
        r = subprocess.run(
            ["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        out["gpu"] = r.stdout.strip().splitlines()[0] if r.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        out["gpu"] = None
    try:
        import numba

        out["numba"] = numba.__version__
    except ImportError:
        out["numba"] = None
    try:
        from importlib.metadata import version

        out["numba_cuda"] = version("numba-cuda")
    except Exception:
        out["numba_cuda"] = None
    out["cudasim"] = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
    return out


def make_codes(rows: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The benchmark table of :mod:`bench_dask` (chunk by chunk, same seeds)."""
    from bench_dask import CHUNK_ROWS, make_chunk

    X = np.empty((rows, d), dtype=np.uint8)
    y = np.empty(rows, dtype=np.int8)
    for i, a in enumerate(range(0, rows, CHUNK_ROWS)):
        b = min(rows, a + CHUNK_ROWS)
        X[a:b], y[a:b] = make_chunk(i, b - a, d)
    return X, y


def make_floats(rows: int, d: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Floats in [0, 1): y = 1 iff the first five columns sum above 2.5 (with noise)."""
    rng = np.random.default_rng(seed)
    X = rng.random((rows, d))
    y = (X[:, :5].sum(axis=1) + 0.3 * rng.standard_normal(rows) > 2.5).astype(np.int8)
    return X, y


def timed(fn: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def jmi_cls(name: str = "JMI") -> Any:
    from fsel.selectors.information import _fit

    return getattr(_fit, name)


def part_jmi(X: np.ndarray, y: np.ndarray, k: int, res: dict[str, Any]) -> None:
    """CPU n_jobs=1, CPU all cores, GPU (data on the GPU, and from the host)."""
    from numba import cuda

    JMI = jmi_cls()
    n, d = X.shape
    cores = os.cpu_count() or 1
    say("warm-up (numba CPU kernels, CUDA kernels)")
    small = slice(0, min(n, 20_000))
    JMI(3, discretize=None, n_jobs=1).fit(X[small], y[small])
    JMI(3, discretize=None, n_jobs=cores).fit(X[small], y[small])
    JMI(3, discretize=None, device="cuda").fit(cuda.to_device(X[small]), y[small])
    runs: dict[str, Any] = {}
    res["jmi"] = {"rows": n, "features": d, "k": k, "runs": runs}
    fits: dict[str, Any] = {}
    for label, jobs in (("cpu_1", 1), (f"cpu_{cores}", cores)):
        if label in fits:
            continue
        say(f"JMI({k}) on the CPU, n_jobs={jobs}")
        est, sec = timed(lambda jobs=jobs: JMI(k, discretize=None, n_jobs=jobs).fit(X, y))
        _, sec1 = timed(lambda jobs=jobs: JMI(1, discretize=None, n_jobs=jobs).fit(X, y))
        fits[label] = est
        runs[label] = {"fit_s": sec, "setup_s": sec1, "step_s": (sec - sec1) / (k - 1)}
        say(f"  fit {sec:.2f} s, setup {sec1:.2f} s, step {runs[label]['step_s'] * 1e3:.1f} ms")
    say("copy X to the GPU")
    dX, t_copy = timed(lambda: cuda.to_device(X))
    cuda.synchronize()
    say(f"  {X.nbytes / 1e9:.2f} GB in {t_copy:.3f} s")
    # the shared memory the lane kernel got: its opt-in budget, or 48 KiB where the
    # driver call is not available (then "lanes" runs as "lanes48")
    from fsel.kernels.gpu import tables

    probe, _ = tables.device_table(dX[:4096], y[:4096], name="probe")
    res["jmi"]["lane_budget_bytes"] = int(getattr(probe, "_lane_budget", 0))
    say(f"  lane kernel's shared-memory budget: {res['jmi']['lane_budget_bytes']} bytes")
    probe = None
    # the table read in place (new), the feature-major table (before), and the new one
    # with y on the GPU too
    for variant, label, _what in (*VARIANTS, (DEFAULT, "gpu_y_on_gpu", "")):
        try:
            yy = cuda.to_device(y) if label == "gpu_y_on_gpu" else y
            gpu_on_card(JMI, dX, yy, k, variant, label, runs, fits)
            runs[label]["transfer_s"] = t_copy
        except Exception:  # report and go on
            res["errors"][f"jmi_{label}"] = traceback.format_exc()
            say(f"  {label} FAILED:\n{res['errors'][f'jmi_{label}']}")
    dX = None  # free the GPU copy
    say(f"JMI({k}) on the GPU from the host array (validated on the CPU, uploaded as given)")
    est_h, sec_h = timed(lambda: JMI(k, discretize=None, device="cuda").fit(X, y))
    fits["gpu_host"] = est_h
    runs["gpu_host"] = {"fit_s": sec_h, **{f"gpu_{a}": b for a, b in est_h.timings_.items()}}
    say(f"  fit {sec_h:.2f} s (transfer {est_h.timings_['transfer_s']:.2f} s)")
    ref = fits["cpu_1"]
    checks = {}
    for label, e in fits.items():
        same = e.selection_order_.tolist() == ref.selection_order_.tolist()
        diff = float(np.max(np.abs(e.scores_ - ref.scores_)))
        checks[label] = {"same_selection": same, "max_score_diff": diff}
    res["jmi"]["checks"] = checks
    res["jmi"]["order"] = ref.selection_order_.tolist()
    res["jmi"]["scores"] = ref.scores_.tolist()
    ok = all(c["same_selection"] and c["max_score_diff"] < 1e-9 for c in checks.values())
    res["jmi"]["identical"] = ok
    say(f"  selections identical on every device: {ok}")


def set_variant(variant: str) -> None:
    """Which table a fit on codes already on the GPU builds (:data:`VARIANTS`; the
    names of ``fsel.kernels.gpu.tables._VARIANT``)."""
    from fsel.kernels.gpu import tables

    tables._VARIANT = variant


def gpu_on_card(
    JMI: Any, dX: Any, y: Any, k: int, variant: str, label: str, runs: dict, fits: dict
) -> None:
    """JMI(k) and JMI(1) on codes already on the GPU with the table ``variant``: the
    best of three whole fits, the set-up breakdown of a one-feature fit."""
    from numba import cuda

    set_variant(variant)
    try:
        say(f"JMI({k}) on the GPU, X already there, table {variant!r} ({label})")
        JMI(2, discretize=None, device="cuda").fit(dX[:4096], y[:4096])  # warm
        best = None
        for _ in range(3):  # the best of three: the fit is short
            cuda.synchronize()
            est, sec = timed(lambda: JMI(k, discretize=None, device="cuda").fit(dX, y))
            if best is None or sec < best[1]:
                best = (est, sec)
        est, sec = best
        est1, sec1 = timed(lambda: JMI(1, discretize=None, device="cuda").fit(dX, y))
    finally:
        set_variant(DEFAULT)
    fits[label] = est
    breakdown = {key: float(v) for key, v in est1.timings_.items()}
    say(
        "  set-up breakdown (k=1 fit): "
        + ", ".join(f"{key[:-2]} {v * 1e3:.1f} ms" for key, v in breakdown.items())
    )
    fit_times = {key: float(v) for key, v in est.timings_.items()}
    say(
        f"  k={k} fit: " + ", ".join(f"{key[:-2]} {v * 1e3:.1f} ms" for key, v in fit_times.items())
    )
    runs[label] = {
        "variant": variant,
        "fit_s": sec,
        "setup_s": sec1,
        "step_s": (sec - sec1) / (k - 1),
        "count_s": est.timings_["count_s"],
        "setup_breakdown_s": breakdown,
        "fit_breakdown_s": fit_times,
    }
    step_ms = runs[label]["step_s"] * 1e3
    say(f"  fit {sec * 1e3:.1f} ms, setup {sec1 * 1e3:.1f} ms, step {step_ms:.2f} ms")


#: plans of ``hist_columns`` timed side by side on one greedy step's count: (shared
#: bytes a block, candidates a block at most, copies at most, waves of blocks, four
#: loads in flight); the first is the module's default. (Runs from 9e99258 to
#: 79c4d02 also timed lanes spread over the copies, atomic increments and pairs of
#: candidates counted jointly: none was faster, and they were removed.)
COLUMN_PLANS = (
    (24 * 1024, 32, 8, 1, True),
    (24 * 1024, 32, 8, 1, False),
    (24 * 1024, 16, 8, 1, True),
    (24 * 1024, 16, 8, 4, False),
    (46 * 1024, 32, 8, 4, True),
    (12 * 1024, 8, 8, 4, True),
    (24 * 1024, 32, 1, 1, True),
)


#: plans of ``hist_owned`` (one candidate a lane) timed on the same count: (shared
#: bytes a block, warps a block, copies at most); the first is the module's default
OWNED_PLANS = (
    (47 * 1024, 8, 1),
    (47 * 1024, 4, 1),
    (47 * 1024, 16, 1),
    (100 * 1024, 8, 3),
    (47 * 1024, 1, 1),
)


#: plans of ``hist_private`` (one histogram a thread, plain adds) timed on the same
#: count: (shared bytes a block at most, two 16-bit counts a word, waves of blocks);
#: the first is the module's default
PRIVATE_PLANS = (
    (100 * 1024, True, 1),
    (100 * 1024, True, 2),
    (100 * 1024, False, 1),
    (200 * 1024, False, 1),
)


def part_columns(X: np.ndarray, y: np.ndarray, k: int, res: dict[str, Any]) -> None:
    """The feature-major table's pieces on codes already on the GPU: its copy
    (``columns_of``), one greedy step's count (``Z = X0 |Y| + Y``) under each plan of
    :data:`COLUMN_PLANS` (the least of five, the counts checked against the first),
    the same one candidate a lane under each plan of :data:`OWNED_PLANS` and one
    histogram a thread under each plan of :data:`PRIVATE_PLANS`, the row
    table's count of the same step, and JMI(k) with the fastest ``hist_columns``
    plan."""
    from numba import cuda

    from fsel.kernels.gpu import information_columns as ic
    from fsel.kernels.gpu import information_rows as ir
    from fsel.kernels.gpu.lanes import LANE_OPT_IN_BYTES

    def least(fn: Any, reps: int = 5) -> float:
        fn()  # warm
        best = float("inf")
        for _ in range(reps):
            cuda.synchronize()
            t0 = time.perf_counter()
            fn()
            cuda.synchronize()
            best = min(best, time.perf_counter() - t0)
        return best

    dX = cuda.to_device(X)
    labels = ir.device_labels(y, X.shape[0], "bench")
    out: dict[str, Any] = {"rows": X.shape[0], "features": X.shape[1]}
    res["columns"] = out
    out["copy_s"] = least(lambda: ic.columns_of(dX), 3)
    say(f"  feature-major copy of X on the GPU: {out['copy_s'] * 1e3:.2f} ms")
    table = ic.GpuColumnTable(dX, labels)
    ny = table.n_classes
    nz = int(table.n_levels[0]) * ny
    ref = table._counts(nz, row=(0, ny, True))

    def time_plans(attr: str, plans: tuple, kernel: str) -> list[dict[str, Any]]:
        """One step's count with ``table.<attr>`` set to each plan in turn."""
        found = []
        for plan in plans:
            setattr(table, attr, plan)
            try:
                same = bool(np.array_equal(table._counts(nz, row=(0, ny, True)), ref))
                sec = least(lambda: table._counts(nz, row=(0, ny, True)))
                found.append({"plan": list(plan), "step_s": sec, "same_counts": same})
                say(f"  {kernel} {plan}: {sec * 1e3:.3f} ms, same counts {same}")
            except Exception as exc:  # report and go on
                found.append({"plan": list(plan), "error": f"{type(exc).__name__}: {exc}"})
                say(f"  {kernel} {plan}: FAILED {type(exc).__name__}: {exc}")
        return found

    out["plans"] = time_plans("plan", COLUMN_PLANS, "hist_columns")
    table.plan = COLUMN_PLANS[0]
    out["owned_plans"] = time_plans("owned_plan", OWNED_PLANS, "hist_owned")
    table.owned_plan = None
    out["private_plans"] = time_plans("private_plan", PRIVATE_PLANS, "hist_private")
    table.private_plan = None
    try:
        from _gpu_probes import column_probes

        out["probes"] = column_probes(table, nz, least)
        say(f"  probes of the default plan: {out['probes']}")
    except Exception as exc:  # report and go on
        out["probes"] = {"error": f"{type(exc).__name__}: {exc}"}
    rows = ir.GpuRowTable(dX, labels, lane_budget=LANE_OPT_IN_BYTES)
    out["row_table_step_s"] = least(lambda: rows._counts(nz, row=(0, ny, True)))
    out["row_table_same_counts"] = bool(np.array_equal(rows._counts(nz, row=(0, ny, True)), ref))
    say(f"  the row table's count of the same step: {out['row_table_step_s'] * 1e3:.3f} ms")
    table = rows = None
    timed_plans = [p for p in out["plans"] if "step_s" in p and p["same_counts"]]
    if not timed_plans:
        return
    best = min(timed_plans, key=lambda p: p["step_s"])["plan"]
    out["best_plan"] = best
    saved = (ic.COLUMN_SHARED_BYTES, ic.COLUMN_GROUP, ic.COLUMN_COPIES)
    saved += (ic.COLUMN_WAVES, ic.COLUMN_WIDE)
    names = ("COLUMN_SHARED_BYTES", "COLUMN_GROUP", "COLUMN_COPIES")
    names += ("COLUMN_WAVES", "COLUMN_WIDE")
    for name, value in zip(names, best, strict=True):
        setattr(ic, name, value)
    runs: dict[str, Any] = {}
    fits: dict[str, Any] = {}
    try:
        gpu_on_card(jmi_cls(), dX, y, k, "columns", "gpu_columns_best", runs, fits)
    finally:
        for name, value in zip(names, saved, strict=True):
            setattr(ic, name, value)
    run = runs["gpu_columns_best"]
    est = fits["gpu_columns_best"]
    if "order" not in res.get("jmi", {}):  # the jmi part skipped: the CPU on every core
        ref = jmi_cls()(k, discretize=None, n_jobs=-1).fit(X, y)
        res.setdefault("jmi", {})["order"] = ref.selection_order_.tolist()
        res["jmi"]["scores"] = ref.scores_.tolist()
    ref_order = res.get("jmi", {}).get("order")
    run["same_selection"] = (
        None if ref_order is None else est.selection_order_.tolist() == ref_order
    )
    ref_scores = res.get("jmi", {}).get("scores")
    if ref_scores is not None:
        run["max_score_diff"] = float(np.max(np.abs(est.scores_ - np.asarray(ref_scores))))
    out["best_fit"] = run


def part_criteria(X: np.ndarray, y: np.ndarray, k: int, res: dict[str, Any]) -> None:
    """Every CLM criterion on the GPU (data on the GPU) on each table, then CMI."""
    from numba import cuda

    dX = cuda.to_device(X)
    out: dict[str, Any] = {}
    res["criteria"] = {"rows": X.shape[0], "k": k, "runs": out}
    for name in CLM:
        out[name] = {"k": k}
        for variant, _label, _what in VARIANTS:
            set_variant(variant)
            try:
                best, est = best_gpu_fit(jmi_cls(name), dX, y, k)
                key = "fit_s" if variant == DEFAULT else f"{variant}_fit_s"
                out[name][key] = best
                out[name][f"{variant}_order"] = est.selection_order_.tolist()
                say(f"  {name}({k}) on the GPU, table {variant!r}: {best * 1e3:.1f} ms")
            except Exception as exc:  # report and go on
                out[name][f"{variant}_error"] = f"{type(exc).__name__}: {exc}"
                say(f"  {name} ({variant}): FAILED {type(exc).__name__}: {exc}")
            finally:
                set_variant(DEFAULT)
        orders = [out[name].get(f"{v}_order") for v, _, _ in VARIANTS]
        out[name]["same_selection"] = None not in orders and all(o == orders[0] for o in orders)
    jmi = out.get("JMI", {}).get("fit_s")
    if jmi:
        for r in out.values():
            if "fit_s" in r:
                r["vs_jmi"] = r["fit_s"] / jmi
    res["criteria"]["cmi"] = part_cmi(dX, y, min(k, 4))


def best_gpu_fit(cls: Any, dX: Any, y: np.ndarray, k: int) -> tuple[float, Any]:
    """The best of two fits of ``cls(k)`` on codes on the GPU (after a warm-up on a
    slice), and the fitted estimator. The host's part (the entropy sums of the GPU's
    counts) runs on every core (``n_jobs=-1``)."""
    from numba import cuda

    cls(min(k, 2), discretize=None, device="cuda").fit(dX[:4096], y[:4096])  # warm
    best, est = None, None
    for _ in range(2):
        cuda.synchronize()
        fit = cls(k, discretize=None, device="cuda", n_jobs=-1).fit
        est, sec = timed(lambda fit=fit: fit(dX, y))
        best = sec if best is None else min(best, sec)
    return best, est


def part_cmi(dX: Any, y: np.ndarray, k: int) -> dict[str, Any]:
    """CMI(k) with its conditioning joint kept on the GPU (the default) and made on
    the host (before), against JMI(k) on the same table (the ratio the target names:
    within 2x of JMI)."""
    from fsel.kernels.gpu import conditional

    out: dict[str, Any] = {"k": k, "runs": {}}
    runs = (
        ("gpu_joint", "CMI", True, DEFAULT),
        ("gpu_joint_lanes", "CMI", True, "lanes"),
        ("host_joint", "CMI", False, DEFAULT),
        ("jmi", "JMI", True, DEFAULT),
        ("jmi_lanes", "JMI", True, "lanes"),
    )
    for run, name, on_device, variant in runs:
        conditional.ON_DEVICE = on_device
        set_variant(variant)
        try:
            best, est = best_gpu_fit(jmi_cls(name), dX, y, k)
            out["runs"][run] = {"fit_s": best, "order": est.selection_order_.tolist()}
            out["runs"][run]["timings"] = dict(getattr(est, "timings_", {}))
            say(f"  {name}({k}) on the GPU ({run}): {best * 1e3:.1f} ms")
        except Exception as exc:  # report and go on
            out["runs"][run] = {"error": f"{type(exc).__name__}: {exc}"}
            say(f"  {name}({k}) ({run}): FAILED {type(exc).__name__}: {exc}")
        finally:
            conditional.ON_DEVICE = True
            set_variant(DEFAULT)
    r = out["runs"]
    if "order" in r.get("gpu_joint", {}) and "order" in r.get("host_joint", {}):
        out["same_selection"] = r["gpu_joint"]["order"] == r["host_joint"]["order"]
    if "fit_s" in r.get("gpu_joint", {}) and "fit_s" in r.get("jmi", {}):
        out["vs_jmi"] = r["gpu_joint"]["fit_s"] / r["jmi"]["fit_s"]
    return out


def part_cmi_alone(X: np.ndarray, y: np.ndarray, k: int, res: dict[str, Any]) -> None:
    """:func:`part_cmi` where the criteria part is skipped."""
    from numba import cuda

    if "criteria" not in res:
        res["criteria"] = {"rows": X.shape[0], "k": k, "runs": {}}
        res["criteria"]["cmi"] = part_cmi(cuda.to_device(X), y, min(k, 4))


def part_relief(
    rows: int, d: int, refs: int, cpu_refs: int, res: dict[str, Any], n_neighbors: int = 10
) -> None:
    """ReliefF with ``refs`` references on the GPU against one core (``cpu_refs``
    references, scaled linearly)."""
    from fsel.selectors.relief._nearest import ReliefF

    say(f"ReliefF: {rows} x {d} floats")
    X, y = make_floats(rows, d)
    kw = {"n_neighbors": n_neighbors, "random_state": 0}
    top = min(10, d)
    ReliefF(top, sample_size=4, **kw).fit(X[:2000], y[:2000])  # warm the CPU kernels
    ReliefF(top, sample_size=4, device="cuda", **kw).fit(X[:2000], y[:2000])
    say(f"  CPU, one core, {cpu_refs} references")
    cpu, t_cpu = timed(lambda: ReliefF(top, sample_size=cpu_refs, **kw).fit(X, y))
    say(f"  {t_cpu:.2f} s")
    # the part common to both devices: validation, scaling, sorting by class (on the
    # host), measured as a one-reference fit on the CPU
    _, t_setup = timed(lambda: ReliefF(top, sample_size=1, **kw).fit(X, y))
    # the GPU fits run what stays on the host (validation; before: the scaling and the
    # sort by class too) on every core (n_jobs): the same margins whatever n_jobs
    cores = os.cpu_count() or 1
    gkw = {**kw, "device": "cuda", "n_jobs": cores}
    per_ref = max(t_cpu - t_setup, 0.0) / cpu_refs
    cpu_scaled = t_setup + per_ref * refs
    res["relief"] = {
        "rows": rows,
        "features": d,
        "n_neighbors": n_neighbors,
        "refs": refs,
        "cpu_refs": cpu_refs,
        "cpu_1_s_measured": t_cpu,
        "cpu_1_s_scaled": cpu_scaled,
        "setup_s": t_setup,
        "gpu_n_jobs": cores,
        "gpu_runs": {},
    }
    from fsel.kernels.gpu import relief as gpu_relief

    # one setting changed each (the copy named in both: staged is the default)
    variants = {"gpu": {"_STAGED_UPLOAD": False}, "gpu_staged": {"_STAGED_UPLOAD": True}}
    variants.update(
        gpu_select512={"SELECT_THREADS": 512}, gpu_host_scaling={"_SCALE_ON_GPU": False}
    )
    for label, change in variants.items():
        saved = {key: getattr(gpu_relief, key) for key in change}
        vars(gpu_relief).update(change)
        try:
            say(f"  GPU fits, {label} {change}")
            ReliefF(top, sample_size=4, **gkw).fit(X[:2000], y[:2000])  # warm
            one, t_setup_gpu = timed(lambda: ReliefF(top, sample_size=1, **gkw).fit(X, y))
            say(f"    set-up (a one-reference fit): {t_setup_gpu:.3f} s {one.timings_}")
            same, _ = timed(lambda: ReliefF(top, sample_size=cpu_refs, **gkw).fit(X, y))
            gpu, t_gpu = timed(lambda: ReliefF(top, sample_size=refs, **gkw).fit(X, y))
            say(f"    {refs} references: {t_gpu:.3f} s {gpu.timings_}")
        finally:
            vars(gpu_relief).update(saved)
        ok = cpu.selection_order_.tolist() == same.selection_order_.tolist()
        res["relief"]["gpu_runs"][label] = {
            "gpu_s": t_gpu,
            "gpu_timings": gpu.timings_,
            "setup_s": t_setup_gpu,
            "setup_timings": one.timings_,
            "speedup": cpu_scaled / t_gpu,
            "speedup_past_setup": per_ref * refs / max(t_gpu - t_setup_gpu, 1e-12),
            "same_selection": ok,
            "max_margin_diff": float(np.max(np.abs(cpu.margin_ - same.margin_))),
        }
        r = res["relief"]["gpu_runs"][label]
        say(f"    speed-up vs one core (scaled to {refs} refs): {r['speedup']:.0f}x; same: {ok}")


def part_surf(rows: int, d: int, refs: int, res: dict[str, Any]) -> None:
    """SURF and MultiSURF with ``refs`` references: the GPU against one CPU core, the
    same features (a check of the radius kernels on the real device)."""
    from fsel.selectors.relief import _nearest

    X, y = make_floats(rows, d, seed=2)
    out: dict[str, Any] = {"rows": rows, "features": d, "refs": refs, "runs": {}}
    res["surf"] = out
    top = min(10, d)
    for name in ("SURF", "MultiSURF"):
        cls = getattr(_nearest, name)
        kw = {"sample_size": refs, "random_state": 0}
        cls(top, sample_size=4, random_state=0).fit(X[:2000], y[:2000])  # warm the CPU
        cls(top, sample_size=4, random_state=0, device="cuda").fit(X[:2000], y[:2000])
        cpu, t_cpu = timed(lambda cls=cls, kw=kw: cls(top, **kw).fit(X, y))
        gpu, t_gpu = timed(lambda cls=cls, kw=kw: cls(top, device="cuda", **kw).fit(X, y))
        same = cpu.selection_order_.tolist() == gpu.selection_order_.tolist()
        diff = float(np.max(np.abs(cpu.margin_ - gpu.margin_)))
        out["runs"][name] = {
            "cpu_1_s": t_cpu,
            "gpu_s": t_gpu,
            "same_selection": same,
            "max_margin_diff": diff,
        }
        say(f"  {name}: CPU {t_cpu:.2f} s, GPU {t_gpu:.3f} s, same {same}, diff {diff:.1e}")


def part_dask(X: np.ndarray, y: np.ndarray, k: int, res: dict[str, Any]) -> None:
    """JMI(k) on Dask input: a local cluster of one worker process (every core, and the
    GPU) holding the table in row chunks; the blocks counted on the CPU and on the GPU
    (``device="cuda"``), side by side, the picks checked against the in-memory fit."""
    try:
        import dask.array as da
        import distributed
    except ImportError as exc:  # not installed there: say so, measure the rest
        res["dask"] = {"skipped": str(exc)}
        say(f"dask part skipped: {exc}")
        return
    import fsel

    cores = os.cpu_count() or 1
    n, d = X.shape
    chunk = -(-n // 8)
    out: dict[str, Any] = {"rows": n, "features": d, "k": k, "chunk_rows": chunk, "runs": {}}
    res["dask"] = out
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=cores, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        say(f"Dask: one worker process of {cores} threads, {n:,} rows in chunks of {chunk:,}")
        Xd = da.from_array(X, chunks=(chunk, d))
        yd = da.from_array(y, chunks=(chunk,))

        def persist() -> list[Any]:
            held = client.persist([Xd, yd])
            distributed.wait(held)
            return held

        (Xp, yp), out["persist_s"] = timed(persist)
        ref = res.get("jmi", {}).get("order")
        for device in ("cpu", "cuda"):
            say(f"JMI({k}) on Dask, device={device!r}")
            fsel.JMI(2, discretize=None, device=device).fit(Xp[:4096], yp[:4096])  # warm
            est, sec = timed(
                lambda device=device: fsel.JMI(k, discretize=None, device=device).fit(Xp, yp)
            )
            _, sec1 = timed(
                lambda device=device: fsel.JMI(1, discretize=None, device=device).fit(Xp, yp)
            )
            order = est.selection_order_.tolist()
            out["runs"][device] = {
                "fit_s": sec,
                "setup_s": sec1,
                "step_s": (sec - sec1) / (k - 1),
                "device_": est.device_,
                "same_selection": None if ref is None else order == ref,
            }
            say(f"  fit {sec:.2f} s, setup {sec1:.2f} s, device_ {est.device_}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="2M rows, 100k Relief rows")
    p.add_argument("--rows", type=int, default=None)
    p.add_argument("--features", type=int, default=100, help="at least 15 (bench_dask's table)")
    p.add_argument("--k", type=int, default=K_SELECT)
    p.add_argument("--relief-rows", type=int, default=None)
    p.add_argument("--relief-features", type=int, default=100)
    p.add_argument("--refs", type=int, default=1000)
    p.add_argument("--cpu-refs", type=int, default=100)
    p.add_argument(
        "--skip",
        default="",
        help="comma-separated parts to skip: jmi,columns,criteria,cmi,relief,surf,dask",
    )
    p.add_argument("--out", default=None, help="output stem (default: benchmarks/results/gpu)")
    args = p.parse_args(argv)
    explicit = args.rows is not None or args.relief_rows is not None
    rows = args.rows or (2_000_000 if args.quick else 20_000_000)
    relief_rows = args.relief_rows or (100_000 if args.quick else 1_000_000)
    sim = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
    if sim:  # the simulator's thread polling holds the interpreter lock less
        sys.setswitchinterval(2e-4)
    if args.out:
        stem = Path(args.out)
    elif explicit or sim:
        stem = Path("/tmp/bench_gpu")
    else:
        stem = HERE / "results" / ("gpu_quick" if args.quick else "gpu")
    t_start = time.perf_counter()
    res: dict[str, Any] = {
        "command": "python benchmarks/bench_gpu.py "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "machine": machine(),
        "git": _provenance.git_state(),
        "errors": {},
    }
    say(f"machine: {res['machine']}")
    from fsel.kernels.gpu._device import cuda_problem

    problem = cuda_problem()
    if problem:
        # nothing to measure here; committed results are never overwritten by this
        say(f"no usable GPU, nothing measured: {problem}")
        return 0
    if sim:
        # numba's simulated device arrays lack __cuda_array_interface__: give them one,
        # so that the fits on "codes already on the GPU" take that path here too
        from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

        FakeCUDAArray.__cuda_array_interface__ = property(
            lambda self: {"shape": self.shape, "typestr": self._ary.dtype.str, "version": 3}
        )
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    X = y = None
    if not problem and not ({"jmi", "columns", "criteria", "cmi", "dask"} <= skip):
        try:
            say(f"generating {rows:,} x {args.features} uint8 codes")
            (X, y), sec = timed(lambda: make_codes(rows, args.features))
            res["generate_s"] = sec
            say(f"  {sec:.1f} s")
        except Exception:
            res["errors"]["generate"] = traceback.format_exc()
            say(f"generating FAILED:\n{res['errors']['generate']}")
    parts = [
        ("jmi", lambda: part_jmi(X, y, args.k, res)),
        ("columns", lambda: part_columns(X, y, args.k, res)),
        ("criteria", lambda: part_criteria(X, y, args.k, res)),
        ("cmi", lambda: part_cmi_alone(X, y, args.k, res)),
        (
            "relief",
            lambda: part_relief(relief_rows, args.relief_features, args.refs, args.cpu_refs, res),
        ),
        (
            "surf",
            lambda: part_surf(relief_rows // 10, args.relief_features, args.cpu_refs, res),
        ),
        ("dask", lambda: part_dask(X, y, args.k, res)),
    ]
    stem.parent.mkdir(parents=True, exist_ok=True)

    def write() -> None:  # after every part: a crash later keeps what was measured
        res["total_s"] = time.perf_counter() - t_start
        summarize(res)
        Path(f"{stem}.json").write_text(json.dumps(res, indent=2, default=str))
        Path(f"{stem}.md").write_text(markdown(res))

    for name, fn in parts:
        if (
            problem
            or name in skip
            or (name in ("jmi", "columns", "criteria", "cmi", "dask") and X is None)
        ):
            continue
        res["running"] = name
        try:
            fn()
        except Exception:
            res["errors"][name] = traceback.format_exc()
            say(f"part {name} FAILED:\n{res['errors'][name]}")
        write()
    res.pop("running", None)
    write()
    say(f"wrote {stem}.json and {stem}.md ({res['total_s']:.0f} s in all)")
    return 1 if res["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
