"""Benchmark the eight ranking indices against the sorting floor and scikit-learn.

Every index of :mod:`fsel.kernels.ranking_indices` (``In, In3, In5, K1, K2, K3, chi2,
mi``) on one ``N x D`` table (default 10,000 x 1,000), timed side by side with

* the floor: one ``numpy.argsort(X, axis=0)`` of the same matrix (every index needs at
  least that sort); the target is every index within 5x of it;
* scikit-learn's ``f_regression`` (linear correlation F test, a lower bound on what a
  univariate score can cost) and ``mutual_info_regression`` (k-NN MI estimator; on
  ``--mi-columns`` columns by default, scaled to ``D`` columns and marked so).

Times are CPU seconds (``time.process_time``; all single-threaded except BLAS inside
``f_regression``), best of ``--repeats`` runs. On a shared machine they are noisy.

Usage::

    python benchmarks/bench_ranking.py [--quick] [--n-samples N] [--n-features D]

Writes ``benchmarks/results/ranking[_quick].{json,csv}``.
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _provenance  # first: this checkout's src/ is the fsel measured
import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def _best_cpu(fn: Callable[[], Any], repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return float(best)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table and write the results."""
    p = argparse.ArgumentParser(prog="bench_ranking", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="N=2000, D=200, one repeat")
    p.add_argument("--n-samples", type=int, default=None)
    p.add_argument("--n-features", type=int, default=None)
    p.add_argument("--repeats", type=int, default=None, help="best of this many (default 3)")
    p.add_argument(
        "--mi-columns",
        type=int,
        default=100,
        help="columns timed for mutual_info_regression (scaled to D); 0 = all",
    )
    p.add_argument("--random-state", type=int, default=0)
    p.add_argument("--output", type=Path, default=None, help="output stem (no suffix)")
    _provenance.add_allow_dirty(p)
    args = p.parse_args(argv)
    git_state = _provenance.checked_state(
        p, args.output or RESULTS / ("ranking_quick" if args.quick else "ranking"), args.allow_dirty
    )

    from fsel.kernels.ranking_indices import INDEX_NAMES, ranking_scores

    n = args.n_samples or (2000 if args.quick else 10_000)
    d = args.n_features or (200 if args.quick else 1000)
    repeats = args.repeats or (1 if args.quick else 3)
    rng = np.random.default_rng(args.seed)
    X = rng.standard_normal((n, d))
    y = X[:, 0] + X[:, 1] ** 2 + np.sin(2 * X[:, 2]) + rng.standard_normal(n)

    rows: list[dict[str, Any]] = []
    floor = _best_cpu(lambda: np.argsort(X, axis=0), repeats)
    rows.append({"method": "numpy.argsort(X, axis=0)", "kind": "floor", "seconds": floor})
    for name in INDEX_NAMES:
        sec = _best_cpu(lambda name=name: ranking_scores(X, y, name), repeats)
        rows.append({"method": f"fsel {name}", "kind": "fsel", "seconds": sec})
    sec_all = _best_cpu(lambda: ranking_scores(X, y), repeats)
    rows.append({"method": "fsel all 8 (shared sorts)", "kind": "fsel", "seconds": sec_all})

    try:
        from sklearn.feature_selection import f_regression, mutual_info_regression

        sec = _best_cpu(lambda: f_regression(X, y), repeats)
        rows.append({"method": "sklearn f_regression", "kind": "other", "seconds": sec})
        cols = d if args.mi_columns <= 0 else min(d, args.mi_columns)
        sec = _best_cpu(lambda: mutual_info_regression(X[:, :cols], y, random_state=0), 1) * (
            d / cols
        )
        label = "sklearn mutual_info_regression"
        if cols < d:
            label += f" ({cols} cols x {d / cols:g})"
        rows.append({"method": label, "kind": "other", "seconds": sec})
    except Exception as exc:  # a competitor failing must not stop the benchmark
        rows.append(
            {"method": f"scikit-learn failed: {exc!r}", "kind": "other", "seconds": float("nan")}
        )

    f_reg = next((r["seconds"] for r in rows if r["method"] == "sklearn f_regression"), np.nan)
    mi_sk = next((r["seconds"] for r in rows if r["method"].startswith("sklearn mutual")), np.nan)
    for r in rows:
        r["x_argsort"] = r["seconds"] / floor
        r["x_f_regression"] = r["seconds"] / f_reg
        r["x_mutual_info_regression"] = r["seconds"] / mi_sk
        r["within_5x_floor"] = bool(r["x_argsort"] <= 5) if r["kind"] == "fsel" else ""

    print(
        f"ranking indices on N={n} x D={d} (CPU seconds, best of {repeats}; shared machine: noisy)"
    )
    head = f"{'method':48s} {'seconds':>9s} {'x argsort':>10s} {'x f_regr':>9s} {'x MI(sk)':>9s}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['method']:48s} {r['seconds']:9.3f} {r['x_argsort']:10.2f} "
            f"{r['x_f_regression']:9.2f} {r['x_mutual_info_regression']:9.4f}"
        )
    ok = all(
        r["within_5x_floor"] for r in rows if r["kind"] == "fsel" and "all 8" not in r["method"]
    )
    print(f"every index within 5x of the argsort floor: {ok}")

    stem = args.output or RESULTS / ("ranking_quick" if args.quick else "ranking")
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "n_samples": n,
        "n_features": d,
        "repeats": repeats,
        "timer": "process_time",
        "git": git_state,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    Path(f"{stem}.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    with open(f"{stem}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {stem}.json and {stem}.csv")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
