"""``fsel report``: one page on which features of a table matter for a target.

::

    fsel report DATA --target y [--methods jmi,mrmr,cmim,relieff,multisurf,k3] [-k K]
                [--n-resamples B] [--alpha A] [--folds F] [--output DIR] [--quick]

Writes ``DIR/report.html`` (self-contained, works offline), its figures as PNG,
``report.json`` and ``selections.csv`` (``DIR`` defaults to ``fsel-report``). Finished
units of work are cached in ``DIR/.cache``, so an interrupted report resumes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``report`` subcommand on an argparse subparsers object."""
    from fsel.cli.io import n_features  # -k as in 'fsel select'

    p = subparsers.add_parser(
        "report",
        help="one HTML page: which features matter, how sure, how stable, is it worth it",
        description="Run several selection methods on a table and write one self-contained "
        "page (DIR/report.html): the data, each method's features, their agreement, "
        "stability under bootstrap, NPFS relevance, cross-validated accuracy against the "
        "number of features kept, run times and the command to reproduce it. Finished "
        "units are cached in DIR/.cache, so an interrupted report resumes.",
    )
    p.add_argument("data", help="a .csv, .parquet or .npz file (or a shared data set name)")
    p.add_argument("--target", "-t", help="name of the target column (CSV/Parquet)")
    p.add_argument(
        "--methods",
        "-m",
        default=None,
        help="comma-separated method names (default: jmi,mrmr,cmim,relieff,multisurf,k3 "
        "for class labels, k3,in,chi2,mi-index for a numeric target); NPFS tests the first",
    )
    p.add_argument(
        "-k",
        "--n-features-to-select",
        dest="n_features_to_select",
        type=n_features,
        default=None,
        metavar="N",
        help="features each method selects: an int or a fraction in (0, 1] (default: "
        "min(20, half the features))",
    )
    p.add_argument(
        "--n-resamples", type=int, default=None, help="bootstrap samples (default 100; 20 quick)"
    )
    p.add_argument("--alpha", type=float, default=0.01, help="NPFS level (default 0.01)")
    p.add_argument(
        "--fdr",
        type=float,
        default=0.1,
        help="knockoff filter's false discovery rate beside NPFS (default 0.1; 0: skip it "
        "and stability selection)",
    )
    p.add_argument("--folds", type=int, default=None, help="CV folds (default 5; 3 quick)")
    p.add_argument(
        "--task",
        choices=["auto", "classification", "regression"],
        default="auto",
        help="kind of target (default: guessed from it)",
    )
    p.add_argument("--categorical", help="comma-separated columns to treat as categorical")
    p.add_argument("--output", "-o", default="fsel-report", metavar="DIR", help="output folder")
    p.add_argument("--quick", action="store_true", help="a small, fast run")
    p.add_argument("--random-state", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--no-cache", action="store_true", help="recompute everything")
    p.add_argument(
        "--n-jobs", "-j", type=int, default=None, help="parallel workers for the bootstraps"
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    """Run the ``report`` subcommand; returns the exit status."""
    from fsel.cli.io import named_columns, read_data, resolve_data
    from fsel.reporting.analysis import cli_command, report

    cats = [c for c in (args.categorical or "").split(",") if c]
    path = resolve_data(args.data)
    data = read_data(path, args.target, cats)
    out = Path(args.output)
    with named_columns(data.feature_names, data.X):  # messages name columns as select's
        rep = report(
            data.X,
            _class_names(path, data.y),
            methods=args.methods,
            n_features_to_select=args.n_features_to_select,
            n_resamples=args.n_resamples,
            alpha=args.alpha,
            n_folds=args.folds,
            quick=args.quick,
            task=args.task,
            feature_names=data.feature_names,
            categorical=data.categorical,
            random_state=args.random_state,
            cache_dir=None if args.no_cache else out / ".cache",
            progress=False if args.quiet else None,
            n_jobs=args.n_jobs,
            fdr=args.fdr or None,
        )
    rep.command = cli_command(_argv(args, rep.params))
    page = rep.save(out)
    print(rep.summary_text())
    print(f"wrote {page}", file=sys.stderr)
    return 0


def _class_names(path: str, y: Any) -> Any:
    """The class labels of a ``.npz`` data set that names them (``class_names[y]``), so
    that the page shows ``good``/``bad`` rather than ``0``/``1``."""
    import numpy as np

    if not path.lower().endswith(".npz"):
        return y
    with np.load(path, allow_pickle=False) as z:
        if "class_names" not in z.files:
            return y
        names = z["class_names"]
    codes = np.asarray(y)
    if codes.dtype.kind not in "iu" or codes.min() < 0 or codes.max() >= names.shape[0]:
        return y
    return names[codes]


def _argv(args: argparse.Namespace, params: dict[str, Any]) -> list[str]:
    """This run as a command line, every setting spelled out (so that it reproduces
    the page even if the defaults change)."""
    argv = [args.data]
    if args.target:
        argv += ["--target", args.target]
    argv += ["--methods", ",".join(params["methods"]), "-k", str(params["k"])]
    argv += ["--n-resamples", str(params["n_bootstraps"]), "--folds", str(params["n_folds"])]
    argv += ["--alpha", repr(float(params["alpha"])), "--task", params["task"]]
    argv += ["--fdr", repr(float(args.fdr))]  # every digit: the same run again
    if args.categorical:
        argv += ["--categorical", args.categorical]
    argv += ["--random-state", str(params["random_state"]), "--output", str(args.output)]
    return argv
