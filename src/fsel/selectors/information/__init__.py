"""Information-theoretic criteria unified by conditional likelihood (Brown et al. 2012).

The estimators live in :mod:`fsel.selectors.information._estimators` (imported when one
is first used, so that :mod:`fsel.selectors.information._fit`, their logic without
scikit-learn, can be imported alone).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "CIFE",
    "CMI",
    "CMIM",
    "DISR",
    "ICAP",
    "JMI",
    "JMIM",
    "MIFS",
    "MIM",
    "MRMR",
    "BetaGamma",
    "CondRed",
    "InformationSelector",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        value = getattr(importlib.import_module(f"{__name__}._estimators"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
