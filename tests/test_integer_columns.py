"""Integer columns are numbers: binned like float columns when they have more distinct
values than bins, each value its own code otherwise or when declared categorical."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import fsel
from fsel.cli.main import main
from fsel.kernels.discretize import fit_bin_edges

RELEVANT = {"education", "income"}


def census(n: int = 2000, seed: int = 0) -> pd.DataFrame:
    """A census-like table: the label depends on education (text) and the log of a
    log-normal income; age and zip are integer noise with dozens and thousands of
    distinct values, hours a float, signup a date, workclass text."""
    rng = np.random.default_rng(seed)
    names = np.array(["basic", "school", "college", "degree", "master"])
    edu = rng.integers(0, 5, n)
    log_income = rng.normal(10, 0.8, n)
    score = 0.6 * edu + 1.2 * (log_income - 10) + rng.normal(0, 0.6, n)
    signup = pd.Timestamp("2019-01-01") + pd.to_timedelta(rng.integers(0, 1500, n), unit="D")
    return pd.DataFrame(
        {
            "age": rng.integers(18, 81, n),
            "workclass": rng.choice(["private", "public", "self", "none"], n),
            "education": names[edu],
            "hours": rng.normal(40, 10, n).round(1),
            "income": np.exp(log_income).round(2),
            "signup": signup,
            "zip": rng.integers(10000, 100000, n),
            "label": (score > np.median(score)).astype(int),
        }
    )


def _picked(name: str, X: pd.DataFrame, y, **params) -> set[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the zip column looks like an identifier
        sel = getattr(fsel, name)(n_features_to_select=2, **params).fit(X, y)
    return set(X.columns[sel.get_support()])


@pytest.mark.parametrize("seed", [0, 1])
def test_census_defaults_find_the_relevant_columns(seed):
    df = census(seed=seed)
    X, y = df.drop(columns="label"), df["label"]
    for name in ("JMI", "MRMR", "CMIM", "ReliefF"):
        assert _picked(name, X, y) == RELEVANT, name
    # the former rule (age and zip as codes, one level per value) loses a relevant
    # column: the two noise columns' plug-in information is inflated by their levels
    codes = _picked("JMI", X, y, categorical=["age", "zip", "workclass", "education"])
    assert codes != RELEVANT


def test_census_csv_without_declarations(tmp_path, capsys):
    path = tmp_path / "adult.csv"
    census(seed=2).to_csv(path, index=False)  # the date is written as text
    out = tmp_path / "res.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main(["select", str(path), "--target", "label", "-k", "2", "-q", "-o", str(out)])
    assert rc == 0
    res = json.loads(out.read_text())
    assert {f["name"] for f in res["features"]} == RELEVANT
    assert res["feature_types"]["age"] == "integer"
    assert res["feature_types"]["signup"] == "datetime"
    assert res["feature_types"]["education"] == "categorical"


@settings(max_examples=25, deadline=None)
@given(
    X=arrays(np.int64, (60, 4), elements=st.integers(-50, 50)),
    seed=st.integers(0, 2**16),
    n_bins=st.sampled_from([2, 3, 5, "auto"]),
)
def test_integer_columns_bin_as_their_float_cast(X, seed, n_bins):
    """An integer column and the same values as floats are binned alike: same codes,
    scores and picks, whatever the number of distinct values."""
    y = np.random.default_rng(seed).integers(0, 2, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. crowded bins: the same for both
        a = fsel.JMI(3, n_bins=n_bins).fit(X, y)
        b = fsel.JMI(3, n_bins=n_bins).fit(X.astype(np.float64), y)
    assert a.selection_order_.tolist() == b.selection_order_.tolist()
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(a.n_levels_, b.n_levels_)


def test_few_values_stay_codes_and_declared_columns_keep_every_value():
    rng = np.random.default_rng(3)
    X = np.c_[rng.integers(0, 4, 300), rng.integers(0, 40, 300)]
    y = (X[:, 0] + rng.integers(0, 2, 300) > 2).astype(int)
    sel = fsel.MIM(2, n_bins=5).fit(X, y)
    assert sel.bin_edges_[0] is None  # 4 values <= 5 bins: each its own code
    assert sel.n_levels_[0] == 4
    assert sel.bin_edges_[1] is not None and sel.n_levels_[1] == 5  # 40 values: binned
    # declared categorical: every value its own level, as discretize=None gives
    declared = fsel.MIM(2, n_bins=5, categorical=[1]).fit(X, y)
    codes = fsel.MIM(2, discretize=None).fit(X, y)
    assert declared.n_levels_[1] == np.unique(X[:, 1]).size
    np.testing.assert_array_equal(declared.scores_, codes.scores_)


@settings(max_examples=40, deadline=None)
@given(
    col=arrays(np.int16, st.integers(1, 80), elements=st.integers(-300, 300)),
    n_bins=st.integers(2, 12),
)
def test_integer_distinct_shortcut_matches_unique(col, n_bins):
    """The narrow-range shortcut for integer columns decides 'more values than bins'
    as np.unique does: binned iff the column has more distinct values than bins."""
    edges = fit_bin_edges(col[:, None], np.array([False]), n_bins, "quantile")
    assert (edges[0] is not None) == (np.unique(col).size > n_bins)
