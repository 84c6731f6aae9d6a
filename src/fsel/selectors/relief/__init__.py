"""The Relief family as nonparametric Bayes-error minimisation (SPEC section 3).

Relief (Kira & Rendell 1992), ReliefF (Kononenko 1994), I-Relief (Sun 2007),
P-Relief and M-Relief (Yang & Hu 2012), SURF (Greene et al. 2009) and MultiSURF
(Urbanowicz et al. 2018). All return a non-negative, unit-norm weight per feature,
``w = (mbar)+ / ||(mbar)+||_2`` with ``mbar`` the mean margin over the samples, and
rank by it. See :mod:`fsel.selectors.relief._base` for the shared steps.
"""

from fsel.selectors.relief._base import BaseRelief
from fsel.selectors.relief._iterative import IRelief
from fsel.selectors.relief._nearest import SURF, MRelief, MultiSURF, Relief, ReliefF
from fsel.selectors.relief._parzen import PRelief

__all__ = ["SURF", "BaseRelief", "IRelief", "MRelief", "MultiSURF", "PRelief", "Relief", "ReliefF"]
