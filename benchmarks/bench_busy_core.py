"""Benchmark: a greedy step on every thread while another process keeps one core busy.

A multi-threaded greedy step that splits the rows evenly, one span per thread, waits
for its slowest thread; where another process shares a core with one of the threads
(a shared machine, a busy laptop), that thread, and the step, can take up to twice as
long. fsel's step cuts the rows into a few spans per thread, which the threads take in
turn (``fsel.kernels.pair_step._SPANS_PER_THREAD``). This benchmark measures both ways
side by side, on an idle machine and beside one busy process (a pure-Python loop):

``JMI(8, discretize=None, n_jobs=T)`` on ``--rows`` x ``--features`` ``uint8`` codes of
10 levels with a binary target (``T`` the machine's cores), the best of ``--repeats``
fits; the step is ``(fit(8) - fit(1)) / 7``. The picks must be the same in every run
(checked). Results: ``benchmarks/results/busy_core.{json,md}``.

Run (from the repository root)::

    python benchmarks/bench_busy_core.py
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import _provenance  # first: this checkout's src/ is the fsel measured
import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"


def make_codes(rows: int, features: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Codes of 10 levels; ``y`` depends on the first two columns."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 10, size=(rows, features), dtype=np.uint8)
    y = ((X[:, 0] + X[:, 1] + rng.integers(0, 4, rows)) % 2).astype(np.uint8)
    return X, y


def fit_times(X: np.ndarray, y: np.ndarray, threads: int) -> tuple[float, float, list[int]]:
    """Seconds of JMI(8) and of the step ``(fit(8) - fit(1)) / 7``, and the picks."""
    import fsel

    t0 = time.perf_counter()
    est = fsel.JMI(8, discretize=None, n_jobs=threads).fit(X, y)
    t8 = time.perf_counter() - t0
    t0 = time.perf_counter()
    fsel.JMI(1, discretize=None, n_jobs=threads).fit(X, y)
    t1 = time.perf_counter() - t0
    return t8, (t8 - t1) / 7, est.selection_order_.tolist()


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog="bench_busy_core", description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=4_000_000)
    p.add_argument("--features", type=int, default=100)
    p.add_argument("--repeats", type=int, default=4)
    p.add_argument("--output", type=Path, default=None, help="output stem (no suffix)")
    _provenance.add_allow_dirty(p)
    args = p.parse_args(argv)
    stem = args.output or RESULTS / "busy_core"
    git_state = _provenance.checked_state(p, stem, args.allow_dirty)
    from fsel.kernels import pair_step

    threads = os.cpu_count() or 1
    X, y = make_codes(args.rows, args.features)
    fit_times(X[:100_000], y[:100_000], threads)  # warm-up: numba's kernels
    runs: dict[str, Any] = {}
    picks = set()
    for busy in (False, True):
        hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
        try:
            time.sleep(0.5)
            for _ in range(args.repeats):  # interleaved: both ways see the same load
                for spans in (1, pair_step._SPANS_PER_THREAD):
                    saved = pair_step._SPANS_PER_THREAD
                    pair_step._SPANS_PER_THREAD = spans
                    try:
                        t8, step, order = fit_times(X, y, threads)
                    finally:
                        pair_step._SPANS_PER_THREAD = saved
                    key = f"{'busy' if busy else 'idle'}_spans{spans}"
                    runs.setdefault(key, {"fit_s": [], "step_s": []})
                    runs[key]["fit_s"].append(t8)
                    runs[key]["step_s"].append(step)
                    picks.add(tuple(order))
        finally:
            if hog is not None:
                hog.kill()
                hog.wait()
    res = {
        "command": "python benchmarks/bench_busy_core.py " + " ".join(argv),
        "machine": {"cores": threads, "python": sys.version.split()[0]},
        "git": git_state,
        "rows": args.rows,
        "features": args.features,
        "threads": threads,
        "runs": runs,
        "same_picks": len(picks) == 1,
    }
    lines = [
        "# A greedy step beside a busy process",
        "",
        f"`JMI(8, discretize=None, n_jobs={threads})` on {args.rows:,} x {args.features} "
        f"`uint8` codes; best of {args.repeats} (interleaved); {threads} cores; commit "
        f"{str(git_state.get('head', '?'))[:10]}. Command: `{res['command'].strip()}`.",
        "",
        "| machine | row spans a thread | whole fit | step |",
        "|---|---:|---:|---:|",
    ]
    for key, r in runs.items():
        load, spans = key.split("_spans")
        lines.append(
            f"| {'one busy process beside' if load == 'busy' else 'idle'} | {spans} | "
            f"{min(r['fit_s']):.2f} s | {min(r['step_s']) * 1e3:.0f} ms |"
        )
    lines += ["", f"Same picks in every run: {res['same_picks']}.", ""]
    stem.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{stem}.json").write_text(json.dumps(res, indent=2, default=str))
    Path(f"{stem}.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0 if res["same_picks"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
