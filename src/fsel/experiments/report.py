"""What a paper reproduction returns, and the common way to write its outputs.

Each reproduction is a function ``fn(output_dir, *, quick=False, seed=0, data_path=None)``
returning a :class:`Reproduction`; modules named ``fsel/experiments/repro_*.py`` list
theirs in a module-level ``REPRODUCTIONS = {"name": fn, ...}`` dictionary, which
``fsel reproduce`` discovers.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Reproduction", "write_csv"]


@dataclass
class Reproduction:
    """The outcome of one reproduction.

    Attributes
    ----------
    name : str
        The ``fsel reproduce`` name, e.g. ``"ditzler-fig1"``.
    title : str
        What it reproduces, e.g. ``"Ditzler et al. 2015, Fig. 1"``.
    command : str
        The exact command that regenerates it (with seed and flags).
    seed : int
    paper : str
        The paper's numbers or claim, quoted.
    ours : str
        What this run produced (a short text or a Markdown table).
    agreement : str
        One honest sentence comparing the two.
    tables : dict of str to Path
        CSV files written.
    figures : list of Path
        PNG (or HTML) files written.
    quick : bool
        Whether this was the reduced ``--quick`` run.
    """

    name: str
    title: str
    command: str
    seed: int
    paper: str
    ours: str
    agreement: str
    tables: dict[str, Path] = field(default_factory=dict)
    figures: list[Path] = field(default_factory=list)
    quick: bool = False


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write a list of flat dictionaries as CSV (columns from the first row)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        if not rows:
            return path
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path
