"""Benchmark: the information criteria on sparse matrices (issue 13).

Side by side in one run, each case in its own subprocess (fresh memory accounting):

* **fsel sparse** -- ``fsel.JMI(k)`` and ``fsel.MIM(k)`` on a ``scipy.sparse`` CSR matrix
  (the O(nnz) counting path);
* **fsel dense** -- the same on ``X.toarray()`` (where the dense copy fits);
* **scikit-learn** -- ``chi2`` and ``mutual_info_classif(discrete_features=True)`` (MIM
  by another name) on the same CSR matrix.

Data:

* DOROTHEA (``../shared/datasets/dorothea_train_only.npz``, 800 x 100,000, binary,
  0.9% non-zero), k = 20;
* PCMAC (``../shared/datasets/pcmac.npz``, 1,943 x 3,289 term counts), k = 20;
* a generated Zipf bag-of-words corpus, 20,000 documents x 200,000 terms at about 0.3%
  non-zero (term counts; 200 class-specific terms), k = 50. Its dense copy (4 GB as
  uint8) is not run.

Measured per case: wall and CPU seconds of ``fit`` (after an untimed warm-up on a tiny
matrix, which loads the numba kernels), and in a second run of the same subprocess the
peak of ``tracemalloc`` (Python and numpy allocations) during ``fit``, in MB, next to
the size of the sparse input (data + indices + indptr). Targets (issue 13): JMI k=20 on
DOROTHEA at least 10x faster sparse than dense, with peak memory within 2x of the sparse
input's size; MIM on the Zipf corpus faster than scikit-learn's ``mutual_info_classif``;
JMI k=50 on the Zipf corpus under 30 s on one core.

``--quick``: a 4,000 x 40,000 Zipf corpus, scikit-learn MI on PCMAC only. Results go to
``benchmarks/results/sparse[_quick].{json,md}`` (``--output DIR``: to DIR instead).

Run ``python benchmarks/run.py sparse [--quick]`` or ``python benchmarks/bench_sparse.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import _provenance  # first: this checkout's src/ is the fsel measured
import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
DATASETS = (HERE.parent / ".." / "shared" / "datasets").resolve()


def make_zipf_corpus(
    n_docs: int = 20_000,
    n_terms: int = 200_000,
    tokens_per_doc: int = 800,
    n_informative: int = 200,
    seed: int = 0,
) -> tuple[Any, np.ndarray, np.ndarray]:
    """A bag-of-words count matrix with Zipf term frequencies and two classes.

    Each document draws ``Poisson(tokens_per_doc)`` tokens from a Zipf law over the
    terms (exponent 1.05, term ids shuffled) plus ``Poisson(3)`` tokens from the half of
    ``n_informative`` terms that belongs to its class. Returns the CSR matrix (int32
    counts), the labels and the informative term ids.
    """
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_docs)
    p = 1.0 / (np.arange(n_terms) + 10.0) ** 1.05
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    perm = rng.permutation(n_terms)
    rows = np.repeat(np.arange(n_docs), rng.poisson(tokens_per_doc, n_docs))
    cols = perm[np.minimum(np.searchsorted(cdf, rng.random(rows.size)), n_terms - 1)]
    informative = rng.choice(n_terms, n_informative, replace=False)
    r2 = np.repeat(np.arange(n_docs), rng.poisson(3, n_docs))
    half = n_informative // 2
    c2 = informative[rng.integers(0, half, r2.size) + half * y[r2]]
    X = sp.csr_matrix(
        (np.ones(rows.size + r2.size, np.int32), (np.r_[rows, r2], np.r_[cols, c2])),
        shape=(n_docs, n_terms),
    )
    X.sum_duplicates()
    return X, y, informative


def load_data(name: str, quick: bool) -> tuple[Any, np.ndarray]:
    import scipy.sparse as sp

    if name == "dorothea":
        d = np.load(DATASETS / "dorothea_train_only.npz")
        return sp.csr_matrix(d["X_train"]), d["y_train"]
    if name == "pcmac":
        d = np.load(DATASETS / "pcmac.npz")
        return sp.csr_matrix(d["X"]), d["y"]
    if name == "zipf":
        shape = (4_000, 40_000) if quick else (20_000, 200_000)
        X, y, _ = make_zipf_corpus(*shape)
        return X, y
    raise ValueError(name)


def _sparse_bytes(X: Any) -> int:
    return int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes)


def _fit_fn(tool: str, method: str, k: int, X: Any, y: np.ndarray) -> Any:
    if tool.startswith("fsel"):
        import fsel

        cls = getattr(fsel, method)
        return lambda: cls(k).fit(X, y).selection_order_
    from sklearn.feature_selection import chi2, mutual_info_classif

    if method == "chi2":
        return lambda: chi2(X, y)
    return lambda: mutual_info_classif(X, y, discrete_features=True, random_state=0)


def worker(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one case in this process and return its measurements."""
    import tracemalloc

    import scipy.sparse as sp

    X, y = load_data(spec["data"], spec["quick"])
    out: dict[str, Any] = {
        "shape": list(X.shape),
        "nnz": int(X.nnz),
        "sparse_input_mb": _sparse_bytes(X) / 1e6,
    }
    if spec["tool"] == "fsel dense":
        X = X.toarray()
        out["dense_input_mb"] = X.nbytes / 1e6
    # warm-up on 40 rows of the same matrix (same dtypes: numba kernels compiled or
    # loaded from the disk cache, imports): untimed
    if spec["tool"].startswith("fsel"):
        tiny = X[:40] if sp.issparse(X) else X[:40].copy()
        _fit_fn(spec["tool"], spec["method"], 3, tiny, np.arange(40) % 2)()
    fn = _fit_fn(spec["tool"], spec["method"], spec["k"], X, y)
    c0, w0 = time.process_time(), time.perf_counter()
    result = fn()
    out["cpu_s"] = time.process_time() - c0
    out["wall_s"] = time.perf_counter() - w0
    if spec["tool"].startswith("fsel"):
        out["selected"] = np.asarray(result).tolist()
    if spec.get("memory", True):
        tracemalloc.start()
        fn()
        out["peak_mb"] = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    return out


def run_case(spec: dict[str, Any], timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {**spec, "error": f"timeout after {timeout:.0f} s"}
    if proc.returncode != 0:
        return {**spec, "error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    return {**spec, **json.loads(proc.stdout.strip().splitlines()[-1])}


def cases(quick: bool) -> list[dict[str, Any]]:
    out = []
    for data, k in (("dorothea", 20), ("pcmac", 20), ("zipf", 50)):
        for method in ("JMI", "MIM"):
            out.append({"data": data, "tool": "fsel sparse", "method": method, "k": k})
            if data != "zipf":
                out.append({"data": data, "tool": "fsel dense", "method": method, "k": k})
        out.append({"data": data, "tool": "scikit-learn", "method": "chi2", "k": k})
        mi = {"data": data, "tool": "scikit-learn", "method": "mutual_info_classif", "k": k}
        if data != "pcmac":
            mi["memory"] = False  # minutes per run: time it once
            if quick:
                continue
        out.append(mi)
    for c in out:
        c["quick"] = quick
    return out


def _fmt(v: Any, spec: str = ".2f") -> str:
    return "-" if v is None else format(v, spec)


def to_markdown(rows: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = [
        "# Sparse input: fsel sparse vs fsel dense vs scikit-learn",
        "",
        f"fsel `{meta['git']['head'][:10]}`"
        + (" (plus uncommitted changes in src/)" if meta["git"]["src_dirty"] else "")
        + f"; {meta['cpu_count']} CPUs shared with other jobs (load average "
        + ", ".join(f"{v:.1f}" for v in meta["load_average"])
        + " at the end), one thread per fit: wall times are noisy, CPU time is the fair "
        "measure.",
        "",
        "| data | tool | method | k | CPU s | wall s | peak MB (tracemalloc) | sparse input MB |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(
                f"| {r['data']} | {r['tool']} | {r['method']} | {r['k']} | {r['error']} | | | |"
            )
            continue
        lines.append(
            f"| {r['data']} {r['shape'][0]}x{r['shape'][1]} | {r['tool']} | {r['method']} | "
            f"{r['k']} | {_fmt(r.get('cpu_s'))} | {_fmt(r.get('wall_s'))} | "
            f"{_fmt(r.get('peak_mb'), '.1f')} | {_fmt(r.get('sparse_input_mb'), '.1f')} |"
        )
    lines += ["", "## Targets", ""]
    lines += [f"* {t}" for t in meta["targets"]]
    return "\n".join(lines) + "\n"


def _find(rows: list[dict[str, Any]], **kw: Any) -> dict[str, Any] | None:
    for r in rows:
        if all(r.get(a) == b for a, b in kw.items()) and "error" not in r:
            return r
    return None


def targets(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    s = _find(rows, data="dorothea", tool="fsel sparse", method="JMI")
    d = _find(rows, data="dorothea", tool="fsel dense", method="JMI")
    if s and d:
        ratio = d["cpu_s"] / s["cpu_s"]
        mem = s["peak_mb"] / s["sparse_input_mb"]
        same = s["selected"] == d["selected"]
        out.append(
            f"JMI k=20 on DOROTHEA: sparse {s['cpu_s']:.2f} s vs dense {d['cpu_s']:.2f} s CPU = "
            f"{ratio:.1f}x (target >= 10x: {'met' if ratio >= 10 else 'MISSED'}); peak "
            f"{s['peak_mb']:.1f} MB = {mem:.2f}x the sparse input (target <= 2x: "
            f"{'met' if mem <= 2 else 'MISSED'}); same selection as dense: {same}"
        )
    m = _find(rows, data="zipf", tool="fsel sparse", method="MIM")
    sk = _find(rows, data="zipf", tool="scikit-learn", method="mutual_info_classif")
    if m and sk:
        out.append(
            f"MIM on Zipf: fsel {m['cpu_s']:.2f} s vs mutual_info_classif {sk['cpu_s']:.1f} s "
            f"CPU = {sk['cpu_s'] / m['cpu_s']:.0f}x (target faster: "
            f"{'met' if m['cpu_s'] < sk['cpu_s'] else 'MISSED'})"
        )
    j = _find(rows, data="zipf", tool="fsel sparse", method="JMI")
    if j:
        out.append(
            f"JMI k=50 on Zipf: {j['cpu_s']:.1f} s CPU, {j['wall_s']:.1f} s wall (target < 30 s: "
            f"{'met' if j['cpu_s'] < 30 else 'MISSED'})"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--timeout", type=float, default=1500.0, help="seconds per case")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument(
        "--output", type=Path, default=RESULTS, help="folder for the results (default: %(default)s)"
    )
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return 0
    if not DATASETS.is_dir():
        print(f"{DATASETS} is absent: DOROTHEA and PCMAC are skipped", file=sys.stderr)
    git = _provenance.git_state()  # the code measured (src/ may change while a long run goes on)
    refusal = _provenance.dirty_refusal(git, args.output / "sparse", allow_dirty=True)
    if refusal:
        ap.error(refusal)
    rows = []
    for spec in cases(args.quick):
        if spec["data"] != "zipf" and not DATASETS.is_dir():
            continue
        r = run_case(spec, args.timeout)
        rows.append(r)
        took = f"{r['cpu_s']:.2f} s CPU, {r['wall_s']:.2f} s wall" if "cpu_s" in r else r["error"]
        peak = f", peak {r['peak_mb']:.1f} MB" if "peak_mb" in r else ""
        print(f"{spec['data']:9s} {spec['tool']:12s} {spec['method']:20s} {took}{peak}", flush=True)
    meta = {
        "git": git,
        "cpu_count": os.cpu_count(),
        "load_average": list(os.getloadavg()),
        "python": platform.python_version(),
        "targets": targets(rows),
    }
    for t in meta["targets"]:
        print(t)
    args.output.mkdir(parents=True, exist_ok=True)
    stem = "sparse_quick" if args.quick else "sparse"
    (args.output / f"{stem}.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    (args.output / f"{stem}.md").write_text(to_markdown(rows, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
