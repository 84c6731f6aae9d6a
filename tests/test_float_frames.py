"""DataFrames whose columns all hold one float dtype: read as one matrix (pandas' own
block, no column-by-column copy), with the results of the same values as an ndarray
and the columns still named in every message."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel
from fsel.utils.column_types import float_frame_values
from fsel.utils.validation import check_table

# the frames hold a constant column (f2) on purpose: its warning is tested in
# test_information_constant.py; and the Relief selectors find few positive weights in
# these random frames (tested in test_relief_ties.py)
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*take a single value on the training rows:UserWarning"),
    pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning"),
]


def _frame(rng: np.random.Generator, n: int, dtype: type, holes: bool) -> pd.DataFrame:
    X = rng.standard_t(2, (n, 6)).astype(dtype)
    X[:, 1] = rng.integers(0, 3, n)  # three values
    X[:, 2] = 1.5  # constant
    if holes:
        X[rng.random(n) < 0.1, 4] = np.nan
    return pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])


SELECTORS = {
    "JMI": lambda: fsel.JMI(3, n_jobs=2),
    "CMIM": lambda: fsel.CMIM(3),
    "JMI-knn": lambda: fsel.JMI(2, mi_estimator="knn"),
    "ReliefF": lambda: fsel.ReliefF(3, n_neighbors=5),
    "MultiSURF": lambda: fsel.MultiSURF(3),
    "Classifiability": lambda: fsel.Classifiability(2),
}


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.sampled_from([30, 200]),
    dtype=st.sampled_from([np.float64, np.float32]),
    holes=st.booleans(),
    name=st.sampled_from(sorted(SELECTORS)),
)
def test_a_float_frame_fits_as_its_matrix(seed, n, dtype, holes, name):
    """The fit on the frame equals the fit on ``df.to_numpy()`` (picks, scores), the
    frame keeps its column names and values."""
    if holes and name in ("JMI-knn", "Classifiability"):
        holes = False  # (these take no missing values)
    rng = np.random.default_rng(seed)
    df = _frame(rng, n, dtype, holes)
    y = (np.nan_to_num(df["f0"].to_numpy()) + rng.standard_normal(n) > 0).astype(int)
    before = df.copy()
    a = SELECTORS[name]().fit(df, y)
    b = SELECTORS[name]().fit(df.to_numpy(), y)
    np.testing.assert_array_equal(a.get_support(), b.get_support())
    np.testing.assert_array_equal(a.scores_, b.scores_)
    assert list(a.feature_names_in_) == list(df.columns)
    assert a.get_feature_names_out().tolist() == df.columns[a.get_support()].tolist()
    pd.testing.assert_frame_equal(df, before)


def test_polars_float_frame_fits_as_its_matrix():
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(3)
    df = _frame(rng, 300, np.float64, holes=True)
    y = (np.nan_to_num(df["f0"].to_numpy()) > 0).astype(int)
    pf = pl.from_pandas(df)
    assert float_frame_values(pf, None) is not None
    assert float_frame_values(pf.with_columns(pl.lit(1).alias("i")), None) is None
    assert float_frame_values(pf.with_columns(pl.col("f0").cast(pl.Float32)), None) is None
    a = fsel.JMI(3).fit(pf, y)
    b = fsel.JMI(3).fit(df.to_numpy(), y)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    assert list(a.feature_names_in_) == list(df.columns)


def test_the_frame_block_is_read_in_place_by_the_binned_estimators_only():
    df = _frame(np.random.default_rng(0), 50, np.float32, holes=False)
    inplace = check_table(df, read_only=True, any_float_layout=True)
    assert inplace.values.dtype == np.float32 and not inplace.values.flags.writeable
    assert np.shares_memory(inplace.values, df.to_numpy())
    assert inplace.feature_names.tolist() == list(df.columns)
    assert inplace.feature_types == ["numeric"] * 6
    copied = check_table(df, read_only=True)  # float64 callers: a row-major copy
    assert copied.values.dtype == np.float64 and copied.values.flags.c_contiguous
    assert not np.shares_memory(copied.values, df.to_numpy())
    np.testing.assert_array_equal(copied.values, inplace.values)


def test_messages_name_the_frame_columns():
    df = _frame(np.random.default_rng(1), 40, np.float64, holes=False)
    df.loc[3, "f4"] = np.inf
    with pytest.raises(ValueError, match="X contains inf in column 'f4'"):
        fsel.JMI(2).fit(df, np.arange(40) % 2)
    df.loc[3, "f4"] = np.nan
    with pytest.raises(ValueError, match="missing values \\(NaN\\) in column 'f4'"):
        fsel.JMI(2, missing="error").fit(df, np.arange(40) % 2)
    df.loc[3, "f4"] = 1e308
    df.loc[4, "f4"] = -1e308
    with pytest.raises(ValueError, match="column 'f4' spans"):
        fsel.JMI(2).fit(df, np.arange(40) % 2)


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"a": [1.0, 2.0], "b": [1, 2]}),  # an integer column: codes
        pd.DataFrame({"a": [1.0, 2.0], "b": np.array([1.0, 2.0], dtype=np.float32)}),
        pd.DataFrame({"a": pd.array([1.0, None], dtype="Float64")}),  # nullable
        pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}),
    ],
)
def test_other_frames_are_read_column_by_column(frame):
    assert float_frame_values(frame, None) is None


def test_a_named_categorical_column_is_read_column_by_column():
    df = pd.DataFrame({"a": [1.0, 2.0, 1.0], "b": [0.5, 0.25, 0.5]})
    assert float_frame_values(df, ["b"]) is None
    table = check_table(df, categorical=["b"])
    assert table.categorical.tolist() == [False, True]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("holes", [False, True])
@pytest.mark.parametrize("name", ["JMI", "CMIM", "MRMR", "CMI"])
def test_large_float_frames_take_the_compiled_paths_column_major(dtype, holes, name):
    """25,000 x 6 (above the small-table size): the compiled quantiles, binning and
    coding read pandas' column-major block as they read a row-major array."""
    rng = np.random.default_rng(9)
    df = _frame(rng, 25000, dtype, holes)
    y = (np.nan_to_num(df["f0"].to_numpy()) + rng.standard_normal(25000) > 0).astype(int)
    block = float_frame_values(df, None)
    assert block.flags.f_contiguous and np.shares_memory(block, df.to_numpy())
    a = getattr(fsel, name)(3, n_jobs=2).fit(df, y)
    b = getattr(fsel, name)(3, n_jobs=2).fit(np.ascontiguousarray(df.to_numpy()), y)
    assert [None if e is None else e.tolist() for e in a.bin_edges_] == [
        None if e is None else e.tolist() for e in b.bin_edges_
    ]
    np.testing.assert_array_equal(a.scores_, b.scores_)


def _mixed_frame(rng: np.random.Generator, n: int, holes: bool) -> pd.DataFrame:
    df = _frame(rng, n, np.float64, holes)
    df["count"] = rng.integers(-2, 40, n)  # integers: codes
    df["flag"] = rng.random(n) < 0.3  # booleans: categorical
    df["kind"] = pd.Categorical(rng.choice(["a", "b", "c"], n))
    df["small"] = rng.integers(0, 4, n).astype(np.int8)
    return df


@pytest.mark.parametrize("holes", [False, True])
def test_a_mixed_frame_is_assembled_column_major_with_the_same_table(holes):
    """A frame of mixed types is still read column by column; for the binned
    estimators (``any_float_layout``) into a column-major table: the same values,
    flags and types as the row-major table the other methods get."""
    df = _mixed_frame(np.random.default_rng(4), 500, holes)
    a = check_table(df, read_only=True, any_float_layout=True, allow_missing=True)
    b = check_table(df, allow_missing=True)
    assert a.values.flags.f_contiguous and b.values.flags.c_contiguous
    np.testing.assert_array_equal(a.values, b.values)
    for field in ("discrete", "missing", "categorical"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert a.feature_types == b.feature_types
    assert a.feature_types[-4:] == ["integer", "categorical", "categorical", "integer"]


@pytest.mark.parametrize("holes", [False, True])
@pytest.mark.parametrize("name", ["JMI", "CMIM"])
def test_a_large_mixed_frame_fits_as_from_a_row_major_table(holes, name):
    """25,000 rows (the compiled paths): the fit on the column-major table equals the
    fit on the row-major one (bins, codes of the integer columns, picks, scores)."""
    from fsel.selectors.information import _fit

    rng = np.random.default_rng(6)
    df = _mixed_frame(rng, 25000, holes)
    y = (df["count"].to_numpy() + 20 * rng.standard_normal(25000) > 20).astype(int)
    a = getattr(fsel, name)(4, n_jobs=2).fit(df, y)
    real = _fit.InformationSelector._table_options
    used = []

    def row_major(self, params):
        used.append(True)
        return {**real(self, params), "any_float_layout": False}

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_fit.InformationSelector, "_table_options", row_major)
        b = getattr(fsel, name)(4, n_jobs=2).fit(df, y)
    assert used
    assert [None if e is None else e.tolist() for e in a.bin_edges_] == [
        None if e is None else e.tolist() for e in b.bin_edges_
    ]
    np.testing.assert_array_equal(a.n_levels_, b.n_levels_)
    np.testing.assert_array_equal(a.scores_, b.scores_)


@pytest.mark.parametrize("lib", ["pandas", "polars"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    "options",
    [{}, {"allow_missing": True}, {"allow_missing": True, "read_only": True}],
)
def test_the_matrix_path_gives_the_column_by_column_table(lib, dtype, options):
    """Against the column-by-column reading (the path of every other frame): the same
    values, flags, types, names and errors (a hole refused by name)."""
    import fsel.utils.validation as v

    rng = np.random.default_rng(2)
    df = _frame(rng, 200, dtype, holes=True)
    df["f5"] = rng.integers(0, 2, 200).astype(dtype)  # integer-valued floats
    if lib == "polars":
        df = pytest.importorskip("polars").from_pandas(df)
    found = []
    for matrix in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            if not matrix:
                mp.setattr(v, "float_frame_values", lambda X, categorical: None)
            try:
                found.append(v.check_table(df, any_float_layout=True, **options))
            except ValueError as err:
                found.append(str(err))
    new, old = found
    if isinstance(old, str):
        assert new == old and "column 'f4'" in old
        return
    np.testing.assert_array_equal(new.values, old.values)
    for field in ("discrete", "categorical"):
        np.testing.assert_array_equal(getattr(new, field), getattr(old, field))
    assert (new.missing is None) == (old.missing is None)
    assert new.feature_types == old.feature_types
    assert new.feature_names.tolist() == old.feature_names.tolist()
