"""fsel: feature selection you can trust.

Which features of a table matter for a target, how sure that answer is, and how stable
it is. Public names are imported lazily so that ``import fsel`` stays fast.

Layers (lower never imports upper)::

    kernels/      discretisation, entropy/mutual information, distances/neighbours,
                  ranking indices
    selectors/    information-theoretic criteria, Relief family, classifiability,
                  ranking-index selector
    meta/         resampling, NPFS, bootstrap ranking, stability
    datasets/     generators of the papers' synthetic data, loaders
    experiments/  evaluation protocols and paper reproductions
    reporting/    the feature report (fsel report / fsel.report)
    cli/          the ``fsel`` command
"""

from __future__ import annotations

import importlib
from typing import Any

from fsel._version import __version__

_LAZY = {
    # information-theoretic criteria (Brown et al. 2012)
    **{
        name: "fsel.selectors.information"
        for name in (
            "MIM",
            "MIFS",
            "MRMR",
            "JMI",
            "CMIM",
            "DISR",
            "ICAP",
            "CIFE",
            "CondRed",
            "CMI",
            "BetaGamma",
            "JMIM",
        )
    },
    # Relief family (Yang & Hu 2012)
    **{
        name: "fsel.selectors.relief"
        for name in ("Relief", "ReliefF", "IRelief", "PRelief", "MRelief", "SURF", "MultiSURF")
    },
    # classifiability (Dong & Kothari 2003)
    "Classifiability": "fsel.selectors.classifiability",
    "classifiability": "fsel.selectors.classifiability",
    # nonparametric ranking indices (Yuan)
    "RankingIndex": "fsel.selectors.ranking",
    "BootstrapRanking": "fsel.meta.bootstrap_ranking",
    # NPFS (Ditzler et al. 2015) and stability
    "NPFS": "fsel.meta.npfs",
    # false discovery rate and stability selection around any selector
    "KnockoffFilter": "fsel.meta.knockoffs",
    "StabilitySelection": "fsel.meta.stability_selection",
    # functional API
    "select": "fsel.api",
    "SelectionResult": "fsel.api",
    # the feature report (fsel report)
    "report": "fsel.reporting.analysis",
    "FeatureReport": "fsel.reporting.analysis",
}

_SUBMODULES = ("kernels", "selectors", "meta", "datasets", "experiments", "reporting", "utils")

__all__ = ["__version__", *sorted(_LAZY), *_SUBMODULES]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        value = getattr(module, name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"fsel.{name}")
    raise AttributeError(f"module 'fsel' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
