"""Rank features by one nonparametric ranking index (Yuan; docs/user_guide/ranking.rst).

The indices themselves live in :mod:`fsel.kernels.ranking_indices`; the estimator
:class:`RankingIndex` in :mod:`fsel.selectors.ranking._estimators` (imported when first
used), its logic without scikit-learn in :mod:`fsel.selectors.ranking._fit`. The
bootstrapped version is :class:`fsel.meta.bootstrap_ranking.BootstrapRanking`.
"""

from __future__ import annotations

from fsel.selectors.ranking._fit import order_by_score
from fsel.utils.lazy import lazy_attributes

__all__ = ["RankingIndex", "order_by_score"]


__getattr__, __dir__ = lazy_attributes(
    __name__, {"RankingIndex": f"{__name__}._estimators"}, public=__all__
)
