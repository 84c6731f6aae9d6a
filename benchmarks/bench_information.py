"""Benchmark: fsel's information-theoretic criteria against FEAST and the Python peers.

The same discrete data go, side by side in one run, through

* **fsel** -- ``fsel.<Criterion>(n_features_to_select=k, discretize=None, n_jobs=...)``,
  timed on its numba path after a warm-up call (the first-call compile time is
  measured separately, with a cold numba cache), with ``n_jobs=1`` and ``n_jobs=2``,
  and on its pure-numpy fallback (``FSEL_DISABLE_NUMBA=1``);
* **fstoolbox** -- the PyPI wheel of FEAST, the papers' own C toolbox (its integer entry
  points ``JMI``, ``mRMR_D``, ``CMIM``, ``DISR``, ``BetaGamma(beta=1, gamma=1)`` for
  CIFE and ``CondMI`` for CMI; the ``disc*`` float entry points crash);
* **ITMO_FS** (``itmo-fs``), **fast-select** and **scikit-feature**
  (``skfeature-chappers``), each through its public API.

Every call runs in its own subprocess with a timeout, one core (``NUMBA_NUM_THREADS``,
``OMP_NUM_THREADS`` and the BLAS thread counts set to 1; 2 for fsel's ``n_jobs=2``
rows). A library that is missing, crashes or times out is reported as such and the
benchmark goes on. Every implementation gets the same number of timed calls
(``--repeats``, default 3; the best is kept). Results are written into
``benchmarks/results`` only from committed code (``src_dirty`` false).

Data (:func:`make_benchmark_data`, seed 0 for (a) and 1 for (b))
---------------------------------------------------------------
``n_samples x n_features`` codes drawn iid uniform from ``0..9`` (10 levels), then

* 5 *informative* columns ``I``: ``y = 1`` iff ``sum_{i in I} x_i + e > 22.5`` with
  ``e ~ N(0, 3^2)`` rounded to the nearest integer (a noisy binary threshold);
* 10 *redundant* columns: copy ``r`` is informative column ``r mod 5`` with each entry
  replaced, with probability 0.2, by a fresh uniform code;
* the rest pure noise; finally all columns are shuffled by a permutation drawn from
  the same generator (the relevant columns' positions are returned).

(a) is 2000 x 500 (seed 0), (b) is 6000 x 5000 (seed 1). Criteria: JMI, mRMR, CMIM,
DISR, CIFE, CMI at ``k = 20`` and ``k = 50``; ``--quick`` runs (a) with ``k = 20`` only.

Selections are compared with FEAST's sequence: the first position where they differ
and whether the two candidates' scores there are tied, both scores recomputed by the
independent plain-numpy reference in ``_information_reference.py``
(:func:`reference_score`).

Missing values (``--missing``): fsel alone, in this process on one thread, times a
criterion on the complete table (int32 codes, and the same as float64) and on the same
table with a fraction of its cells (default 20%) removed completely at random, under
``missing="level"`` and ``missing="available"``, interleaved over ``--repeats`` rounds;
it prints the medians and the ratios to the complete-data time (issue 12's target:
"level" within 1.5x).

Interleaved (``--interleaved``): FEAST and fsel (``n_jobs=1`` and ``2``) in this process,
one after the other for ``--repeats`` rounds, medians of CPU and wall seconds: on a
loaded machine the ratio of two calls made side by side is steadier than best-of-3 runs
minutes apart.

Run ``python benchmarks/run.py information [--quick]`` or
``python benchmarks/bench_information.py --help``. Results are written to
``benchmarks/results/information[_quick].{json,csv}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

import _provenance  # first: this checkout's src/ is the fsel measured
import numpy as np
from _information_impls import (
    _CALLS,
    CRITERIA,
    IMPL_BY_KEY,
    IMPLS,
    Impl,
    _fsel_call,
    _fstoolbox_call,
)
from _information_reference import compare_with
from _information_report import (
    _check_targets,
    _fmt_s,
    _print_row,
    _print_summary,
    _recompute_speedups,
    _status_text,
    _versions,
    _write_csv,
    markdown_summary,
)

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------

DATASETS = {
    "a": {"n_samples": 2000, "n_features": 500, "seed": 0},
    "b": {"n_samples": 6000, "n_features": 5000, "seed": 1},
    "tiny": {"n_samples": 400, "n_features": 60, "seed": 2},  # smoke test only
}


def make_benchmark_data(
    n_samples: int,
    n_features: int,
    *,
    n_levels: int = 10,
    n_informative: int = 5,
    n_redundant: int = 10,
    copy_noise: float = 0.2,
    label_noise_sd: float = 3.0,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Discrete benchmark data: ``(X, y, informative, redundant)``.

    ``X`` holds int32 codes ``0..n_levels-1``; ``y`` is binary (int32). See the module
    docstring for the construction. ``informative`` and ``redundant`` are the 0-based
    column positions after the final shuffle.

    Examples
    --------
    >>> X, y, inf, red = make_benchmark_data(100, 30, seed=0)
    >>> X.shape, X.dtype.name, sorted(set(y.tolist())), len(inf), len(red)
    ((100, 30), 'int32', [0, 1], 5, 10)
    """
    if n_informative + n_redundant > n_features:
        raise ValueError("n_informative + n_redundant must not exceed n_features")
    rng = np.random.default_rng(seed)
    X = rng.integers(0, n_levels, size=(n_samples, n_features), dtype=np.int32)
    inf = np.arange(n_informative)
    latent = X[:, inf].sum(axis=1) + np.rint(rng.normal(0.0, label_noise_sd, n_samples))
    y = (latent > n_informative * (n_levels - 1) / 2.0).astype(np.int32)
    for r in range(n_redundant):
        col = X[:, inf[r % n_informative]].copy()
        swap = rng.random(n_samples) < copy_noise
        col[swap] = rng.integers(0, n_levels, size=int(swap.sum()), dtype=np.int32)
        X[:, n_informative + r] = col
    perm = rng.permutation(n_features)
    X = np.ascontiguousarray(X[:, perm])
    where = np.argsort(perm)  # where[old] = new position
    informative = np.sort(where[inf])
    redundant = np.sort(where[n_informative + np.arange(n_redundant)])
    return X, y, informative, redundant


def _to_list(a: Any) -> list:
    if a is None:
        return []
    return [x.item() if hasattr(x, "item") else x for x in np.asarray(a).ravel()]


def _worker(spec_path: str, out_path: str) -> None:
    """Run one (implementation, criterion, k) call on one data file; write JSON."""
    spec = json.loads(Path(spec_path).read_text())
    result: dict[str, Any] = {"status": "error"}
    try:
        data = np.load(spec["data"])
        X = np.ascontiguousarray(data["X"], dtype=np.int32)
        y = np.ascontiguousarray(data["y"], dtype=np.int32)
        t0 = time.perf_counter()
        call = _CALLS[spec["impl"]](spec["criterion"], spec["n_jobs"])
        result["import_s"] = time.perf_counter() - t0
        if "fsel" in sys.modules:
            result["fsel_file"] = sys.modules["fsel"].__file__
        if spec.get("warmup"):
            Xs, ys = X[:300, :30].copy(), y[:300].copy()
            t0 = time.perf_counter()
            call(Xs, ys, 5)
            result["first_call_s"] = time.perf_counter() - t0
            if spec.get("warmup_only"):
                result["status"] = "ok"
                Path(out_path).write_text(json.dumps(result))
                return
        cpu, wall = [], []
        # the same number of timed calls for every implementation (best of them), so
        # a fast library is not given more chances than a slow one
        for _ in range(int(spec.get("repeats", 3))):
            c0, w0 = time.process_time(), time.perf_counter()
            order, scores = call(X, y, spec["k"])
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
        result.update(
            status="ok",
            cpu_s=min(cpu),
            wall_s=min(wall),
            repeats=len(cpu),
            order=[int(f) if float(f).is_integer() else f for f in _to_list(order)],
            scores=[float(s) for s in _to_list(scores)],
        )
    except Exception as exc:  # report, never crash the benchmark
        result.update(
            status="error",
            error=f"{type(exc).__name__}: {exc}",
            traceback=traceback.format_exc(limit=3),
        )
    Path(out_path).write_text(json.dumps(result))


# --------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------

_THREAD_VARS = (
    "NUMBA_NUM_THREADS",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def _run_worker(spec: dict, workdir: Path, timeout: float, extra_env: dict[str, str]) -> dict:
    tag = f"{spec['impl']}_{spec['dataset']}_{spec['criterion']}_{spec['k']}"
    spec_path, out_path = workdir / f"{tag}.spec.json", workdir / f"{tag}.out.json"
    spec_path.write_text(json.dumps(spec))
    out_path.unlink(missing_ok=True)
    env = dict(os.environ)
    env.pop("FSEL_DISABLE_NUMBA", None)
    threads = str(spec["n_jobs"])
    env.update({v: threads for v in _THREAD_VARS})
    env.update(extra_env)
    env["PYTHONWARNINGS"] = "ignore"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(spec_path), str(out_path)]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        log, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the worker's own process group only
        proc.communicate()
        return {"status": "timeout", "timeout_s": timeout}
    if not out_path.exists():
        tail = log.decode(errors="replace")[-400:]
        return {"status": "crash", "returncode": proc.returncode, "error": tail}
    return json.loads(out_path.read_text())


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print the table; write ``benchmarks/results/information*``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--worker"]:
        _worker(argv[1], argv[2])
        return 0
    p = argparse.ArgumentParser(prog="bench_information", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="only data (a) with k=20")
    p.add_argument("--datasets", default=None, help="comma list of a,b (default a,b; quick a)")
    p.add_argument("--k", default=None, help="comma list of k (default 20,50; quick 20)")
    p.add_argument("--criteria", default=",".join(CRITERIA))
    p.add_argument(
        "--impls",
        default=",".join(i.key for i in IMPLS),
        help="comma list of " + ", ".join(i.key for i in IMPLS),
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="per-call timeout for the Python peers in s (default 60; quick 20)",
    )
    p.add_argument(
        "--main-timeout",
        type=float,
        default=600.0,
        help="per-call timeout for fsel and fstoolbox in s",
    )
    p.add_argument("--output", type=Path, default=None, help="output stem (no suffix)")
    p.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="timed calls per implementation, the same for every one (best is kept); "
        "rounds for --missing/--interleaved",
    )
    _provenance.add_allow_dirty(p)
    p.add_argument(
        "--summarize",
        type=Path,
        default=None,
        help="only rewrite the .md report (and print its targets) from a results .json",
    )
    p.add_argument(
        "--missing",
        action="store_true",
        help="time complete data against 20%% missing values (level, available) and exit",
    )
    p.add_argument("--missing-fraction", type=float, default=0.2)
    p.add_argument(
        "--interleaved",
        action="store_true",
        help="FEAST and fsel n_jobs=1/2 interleaved in this process (medians) and exit",
    )
    args = p.parse_args(argv)
    if args.interleaved:
        return bench_interleaved(
            (args.datasets or "b").split(","),
            [int(v) for v in (args.k or "20").split(",")],
            [c for c in args.criteria.split(",") if c],
            args.repeats,
        )
    if args.missing:
        return bench_missing(
            (args.datasets or "b").split(","),
            [int(v) for v in (args.k or "20").split(",")],
            [c for c in args.criteria.split(",") if c]
            if args.criteria != ",".join(CRITERIA)
            else ["JMI"],
            args.missing_fraction,
            args.repeats,
            args.output,
        )
    if args.summarize is not None:
        saved = json.loads(args.summarize.read_text())
        rows, meta = saved["rows"], saved["meta"]
        _recompute_speedups(rows)
        meta["targets"] = _check_targets(rows)
        args.summarize.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
        _write_csv(args.summarize.with_suffix(".csv"), rows)
        args.summarize.with_suffix(".md").write_text(markdown_summary(rows, meta))
        _print_summary(rows, meta["targets"], meta.get("elapsed_s", 0.0))
        print(f"rewrote {args.summarize} and its .csv and .md")
        return 0

    datasets = (args.datasets or ("a" if args.quick else "a,b")).split(",")
    ks = [int(v) for v in (args.k or ("20" if args.quick else "20,50")).split(",")]
    criteria = [c for c in args.criteria.split(",") if c]
    unknown = [c for c in criteria if c not in CRITERIA]
    if unknown:
        p.error(f"unknown criteria {unknown}; choose from {CRITERIA}")
    impls = [IMPL_BY_KEY[key] for key in args.impls.split(",") if key]
    peer_timeout = args.timeout if args.timeout is not None else (20.0 if args.quick else 60.0)
    stem = args.output or RESULTS / ("information_quick" if args.quick else "information")

    if args.repeats < 1:
        p.error("--repeats must be at least 1")
    git_state = _provenance.checked_state(p, stem, args.allow_dirty)
    rows: list[dict[str, Any]] = []
    compile_rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fsel_bench_info_") as tmp:
        workdir = Path(tmp)
        warm_cache = {"NUMBA_CACHE_DIR": str(workdir / "numba_cache")}
        # Snapshot fsel's sources so that every worker of this run times the same code even
        # if the working tree changes meanwhile.
        src = HERE.parent / "src"
        if (src / "fsel").is_dir():
            shutil.copytree(
                src / "fsel", workdir / "src" / "fsel", ignore=shutil.ignore_patterns("__pycache__")
            )
            pythonpath = os.pathsep.join(
                p for p in (str(workdir / "src"), os.environ.get("PYTHONPATH")) if p
            )
            warm_cache["PYTHONPATH"] = pythonpath
        for ds in datasets:
            cfg = DATASETS[ds]
            X, y, inf, red = make_benchmark_data(
                cfg["n_samples"], cfg["n_features"], seed=cfg["seed"]
            )
            data_path = workdir / f"data_{ds}.npz"
            np.savez(data_path, X=X, y=y)
            print(
                f"\n== data ({ds}): {X.shape[0]} x {X.shape[1]}, 10 levels, seed {cfg['seed']}; "
                f"informative {inf.tolist()}, redundant copies {red.tolist()}",
                flush=True,
            )
            # First-call (numba compile) time with a cold cache, once per data set.
            if any(i.key.startswith("fsel-numba") for i in impls):
                spec = {
                    "impl": "fsel-numba-1",
                    "dataset": ds,
                    "criterion": criteria[0],
                    "k": 5,
                    "n_jobs": 1,
                    "data": str(data_path),
                    "warmup": True,
                    "warmup_only": True,
                }
                cold = {**warm_cache, "NUMBA_CACHE_DIR": str(workdir / f"numba_cold_{ds}")}
                r = _run_worker(spec, workdir, args.main_timeout, cold)
                compile_rows.append(
                    {
                        "dataset": ds,
                        "criterion": criteria[0],
                        "first_call_s": r.get("first_call_s"),
                        "status": r["status"],
                        "error": r.get("error"),
                    }
                )
                print(
                    f"fsel first call (cold numba cache, {criteria[0]} on 300 x 30): "
                    f"{_fmt_s(r.get('first_call_s'))} s  {_status_text(r)}",
                    flush=True,
                )
            for k in ks:
                for crit in criteria:
                    feast_row = None
                    for impl in impls:
                        if crit not in impl.criteria:
                            continue
                        row = {
                            "dataset": ds,
                            "n_samples": X.shape[0],
                            "n_features": X.shape[1],
                            "k": k,
                            "criterion": crit,
                            "impl": impl.key,
                            "label": impl.label,
                            "n_jobs": impl.n_jobs,
                        }
                        why = _skip_reason(impl, ds, crit, k, rows, peer_timeout)
                        if why:
                            r = {"status": "skipped", "why": why}
                        else:
                            spec = {
                                "impl": impl.key,
                                "dataset": ds,
                                "criterion": crit,
                                "k": k,
                                "n_jobs": impl.n_jobs,
                                "data": str(data_path),
                                "warmup": impl.warmup,
                                "repeats": args.repeats,
                            }
                            # the timeout is per timed call
                            timeout = (
                                peer_timeout if impl.peer else args.main_timeout
                            ) * args.repeats
                            if impl.warmup:  # numba compilation is not the call's time
                                timeout += 60.0
                            r = _run_worker(
                                spec, workdir, timeout, {**warm_cache, **dict(impl.env)}
                            )
                        row.update(
                            {
                                key: r.get(key)
                                for key in (
                                    "status",
                                    "cpu_s",
                                    "wall_s",
                                    "repeats",
                                    "first_call_s",
                                    "error",
                                    "timeout_s",
                                    "why",
                                    "fsel_file",
                                )
                            }
                        )
                        row["order"] = r.get("order")
                        row["scores"] = r.get("scores")
                        if impl.key == "fstoolbox":
                            feast_row = row
                        elif (
                            feast_row is not None
                            and feast_row["status"] == "ok"
                            and r["status"] == "ok"
                        ):
                            cmp = compare_with(feast_row["order"], r["order"], X, y, crit)
                            row["same_as_feast"] = cmp["identical"]
                            row["comparison"] = cmp["summary"]
                            row["comparison_detail"] = {
                                key: v for key, v in cmp.items() if key != "summary"
                            }
                            if impl.n_jobs == 1:
                                base, mine = feast_row["cpu_s"], r["cpu_s"]
                            else:  # FEAST's one-core time vs fsel's elapsed time on 2 threads
                                base, mine = feast_row["cpu_s"], r["wall_s"]
                            row["speedup_vs_feast"] = base / mine if mine else None
                        rows.append(row)
                        _print_row(row)
    elapsed = time.perf_counter() - started
    targets = _check_targets(rows)
    _print_summary(rows, targets, elapsed)
    meta = {
        "benchmark": "information",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "quick": args.quick,
        "elapsed_s": elapsed,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "versions": _versions(),
        "fsel_git": git_state,
        "datasets": {ds: DATASETS[ds] for ds in datasets},
        "generator": "make_benchmark_data in benchmarks/bench_information.py",
        "timing": f"best of {args.repeats} repeats for every implementation; "
        "cpu_s = process CPU time, wall_s = elapsed; "
        "speedup = FEAST cpu / impl cpu for n_jobs=1, FEAST cpu / impl wall for "
        "n_jobs=2; one core = *_NUM_THREADS=1",
        "known_deviations": {i.key: list(i.notes) for i in IMPLS if i.notes},
        "compile": compile_rows,
        "targets": targets,
    }
    stem.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{stem}.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    _write_csv(Path(f"{stem}.csv"), rows)
    Path(f"{stem}.md").write_text(markdown_summary(rows, meta))
    print(f"\nwrote {stem}.json, .csv and .md ({elapsed:.0f} s in all)")
    return 0


def bench_interleaved(datasets: list[str], ks: list[int], criteria: list[str], repeats: int) -> int:
    """FEAST against fsel n_jobs=1 (CPU s) and n_jobs=2 (wall s), interleaved, medians."""
    for ds in datasets:
        cfg = DATASETS[ds]
        X, y, _, _ = make_benchmark_data(cfg["n_samples"], cfg["n_features"], seed=cfg["seed"])
        for k in ks:
            for crit in criteria:
                calls = {
                    "FEAST": _fstoolbox_call(crit, 1),
                    "fsel n_jobs=1": _fsel_call(crit, 1),
                    "fsel n_jobs=2": _fsel_call(crit, 2),
                }
                calls["fsel n_jobs=1"](X[:300, :30], y[:300], 5)  # compile / warm up
                cpu: dict[str, list[float]] = {c: [] for c in calls}
                wall: dict[str, list[float]] = {c: [] for c in calls}
                orders: dict[str, list[int]] = {}
                for _ in range(repeats):
                    for label, call in calls.items():
                        t0, c0 = time.perf_counter(), time.process_time()
                        order, _ = call(X, y, k)
                        cpu[label].append(time.process_time() - c0)
                        wall[label].append(time.perf_counter() - t0)
                        orders[label] = [int(v) for v in order]
                med_c = {c: float(np.median(v)) for c, v in cpu.items()}
                med_w = {c: float(np.median(v)) for c, v in wall.items()}
                same = orders["FEAST"] == orders["fsel n_jobs=1"] == orders["fsel n_jobs=2"]
                load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
                print(
                    f"data ({ds}) {X.shape[0]} x {X.shape[1]}, {crit} k={k}, medians of "
                    f"{repeats} interleaved rounds (load {load:.1f}); same picks: {same}"
                )
                for label in calls:
                    print(
                        f"  {label:<14} cpu {med_c[label]:7.3f}  wall {med_w[label]:7.3f}  "
                        f"(cpu: {', '.join(f'{t:.3f}' for t in cpu[label])})"
                    )
                speedup = med_c["FEAST"] / med_c["fsel n_jobs=1"]
                threads = med_w["fsel n_jobs=1"] / med_w["fsel n_jobs=2"]
                print(
                    f"  FEAST cpu / fsel n_jobs=1 cpu = {speedup:.2f}x; "
                    f"fsel n_jobs=1 wall / n_jobs=2 wall = {threads:.2f}x",
                    flush=True,
                )
    return 0


def bench_missing(
    datasets: list[str],
    ks: list[int],
    criteria: list[str],
    fraction: float,
    repeats: int,
    output: Path | None = None,
) -> int:
    """Complete data against the same data with ``fraction`` of the cells missing
    completely at random: fsel's time under each rule, interleaved, medians. The report
    goes to ``results/information_missing.md`` (or ``output``.md) from committed code."""
    import fsel

    git_state = _provenance.git_state()
    stem = Path(output or RESULTS / "information_missing")
    refusal = _provenance.dirty_refusal(git_state, stem, allow_dirty=True)
    report = [
        "# Information criteria with missing values vs complete data (issue 12)",
        "",
        f"fsel `{git_state.get('head', '')[:10]}`"
        + (" (plus uncommitted changes in src/)" if git_state.get("src_dirty") else "")
        + f"; {os.cpu_count()} CPUs, load average at the start "
        + ", ".join(f"{v:.1f}" for v in os.getloadavg())
        + "; target: with holes within 1.5x of the complete-data time.",
        "",
        "```",
    ]

    names = {"mRMR": "MRMR"}
    for ds in datasets:
        cfg = DATASETS[ds]
        X, y, _, _ = make_benchmark_data(cfg["n_samples"], cfg["n_features"], seed=cfg["seed"])
        Xf = X.astype(np.float64)
        Xn = Xf.copy()
        Xn[np.random.default_rng(cfg["seed"] + 100).random(Xn.shape) < fraction] = np.nan
        variants = {
            "complete int32, codes": (X, "level", None),
            "complete float, codes": (Xf, "level", None),
            f"{fraction:.0%} NaN level, codes": (Xn, "level", None),
            f"{fraction:.0%} NaN available, codes": (Xn, "available", None),
            "complete float, uniform": (Xf, "level", "uniform"),
            f"{fraction:.0%} NaN level, uniform": (Xn, "level", "uniform"),
        }
        for k in ks:
            for crit in criteria:
                cls = getattr(fsel, names.get(crit, crit))
                for rule in ("level", "available"):  # compile / warm up
                    cls(5, discretize=None, missing=rule).fit(Xn[:300, :30], y[:300])
                cpu: dict[str, list[float]] = {v: [] for v in variants}
                wall: dict[str, list[float]] = {v: [] for v in variants}
                for _ in range(repeats):
                    for label, (data, rule, disc) in variants.items():
                        t0, c0 = time.perf_counter(), time.process_time()
                        cls(k, discretize=disc, missing=rule).fit(data, y)
                        cpu[label].append(time.process_time() - c0)
                        wall[label].append(time.perf_counter() - t0)
                report.append(
                    f"data ({ds}) {X.shape[0]} x {X.shape[1]}, {crit} k={k}, "
                    f"medians of {repeats} interleaved rounds, one thread "
                    "(CPU s, wall s, CPU ratio to the complete table of the same dtype "
                    "and discretisation):"
                )
                print(report[-1], flush=True)
                for label in variants:
                    ref = (
                        "complete float, uniform" if "uniform" in label else "complete float, codes"
                    )
                    c, w = float(np.median(cpu[label])), float(np.median(wall[label]))
                    ratio = c / float(np.median(cpu[ref]))
                    report.append(f"  {label:<28} cpu {c:7.3f}  wall {w:7.3f}  x{ratio:5.2f}")
                    print(report[-1], flush=True)
    report.append("```")
    if refusal:
        print(f"({refusal}: printing only)")
    else:
        stem.with_suffix(".md").write_text("\n".join(report) + "\n")
        print(f"wrote {stem.with_suffix('.md')}")
    return 0


def _skip_reason(
    impl: Impl, ds: str, crit: str, k: int, rows: list[dict], timeout: float
) -> str | None:
    """Skip a slow peer's call whose run time, extrapolated from a smaller call, exceeds
    the timeout (or which already timed out on a smaller configuration)."""
    if not impl.peer:
        return None
    done = [r for r in rows if r["impl"] == impl.key and r["criterion"] == crit]
    cfg = DATASETS[ds]
    for r in done:
        smaller = (
            r["n_samples"] * r["n_features"] <= cfg["n_samples"] * cfg["n_features"] and r["k"] <= k
        )
        if not smaller:
            continue
        if r["status"] in ("timeout", "skipped"):
            return f"{r['status']} on ({r['dataset']}) k={r['k']}"
        if r["status"] == "ok":
            factor = (
                (cfg["n_samples"] / r["n_samples"])
                * (cfg["n_features"] / r["n_features"]) ** impl.d_exponent
                * (k / r["k"])
            )
            predicted = r["wall_s"] * factor
            if factor > 1 and predicted > timeout:
                return f"predicted ~{predicted:.0f} s from ({r['dataset']}) k={r['k']}"
    return None


if __name__ == "__main__":
    sys.exit(main())
