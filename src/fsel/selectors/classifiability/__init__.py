"""Classifiability-based forward subset selection (Dong & Kothari 2003,
docs/user_guide/classifiability.rst).

:func:`classifiability` measures how easily labelled data can be classified;
:class:`Classifiability` adds, one at a time, the feature that increases it most. The
estimator lives in :mod:`fsel.selectors.classifiability._estimators` (imported when first
used); the measure and the search's logic, without scikit-learn, in
:mod:`fsel.selectors.classifiability._fit`.
"""

from __future__ import annotations

from fsel.selectors.classifiability._fit import MISSING_RULES, classifiability
from fsel.utils.lazy import lazy_attributes

__all__ = ["MISSING_RULES", "Classifiability", "classifiability"]


__getattr__, __dir__ = lazy_attributes(
    __name__, {"Classifiability": f"{__name__}._estimators"}, public=__all__
)
