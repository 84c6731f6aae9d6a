"""Benchmark: how much a JMI fit raises the process's peak memory, as a ratio to the table.

``JMI(n_features_to_select=20)`` with its default settings on ``N x 100`` ``uint8`` codes
of 10 levels and a binary ``int64`` target (:func:`make_table`). Each measurement runs
in a **fresh subprocess**: the table and the target are built, the peak resident set
(``VmHWM``) is reset through ``/proc/self/clear_refs``, the fit runs, and the rise of
the peak over the resident set just before the fit is divided by the table's bytes.
Two variants:

* ``cold``: nothing of fsel's compiled code is loaded before the fit, so the rise also
  holds numba's import and the load of its cached kernels (about 130 MB, a fixed cost
  that does not grow with the table);
* ``warm``: a tiny fit first (numba loaded), so the rise is what the fit allocates for
  this table.

The allocations the fit cannot avoid are the feature-major code matrix (one byte a
cell: 1.0x the table), the ``n log n`` table (8 bytes a row: 0.08x) and per step one
``uint8`` joint code (1 byte a row). Linux only (``/proc``). Issue target: the cold
rise at most 1.5x the table at 4,000,000 rows (``tests/test_memory.py`` guards it).

Run ``python benchmarks/bench_memory.py [--rows 4000000]``; writes
``benchmarks/results/memory.{json,md}`` (from committed code only).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _provenance  # noqa: E402  (this checkout's fsel, in this process and subprocesses)

N_FEATURES = 100

_CHILD = """
import json, sys, time
import numpy as np

def status(key):
    with open("/proc/self/status") as f:
        return int([l for l in f if l.startswith(key)][0].split()[1]) * 1024

rows, warm = int(sys.argv[1]), sys.argv[2] == "warm"
rng = np.random.default_rng(0)
X = rng.integers(0, 10, size=(rows, {d}), dtype=np.uint8)
y = (X[:, :5].sum(axis=1, dtype=np.int64) + np.rint(rng.normal(0.0, 3.0, rows)) > 22.5)
y = y.astype(np.int64)
from fsel import JMI
if warm:
    JMI(n_features_to_select=3).fit(X[:5000], y[:5000])
import gc
gc.collect()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status("VmRSS")
t = time.perf_counter()
est = JMI(n_features_to_select=20).fit(X, y)
seconds = time.perf_counter() - t
peak = status("VmHWM")
print(json.dumps({
    "rows": rows, "warm": warm, "table_bytes": int(X.nbytes), "rss_before": before,
    "peak": peak, "rise_bytes": peak - before, "ratio": (peak - before) / X.nbytes,
    "fit_seconds": seconds, "selection": [int(j) for j in est.selection_order_],
}))
""".replace("{d}", str(N_FEATURES))


def measure(rows: int, warm: bool, timeout: float = 900.0) -> dict[str, Any]:
    """One fit in a fresh subprocess; the peak-RSS rise and its ratio to the table."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(rows), "warm" if warm else "cold"],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=os.environ,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"the measuring subprocess failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def machine() -> dict[str, Any]:
    """The machine, named: CPU model, cores, memory, Python."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return {
        "cpu_model": model,
        "cores": os.cpu_count(),
        "memory_bytes": mem,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--out", default=str(_provenance.RESULTS / "memory"))
    _provenance.add_allow_dirty(parser)
    args = parser.parse_args(argv)
    state = _provenance.checked_state(parser, Path(args.out), args.allow_dirty)
    runs = [measure(args.rows, warm) for warm in (False, True)]
    result = {"machine": machine(), "git": state, "runs": runs}
    Path(args.out).with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    m = result["machine"]
    lines = [
        "# Peak memory of a JMI fit",
        "",
        f"Machine: {m['cpu_model']}, {m['cores']} cores; commit {state['head'][:10]}.",
        f"`JMI(n_features_to_select=20)`, defaults, {args.rows:,} x {N_FEATURES} uint8 codes "
        "(10 levels), binary int64 y; peak RSS rise over the RSS before the fit, each in a "
        "fresh process.",
        "",
        "| variant | table MB | rise MB | rise / table | fit s |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in runs:
        lines.append(
            f"| {'warm (numba loaded)' if r['warm'] else 'cold (numba loaded by the fit)'} "
            f"| {r['table_bytes'] / 2**20:.0f} | {r['rise_bytes'] / 2**20:.0f} "
            f"| {r['ratio']:.2f}x | {r['fit_seconds']:.1f} |"
        )
    Path(args.out).with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
