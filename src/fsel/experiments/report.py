"""What a paper reproduction returns, and the common way to write its outputs.

Each reproduction is a function ``fn(output_dir, *, quick=False, seed=0, data_path=None,
n_jobs=None)`` returning a :class:`Reproduction`; modules named ``fsel/experiments/repro_*.py`` list
theirs in a module-level ``REPRODUCTIONS = {"name": fn, ...}`` dictionary, which
``fsel reproduce`` discovers.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
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


def write_csv(
    path: Path, rows: list[dict[str, Any]], fieldnames: Sequence[str] | None = None
) -> Path:
    """Write a list of flat dictionaries as CSV.

    The columns are ``fieldnames`` when given, else the keys of the first row. With no
    rows the file holds the header only (or nothing, when there is no ``fieldnames``).

    Examples
    --------
    >>> import tempfile
    >>> p = write_csv(Path(tempfile.mkdtemp()) / "t.csv", [], fieldnames=["a", "b"])
    >>> p.read_text().splitlines()
    ['a,b']
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        columns = list(fieldnames) if fieldnames is not None else list(rows[0]) if rows else []
        if not columns:
            return path
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path
