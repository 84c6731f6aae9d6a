"""Two leftovers of the fuzzing of the public API: P-Relief on extreme values and
classifiability on constant columns."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel
from fsel.selectors.classifiability._fit import step_gain


# ----------------------------------------------------------------- P-Relief, 1e308
def _with_extremes(seed: int, values: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 3))
    for i, v in enumerate(values):
        X[i, i % 2] = v  # one extreme per column, so no column's range overflows
    return X, rng.integers(0, 2, 30)


@pytest.mark.parametrize("values", [(1e308,), (1e308, -1e308), (1e308, -1e308, 1e308)])
def test_prelief_on_extreme_values_gives_a_clear_error(values):
    X, y = _with_extremes(0, values)
    # the data-driven kernel width collapses with the other values of the column under
    # the papers' range scaling (the default robust scaling winsorises the extremes)
    with pytest.raises(
        ValueError, match=r"PRelief: feature \d spans .* kernel widths.*rescale or clip the column"
    ):
        fsel.PRelief(scaling="range").fit(X, y)


def test_prelief_on_extreme_values_works_with_a_given_sigma():
    X, y = _with_extremes(1, (1e308, -1e308))
    sel = fsel.PRelief(sigma=0.5).fit(X, y)
    assert np.all(np.isfinite(sel.feature_importances_))
    # the caller's array is untouched
    assert X[0, 0] == 1e308 and X[1, 1] == -1e308


def test_prelief_column_whose_range_overflows_is_refused_clearly():
    X, y = _with_extremes(2, ())
    X[0, 0], X[1, 0] = 1e308, -1e308
    with pytest.raises(ValueError, match="overflows float64"):
        fsel.PRelief().fit(X, y)


# ----------------------------------------------- classifiability, constant columns
@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(4, 40),
    d=st.integers(1, 4),
    n_classes=st.integers(2, 4),
    scale=st.sampled_from([1e-3, 1.0, 7.3, 1e4]),
    seed=st.integers(0, 2**16),
)
def test_classifiability_selects_nothing_when_every_column_is_constant(
    n, d, n_classes, scale, seed
):
    rng = np.random.default_rng(seed)
    y = np.r_[np.arange(n_classes), rng.integers(0, n_classes, n - n_classes)]
    X = np.tile(rng.normal(size=d) * scale, (n, 1))
    sel = fsel.Classifiability().fit(X, y)
    # every subset ties the empty set's score, and a tie is no improvement
    assert sel.selection_order_.size == 0
    assert not sel.get_support().any()
    prior = np.bincount(y) / n
    assert sel.classifiability_empty_ == pytest.approx(np.sum(prior**2))


def test_classifiability_still_adds_a_relevant_column_next_to_constant_ones():
    y = np.repeat([0, 1], 15)
    X = np.c_[np.full(30, 2.5), y + np.linspace(0, 0.1, 30), np.full(30, -1.0)]
    sel = fsel.Classifiability().fit(X, y)
    assert sel.selection_order_.tolist() == [1]


def test_step_gain_treats_rounding_as_a_tie_and_keeps_real_gains():
    assert step_gain(0.1 + 0.2, 0.3) == 0.0 and step_gain(0.3, 0.1 + 0.2) == 0.0
    assert step_gain(0.5, 0.25) == 0.25
    assert step_gain(0.5 + 1e-9, 0.5) > 0  # a tiny but real gain is a gain
