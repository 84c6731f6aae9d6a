"""Every selector fits through the one template, with the one vocabulary.

The template (:meth:`fsel.selectors._core.SelectorCore.fit`) validates the
parameters from the family's declarative table (:func:`fsel.utils.params.
validate_params`, which records each call in ``fit_trace`` while a test listens),
validates the input once into a ``Table`` and calls the family's ``_fit``.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import fsel
from fsel._registry import METHODS
from fsel.selectors._core import SelectorCore
from fsel.utils import params as P

#: the parameters every family shares; each must be checked by the table when present
SHARED = (
    "n_features_to_select",
    "n_jobs",
    "memory_budget",
    "random_state",
    "missing",
    "categorical",
    "mi_estimator",
)
OLD_NAMES = ("estimator", "k", "max_features", "n_replicates", "n_bootstraps", "scheme")


def _data(regression: bool = False):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 6))
    if regression:
        return X, X[:, 0] + 0.1 * rng.normal(size=80)
    return X, (X[:, 0] + 0.3 * rng.normal(size=80) > 0).astype(int)


def _classes():
    out = []
    for m in METHODS.values():
        out.append(pytest.param(m, False, id=f"{m.name}-estimator"))
        out.append(pytest.param(m, True, id=f"{m.name}-logic"))
    return out


@pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning")  # tiny table
@pytest.mark.filterwarnings("ignore:.*take a single value on the training rows:UserWarning")
@pytest.mark.parametrize(("method", "logic"), _classes())
def test_fit_goes_through_the_parameter_table(method, logic, monkeypatch):
    cls = method.load_logic() if logic else method.load()
    assert cls.fit.__qualname__.split(".")[0] in {c.__name__ for c in cls.__mro__}
    # the family implements the template's hook, not a fit of its own
    assert cls._fit is not SelectorCore._fit
    calls: list = []
    monkeypatch.setattr(P, "fit_trace", calls)
    X, y = _data(regression=method.target != "classification")
    cls(**dict(method.fixed)).fit(X, y)
    assert calls, f"{cls.__name__}.fit never validated its parameters"
    owner, checked = calls[0]
    assert owner == cls.__name__
    params = inspect.signature(cls.__init__).parameters
    for name in SHARED:
        if name in params:
            assert name in checked, f"{cls.__name__}: {name} is not in the parameter table"


@pytest.mark.parametrize("method", list(METHODS.values()), ids=list(METHODS))
def test_one_rule_per_kind_of_parameter(method):
    X, y = _data(regression=method.target != "classification")
    params = inspect.signature(method.load().__init__).parameters

    def fit(**kw):
        return method.make(**kw).fit(X, y)

    with pytest.raises(ValueError, match="n_features_to_select"):
        fit(n_features_to_select=0)
    if "n_jobs" in params:
        with pytest.raises(ValueError, match="n_jobs"):
            fit(n_jobs=0)
        with pytest.raises(TypeError, match="n_jobs"):
            fit(n_jobs=1.5)
    if "memory_budget" in params:
        with pytest.raises(TypeError, match="memory_budget"):
            fit(memory_budget=1e6)
        with pytest.raises(ValueError, match="memory_budget"):
            fit(memory_budget=0)
    if "random_state" in params:
        with pytest.raises(TypeError, match="random_state"):
            fit(random_state="seed")
    if "missing" in params:
        with pytest.raises(ValueError, match="missing"):
            fit(missing="drop")


@pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning")  # tiny table
@pytest.mark.parametrize("method", list(METHODS.values()), ids=list(METHODS))
def test_default_transform_keeps_fewer_columns(method):
    X, y = _data(regression=method.target != "classification")
    est = method.make().fit(X, y)
    assert 0 < est.transform(X).shape[1] < X.shape[1]


def test_no_old_parameter_names():
    classes = [m.load() for m in METHODS.values()] + [fsel.NPFS, fsel.BootstrapRanking]
    for cls in classes:
        names = set(inspect.signature(cls.__init__).parameters)
        assert not names & set(OLD_NAMES), (cls.__name__, names & set(OLD_NAMES))
    for fn in (fsel.select, fsel.report):
        assert not set(inspect.signature(fn).parameters) & set(OLD_NAMES)


def test_select_and_report_use_the_same_validators():
    X, y = _data()
    with pytest.raises(ValueError, match="n_features_to_select must be at least 1"):
        fsel.select(X, y, method="mim", n_features_to_select=0)
    with pytest.raises(ValueError, match="n_jobs"):
        fsel.report(X, y, methods="mim", n_jobs=0, quick=True, progress=False)
