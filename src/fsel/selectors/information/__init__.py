"""Information-theoretic criteria unified by conditional likelihood (Brown et al. 2012)."""

from fsel.selectors.information._estimators import (
    CIFE,
    CMI,
    CMIM,
    DISR,
    ICAP,
    JMI,
    JMIM,
    MIFS,
    MIM,
    MRMR,
    BetaGamma,
    CondRed,
    InformationSelector,
)

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
