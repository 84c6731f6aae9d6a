"""Evaluation protocols and paper reproductions (``fsel reproduce NAME``).

* :mod:`fsel.experiments.protocols` -- the papers' evaluation protocols, reusable with
  any selector: bootstrap out-of-bag 3-NN error, stability (Kuncheva, information
  consistency), similarity of selectors and a classical-MDS map, feature-selection ROC
  against probes, balanced error rate, k-fold naive Bayes / CART error;
  :mod:`fsel.experiments.rank_comparison` -- Pareto ranks, the Friedman test with the
  Nemenyi post-hoc and its diagrams.
* :mod:`fsel.experiments.registry` -- discovers every ``repro_*.py`` module's
  ``REPRODUCTIONS`` and runs them; :mod:`fsel.experiments.report` holds the
  :class:`~fsel.experiments.report.Reproduction` result type.
* :mod:`fsel.experiments.cache` -- the on-disk cache that makes interrupted runs resume.
* :mod:`fsel.experiments.common` -- what every reproduction shares: Markdown tables,
  its command line, its number of workers (``fsel reproduce --n-jobs``).
* :mod:`fsel.experiments.html` -- the self-contained HTML page of reproductions (the
  page toolkit itself is :mod:`fsel.utils.html`, shared with the feature report of
  :mod:`fsel.reporting`; figures are drawn with :mod:`fsel.utils.figures`);
  :mod:`fsel.experiments.make_docs` -- generates ``docs/reproductions.md``.
* ``repro_brown`` (Brown et al. 2012), ``repro_ditzler``, ``repro_yang_hu``,
  ``repro_yuan``, ``repro_dong_kothari`` -- the reproductions of each paper (a paper's
  shared protocol in ``<paper>_protocol.py``, e.g. ``yuan_protocol``; Brown et al.'s
  NIPS/ARCENE target in ``brown_nips``).
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "Reproduction": "fsel.experiments.report",
    "discover": "fsel.experiments.registry",
    "run_reproduction": "fsel.experiments.registry",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'fsel.experiments' has no attribute {name!r}")
