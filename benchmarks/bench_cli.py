"""Benchmark: wall time of a small ``fsel select`` job, first run and warm, vs an older fsel.

Issue 17 item 15: "a first ``fsel select`` on a 569 x 30 table takes 2.4 s wall, nearly
all import and JIT: at least halve it for a warm small CLI job". This times, side by side
and interleaved in rounds (so both sides see the same machine load):

* **first** run: a fresh ``NUMBA_CACHE_DIR`` (no compiled kernels cached), Python's own
  bytecode cache warm;
* **warm** run: the same command again (numba's cache, if it was used, now filled), best
  of two;

for this checkout's ``src/`` and for the ``--baseline`` commit (default ``472081b``, the
code the issue was measured on), extracted with ``git archive``. The job is
``fsel select DATA --method jmi -k 5`` (and ``--method relieff``, which loads compiled
kernels). ``DATA`` is WDBC (569 x 30) from ``../shared/datasets`` or, when that folder
is absent, a generated 569 x 30 table. Results go to ``benchmarks/results/cli.{json,md}``.

Run ``python benchmarks/bench_cli.py [--rounds 3] [--baseline COMMIT]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

import _provenance  # first: this checkout's src/ is the fsel measured
import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
DATASETS = HERE.parent.parent / "shared" / "datasets"
METHODS = ("jmi", "relieff")


def _data(tmp: Path) -> tuple[Path, str]:
    wdbc = DATASETS / "wdbc.npz"
    if wdbc.is_file():
        return wdbc, "wdbc 569 x 30"
    rng = np.random.default_rng(0)
    X = rng.standard_normal((569, 30))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    path = tmp / "generated.npz"
    np.savez(path, X=X, y=y)
    return path, "generated 569 x 30"


def _extract(commit: str, dest: Path) -> Path:
    blob = subprocess.run(
        ["git", "archive", commit, "src"], cwd=HERE.parent, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(dest, filter="data")
    return dest / "src"


def _time(src: Path, cache: Path, data: Path, method: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(src), NUMBA_CACHE_DIR=str(cache))
    cmd = [sys.executable, "-m", "fsel", "select", str(data), "--method", method, "-k", "5"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()[-300:]}")
    return took


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench_cli", description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--baseline", default="472081b")
    p.add_argument("--output", type=Path, default=None, help="output stem (no suffix)")
    _provenance.add_allow_dirty(p)
    args = p.parse_args(argv)
    stem = Path(args.output or RESULTS / "cli")
    git_state = _provenance.checked_state(p, stem, args.allow_dirty)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="fsel_bench_cli_") as tmp_:
        tmp = Path(tmp_)
        data, data_name = _data(tmp)
        sides = {"baseline": _extract(args.baseline, tmp / "baseline"), "this": _provenance.SRC}
        for r in range(args.rounds):
            for method in METHODS:
                for side, src in sides.items():
                    cache = tmp / f"cache_{side}_{method}_{r}"
                    first = _time(src, cache, data, method)
                    warm = min(_time(src, cache, data, method) for _ in range(2))
                    rows.append(
                        {
                            "round": r,
                            "method": method,
                            "side": side,
                            "first_s": first,
                            "warm_s": warm,
                        }
                    )
                    print(
                        f"round {r} {method:8s} {side:8s} first {first:6.2f} s, warm {warm:6.2f} s"
                    )

    def med(method: str, side: str, key: str) -> float:
        return float(
            np.median([x[key] for x in rows if x["method"] == method and x["side"] == side])
        )

    summary = []
    lines = [
        "# Small CLI job: first run and warm, this fsel vs the baseline",
        "",
        f"fsel `{git_state['head'][:10]}` vs baseline `{args.baseline}`; data {data_name}; "
        f"{os.cpu_count()} CPUs, load average at the end "
        + ", ".join(f"{v:.1f}" for v in os.getloadavg())
        + f"; medians of {args.rounds} interleaved rounds (warm = best of 2 runs).",
        "",
        "| method | baseline first s | baseline warm s | this first s | this warm s | "
        "this warm / baseline first | this warm / baseline warm |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for method in METHODS:
        bf, bw = med(method, "baseline", "first_s"), med(method, "baseline", "warm_s")
        tf, tw = med(method, "this", "first_s"), med(method, "this", "warm_s")
        summary.append(
            {
                "method": method,
                "baseline_first_s": bf,
                "baseline_warm_s": bw,
                "this_first_s": tf,
                "this_warm_s": tw,
                "warm_over_baseline_first": tw / bf,
                "warm_over_baseline_warm": tw / bw,
            }
        )
        lines.append(
            f"| {method} | {bf:.2f} | {bw:.2f} | {tf:.2f} | {tw:.2f} | {tw / bf:.2f} | "
            f"{tw / bw:.2f} |"
        )
    meta = {
        "git": git_state,
        "baseline": args.baseline,
        "data": data_name,
        "rounds": args.rounds,
        "cpu_count": os.cpu_count(),
        "load_average": list(os.getloadavg()),
        "python": platform.python_version(),
    }
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".json").write_text(
        json.dumps({"meta": meta, "summary": summary, "rows": rows}, indent=1)
    )
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
