"""Information-theoretic criteria unified by conditional likelihood (Brown et al. 2012).

The estimators live in :mod:`fsel.selectors.information._estimators` (imported when one
is first used, so that :mod:`fsel.selectors.information._fit`, their logic without
scikit-learn, can be imported alone).
"""

from __future__ import annotations

from fsel.utils.lazy import lazy_attributes

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


__getattr__, __dir__ = lazy_attributes(__name__, dict.fromkeys(__all__, f"{__name__}._estimators"))
