"""The Relief family as nonparametric Bayes-error minimisation (docs/user_guide/relief.rst).

Relief (Kira & Rendell 1992), ReliefF (Kononenko 1994), I-Relief (Sun 2007),
P-Relief and M-Relief (Yang & Hu 2012), SURF (Greene et al. 2009) and MultiSURF
(Urbanowicz et al. 2018). All return a non-negative, unit-norm weight per feature,
``w = (mbar)+ / ||(mbar)+||_2`` with ``mbar`` the mean margin over the samples, and
rank by it. See :mod:`fsel.selectors.relief._base` for the shared steps.

The estimators live in :mod:`fsel.selectors.relief._estimators` (imported when one is
first used); their logic, without scikit-learn, in ``_base``, ``_nearest``,
``_iterative`` and ``_parzen``.
"""

from __future__ import annotations

from fsel.utils.lazy import lazy_attributes

__all__ = ["SURF", "BaseRelief", "IRelief", "MRelief", "MultiSURF", "PRelief", "Relief", "ReliefF"]


__getattr__, __dir__ = lazy_attributes(__name__, dict.fromkeys(__all__, f"{__name__}._estimators"))
