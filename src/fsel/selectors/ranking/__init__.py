"""Rank features by one nonparametric ranking index (Yuan; SPEC section 5).

The indices themselves live in :mod:`fsel.kernels.ranking_indices`; the estimator
:class:`RankingIndex` in :mod:`fsel.selectors.ranking._estimators` (imported when first
used), its logic without scikit-learn in :mod:`fsel.selectors.ranking._fit`. The
bootstrapped version is :class:`fsel.meta.bootstrap_ranking.BootstrapRanking`.
"""

from __future__ import annotations

import importlib
from typing import Any

from fsel.selectors.ranking._fit import order_by_score

__all__ = ["RankingIndex", "order_by_score"]


def __getattr__(name: str) -> Any:
    if name == "RankingIndex":
        value = importlib.import_module(f"{__name__}._estimators").RankingIndex
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
