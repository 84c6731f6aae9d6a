"""Which fsel a benchmark measures, and the rule for committed results (one place).

Importing this module makes every benchmark measure **this checkout's** ``src/``: it is
put first on ``sys.path`` (in-process benchmarks) and on ``PYTHONPATH`` (every
subprocess a benchmark starts inherits ``os.environ``). Without it a benchmark run from a
second worktree would import whichever fsel the environment's editable install points at,
and its results would name the wrong commit.

Results written into ``benchmarks/results`` must come from committed code:
:func:`git_state` records the commit and whether ``src/`` had uncommitted changes, and
:func:`dirty_refusal` says why a run must not start.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SRC = ROOT / "src"
RESULTS = HERE / "results"

if str(SRC) not in sys.path[:1]:
    sys.path.insert(0, str(SRC))
_old = os.environ.get("PYTHONPATH", "")
if not _old.startswith(str(SRC)):
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), _old) if p)


def git_state(*extra_paths: str) -> dict[str, Any]:
    """The commit fsel is measured at, whether ``src/`` (and ``extra_paths``) had
    uncommitted changes, and the ``fsel`` package file a subprocess imports.

    Examples
    --------
    >>> sorted(git_state())
    ['fsel_file', 'head', 'src_dirty']
    """

    def git(*a: str) -> str:
        try:
            return subprocess.run(
                ["git", *a], cwd=ROOT, capture_output=True, text=True, timeout=20
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    try:
        fsel_file = subprocess.run(
            [sys.executable, "-c", "import fsel; print(fsel.__file__)"],
            capture_output=True,
            text=True,
            timeout=120,
            env=os.environ,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        fsel_file = ""
    return {
        "head": git("rev-parse", "HEAD"),
        "src_dirty": bool(git("status", "--porcelain", "--", "src", *extra_paths)),
        "fsel_file": fsel_file,
    }


def dirty_refusal(state: dict[str, Any], stem: Path, allow_dirty: bool) -> str | None:
    """Why a run must not start, or None: results written into ``benchmarks/results``
    must come from committed code (``src_dirty`` false) of this checkout;
    ``--allow-dirty`` permits a dirty tree only for an output elsewhere.

    Examples
    --------
    >>> dirty_refusal({"src_dirty": False}, RESULTS / "information", False) is None
    True
    >>> dirty_refusal({"src_dirty": True}, Path("/tmp/try"), True) is None
    True
    >>> dirty_refusal({"src_dirty": True}, RESULTS / "information", True)[:31]
    'src/ has uncommitted changes: r'
    >>> dirty_refusal({"src_dirty": False, "fsel_file": "/elsewhere/fsel/__init__.py"},
    ...               RESULTS / "information", False)[:40]
    'subprocesses import fsel from /elsewhere'
    """
    inside = RESULTS.resolve() in Path(stem).resolve().parents
    measured = state.get("fsel_file")
    if measured and inside and not Path(measured).resolve().is_relative_to(SRC.resolve()):
        return (
            f"subprocesses import fsel from {Path(measured).parent.parent}, not from this "
            f"checkout's {SRC}: results in benchmarks/results must measure this checkout"
        )
    if not state.get("src_dirty"):
        return None
    if allow_dirty and not inside:
        return None
    return (
        "src/ has uncommitted changes: results in benchmarks/results must come from "
        "committed code; commit first"
        + ("" if inside else ", or pass --allow-dirty for this output")
    )


def add_allow_dirty(parser: argparse.ArgumentParser) -> None:
    """The ``--allow-dirty`` option every benchmark that writes results shares."""
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="allow uncommitted src/ changes (output outside benchmarks/results only)",
    )


def checked_state(
    parser: argparse.ArgumentParser, stem: Path, allow_dirty: bool, *extra_paths: str
) -> dict[str, Any]:
    """:func:`git_state`, or the parser's one-line error when :func:`dirty_refusal`
    says the run must not write to ``stem``."""
    state = git_state(*extra_paths)
    refusal = dirty_refusal(state, Path(stem), allow_dirty)
    if refusal:
        parser.error(refusal)
    return state
