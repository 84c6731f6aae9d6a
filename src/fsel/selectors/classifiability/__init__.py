"""Classifiability-based forward subset selection (Dong & Kothari 2003, SPEC section 4).

:func:`classifiability` measures how easily labelled data can be classified;
:class:`Classifiability` adds, one at a time, the feature that increases it most. The
estimator lives in :mod:`fsel.selectors.classifiability._estimators` (imported when first
used); the measure and the search's logic, without scikit-learn, in
:mod:`fsel.selectors.classifiability._fit`.
"""

from __future__ import annotations

import importlib
from typing import Any

from fsel.selectors.classifiability._fit import MISSING_RULES, classifiability

__all__ = ["MISSING_RULES", "Classifiability", "classifiability"]


def __getattr__(name: str) -> Any:
    if name == "Classifiability":
        value = importlib.import_module(f"{__name__}._estimators").Classifiability
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
