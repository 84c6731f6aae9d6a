"""Benchmark: fsel's Relief family against skrebate, fast-select and sklearn-relief.

Side by side in one run, on the same data:

* **fsel** -- ``ReliefF(n_neighbors=10)``, ``SURF()``, ``MultiSURF()`` with the
  Manhattan (default) and the Euclidean (BLAS) metric, plus ``Relief``, ``PRelief``
  and ``IRelief`` timed against ``Relief``; ``n_jobs=1``;
* **skrebate** 0.8.4 -- ``ReliefF(n_neighbors=10)``, ``SURF``, ``MultiSURF``
  (``n_jobs=1``);
* **fast-select** 0.3.0 (numba) -- ``ReliefF(n_neighbors=10)``, ``MultiSURF``
  (``backend="cpu"``, ``n_jobs=1``);
* **sklearn-relief** 1.0.0b2 -- ``ReliefF(k=10, n_iterations=20)``: pure Python and
  far too slow for all ``N`` samples (about 1.8 s of CPU per visited instance at
  1000 x 100), so it visits 20 sampled instances and its CPU time is **extrapolated**
  linearly to ``N`` instances (``cpu_measured * N / 20``; the status says so).

Every call runs in its own subprocess on one core, limited in CPU seconds
(``--timeout``, through ``RLIMIT_CPU``; the wall-clock limit is 6 times that, since the
machine is shared)
(``NUMBA_NUM_THREADS``, ``OMP_NUM_THREADS`` and the BLAS thread counts set to 1) and
reports CPU seconds (``time.process_time()``) and wall seconds, the best of
``--repeats`` fits (default 3, the same count for every library); numba libraries are
warmed up on a small problem first, so compile time is excluded. The machine is shared
(2 cores, several users): timings are noisy, ratios taken in the same run are the
meaningful numbers. A library that is missing, crashes or times out is reported and
the benchmark goes on. skrebate is slow (minutes at 2000 x 1000): by default it runs
on the sizes listed in ``--skrebate-sizes``; other sizes show ``skipped``.

Data (:func:`make_data`): ``N x D`` standard normal features; for the binary sets
``y = [x_0 > 0] XOR [x_1 > 0]`` (the rest is noise); the 5-class set has classes of
sizes 50/20/15/10/5 % given by quantiles of ``x_0 + sign(x_1 x_2)``. For every fsel
and competitor run the benchmark prints the ranks of the relevant features (the XOR
pair should be ranks 1 and 2) and, for fsel, the peak traced memory
(``tracemalloc``: numpy arrays) next to the memory budget.

Run ``python benchmarks/run.py relief [--quick]`` or
``python benchmarks/bench_relief.py --help``. Results go to
``benchmarks/results/relief[_quick].{json,csv}``: one row per call, plus rows with
``library = "ratio"``: competitor CPU time over fsel's (``status = "vs LIB"``) and the
time of P-Relief, I-Relief and M-Relief over fsel Relief's (``status = "vs fsel
Relief ..."``, CPU and wall ratios, I-Relief's iteration count).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _provenance  # first: this checkout's src/ is the fsel measured
import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

SIZES = {
    "1000x100": (1000, 100, 2),
    "2000x1000": (2000, 1000, 2),
    "4000x200": (4000, 200, 2),
    "5class-2000x100": (2000, 100, 5),
}
QUICK_SIZES = ("1000x100", "5class-2000x100")

#: (library, method, metric) -> code building the estimator and reading weights
IMPLS: dict[tuple[str, str, str], str] = {
    ("fsel", "ReliefF", "manhattan"): "fsel.ReliefF(n_neighbors=10, n_jobs=1)",
    ("fsel", "ReliefF", "euclidean"): "fsel.ReliefF(n_neighbors=10, metric='euclidean', n_jobs=1)",
    ("fsel", "SURF", "manhattan"): "fsel.SURF(n_jobs=1)",
    ("fsel", "MultiSURF", "manhattan"): "fsel.MultiSURF(n_jobs=1)",
    ("fsel", "MultiSURF", "euclidean"): "fsel.MultiSURF(metric='euclidean', n_jobs=1)",
    ("fsel", "Relief", "manhattan"): "fsel.Relief(n_jobs=1)",
    ("fsel", "MRelief", "manhattan"): "fsel.MRelief(n_jobs=1)",
    ("fsel", "PRelief", "-"): "fsel.PRelief(n_jobs=1)",
    ("fsel", "PRelief-paper", "-"): "fsel.PRelief(sigma='paper', n_jobs=1)",
    ("fsel", "IRelief", "manhattan"): "fsel.IRelief(n_jobs=1)",
    ("fast-select", "ReliefF", "manhattan"): (
        "fast_select.ReliefF(n_features_to_select=2, n_neighbors=10, backend='cpu', n_jobs=1)"
    ),
    ("fast-select", "MultiSURF", "manhattan"): (
        "fast_select.MultiSURF(n_features_to_select=2, backend='cpu', n_jobs=1)"
    ),
    ("skrebate", "ReliefF", "manhattan"): "skrebate.ReliefF(n_neighbors=10, n_jobs=1)",
    ("skrebate", "SURF", "manhattan"): "skrebate.SURF(n_jobs=1)",
    ("skrebate", "MultiSURF", "manhattan"): "skrebate.MultiSURF(n_jobs=1)",
    ("sklearn-relief", "ReliefF", "manhattan"): (
        "sklearn_relief.ReliefF(k=10, n_iterations=SKR_ITER, n_features=2, n_jobs=1)"
    ),
}
MODULE = {
    "fsel": "fsel",
    "fast-select": "fast_select",
    "skrebate": "skrebate",
    "sklearn-relief": "sklearn_relief",
}

WORKER = r"""
import json, os, sys, time, tracemalloc, warnings
import numpy as np
warnings.simplefilter("ignore")
spec = json.loads(sys.argv[1])
sys.path.insert(0, spec["bench_dir"])
from bench_relief import make_data
import {module}
X, y, relevant = make_data(*spec["size"])
N = X.shape[0]
SKR_ITER = min(N, 20)
def build():
    return {code}
def weights(est):
    for name in ("feature_importances_", "w_", "scores_"):
        w = getattr(est, name, None)
        if w is not None:
            return np.asarray(w, dtype=float)
    raise RuntimeError("no weights")
if spec["warmup"]:
    Xw, yw, _ = make_data(200, 20, spec["size"][2], seed=9)
    build().fit(Xw, yw)
cpu = wall = float("inf")
for rep in range(spec["repeats"]):  # the same count for every library; best is kept
    t0, w0 = time.process_time(), time.perf_counter()
    est = build().fit(X, y)
    c, w_ = time.process_time() - t0, time.perf_counter() - w0
    cpu, wall = min(cpu, c), min(wall, w_)
w = weights(est)
order = np.argsort(-w, kind="stable")
ranks = [int(np.flatnonzero(order == r)[0]) + 1 for r in relevant]
peak = None
if spec["memory"]:
    tracemalloc.start()
    build().fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
print("RESULT" + json.dumps({{"cpu": cpu, "wall": wall, "ranks": ranks, "peak": peak,
                             "n_iter": getattr(est, "n_iter_", None)}}))
"""


def make_data(n: int, d: int, n_classes: int = 2, seed: int = 0):
    """The benchmark data (see the module docstring); returns X, y, relevant."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if n_classes == 2:
        y = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(np.int64)
        return X, y, [0, 1]
    s = X[:, 0] + np.sign(X[:, 1] * X[:, 2])
    cuts = np.quantile(s, np.cumsum([0.5, 0.2, 0.15, 0.1])[: n_classes - 1])
    return X, np.digitize(s, cuts).astype(np.int64), [0, 1, 2]


def run_one(
    lib: str,
    method: str,
    metric: str,
    size: tuple,
    timeout: float,
    memory: bool,
    repeats: int = 3,
) -> dict[str, Any]:
    """One library's fit in a subprocess: best of ``repeats`` timed fits (the same
    count for every library); ``timeout`` is in CPU seconds per fit."""
    code = WORKER.format(module=MODULE[lib], code=IMPLS[(lib, method, metric)])
    spec = {
        "size": list(size),
        "bench_dir": str(HERE),
        "warmup": lib in ("fsel", "fast-select"),
        "memory": memory,
        "repeats": int(repeats),
    }
    timeout = timeout * (int(repeats) + (1 if memory else 0))
    env = dict(os.environ)
    for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(code)
        path = fh.name

    def limit_cpu() -> None:  # runs in the child
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (int(timeout), int(timeout) + 5))

    try:
        proc = subprocess.run(
            [sys.executable, path, json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=6 * timeout,
            env=env,
            preexec_fn=limit_cpu,
        )
    except subprocess.TimeoutExpired:
        return {"status": f"timeout (wall {6 * timeout:.0f} s)"}
    finally:
        os.unlink(path)
    if proc.returncode in (-24, -9):  # SIGXCPU / SIGKILL: the CPU limit
        return {"status": f"timeout ({timeout:.0f} CPU s)"}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT"):
            out = json.loads(line[6:])
            out["status"] = "ok"
            if lib == "sklearn-relief" and size[0] > 20:
                scale = size[0] / 20
                out["cpu_measured"], out["wall_measured"] = out["cpu"], out["wall"]
                out["cpu"] *= scale
                out["wall"] *= scale
                out["status"] = f"ok (20 of {size[0]} instances; times extrapolated x{scale:g})"
            return out
    err = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    if "ModuleNotFoundError" in err or "ImportError" in err:
        return {"status": f"not installed: {err[:80]}"}
    return {"status": f"crash: {err[:120]}"}


def missing_and_sampling(n: int, d: int, sample_n: int, sample_d: int, m: int) -> None:
    """Side by side in one process: ReliefF on complete data and with 20% MCAR holes
    (``missing="expected"``), best of two fits each; then ReliefF with ``sample_size=m``
    reference samples on ``sample_n x sample_d`` data held in memory (``n_jobs=-1``)."""
    from fsel import ReliefF

    rng = np.random.default_rng(0)
    X = rng.random((n, d))
    y = (X[:, 0] + X[:, 1] > 1.0).astype(int)
    Xh = X.copy()
    Xh[rng.random(X.shape) < 0.2] = np.nan
    ReliefF().fit(X[:300], y[:300])
    ReliefF().fit(Xh[:300], y[:300])
    t_full, t_nan = [], []
    for _ in range(2):
        t = time.perf_counter()
        ReliefF().fit(X, y)
        t_full.append(time.perf_counter() - t)
        t = time.perf_counter()
        ReliefF().fit(Xh, y)
        t_nan.append(time.perf_counter() - t)
    print(
        f"ReliefF {n}x{d}: complete {min(t_full):.2f} s, 20% NaN (expected) "
        f"{min(t_nan):.2f} s, ratio {min(t_nan) / min(t_full):.2f}"
    )
    del X, Xh
    X = rng.random((sample_n, sample_d))
    y = (X[:, 0] + X[:, 1] > 1.0).astype(int)
    t = time.perf_counter()
    est = ReliefF(sample_size=m, random_state=0, n_jobs=-1).fit(X, y)
    print(
        f"ReliefF sample_size={m} on {sample_n}x{sample_d}: {time.perf_counter() - t:.1f} s, "
        f"top features {est.selection_order_[:2].tolist()}"
    )


def missing_ratios(
    sizes: list[str], rounds: int, git_state: dict[str, Any], stem: Path | None
) -> None:
    """Issue 12's Relief target, interleaved: ReliefF (``n_neighbors=10``, Manhattan,
    ``n_jobs=1``) on a complete ``N x D`` table and on the same table with 20% of the
    cells missing completely at random (``missing="expected"``), one fit of each per
    round in this process; CPU and wall medians and the ratio of medians. Written to
    ``stem``.md/.json when given."""
    from fsel import ReliefF

    lines = [
        "# ReliefF with 20% missing values vs complete data (issue 12)",
        "",
        f"fsel `{git_state.get('head', '')[:10]}`"
        + (" (plus uncommitted changes in src/)" if git_state.get("src_dirty") else "")
        + f"; {os.cpu_count()} CPUs, load average at the start "
        + ", ".join(f"{v:.1f}" for v in os.getloadavg())
        + f"; {rounds} interleaved rounds (complete, holed) per size, one thread; "
        "ratio = median with holes / median complete (target <= 2).",
        "",
        "| size | complete CPU s | 20% NaN CPU s | CPU ratio | complete wall s | "
        "20% NaN wall s | wall ratio |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    rows = []
    for size in sizes:
        n, d = (int(v) for v in size.split("x"))
        rng = np.random.default_rng(0)
        X = rng.random((n, d))
        y = (X[:, 0] + X[:, 1] > 1.0).astype(int)
        Xh = X.copy()
        Xh[rng.random(X.shape) < 0.2] = np.nan
        ReliefF(n_jobs=1).fit(X[:300], y[:300])  # compile / load the kernels
        ReliefF(n_jobs=1).fit(Xh[:300], y[:300])
        t: dict[str, list[list[float]]] = {"complete": [[], []], "holes": [[], []]}
        for _ in range(rounds):
            for key, data in (("complete", X), ("holes", Xh)):
                c0, w0 = time.process_time(), time.perf_counter()
                ReliefF(n_jobs=1).fit(data, y)
                t[key][0].append(time.process_time() - c0)
                t[key][1].append(time.perf_counter() - w0)
        med = {k: [float(np.median(v[0])), float(np.median(v[1]))] for k, v in t.items()}
        row = {
            "size": size,
            "rounds": rounds,
            "complete_cpu_s": med["complete"][0],
            "holes_cpu_s": med["holes"][0],
            "cpu_ratio": med["holes"][0] / med["complete"][0],
            "complete_wall_s": med["complete"][1],
            "holes_wall_s": med["holes"][1],
            "wall_ratio": med["holes"][1] / med["complete"][1],
        }
        rows.append(row)
        lines.append(
            f"| {size} | {row['complete_cpu_s']:.3f} | {row['holes_cpu_s']:.3f} | "
            f"{row['cpu_ratio']:.2f} | {row['complete_wall_s']:.3f} | "
            f"{row['holes_wall_s']:.3f} | {row['wall_ratio']:.2f} |"
        )
        print(lines[-1], flush=True)
    print("\n".join(lines))
    if stem is not None:
        stem.with_suffix(".md").write_text("\n".join(lines) + "\n")
        stem.with_suffix(".json").write_text(
            json.dumps({"meta": {"git": git_state, "rounds": rounds}, "rows": rows}, indent=1)
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, no skrebate above 1000x100")
    ap.add_argument("--sizes", default=None, help=f"comma list from {', '.join(SIZES)}")
    ap.add_argument(
        "--skrebate-sizes",
        default="1000x100,2000x1000",
        help="sizes on which skrebate runs (it takes minutes at 2000x1000)",
    )
    ap.add_argument("--timeout", type=float, default=240.0, help="per fit, CPU seconds")
    ap.add_argument(
        "--repeats", type=int, default=3, help="timed fits per call, the same for every library"
    )
    ap.add_argument("--libs", default=None, help="comma list: fsel,fast-select,skrebate,...")
    ap.add_argument("--methods", default=None, help="comma list: ReliefF,MultiSURF,IRelief,...")
    ap.add_argument("--output", default=None, help="results file stem")
    _provenance.add_allow_dirty(ap)
    ap.add_argument(
        "--missing",
        default=None,
        metavar="SIZES",
        help="only ReliefF complete vs 20%% NaN, interleaved, e.g. 1000x100,2000x100,5000x50,"
        "4000x200; results to results/relief_missing.* from committed code",
    )
    ap.add_argument("--rounds", type=int, default=9, help="interleaved rounds for --missing")
    ap.add_argument(
        "--missing-sampling",
        default=None,
        metavar="N,D,SN,SD,M",
        help="only time ReliefF with 20%% NaN vs complete on N x D, and sample_size=M "
        "on SN x SD (e.g. 3000,50,1000000,100,1000)",
    )
    args = ap.parse_args(argv)
    if args.missing:
        git_state = _provenance.git_state()
        stem = RESULTS / (args.output or "relief_missing")
        refusal = _provenance.dirty_refusal(git_state, stem, allow_dirty=True)
        if refusal:  # uncommitted code: print only
            print(f"({refusal}: printing only)")
        missing_ratios(args.missing.split(","), args.rounds, git_state, None if refusal else stem)
        return 0
    if args.missing_sampling:
        a, b, c, e, f = (int(v) for v in args.missing_sampling.split(","))
        missing_and_sampling(a, b, c, e, f)
        return 0
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    results_stem = RESULTS / (args.output or ("relief_quick" if args.quick else "relief"))
    git_state = _provenance.checked_state(ap, results_stem, args.allow_dirty)
    sizes = (
        args.sizes.split(",") if args.sizes else (list(QUICK_SIZES) if args.quick else list(SIZES))
    )
    skre = set() if args.quick else set(args.skrebate_sizes.split(","))
    if args.quick:
        skre = {"1000x100"}
    rows: list[dict[str, Any]] = []
    print(
        f"# Relief benchmark on {platform.node()} ({os.cpu_count()} CPUs, shared; "
        "CPU seconds, one core)"
    )
    for size_name in sizes:
        size = SIZES[size_name]
        print(f"\n## {size_name}: N={size[0]}, D={size[1]}, classes={size[2]}")
        print(
            f"{'library':15s} {'method':14s} {'metric':10s} {'cpu s':>8s} {'wall s':>8s} "
            f"{'ranks of relevant':>18s} {'peak MiB':>9s}  status"
        )
        results: dict[tuple[str, str, str], dict[str, Any]] = {}
        for key in IMPLS:
            lib, method, metric = key
            if args.libs and lib not in args.libs.split(","):
                continue
            if args.methods and method not in args.methods.split(","):
                continue
            if lib == "skrebate" and size_name not in skre:
                res = {"status": "skipped (--skrebate-sizes)"}
            elif lib == "sklearn-relief" and size[0] * size[1] > 2e5:
                res = {"status": "skipped (pure Python; only 1000x100)"}
            else:
                res = run_one(
                    lib,
                    method,
                    metric,
                    size,
                    args.timeout,
                    memory=(lib == "fsel"),
                    repeats=args.repeats,
                )
            results[key] = res
            peak = res.get("peak")
            print(
                f"{lib:15s} {method:14s} {metric:10s} "
                f"{res.get('cpu', float('nan')):8.3f} {res.get('wall', float('nan')):8.3f} "
                f"{res.get('ranks', '')!s:>18s} "
                f"{(peak / 2**20 if peak else float('nan')):9.1f}  {res['status']}",
                flush=True,
            )
            rows.append(
                {
                    "size": size_name,
                    "library": lib,
                    "method": method,
                    "metric": metric,
                    **{k: v for k, v in res.items()},
                }
            )
        # ratios side by side (CPU seconds)
        print(
            "ratios (competitor CPU / fsel CPU; > 1 means fsel is faster; the competitors "
            "run Manhattan, their only metric, so only the fsel-manhattan rows compare the "
            "same metric):"
        )
        for method in ("ReliefF", "SURF", "MultiSURF"):
            for metric in ("manhattan", "euclidean"):
                mine = results.get(("fsel", method, metric), {})
                if mine.get("status") != "ok":
                    continue
                for lib in ("skrebate", "fast-select", "sklearn-relief"):
                    other = results.get((lib, method, "manhattan"), {})
                    if str(other.get("status", "")).startswith("ok"):
                        ratio = other["cpu"] / mine["cpu"]
                        same = metric == "manhattan"
                        what = "same metric" if same else "fsel Euclidean vs its Manhattan"
                        print(
                            f"  {method:10s} fsel-{metric:9s} vs {lib:15s} {ratio:8.1f}x  ({what})"
                        )
                        rows.append(
                            {
                                "size": size_name,
                                "library": "ratio",
                                "method": method,
                                "metric": metric,
                                "peer_metric": "manhattan",
                                "same_metric": same,
                                "status": f"vs {lib} (manhattan)",
                                "cpu": ratio,
                            }
                        )
        base = results.get(("fsel", "Relief", "manhattan"), {})
        if base.get("status") == "ok":
            for method, metric in (
                ("PRelief", "-"),
                ("PRelief-paper", "-"),
                ("IRelief", "manhattan"),
                ("MRelief", "manhattan"),
            ):
                r = results.get(("fsel", method, metric), {})
                if r.get("status") == "ok":
                    extra = f" ({r['n_iter']} iterations)" if r.get("n_iter") else ""
                    ratio = r["cpu"] / base["cpu"]
                    print(f"  {method:13s} takes {ratio:6.2f}x Relief's time{extra}")
                    rows.append(
                        {
                            "size": size_name,
                            "library": "ratio",
                            "method": method,
                            "metric": metric,
                            "status": "vs fsel Relief (CPU time / Relief's; > 1: slower)",
                            "cpu": ratio,
                            "wall": r["wall"] / base["wall"],
                            "n_iter": r.get("n_iter"),
                        }
                    )
    RESULTS.mkdir(exist_ok=True)
    stem = args.output or ("relief_quick" if args.quick else "relief")
    (RESULTS / f"{stem}.json").write_text(
        json.dumps(
            {
                "machine": platform.node(),
                "python": sys.version.split()[0],
                "note": "CPU seconds on one core of a shared 2-core machine; timings are noisy",
                "repeats": args.repeats,
                "fsel_git": git_state,
                "rows": rows,
            },
            indent=1,
        )
    )
    keys = sorted({k for r in rows for k in r})
    with (RESULTS / f"{stem}.csv").open("w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=keys)
        wr.writeheader()
        for r in rows:
            wr.writerow({k: (json.dumps(v) if isinstance(v, list) else v) for k, v in r.items()})
    print(f"\nwritten {RESULTS / (stem + '.json')} and .csv")
    return 0


if __name__ == "__main__":
    started = time.time()
    code = main()
    print(f"total {time.time() - started:.0f} s")
    sys.exit(code)
