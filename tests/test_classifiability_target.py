"""Classifiability rejects a continuous target instead of treating it as many classes."""

from __future__ import annotations

import numpy as np
import pytest

from fsel import Classifiability


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 4))
    X[:, 2] += np.repeat([0.0, 2.0], n // 2)
    return X, np.repeat([0, 1], n // 2)


def test_continuous_target_is_rejected_with_a_clear_message():
    X, _ = _data()
    y = X[:, 2] + 0.1 * np.random.default_rng(1).standard_normal(X.shape[0])
    with pytest.raises(ValueError, match="continuous target") as err:
        Classifiability().fit(X, y)
    assert "120 distinct values" in str(err.value)
    assert "class labels" in str(err.value)


@pytest.mark.parametrize(
    "transform",
    [
        lambda y: y,  # integer labels
        lambda y: y.astype(np.float64),  # whole numbers stored as floats
        lambda y: np.where(y == 1, "yes", "no"),  # strings
        lambda y: y * 2.0 - 1.0,  # -1.0 / 1.0
        lambda y: [str(v) for v in y],  # a list of strings
    ],
)
def test_class_labels_of_any_kind_are_accepted(transform):
    X, y = _data()
    sel = Classifiability().fit(X, transform(y))
    assert int(sel.selection_order_[0]) == 2
    assert sel.classes_.size == 2


def test_regression_target_of_many_float_values_is_not_silently_accepted():
    # 60 distinct float labels used to become 60 classes of two samples each
    X, _ = _data()
    y = np.repeat(np.linspace(0.05, 2.95, 60), 2)
    with pytest.raises(ValueError, match="continuous"):
        Classifiability().fit(X, y)


def test_non_integer_float_labels_follow_scikit_learn_rule():
    # type_of_target calls any float target with a non-whole value continuous, even with
    # two values; the message says how to pass such labels
    X, y = _data()
    with pytest.raises(ValueError, match="encode float class labels as integers or strings"):
        Classifiability().fit(X, np.where(y == 1, 0.5, 0.25))
    sel = Classifiability().fit(X, np.where(y == 1, "0.5", "0.25"))
    assert int(sel.selection_order_[0]) == 2
