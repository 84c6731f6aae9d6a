"""``fsel reproduce``: re-run the papers' experiments and compare with the papers.

::

    fsel reproduce --list
    fsel reproduce brown-fig3 [--quick] [--random-state 0] [--output DIR] [--data PATH] [--html]
                   [--n-jobs N]
    fsel reproduce --all --quick --output fsel-output

Each reproduction writes into its own folder ``DIR/NAME`` (``DIR`` is ``--output``,
default ``fsel-output``): its CSV tables and PNG figures, ``summary.md`` and
``reproduction.json``; ``--html`` adds a self-contained ``report.html``. Targets run
one at a time into the same ``--output`` therefore never overwrite each other's
files. Finished units of work are cached under ``DIR/.cache``, shared by the targets
(``--cache-dir`` for another folder, ``--no-cache`` to disable), so an interrupted run
resumes where it stopped.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``reproduce`` subcommand on an argparse subparsers object."""
    p = subparsers.add_parser(
        "reproduce",
        help="re-run a paper's experiment (table or figure) and compare with the paper",
        description="Re-run the papers' experiments on fsel. 'fsel reproduce --list' "
        "shows the names. Every target writes into its own folder DIR/NAME (--output "
        "DIR, default fsel-output): its CSV tables, PNG figures, summary.md, "
        "reproduction.json and, with --html, report.html; so targets run one at a time "
        "into the same --output keep their own files. Finished units of work are cached "
        "in DIR/.cache (shared by the targets), so an interrupted run resumes where it "
        "stopped.",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="reproduction name(s)")
    p.add_argument("--list", action="store_true", help="list the available reproductions")
    p.add_argument("--all", action="store_true", help="run every reproduction")
    p.add_argument(
        "--quick",
        action="store_true",
        help="reduced run (well under a minute) for CI and smoke tests",
    )
    p.add_argument(
        "--random-state", dest="seed", type=int, default=0, help="random seed (default 0)"
    )
    p.add_argument(
        "--output",
        "-o",
        default=None,
        metavar="DIR",
        help="output root DIR (default fsel-output); each target writes into DIR/NAME",
    )
    p.add_argument("--data", default=None, help="folder holding the shared .npz data sets")
    p.add_argument(
        "--html",
        action="store_true",
        help="also write a self-contained DIR/NAME/report.html (figures embedded)",
    )
    p.add_argument("--cache-dir", default=None, help="result cache folder (default DIR/.cache)")
    p.add_argument("--no-cache", action="store_true", help="recompute everything and cache nothing")
    p.add_argument(
        "--n-jobs",
        "-j",
        dest="n_jobs",
        type=int,
        default=None,
        help="parallel workers for every reproduction's long loops, joblib's rule "
        "(-1: all cores); results do not depend on it",
    )
    p.set_defaults(func=run)
    return p


def _print_list(reg: Any, out: Any) -> None:
    names = reg.names()
    width = max((len(n) for n in names), default=0)
    for n in names:
        print(f"{n:<{width}}  {reg.describe(n)}", file=out)
    for mod, err in reg.errors.items():
        print(f"(warning: {mod} could not be loaded: {err})", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Run the ``reproduce`` subcommand; returns the exit status."""
    from fsel.experiments.registry import discover, run_reproduction

    out = sys.stdout
    reg = discover()
    if getattr(args, "list", False):
        _print_list(reg, out)
        return 0
    names = list(getattr(args, "names", []) or [])
    if getattr(args, "all", False):
        names = reg.names()
    if not names:
        print(
            "fsel reproduce: give a NAME, --all or --list; available: " + ", ".join(reg.names()),
            file=sys.stderr,
        )
        return 2
    unknown = [n for n in names if n not in reg.functions]
    if unknown:
        print(
            f"fsel reproduce: unknown reproduction(s) {', '.join(unknown)}; available: "
            + ", ".join(reg.names()),
            file=sys.stderr,
        )
        return 2
    root = Path(getattr(args, "output", None) or "fsel-output")
    if getattr(args, "no_cache", False):
        cache_dir: Any = None
    elif getattr(args, "cache_dir", None):
        cache_dir = Path(args.cache_dir)
    else:
        cache_dir = root / ".cache"
    status = 0
    for name in names:
        folder = root / name
        try:
            rep = run_reproduction(
                name,
                folder,
                quick=bool(getattr(args, "quick", False)),
                seed=int(getattr(args, "seed", 0)),
                data_path=getattr(args, "data", None),
                html=bool(getattr(args, "html", False)),
                cache_dir=cache_dir,
                registry=reg,
                n_jobs=getattr(args, "n_jobs", None),
            )
        except FileNotFoundError as exc:
            print(f"fsel reproduce {name}: missing data: {exc}", file=sys.stderr)
            status = 2
            continue
        secs = rep.__dict__.get("seconds", float("nan"))
        stats = rep.__dict__.get("cache") or {}
        timing = f"{secs:.1f} s"
        if stats.get("cached_units"):
            timing += (
                f"; {stats['cached_units']} of {stats['cached_units'] + stats['computed_units']}"
                f" units from the cache, cold run about {rep.__dict__['cold_seconds']:.0f} s"
            )
        print(
            f"== {rep.title} [{name}, seed {rep.seed}{', quick' if rep.quick else ''}, {timing}]",
            file=out,
        )
        print(f"paper:     {rep.paper}", file=out)
        print(f"ours:\n{rep.ours}", file=out)
        print(f"agreement: {rep.agreement}", file=out)
        files = [
            *rep.tables.values(),
            *rep.figures,
            folder / "summary.md",
            folder / "reproduction.json",
        ]
        if getattr(args, "html", False):
            files.append(folder / "report.html")
        print("wrote:     " + ", ".join(str(f) for f in files), file=out)
        print(file=out)
    return status
