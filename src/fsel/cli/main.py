"""The ``fsel`` command: a thin layer over the public API.

``fsel select DATA --target COLUMN --method jmi -k 10`` selects features of a CSV,
Parquet or ``.npz`` table and prints them with their scores; ``--output`` writes JSON or
CSV; ``--npfs`` wraps the method in the Neyman-Pearson bootstrap test. ``fsel methods``
lists every method; ``fsel reproduce`` re-runs the papers' experiments; ``fsel report``
writes one HTML page on which features matter; ``fsel datasets`` lists the shared data
sets.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from fsel._version import __version__
from fsel.cli.io import CliError, read_data
from fsel.cli.io import bins as _bins
from fsel.cli.io import dask_context as _dask_context
from fsel.cli.io import literal as _literal
from fsel.cli.io import n_features as _n_features
from fsel.cli.io import named_columns as _named_columns
from fsel.cli.io import resolve_data as _resolve_data

__all__ = ["build_parser", "main"]

# CLI flag -> estimator constructor parameter (passed only when given)
_FLAG_PARAMS = {
    "bins": "n_bins",
    "device": "device",
    "discretize": "discretize",
    "mi_estimator": "mi_estimator",
    "beta": "beta",
    "gamma": "gamma",
    "metric": "metric",
    "n_neighbors": "n_neighbors",
    "sigma": "sigma",
    "theta": "theta",
    "max_iter": "max_iter",
    "epsilon": "epsilon",
    "radius_factor": "radius_factor",
    "n_slices": "n_slices",
    "n_bins_x": "n_bins_x",
    "n_bins_y": "n_bins_y",
    "missing": "missing",
    "sample_size": "sample_size",
    "scaling": "scaling",
}


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors are one line, as fsel's other errors."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        self.exit(2, f"fsel: error: {message} (see: {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="fsel",
        description="Feature selection you can trust: which features matter, how sure, how stable.",
    )
    parser.add_argument("--version", action="version", version=f"fsel {__version__}")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="show the full traceback of an error (also FSEL_DEBUG=1)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p_methods = sub.add_parser("methods", help="list every selection method")
    p_methods.set_defaults(func=_cmd_methods)

    p_data = sub.add_parser("datasets", help="list the data sets of ../shared/datasets")
    p_data.add_argument("--path", help="folder holding the .npz files")
    p_data.set_defaults(func=_cmd_datasets)

    p = sub.add_parser("select", help="select features of a CSV/Parquet/.npz table")
    p.add_argument("data", help="a .csv, .parquet or .npz file (or a shared data set name)")
    p.add_argument("--target", "-t", help="name of the label column (CSV/Parquet)")
    p.add_argument(
        "--target-file",
        help="labels, one per row (.npy, or text with one label a line): needed for a "
        "sparse .npz written by scipy.sparse.save_npz, which holds X only",
    )
    p.add_argument("--feature-names", help="feature names, one a line (e.g. a vocabulary)")
    p.add_argument("--method", "-m", default="jmi", help="method name (see 'fsel methods')")
    p.add_argument(
        "-k",
        "--n-features-to-select",
        dest="n_features_to_select",
        type=_n_features,
        default=None,
        metavar="N",
        help="number of features to select: an int, a fraction in (0, 1], or 'auto' "
        "where the method decides (classifiability); default: the method's own "
        "(half of the features; classifiability: auto)",
    )
    p.add_argument(
        "--categorical",
        help="comma-separated columns to take as categorical too (text, category and "
        "boolean columns are without it)",
    )
    p.add_argument(
        "--numeric",
        help="comma-separated columns to take as numbers although they would be "
        "categorical (booleans as 0/1, text holding numbers)",
    )
    p.add_argument("--output", "-o", help="write the result to FILE.json or FILE.csv")
    p.add_argument(
        "--n-jobs", "-j", type=int, default=None, help="parallel workers (joblib's rule)"
    )
    p.add_argument(
        "--random-state", type=int, default=None, help="seed for randomised methods and NPFS"
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks"
    )
    g = p.add_argument_group("method parameters (passed when the method has them)")
    g.add_argument(
        "--bins",
        type=_bins,
        help="bins per float column, an int or 'auto' (information criteria)",
    )
    g.add_argument(
        "--discretize", choices=["uniform", "quantile", "none"], help="binning of float columns"
    )
    g.add_argument(
        "--mi-estimator",
        choices=["plugin", "miller_madow", "knn"],
        help="how mutual information is estimated (information criteria; knn: nearest "
        "neighbours, no binning)",
    )
    g.add_argument(
        "--device",
        choices=["cpu", "cuda", "auto"],
        help="where the kernels run (information criteria, Relief, ReliefF, SURF, MultiSURF)",
    )
    g.add_argument("--beta", type=float)
    g.add_argument("--gamma", type=float)
    g.add_argument("--metric", choices=["manhattan", "euclidean"])
    g.add_argument(
        "--scaling",
        choices=["range", "robust", "rank"],
        help="Relief family: how a numeric difference is scaled",
    )
    g.add_argument("--n-neighbors", type=int)
    g.add_argument(
        "--sample-size",
        type=_literal,
        metavar="M",
        help="Relief family: reference samples (an int count or a float fraction); "
        "needed for relieff with --scheduler",
    )
    g.add_argument("--sigma", type=_literal)
    g.add_argument("--theta", type=float)
    g.add_argument("--max-iter", type=int)
    g.add_argument("--epsilon", type=float)
    g.add_argument("--radius-factor", type=float)
    g.add_argument("--n-slices", type=int)
    g.add_argument("--n-bins-x", type=int)
    g.add_argument("--n-bins-y", type=int)
    g.add_argument(
        "--missing",
        metavar="RULE",
        help="missing-value rule of the method (docs/user_guide/missing_sparse.rst; default: the "
        "method's "
        "own rule, e.g. 'level' for the information criteria, 'expected' for Relief, "
        "'partial' for classifiability, 'available' for the ranking indices; 'error' "
        "refuses missing values)",
    )
    g.add_argument(
        "--bootstrap",
        type=int,
        metavar="B",
        help="ranking indices: average the index over B bootstrap resamples",
    )
    g.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other constructor parameter (repeatable)",
    )
    n = p.add_argument_group("NPFS: the Neyman-Pearson bootstrap test around the method")
    n.add_argument("--npfs", action="store_true", help="infer how many features are relevant")
    n.add_argument(
        "--n-resamples",
        type=int,
        default=None,
        help="resamples (NPFS: n, default 100; --stability: complementary pairs, default 50)",
    )
    n.add_argument(
        "--resampling",
        choices=["bootstrap", "subsample", "kfold"],
        default=None,
        help="how the rows are resampled (default: bootstrap)",
    )
    n.add_argument("--alpha", type=float, default=None, help="significance level (default 0.01)")
    n.add_argument(
        "--correction",
        choices=["none", "bonferroni", "bh"],
        default=None,
        help="multiple-testing correction (default none)",
    )
    n.add_argument(
        "--scheduler",
        help="run on Dask: a scheduler address (tcp://HOST:8786) or local:N for a local "
        "cluster of N worker processes; without --npfs the files (a glob such as "
        "'data/*.parquet' is fine) are read lazily on the workers (information criteria)",
    )
    n.add_argument("--plot", help="write the selection-matrix image (PNG) to this file")
    n.add_argument(
        "--null",
        choices=["binomial", "permutation"],
        default=None,
        help="NPFS's null law: the paper's binomial (default), or estimated from permuted targets",
    )
    n.add_argument(
        "--n-permutations", type=int, default=None, help="permuted targets (--null; default 20)"
    )
    f = p.add_argument_group("false discovery rate and stability around the method")
    f.add_argument(
        "--fdr",
        type=float,
        metavar="Q",
        help="the knockoff filter: keep features at false discovery rate Q (the method's "
        "pick order on [X, knockoffs] is the statistic; -k defaults to a quarter of them)",
    )
    f.add_argument(
        "--draws", type=int, default=None, help="knockoff draws (e-value aggregation; default 1)"
    )
    f.add_argument(
        "--stability", action="store_true", help="stability selection (complementary pairs)"
    )
    f.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="stability selection's frequency threshold (default 0.6)",
    )
    p.set_defaults(func=_cmd_select)

    try:
        from fsel.cli.reproduce import add_parser as add_reproduce
    except ImportError:  # pragma: no cover - experiments layer not installed
        add_reproduce = None
    if add_reproduce is not None:
        add_reproduce(sub)
    try:
        from fsel.cli.report import add_parser as add_report
    except ImportError:  # pragma: no cover - experiments layer not installed
        add_report = None
    if add_report is not None:
        add_report(sub)
    return parser


def _cmd_methods(args: argparse.Namespace) -> int:
    from fsel._registry import METHODS

    width = max(len(n) for n in METHODS)
    families: dict[str, list[Any]] = {}  # each family once, in the order first met
    for m in METHODS.values():
        families.setdefault(m.family, []).append(m)
    for family, methods in families.items():
        print(f"[{family}]")
        for m in methods:
            print(f"  {m.name:<{width}}  {m.summary}")
    return 0


def _cmd_datasets(args: argparse.Namespace) -> int:
    from fsel.datasets import data_dir, list_datasets

    found = list_datasets(args.path)
    if not found:
        print("no data folder found (pass --path or set FSEL_DATA)", file=sys.stderr)
        return 1
    print(f"# {data_dir(args.path)}")
    for name, (n, d) in found.items():
        print(f"{name:<60} {n:>7} x {d}")
    return 0


def _estimator_params(args: argparse.Namespace, est_cls: type, fixed: dict) -> dict[str, Any]:
    accepted = set(est_cls._param_names())
    params: dict[str, Any] = {}
    for flag, name in _FLAG_PARAMS.items():
        value = getattr(args, flag)
        if value is None:
            continue
        if name not in accepted:
            raise CliError(f"--{flag.replace('_', '-')} is not a parameter of {args.method}")
        params[name] = None if (flag == "discretize" and value == "none") else value
    for item in args.param:
        if "=" not in item:
            raise CliError(f"--param expects NAME=VALUE, got {item!r}")
        key, _, value = item.partition("=")
        if key not in accepted:
            raise CliError(f"{key!r} is not a parameter of {args.method}")
        params[key] = _literal(value)
    if args.n_jobs is not None:
        from fsel.utils.params import check_n_jobs

        try:
            check_n_jobs(args.n_jobs, "--n-jobs")
        except (TypeError, ValueError) as exc:
            raise CliError(str(exc)) from None
    wrapped = args.npfs or args.fdr is not None or args.stability
    if args.n_jobs is not None and "n_jobs" in accepted and not wrapped:
        params["n_jobs"] = args.n_jobs
    if args.random_state is not None and "random_state" in accepted:
        params["random_state"] = args.random_state
    if "verbose" in accepted and not args.quiet and not wrapped:
        params["verbose"] = 1
    return params


#: options of one wrapper only: flag -> (the wrappers it applies with, its default)
_WRAPPER_OPTIONS = {
    "alpha": (("npfs",), 0.01),
    "correction": (("npfs",), "none"),
    "null": (("npfs",), "binomial"),
    "n_permutations": (("npfs",), 20),
    "resampling": (("npfs",), "bootstrap"),
    "plot": (("npfs",), None),
    "n_resamples": (("npfs", "stability"), None),
    "draws": (("fdr",), 1),
    "threshold": (("stability",), 0.6),
}


def _wrapper_options(args: argparse.Namespace) -> None:
    """Refuse an option given without the wrapper it belongs to (it would be ignored),
    then fill in the defaults of those not given."""
    chosen = {"npfs": bool(args.npfs), "fdr": args.fdr is not None}
    chosen["stability"] = bool(args.stability)
    for name, (wrappers, default) in _WRAPPER_OPTIONS.items():
        value = getattr(args, name)
        if value is not None and not any(chosen[w] for w in wrappers):
            need = " or ".join(f"--{w}" for w in wrappers)
            raise CliError(f"--{name.replace('_', '-')} applies with {need} only")
        if value is None:
            setattr(args, name, default)
    if args.bootstrap is not None and args.bootstrap < 1:
        raise CliError(f"--bootstrap needs a number of resamples >= 1, got {args.bootstrap}")


def _check_output(args: argparse.Namespace) -> None:
    """Refuse an ``--output`` or ``--plot`` that cannot be written as asked before
    anything runs (one that would overwrite an input file included)."""
    inputs = [_resolve_data(args.data), args.target_file, args.feature_names]
    for flag, path in (("--output", args.output), ("--plot", args.plot)):
        for src in (s for s in inputs if s and path):
            if _same_file(path, src):
                raise CliError(f"{flag} {path}: is an input file; give another file name")
        if path and Path(path).is_dir():
            raise CliError(f"{flag} {path}: is a folder; give a file name such as result.json")
    if args.output and Path(args.output).suffix.lower() not in (".json", ".csv"):
        raise CliError(f"--output {args.output}: give a .json or a .csv file name")
    if args.plot:
        try:
            from matplotlib.backend_bases import FigureCanvasBase
        except ImportError:
            raise CliError("--plot needs matplotlib: pip install matplotlib") from None
        kinds = sorted(FigureCanvasBase.get_supported_filetypes())
        if Path(args.plot).suffix.lower().lstrip(".") not in kinds:
            raise CliError(
                f"--plot {args.plot}: give an image file name such as selection.png "
                f"(suffixes: {', '.join('.' + k for k in kinds)})"
            )


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name the same file (a link to it included)."""
    try:
        return Path(a).exists() and Path(b).exists() and os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def _cmd_select(args: argparse.Namespace) -> int:
    from fsel._registry import get_method

    _wrapper_options(args)
    _check_output(args)

    try:
        method = get_method(args.method)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    cats = [c for c in (args.categorical or "").split(",") if c]
    if args.scheduler and not (args.npfs or args.fdr is not None or args.stability):
        if args.target_file or args.feature_names:
            raise CliError(
                "--target-file and --feature-names are for in-memory files; with "
                "--scheduler the target is a column of the Dask-read table (--target)"
            )
        return _select_on_dask(args, method, cats)
    nums = [c for c in (args.numeric or "").split(",") if c]
    data = read_data(
        _resolve_data(args.data), args.target, cats, args.target_file, args.feature_names, nums
    )
    _check_k(args.n_features_to_select, data.X.shape[1])

    # a plain selection fits the method's logic class: same fit, no scikit-learn import
    # (most of a small job's start-up); NPFS and the bootstrap wrap a real estimator
    wrapped = args.npfs or args.fdr is not None or args.stability
    if sum([bool(args.npfs), args.fdr is not None, bool(args.stability)]) > 1:
        raise CliError("choose one of --npfs, --fdr and --stability")
    est_cls = method.load() if wrapped else method.load_logic()
    fixed = dict(method.fixed)
    if args.bootstrap is not None:
        if method.family != "ranking-index":
            raise CliError("--bootstrap applies to the ranking indices (in, k3, chi2, ...)")
        from fsel.meta.bootstrap_ranking import BootstrapRanking

        est_cls = BootstrapRanking
        fixed["n_resamples"] = args.bootstrap
    params = _estimator_params(args, est_cls, fixed)
    if "categorical" in est_cls._param_names() and data.categorical:
        params.setdefault("categorical", data.categorical)
    if args.n_features_to_select is not None:
        params["n_features_to_select"] = args.n_features_to_select
    elif args.fdr is not None:
        params["n_features_to_select"] = 0.25  # a quarter of the 2p columns [X, knockoffs]
    base = est_cls(**{**fixed, **params})

    if args.fdr is not None or args.stability:
        from fsel.cli._meta import run_knockoff, run_stability

        with _named_columns(data.feature_names, data.X):
            run = run_knockoff if args.fdr is not None else run_stability
            out, columns = run(args, base, data)
        _write(args.output, out, columns)
        return 0
    if args.npfs:
        with _named_columns(data.feature_names, data.X):
            return _run_npfs(args, base, data)
    with _named_columns(data.feature_names, data.X):
        base.fit(data.X, data.y)
    return _report_selection(args, method, base, data, {"n_samples": int(data.X.shape[0])})


def _report_selection(
    args: argparse.Namespace, method: Any, base: Any, data: Any, extra: dict[str, Any]
) -> int:
    """Print a fitted selector's picks and write them to ``--output``."""
    from fsel.api import result_from_estimator

    n_features = len(data.feature_names)
    res = result_from_estimator(method.name, base, data.feature_names)
    out = {
        "method": method.name,
        "data": args.data,
        "target": data.target,
        **extra,
        "n_features": int(n_features),
        "params": {k_: v for k_, v in base._constructor_params().items() if _jsonable(v)},
        **res.to_dict(),
    }
    types = list(getattr(base, "feature_types_", []) or [])
    if len(types) == n_features:
        out["feature_types"] = dict(zip(data.feature_names, types, strict=True))
    where = " (Dask)" if "scheduler" in extra else ""
    print(f"{method.name}: {len(res.features)} of {n_features} features from {args.data}{where}")
    for kind, note in (("categorical", ""), ("datetime", " (seconds since 1970-01-01)")):
        cols = [n for n, t in zip(data.feature_names, types, strict=False) if t == kind]
        if cols:
            print(f"taken as {kind}{note}: {', '.join(cols)}")
    print(f"{'rank':>4}  {'index':>5}  {'score':>10}  name")
    for row in out["features"]:
        print(f"{row['rank']:>4}  {row['index']:>5}  {row['score']:>10.4f}  {row['name']}")
    _write(args.output, out, ["rank", "index", "name", "score"])
    return 0


def _run_npfs(args: argparse.Namespace, base: Any, data: Any) -> int:
    from contextlib import nullcontext

    from fsel.meta.npfs import NPFS

    correction = None if args.correction == "none" else args.correction
    n_resamples = 100 if args.n_resamples is None else args.n_resamples
    npfs = NPFS(
        base,
        n_resamples=n_resamples,
        resampling=args.resampling,
        alpha=args.alpha,
        correction=correction,
        n_jobs=args.n_jobs,
        random_state=args.random_state,
        verbose=0 if args.quiet else 1,
        null=args.null,
        n_permutations=args.n_permutations,
    )
    ctx = _dask_context(args.scheduler) if args.scheduler else nullcontext()
    with ctx:
        npfs.fit(data.X, data.y)
    rows = [
        {
            "rank": r + 1,
            "index": int(i),
            "name": data.feature_names[i],
            "count": int(npfs.counts_[i]),
            "pvalue": float(npfs.pvalues_[i]),
        }
        for r, i in enumerate(npfs.relevant_features_)
    ]
    out = {
        "method": f"npfs({args.method})",
        "data": args.data,
        "target": data.target,
        "n_samples": int(data.X.shape[0]),
        "n_features": int(data.X.shape[1]),
        "n_resamples": n_resamples,
        "resampling": args.resampling,
        "alpha": args.alpha,
        "correction": correction or "none",
        "null": args.null,
        "alpha_effective": float(npfs.alpha_effective_),
        "threshold": int(npfs.threshold_),
        "n_relevant": int(npfs.n_relevant_),
        "features": rows,
    }
    print(
        f"NPFS({args.method}): {npfs.n_relevant_} relevant of {data.X.shape[1]} features "
        f"(count > {npfs.threshold_} of {n_resamples} {args.resampling} resamples, "
        f"alpha={args.alpha}, "
        f"correction={correction or 'none'})"
    )
    print(f"{'rank':>4}  {'index':>5}  {'count':>5}  {'p-value':>9}  name")
    for row in rows:
        print(
            f"{row['rank']:>4}  {row['index']:>5}  {row['count']:>5}  {row['pvalue']:>9.2e}  "
            f"{row['name']}"
        )
    _write(args.output, out, ["rank", "index", "name", "count", "pvalue"])
    if args.plot:
        from fsel.meta.plots import plot_selection_matrix

        plot_selection_matrix(npfs, args.plot)
        print(f"wrote {args.plot}")
    return 0


def _select_on_dask(args: argparse.Namespace, method: Any, cats: list[str]) -> int:
    """``fsel select FILES --scheduler ...``: the files are read lazily on the workers and
    the information criterion runs there; the client never loads the table."""
    from fsel.cli.io import read_data_dask

    if method.name == "relieff":
        if args.sample_size is None:
            raise CliError(
                "--scheduler with relieff needs --sample-size M: ReliefF on Dask averages "
                "the margins of M reference samples (an int count or a float fraction)"
            )
    elif method.family != "information":
        raise CliError(
            f"--scheduler without --npfs runs the information criteria (jmi, mrmr, ...) and "
            f"relieff (with --sample-size) on Dask; {method.name} does not run on Dask yet"
        )
    est_cls = method.load_logic()
    fixed = dict(method.fixed)
    params = _estimator_params(args, est_cls, fixed)
    params.pop("n_jobs", None)
    with _dask_context(args.scheduler):
        data = read_data_dask(args.data, args.target, cats)
        _check_k(args.n_features_to_select, len(data.feature_names))
        if args.n_features_to_select is not None:
            params["n_features_to_select"] = args.n_features_to_select
        base = est_cls(**{**fixed, **params})
        with _named_columns(data.feature_names, data.X):
            base.fit(data.X, data.y)
    return _report_selection(args, method, base, data, {"scheduler": args.scheduler})


def _check_k(k: Any, n_features: int) -> None:
    """Refuse a ``-k`` the table cannot give, with the table's size in the message."""
    from fsel.utils.params import check_n_features_to_select_param

    try:
        check_n_features_to_select_param(k, allow_auto=True)
    except (TypeError, ValueError) as exc:
        raise CliError(f"-k: {exc}") from None
    if isinstance(k, int) and k > n_features:
        raise CliError(f"-k {k} is out of range: the table has {n_features} features")


def _jsonable(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool, list, tuple))


def _strict_json(v: Any) -> Any:
    """``v`` with every float that is not finite replaced by None (JSON's null).

    Examples
    --------
    >>> _strict_json({"a": [1.0, float("nan")], "b": float("inf")})
    {'a': [1.0, None], 'b': None}
    """
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: _strict_json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_strict_json(x) for x in v]
    return v


def _write(path: str | None, out: dict, columns: list[str]) -> None:
    if not path:
        return
    p = Path(path)
    if p.is_dir():
        raise CliError(f"--output {path}: is a folder; give a file name such as result.json")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.suffix.lower() == ".csv":
            import csv

            with p.open("w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=columns)
                w.writeheader()
                for row in out["features"]:
                    w.writerow({c: row[c] for c in columns})
        else:  # NaN and infinities as null: strict JSON (Python's and JavaScript's)
            p.write_text(json.dumps(_strict_json(out), indent=2, allow_nan=False) + "\n")
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != path else ""
        raise CliError(f"--output {path}: cannot write the file: {reason}{where}") from None
    print(f"wrote {p}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``fsel`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    debug = bool(getattr(args, "debug", False)) or os.environ.get("FSEL_DEBUG", "") not in (
        "",
        "0",
    )
    try:
        return _run_quietly(args)
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:  # pragma: no cover
        print("fsel: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        # every failure is one line and a non-zero exit; --debug shows the traceback
        if debug:
            raise
        print(f"fsel: error: {_one_line(exc)}", file=sys.stderr)
        return 2 if isinstance(exc, (CliError, ValueError, TypeError, OSError)) else 1


def _run_quietly(args: argparse.Namespace) -> int:
    """Run the subcommand with each warning printed once per message, on one line
    (not with the library's file and source line); the caller's warning settings are
    restored after."""
    import warnings

    saved = warnings.formatwarning
    with warnings.catch_warnings():
        warnings.simplefilter("once", UserWarning)  # fsel's; others keep their filters
        warnings.formatwarning = _warning_line
        try:
            return int(args.func(args) or 0)
        finally:
            warnings.formatwarning = saved


def _warning_line(message: Any, category: Any, *_: Any, **__: Any) -> str:
    """How the CLI prints a warning: ``fsel: warning: <message>`` on one line."""
    return f"fsel: warning: {' '.join(str(message).split())}\n"


def _one_line(exc: BaseException) -> str:
    """The message of an exception on one line (its type added when unexpected)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, (CliError, ValueError, TypeError)):
        return text
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return f"{type(exc).__name__}: {text} (run with --debug for the traceback)"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
