"""``fsel select --fdr Q`` (the knockoff filter) and ``--stability`` (stability
selection) around the chosen method: fit, print, and the JSON/CSV record."""

from __future__ import annotations

import argparse
import math
from contextlib import nullcontext
from typing import Any

__all__ = ["run_knockoff", "run_stability"]


def _context(args: argparse.Namespace) -> Any:
    if args.scheduler:
        from fsel.cli.io import dask_context

        return dask_context(args.scheduler)
    return nullcontext()


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def run_knockoff(args: argparse.Namespace, base: Any, data: Any) -> tuple[dict, list[str]]:
    """Fit ``KnockoffFilter(base, fdr=args.fdr)``; the output record and CSV columns.

    JSON fields: ``method``, ``fdr``, ``n_draws``, ``threshold`` (null when nothing
    passes), ``n_relevant``, ``W`` (every feature's statistic, by name) and
    ``features`` (rank, index, name, W; with ``--draws`` > 1 also the e-value).
    """
    from fsel.meta.knockoffs import KnockoffFilter

    kf = KnockoffFilter(
        base,
        fdr=args.fdr,
        n_draws=args.draws,
        random_state=args.random_state,
        n_jobs=args.n_jobs,
    )
    with _context(args):
        kf.fit(data.X, data.y)
    names = data.feature_names
    rows = []
    for r, i in enumerate(kf.relevant_features_):
        row = {"rank": r + 1, "index": int(i), "name": names[i], "W": float(kf.W_[i])}
        if args.draws > 1:
            row["evalue"] = float(kf.evalues_[i])
        rows.append(row)
    out = {
        "method": f"knockoff({args.method})",
        "data": args.data,
        "target": data.target,
        "n_samples": int(data.X.shape[0]),
        "n_features": int(data.X.shape[1]),
        "fdr": args.fdr,
        "n_draws": args.draws,
        "threshold": _finite(kf.threshold_),
        "n_relevant": len(rows),
        "W": {names[j]: float(w) for j, w in enumerate(kf.W_)},
        "features": rows,
    }
    print(
        f"knockoffs({args.method}): {len(rows)} of {data.X.shape[1]} features at false "
        f"discovery rate {args.fdr} (threshold {kf.threshold_:g})"
    )
    print(f"{'rank':>4}  {'index':>5}  {'W':>9}  name")
    for row in rows:
        print(f"{row['rank']:>4}  {row['index']:>5}  {row['W']:>9.3g}  {row['name']}")
    return out, ["rank", "index", "name", "W"]


def _n_pairs(args: argparse.Namespace) -> int:
    """Complementary pairs of ``--stability``: ``--n-resamples``, default 50."""
    return 50 if args.n_resamples is None else int(args.n_resamples)


def run_stability(args: argparse.Namespace, base: Any, data: Any) -> tuple[dict, list[str]]:
    """Fit ``StabilitySelection(base, threshold, n_resamples)``; the record and columns.

    JSON fields: ``method``, ``threshold``, ``n_resamples`` (complementary pairs),
    ``average_selected`` (q), ``error_bound`` (Meinshausen-Bühlmann bound on the
    expected number of false selections; null for threshold <= 1/2),
    ``unimodal_error_bound`` (Shah-Samworth, null outside its range),
    ``frequencies`` (every feature's selection frequency, by name) and ``features``
    (rank, index, name, frequency).
    """
    from fsel.meta.stability_selection import StabilitySelection

    ss = StabilitySelection(
        base,
        threshold=args.threshold,
        n_resamples=_n_pairs(args),
        random_state=args.random_state,
        n_jobs=args.n_jobs,
    )
    with _context(args):
        ss.fit(data.X, data.y)
    names = data.feature_names
    freq = ss.selection_frequencies_
    rows = [
        {"rank": r + 1, "index": int(i), "name": names[i], "frequency": float(freq[i])}
        for r, i in enumerate(ss.relevant_features_)
    ]
    unimodal = ss.unimodal_error_bound_
    out = {
        "method": f"stability({args.method})",
        "data": args.data,
        "target": data.target,
        "n_samples": int(data.X.shape[0]),
        "n_features": int(data.X.shape[1]),
        "threshold": args.threshold,
        "n_resamples": _n_pairs(args),
        "average_selected": float(ss.average_selected_),
        "error_bound": _finite(ss.error_bound_),
        "unimodal_error_bound": None if math.isnan(unimodal) else _finite(unimodal),
        "n_relevant": len(rows),
        "frequencies": {names[j]: float(f) for j, f in enumerate(freq)},
        "features": rows,
    }
    print(
        f"stability({args.method}): {len(rows)} of {data.X.shape[1]} features selected in "
        f">= {args.threshold:g} of {2 * _n_pairs(args)} half-samples; expected false "
        f"selections <= {ss.error_bound_:.3g} (q = {ss.average_selected_:.3g})"
    )
    print(f"{'rank':>4}  {'index':>5}  {'freq':>5}  name")
    for row in rows:
        print(f"{row['rank']:>4}  {row['index']:>5}  {row['frequency']:>5.2f}  {row['name']}")
    return out, ["rank", "index", "name", "frequency"]
