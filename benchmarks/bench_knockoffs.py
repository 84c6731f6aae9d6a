"""Benchmark: fsel's knockoff filter against knockpy (time), on the issue's sizes.

Data: Gaussian AR(1) features (rho 0.5), ``n = 10,000`` rows, ``p = 500`` columns,
20 relevant features at random places with a logistic response, seed 0 (``--quick``:
``n = 2,000``, ``p = 100``, 10 relevant).

Rows, one run each (after a small warm-up fit: numba compilation is not timed):

* **fsel construction**: Ledoit-Wolf covariance, ``s`` (``"asdp"`` and
  ``"equicorrelated"``) and one draw of the knockoffs
  (:mod:`fsel.meta._knockoff_construction`).
* **knockpy construction**: ``knockpy.knockoffs.GaussianSampler(X, method=...)``
  with its default Ledoit-Wolf estimate, methods ``"mvr"`` (its default) and
  ``"equicorrelated"``; skipped when knockpy is not installed.
* **fsel filter, JMI statistic**: ``KnockoffFilter(JMI(n_features_to_select=0.25,
  n_jobs=2), fdr=0.1)``, the whole fit on 2 cores.
* **knockpy filter, lasso statistic**: ``KnockoffFilter(ksampler="gaussian",
  fstat="lasso").forward(X, y, fdr=0.1)``.

Each row gives wall and CPU seconds of this process, the ratio of wall time to the
first fsel row of its kind, and for the filters the number selected and the false
selections. The machine is shared: wall times are noisy. Results go to
``benchmarks/results/knockoffs[_quick].{json,md}``.

Run ``python benchmarks/run.py knockoffs [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

import _provenance  # first: this checkout's src/ is the fsel measured
import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def make_data(n: int, p: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = np.empty((n, p))
    X[:, 0] = rng.standard_normal(n)
    for j in range(1, p):  # AR(1), rho 0.5, unit variance
        X[:, j] = 0.5 * X[:, j - 1] + np.sqrt(0.75) * rng.standard_normal(n)
    rel = np.sort(rng.choice(p, k, replace=False))
    eta = X[:, rel] @ rng.choice([-1.0, 1.0], k)
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    return X, y, rel


def _timed(fn: Any) -> dict[str, Any]:
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return {"wall_s": time.perf_counter() - w0, "cpu_s": time.process_time() - c0, "out": out}


def fsel_construction(X: np.ndarray, method: str) -> dict[str, Any]:
    from fsel.meta._knockoff_construction import (
        gaussian_knockoffs,
        shrinkage_covariance,
        solve_s,
    )

    def run():
        mu, sigma = shrinkage_covariance(X)
        s = solve_s(sigma, method)
        return gaussian_knockoffs(X, mu, sigma, s, np.random.default_rng(0)), s

    r = _timed(run)
    r["mean_s"] = float(r.pop("out")[1].mean())
    return r


def knockpy_construction(X: np.ndarray, method: str) -> dict[str, Any]:
    from knockpy.knockoffs import GaussianSampler

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sampler = GaussianSampler(X, method=method)
            sampler.sample_knockoffs()
        return np.diag(sampler.fetch_S())

    r = _timed(run)
    r["mean_s"] = float(r.pop("out").mean())  # knockpy standardises: s on the corr scale
    return r


def fsel_filter(X: np.ndarray, y: np.ndarray, rel: np.ndarray) -> dict[str, Any]:
    import fsel

    kf = fsel.KnockoffFilter(fsel.JMI(n_features_to_select=0.25, n_jobs=2), fdr=0.1, random_state=0)
    r = _timed(lambda: kf.fit(X, y).relevant_features_)
    return _scored(r, rel)


def knockpy_filter(X: np.ndarray, y: np.ndarray, rel: np.ndarray) -> dict[str, Any]:
    from knockpy.knockoff_filter import KnockoffFilter

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rej = KnockoffFilter(ksampler="gaussian", fstat="lasso").forward(X=X, y=y, fdr=0.1)
        return np.flatnonzero(rej)

    return _scored(_timed(run), rel)


def _scored(r: dict[str, Any], rel: np.ndarray) -> dict[str, Any]:
    sel = r.pop("out")
    r["selected"] = len(sel)
    r["false"] = len(set(sel.tolist()) - set(rel.tolist()))
    return r


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table and write the results files."""
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog="bench_knockoffs", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="n=2000, p=100")
    p.add_argument("--output", type=Path, default=None, help="output stem (no suffix)")
    p.add_argument("--skip-knockpy-filter", action="store_true", help="no knockpy lasso filter row")
    _provenance.add_allow_dirty(p)
    args = p.parse_args(argv)
    stem = args.output or RESULTS / ("knockoffs_quick" if args.quick else "knockoffs")
    git_state = _provenance.checked_state(p, stem, args.allow_dirty)
    n, d, k = (2000, 100, 10) if args.quick else (10_000, 500, 20)
    X, y, rel = make_data(n, d, k)
    Xw, yw, relw = make_data(300, 20, 5)
    fsel_filter(Xw, yw, relw)  # warm-up: numba compilation, imports

    try:
        import knockpy  # noqa: F401

        have_knockpy = True
    except ImportError:
        have_knockpy = False
    rows: list[dict[str, Any]] = []

    def record(kind: str, name: str, fn: Any) -> None:
        try:
            r = fn()
            r["status"] = "ok"
        except Exception as exc:  # a crashing competitor is reported, not fatal
            traceback.print_exc()
            r = {"status": f"failed: {type(exc).__name__}: {exc}"[:200]}
        r.update(kind=kind, method=name)
        rows.append(r)
        shown = {k: round(v, 2) if isinstance(v, float) else v for k, v in r.items()}
        print(f"  done: {name} {shown}", file=sys.stderr)

    record("construction", "fsel asdp", lambda: fsel_construction(X, "asdp"))
    record("construction", "fsel equicorrelated", lambda: fsel_construction(X, "equicorrelated"))
    if have_knockpy:
        record("construction", "knockpy mvr", lambda: knockpy_construction(X, "mvr"))
        record(
            "construction",
            "knockpy equicorrelated",
            lambda: knockpy_construction(X, "equicorrelated"),
        )
    record("filter", "fsel KnockoffFilter(JMI), n_jobs=2", lambda: fsel_filter(X, y, rel))
    if have_knockpy and not args.skip_knockpy_filter:
        record("filter", "knockpy KnockoffFilter(lasso)", lambda: knockpy_filter(X, y, rel))
    for kind in ("construction", "filter"):
        base = next((r for r in rows if r["kind"] == kind and r["status"] == "ok"), None)
        for r in rows:
            if r["kind"] == kind and r["status"] == "ok" and base is not None:
                r["wall_ratio_vs_fsel"] = r["wall_s"] / base["wall_s"]

    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    lines = [
        f"# Knockoffs: fsel vs knockpy, AR(1) Gaussian n={n}, p={d}, {k} relevant (logistic)",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, shared (load average "
        f"{load[0]:.1f} at the end); git {str(git_state.get('head', '?'))[:10]}.",
        "",
        "| kind | method | wall s | cpu s | wall / fsel | mean s | selected | false |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["status"] != "ok":
            lines.append(f"| {r['kind']} | {r['method']} | {r['status']} | | | | | |")
            continue
        lines.append(
            f"| {r['kind']} | {r['method']} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | "
            f"{r['wall_ratio_vs_fsel']:.2f} | {r.get('mean_s', float('nan')):.3f} | "
            f"{r.get('selected', '')} | {r.get('false', '')} |"
        )
    if not have_knockpy:
        lines.append("\nknockpy is not installed (pip install -r benchmarks/requirements.txt).")
    text = "\n".join(lines) + "\n"
    print(text)
    stem.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "data": {"n": n, "p": d, "k": k, "seed": 0},
        "git": git_state,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_average": list(load),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    stem.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    stem.with_suffix(".md").write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
