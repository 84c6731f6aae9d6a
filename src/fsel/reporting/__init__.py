"""The feature report (``fsel report DATA --target y`` / :func:`fsel.report`): which
features of a table matter for a target, how sure, how stable, and whether keeping
them pays off, on one self-contained page.

* :mod:`fsel.reporting.data` -- its input: the table as numbers, the target, the data
  summary;
* :mod:`fsel.reporting.analysis` -- computes it (:func:`report`, :class:`FeatureReport`);
* :mod:`fsel.reporting.page` -- draws its figures and writes its page with the shared
  toolkit :mod:`fsel.utils.html`.

The report uses the paper reproductions' building blocks (the evaluation protocols of
:mod:`fsel.experiments.protocols`, the resumable cache of
:mod:`fsel.experiments.cache`); the reproductions never import the report.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "DEFAULT_METHODS": "fsel.reporting.analysis",
    "FeatureReport": "fsel.reporting.analysis",
    "report": "fsel.reporting.analysis",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'fsel.reporting' has no attribute {name!r}")
