"""scikit-learn's estimator checks over every selector and meta-estimator of fsel.

The instances are collected, not listed by hand: every method of the registry
(``fsel._registry.METHODS``, with the parameters its short name implies), every
estimator class that ``fsel`` exports (``fsel.__all__``), and a few extra settings
that take another code path. A new estimator is checked as soon as it is exported;
one whose constructor needs arguments (a meta-estimator around a selector) gets them
in ``CONSTRUCT``; ``QUIET`` names the warnings that are its documented behaviour on
the checks' tiny random data.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.utils.estimator_checks import parametrize_with_checks

import fsel
from fsel._registry import METHODS


#: class name -> how to build an instance for the checks, when the default
#: constructor does not fit them (meta-estimators need a selector; resampling
#: estimators are kept small so that the checks stay fast).
class _NoiseKnockoffs:
    """Knockoffs independent of everything (valid only for independent features): the
    checks' blob data has nearly collinear columns, whose Gaussian knockoffs are
    almost copies, so that nothing could be selected and the checks' transform would
    warn. A named object, not a function, so that the test ids are the same in every
    pytest-xdist worker (a function's repr holds its address)."""

    def __call__(self, X, rng):
        return rng.normal(size=X.shape) * X.std(axis=0) + X.mean(axis=0)

    def __repr__(self) -> str:
        return "noise_knockoffs"

    def __deepcopy__(self, memo: dict) -> _NoiseKnockoffs:
        return self  # like a function: clone keeps the same object


noise_knockoffs = _NoiseKnockoffs()


CONSTRUCT: dict[str, Callable[[], Any]] = {
    "NPFS": lambda: fsel.NPFS(SelectKBest(f_classif, k=1), n_resamples=20, random_state=0),
    "BootstrapRanking": lambda: fsel.BootstrapRanking(index="mi", n_resamples=5, random_state=0),
    "KnockoffFilter": lambda: fsel.KnockoffFilter(
        fdr=0.5, offset=0, knockoffs=noise_knockoffs, random_state=0
    ),
    "StabilitySelection": lambda: fsel.StabilitySelection(
        SelectKBest(f_classif, k=1), threshold=0.2, n_resamples=5, random_state=0
    ),
}

#: more settings of registered estimators, each another code path
EXTRA: list[Callable[[], Any]] = [
    lambda: fsel.ReliefF(n_neighbors=3),
    lambda: fsel.IRelief(max_iter=200, theta=1e-2),
    lambda: fsel.Classifiability(radius_factor=1.0, n_jobs=2),
    lambda: fsel.RankingIndex(index="In3", n_features_to_select=1),
    lambda: fsel.KnockoffFilter(
        fsel.MIM(n_features_to_select=0.5),
        fdr=0.5,
        offset=0,
        knockoffs=noise_knockoffs,
        random_state=0,
    ),
]

#: class name -> checks that fail by design, with the reason
EXPECTED_FAILED: dict[str, dict[str, str]] = {
    "KnockoffFilter": {
        "check_fit_idempotent": "on its pure-noise data the knockoff filter rightly "
        "selects no feature, and scikit-learn's transform then warns"
    },
}


def _npfs_warnings() -> list[tuple[type[Warning], str]]:
    from fsel.meta.npfs import NPFSPowerWarning

    # on the checks' tiny random data it is correct for the test to find no relevant
    # feature: NPFS warns that n is too small, and transform that nothing was selected
    return [(NPFSPowerWarning, ""), (UserWarning, "No features were selected")]


#: class name -> the warnings that are its documented behaviour in the checks
QUIET: dict[str, Callable[[], list[tuple[type[Warning], str]]]] = {
    "NPFS": _npfs_warnings,
    # I-Relief on the checks' random data may stop at max_iter
    "IRelief": lambda: [(ConvergenceWarning, "")],
    # knockoff+ needs about 1/fdr relevant features: on random data it selects nothing
    "KnockoffFilter": lambda: [(UserWarning, "KnockoffFilter: no feature passed")],
}


def public_estimator_classes() -> dict[str, type]:
    """Every scikit-learn estimator class that ``fsel`` exports."""
    out = {}
    for name in fsel.__all__:
        obj = getattr(fsel, name)
        if isinstance(obj, type) and issubclass(obj, BaseEstimator):
            out[name] = obj
    return out


#: exported estimator classes that could not be built with their default constructor
#: (filled by :func:`estimators`; a test fails naming them)
UNBUILT: dict[str, str] = {}


def estimators() -> list[Any]:
    """One instance per registered method and per exported estimator class, plus
    ``EXTRA``."""
    out = [m.make() for m in METHODS.values()]
    covered = {type(e).__name__ for e in out}
    for name, cls in sorted(public_estimator_classes().items()):
        if name in covered:
            continue
        try:
            out.append(CONSTRUCT[name]() if name in CONSTRUCT else cls())
        except TypeError as exc:  # needs arguments: the test below says what to do
            UNBUILT[name] = str(exc)
    out += [make() for make in EXTRA]
    return out


def test_every_exported_estimator_and_registered_method_is_checked():
    checked = {type(e) for e in estimators()}
    assert not UNBUILT, f"add these to CONSTRUCT in tests/test_common.py: {UNBUILT}"
    assert set(public_estimator_classes().values()) <= checked
    assert {m.load() for m in METHODS.values()} <= checked
    # the registry's fixed parameters are applied (one instance per ranking index)
    assert len(estimators()) >= len(METHODS) + len(EXTRA)


@parametrize_with_checks(
    estimators(), expected_failed_checks=lambda est: EXPECTED_FAILED.get(type(est).__name__, {})
)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        # scikit-learn's generic data (40 rows, 60% zeros: two "auto" quantile bins,
        # one holding every row) rightly trigger the crowded-bin warning of the
        # information criteria; it is tested itself in test_robust_defaults.py
        warnings.filterwarnings("ignore", message=".*put more than 95% of their rows")
        # and few of their features get a positive Relief weight (the zero-weight fill
        # warning; tested in test_relief_ties.py)
        warnings.filterwarnings("ignore", message=".*features have a positive weight")
        # and hold constant columns (sparse, mostly zeros): the information criteria's
        # warning about them is tested in test_information_constant.py
        warnings.filterwarnings("ignore", message=".*take a single value on the training")
        invariance = getattr(check, "func", check).__name__.startswith("check_methods_")
        if type(estimator).__name__ == "KnockoffFilter" and invariance:  # MIM's quantile
            # bins on the generic data: the knockoffs may rightly select nothing there
            warnings.filterwarnings("ignore", message="No features were selected")
        for category, message in QUIET.get(type(estimator).__name__, list)():
            warnings.filterwarnings("ignore", message=message, category=category)
        check(estimator)


@pytest.mark.parametrize("name", sorted(CONSTRUCT))
def test_construct_names_are_exported(name):
    assert name in public_estimator_classes()
