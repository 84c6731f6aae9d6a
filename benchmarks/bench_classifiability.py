"""Benchmark: classifiability forward selection (Dong & Kothari 2003) on mfeat.

Data: ``mfeat`` from ``../shared/datasets`` (2000 x 649, 10 classes). Forward selection
of 10 features with ``radius_factor=3``; ``epsilon=-1`` so that all 10 steps run (with
the default ``epsilon=0`` the search stops by itself after 6 features on mfeat).

Side by side in one run:

* **fsel incremental, numba** -- ``Classifiability(n_features_to_select=10, epsilon=-1)``,
  ``n_jobs=1`` (CPU and wall seconds, after an untimed warm-up fit for compilation) and
  ``n_jobs=2`` (wall seconds).
* **fsel incremental, numpy** -- the same with ``FSEL_DISABLE_NUMBA=1`` (pure-numpy
  fallback), run in a subprocess.
* **from scratch, exact** -- what a direct implementation does: for every candidate
  ``f`` of every step, compute ``L(v + f)`` from scratch with
  :func:`fsel.classifiability`'s dense blocked kernel (``D2`` summed over all features of
  ``v + f``, nearest neighbours, radius, counts). Too slow to run in full (~10 min), so
  ``--scratch-candidates`` candidates (default 6) are timed at each of the 10 steps
  (along the selection path fsel found) and the time is extrapolated to all candidates.
  The sampled values are checked against fsel's incremental values (they must agree).
* **from scratch, BLAS** -- the same with squared Euclidean distances from the
  project's distance kernel (:func:`fsel.kernels.distances.distance_blocks`, BLAS
  ``|a|^2 + |b|^2 - 2ab``; not bit-exact, numeric features only, which mfeat is),
  sampled and extrapolated the same way.
* **wrapper** -- scikit-learn ``SequentialFeatureSelector(GaussianNB(), cv=5)``, the
  cheapest wrapper classifier; ``--wrapper-steps`` steps (default 2) are timed and the
  time is scaled to 10 steps (each step costs about the same: one 5-fold CV per
  remaining candidate).

Ratios are CPU seconds of the alternative over CPU seconds of fsel (numba, n_jobs=1).
The machine is shared: wall times are noisy, CPU times are the fairer comparison.
``--quick`` uses the first 600 rows and 5 steps. Results go to
``benchmarks/results/classifiability[_quick].{json,csv}``.

Run ``python benchmarks/run.py classifiability [--quick]``.
"""

from __future__ import annotations

import argparse
import csv
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

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def _timed(fn: Any) -> tuple[Any, float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def _data(quick: bool) -> tuple[np.ndarray, np.ndarray]:
    from fsel.datasets import load

    ds = load("mfeat")
    X, y = np.asarray(ds.X, dtype=np.float64), np.asarray(ds.y)
    if quick:
        rng = np.random.default_rng(0)
        keep = np.sort(rng.choice(X.shape[0], 600, replace=False))
        X, y = X[keep], y[keep]
    return X, y


def run_fsel(X: np.ndarray, y: np.ndarray, k: int, n_jobs: int) -> dict[str, Any]:
    from fsel import Classifiability

    def fit() -> Any:
        return Classifiability(n_features_to_select=k, epsilon=-1.0, n_jobs=n_jobs).fit(X, y)

    Classifiability(n_features_to_select=2).fit(X[::20], y[::20])  # warm-up: numba compilation
    sel, cpu, wall = _timed(fit)
    return {
        "cpu_s": cpu,
        "wall_s": wall,
        "order": sel.selection_order_.tolist(),
        "candidate_scores": sel.candidate_scores_.tolist(),
    }


def run_fsel_numpy(quick: bool, k: int) -> dict[str, Any]:
    env = dict(os.environ, FSEL_DISABLE_NUMBA="1")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker-numpy", "--k", str(k)]
    if quick:
        cmd.append("--quick")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _blas_scores(
    Xs: np.ndarray, y: np.ndarray, n_classes: int, feats: list[int], radius_factor: float
) -> float:
    """L from scratch with the project's BLAS distance blocks (numeric features only)."""
    from fsel.kernels.classifiability import radius_sq
    from fsel.kernels.distances import distance_blocks

    Z = Xs[:, feats]
    n = Z.shape[0]
    nn2 = np.empty(n)
    for a, b, D in distance_blocks(Z, metric="sqeuclidean"):
        idx = np.arange(a, b)
        D[idx - a, idx] = np.inf
        nn2[a:b] = D.min(axis=1)
    thr = radius_sq(nn2, radius_factor)
    onehot = np.eye(n_classes)[y]
    total = 0.0
    for a, b, D in distance_blocks(Z, metric="sqeuclidean"):
        idx = np.arange(a, b)
        within = D <= np.maximum(thr, nn2[a:b])[:, None]
        within[idx - a, idx] = False
        counts = within.astype(np.float64) @ onehot
        p = counts / counts.sum(axis=1, keepdims=True)
        total += float((p * p).sum())
    return total / n


def run_scratch(
    X: np.ndarray, y: np.ndarray, order: list[int], cand_scores: np.ndarray, n_sample: int, how: str
) -> dict[str, Any]:
    """Time ``n_sample`` candidates per step from scratch; extrapolate to all."""
    from fsel.kernels.classifiability import scale_columns, subset_scores

    d = X.shape[1]
    sym = np.zeros(d, dtype=bool)
    Xs = scale_columns(X, sym)
    codes = np.unique(y, return_inverse=True)[1]
    n_classes = int(codes.max()) + 1
    rng = np.random.default_rng(0)
    total_cpu = sampled_cpu = 0.0
    max_diff = 0.0
    for step in range(len(order)):
        v = order[:step]
        remaining = [f for f in range(d) if f not in v]
        sample = rng.choice(remaining, size=min(n_sample, len(remaining)), replace=False)
        c0 = time.process_time()
        for f in sample:
            if how == "exact":
                L = float(np.mean(subset_scores(Xs, sym, codes, n_classes, [*v, int(f)], 3.0)[0]))
            else:
                L = _blas_scores(Xs, codes, n_classes, [*v, int(f)], 3.0)
            max_diff = max(max_diff, abs(L - cand_scores[step][int(f)]))
        dt = time.process_time() - c0
        sampled_cpu += dt
        total_cpu += dt / sample.size * len(remaining)
    return {
        "cpu_s": total_cpu,
        "sampled_cpu_s": sampled_cpu,
        "extrapolated": True,
        "max_abs_diff_vs_fsel": max_diff,
    }


def run_wrapper(X: np.ndarray, y: np.ndarray, k: int, steps: int) -> dict[str, Any]:
    from sklearn.feature_selection import SequentialFeatureSelector
    from sklearn.naive_bayes import GaussianNB

    sfs = SequentialFeatureSelector(GaussianNB(), n_features_to_select=steps, cv=5)
    with np.errstate(divide="ignore", invalid="ignore"):
        _, cpu, wall = _timed(lambda: sfs.fit(X, y))
    return {
        "cpu_s": cpu / steps * k,
        "wall_s": wall / steps * k,
        "sampled_cpu_s": cpu,
        "extrapolated": steps < k,
        "order": np.flatnonzero(sfs.get_support()).tolist(),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table and write the results files."""
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog="bench_classifiability", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="600 rows, 5 steps")
    p.add_argument("--k", type=int, default=None, help="steps (default 10, quick 5)")
    p.add_argument("--scratch-candidates", type=int, default=6)
    p.add_argument("--wrapper-steps", type=int, default=2)
    p.add_argument("--skip-wrapper", action="store_true")
    p.add_argument("--output", type=Path, default=None, help="output stem (no suffix)")
    p.add_argument("--worker-numpy", action="store_true", help=argparse.SUPPRESS)
    _provenance.add_allow_dirty(p)
    args = p.parse_args(argv)
    if not args.worker_numpy:
        git_state = _provenance.checked_state(
            p,
            args.output or RESULTS / ("classifiability_quick" if args.quick else "classifiability"),
            args.allow_dirty,
        )
    for var in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")  # one core per process
    k = args.k or (5 if args.quick else 10)
    try:
        X, y = _data(args.quick)
    except FileNotFoundError as exc:
        print(f"bench_classifiability: mfeat is not available ({exc}); nothing measured")
        return 0
    if args.worker_numpy:
        r = run_fsel(X, y, k, 1)
        print(json.dumps({"cpu_s": r["cpu_s"], "wall_s": r["wall_s"], "order": r["order"]}))
        return 0

    rows: list[dict[str, Any]] = []

    def record(name: str, fn: Any) -> dict[str, Any]:
        try:
            r = fn()
            r["status"] = "ok"
        except Exception as exc:  # a crashing alternative is reported, not fatal
            traceback.print_exc()
            r = {"status": f"failed: {type(exc).__name__}: {exc}"[:200]}
        r["method"] = name
        rows.append(r)
        print(f"  done: {name} ({r['status']})", file=sys.stderr)
        return r

    ref = record("fsel incremental numba n_jobs=1", lambda: run_fsel(X, y, k, 1))
    if ref["status"] != "ok":
        return 1
    order, cand = ref.pop("order"), np.asarray(ref.pop("candidate_scores"))
    ref["order"] = order
    r2 = record("fsel incremental numba n_jobs=2", lambda: run_fsel(X, y, k, 2))
    r2.pop("candidate_scores", None)
    record("fsel incremental numpy n_jobs=1", lambda: run_fsel_numpy(args.quick, k))
    record(
        "from scratch exact (dense blocks)",
        lambda: run_scratch(X, y, order, cand, args.scratch_candidates, "exact"),
    )
    record(
        "from scratch BLAS (distance_blocks)",
        lambda: run_scratch(X, y, order, cand, args.scratch_candidates, "blas"),
    )
    if args.skip_wrapper:
        rows.append({"method": "wrapper SFS(GaussianNB, cv=5)", "status": "skipped"})
    else:
        record(
            "wrapper SFS(GaussianNB, cv=5)",
            lambda: run_wrapper(X, y, k, min(args.wrapper_steps, k)),
        )

    base = ref["cpu_s"]
    for r in rows:
        if r.get("status") == "ok":
            r["cpu_ratio_vs_fsel"] = r["cpu_s"] / base
    print(
        f"\nClassifiability forward selection: mfeat {X.shape[0]} x {X.shape[1]}, {k} steps, "
        f"radius 3r (shared 2-core machine: wall times are noisy; ratios use CPU s)"
    )
    head = f"{'method':38s} {'cpu s':>9s} {'wall s':>8s} {'cpu ratio':>9s}  note"
    print(head)
    print("-" * (len(head) + 20))
    for r in rows:
        if r.get("status") != "ok":
            print(f"{r['method']:38s} {r['status']}")
            continue
        note = "extrapolated" if r.get("extrapolated") else ""
        if "max_abs_diff_vs_fsel" in r:
            note += f", max |L - fsel L| = {r['max_abs_diff_vs_fsel']:.1e}"
        wall = f"{r['wall_s']:8.2f}" if "wall_s" in r else f"{'-':>8s}"
        print(f"{r['method']:38s} {r['cpu_s']:9.2f} {wall} {r['cpu_ratio_vs_fsel']:9.1f}  {note}")
    print(f"selected (0-based): {order}")

    stem = args.output or RESULTS / ("classifiability_quick" if args.quick else "classifiability")
    stem.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "data": {"name": "mfeat", "shape": list(X.shape), "steps": k, "radius_factor": 3.0},
        "git": git_state,
        "scratch_candidates_per_step": args.scratch_candidates,
        "wrapper_steps_timed": args.wrapper_steps,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    stem.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    keys = [
        "method",
        "status",
        "cpu_s",
        "wall_s",
        "cpu_ratio_vs_fsel",
        "extrapolated",
        "sampled_cpu_s",
        "max_abs_diff_vs_fsel",
    ]
    with stem.with_suffix(".csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {stem}.json and {stem}.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
