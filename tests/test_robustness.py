"""Regression tests for the odd-input classes of issue 17 (one test group per class).

* integer codes beyond 2**53 and int64/uint64 extremes (exact, or a clear refusal);
* finite values whose range max - min overflows float64 (a clear refusal);
* pandas datetime columns (a clear refusal unless declared categorical);
* duplicate DataFrame column names; a boolean column with ``pd.NA``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsel._registry import METHODS
from fsel.kernels.discretize import compact_codes

pd = pytest.importorskip("pandas")

ALL = sorted(METHODS)
I64 = np.iinfo(np.int64)


def _make(name: str, k: int = 2, **params):
    return METHODS[name].make(n_features_to_select=k, **params)


def _table(seed: int = 0, n: int = 60):
    """Three small-integer columns; column 0 is the label, column 1 half of it."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 3, (n, 3)).astype(np.int64)
    X[:, 0] = 2 * y + rng.integers(0, 2, n)
    X[:, 1] = np.where(rng.random(n) < 0.7, y, X[:, 1])
    return X, y


def _unique_codes(X: np.ndarray) -> np.ndarray:
    """Reference: each column replaced by its sorted-order codes (np.unique on ints)."""
    out = np.empty(X.shape, dtype=np.int64)
    for j in range(X.shape[1]):
        out[:, j] = np.unique(X[:, j], return_inverse=True)[1].ravel()
    return out


# --------------------------------------------------------------- big integer codes
@pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning")  # tiny tables
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("offset", [2**62, -(2**62), 2**53 + 1])
def test_big_integer_ids_give_the_result_of_the_shifted_table(name, offset):
    """Ids around 2**62 differ by small amounts: float64 used to merge them (all scores 0).
    Every selector uses ranges or codes only, so the result equals that of the table
    shifted down to small integers."""
    X, y = _table()
    big = X + np.int64(offset)
    ref = _make(name).fit(X, y)
    got = _make(name).fit(big, y)
    assert got.selection_order_.tolist() == ref.selection_order_.tolist()
    np.testing.assert_allclose(got.scores_, ref.scores_, rtol=1e-9, atol=1e-12)
    assert got.selection_order_[0] == 0  # the label's column, not a tie of merged values


@pytest.mark.parametrize("name", ["relieff", "classifiability", "k1", "mim"])
def test_uint64_above_2_63_is_exact(name):
    X, y = _table(1)
    big = X.astype(np.uint64) + np.uint64(2**63 + 12345)
    ref = _make(name).fit(X, y)
    got = _make(name).fit(big, y)
    assert got.selection_order_.tolist() == ref.selection_order_.tolist()
    np.testing.assert_allclose(got.scores_, ref.scores_, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["mim", "jmi", "mrmr", "cmim"])
def test_information_criteria_take_int64_extremes_as_exact_codes(name):
    """Values at the int64 extremes (max - min overflows int64) give the result of
    their np.unique codes: held apart exactly, and binned by their order."""
    X, y = _table(2)
    ext = X.copy()
    ext[:, 0] = np.where(X[:, 0] >= 2, I64.max - X[:, 0], I64.min + X[:, 0])
    ref = _make(name).fit(_unique_codes(ext), y)
    got = _make(name).fit(ext, y)
    assert got.selection_order_.tolist() == ref.selection_order_.tolist()
    np.testing.assert_array_equal(got.scores_, ref.scores_)
    # the same through a DataFrame (the column-by-column path)
    got_df = _make(name).fit(pd.DataFrame(ext, columns=["a", "b", "c"]), y)
    np.testing.assert_array_equal(got_df.scores_, ref.scores_)


@pytest.mark.parametrize("name", ["relief", "relieff", "classifiability", "in", "prelief"])
def test_integer_range_wider_than_2_53_is_refused_unless_categorical(name):
    X, y = _table(3)
    ext = X.copy()
    ext[:, 1] = np.where(X[:, 1] > 0, I64.max, I64.min)
    with pytest.raises(ValueError, match=r"integer column '1' spans .*2\*\*53.*categorical"):
        _make(name).fit(ext, y)
    frame = pd.DataFrame(ext, columns=["a", "ids", "c"])
    with pytest.raises(ValueError, match=r"integer column 'ids' spans"):
        _make(name).fit(frame, y)
    if "categorical" in METHODS[name].load()().get_params():
        ref = _make(name, categorical=[1]).fit(_unique_codes(ext), y)
        got = _make(name, categorical=[1]).fit(ext, y)
        np.testing.assert_allclose(got.scores_, ref.scores_, rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(min_value=int(I64.min), max_value=int(I64.max)), min_size=1, max_size=30),
    st.integers(0, 3),
)
def test_compact_codes_int64_matches_np_unique(values, spread):
    """compact_codes agrees with np.unique for any int64 column, extremes included."""
    base = np.asarray(values, dtype=np.int64)
    # also a narrow column near an extreme: the lookup-table paths
    narrow = np.clip(base % 7, 0, None) + (I64.max - 10 if spread % 2 else I64.min)
    V = np.column_stack([base, narrow])
    codes, levels = compact_codes(V)
    ref = _unique_codes(V)
    np.testing.assert_array_equal(codes.T.astype(np.int64), ref)
    assert levels.tolist() == [np.unique(V[:, j]).size for j in range(2)]


@pytest.mark.parametrize("numba_off", ["1", "0"])
def test_compact_codes_uint64_and_int64_extremes(numba_off, monkeypatch):
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", numba_off)
    cases = [
        np.array([[I64.max, I64.min], [I64.max - 1, I64.min + 2], [I64.max, I64.min]]),
        np.array([[2**63 - 1, 2**64 - 1], [2**63, 2**64 - 3], [2**63 + 1, 0]], dtype=np.uint64),
        np.array([[I64.min, 5], [I64.max, 6], [0, 7]], dtype=np.int64),
    ]
    for V in cases:
        codes, _ = compact_codes(V)
        np.testing.assert_array_equal(codes.T.astype(np.int64), _unique_codes(V))


# --------------------------------------------------------- ranges that overflow
@pytest.mark.parametrize("name", ALL)
def test_range_overflowing_float64_is_refused_naming_the_column(name):
    X, y = _table(4)
    Xf = X.astype(np.float64)
    Xf[:, 2] = np.where(y == 1, 1e308, -1e308)
    with pytest.raises(ValueError, match=r"column '2' spans .*overflows float64"):
        _make(name).fit(Xf, y)
    frame = pd.DataFrame(Xf, columns=["a", "b", "huge"])
    with pytest.raises(ValueError, match=r"column 'huge' spans"):
        _make(name).fit(frame, y)


@pytest.mark.parametrize("name", ["relieff", "mim"])
def test_float32_extremes_whose_range_fits_float64_are_accepted(name):
    """+-3e38 in float32: max - min overflows float32 but not float64, where the ranges
    are taken; the fit runs (the float32 input's extremes are widened first)."""
    X, y = _table(4)
    Xf = X.astype(np.float32)
    Xf[:, 2] = np.where(y == 1, np.float32(3e38), np.float32(-3e38))
    est = _make(name).fit(Xf, y)
    assert est.n_features_in_ == Xf.shape[1]


@pytest.mark.parametrize("name", ["relieff", "classifiability", "mim", "prelief", "k1"])
def test_huge_values_with_a_finite_range_work(name):
    """1e308 alone is fine: only max - min overflowing is refused. A column of huge
    values scaled by 2**1000 ranks like the unscaled one (range scaling, binning)."""
    X, y = _table(5)
    Xf = X.astype(np.float64) + np.random.default_rng(0).random(X.shape)
    ref = _make(name).fit(Xf, y)
    got = _make(name).fit(Xf * 2.0**1000, y)  # exact scaling by a power of two
    assert got.selection_order_.tolist() == ref.selection_order_.tolist()


# ------------------------------------------------------------- datetime columns
@pytest.mark.parametrize("name", ALL)
def test_datetime_column_becomes_seconds(name):
    X, y = _table(6)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame["when"] = pd.date_range("2020-01-01", periods=len(y), freq="D")
    sel = _make(name).fit(frame, y)
    assert sel.feature_types_[-1] == "datetime"
    # seconds since the epoch: the same fit as the numbers themselves
    numbers = frame.assign(when=(frame["when"] - pd.Timestamp(0)).dt.total_seconds())
    ref = _make(name).fit(numbers, y)
    np.testing.assert_array_equal(sel.selection_order_, ref.selection_order_)
    np.testing.assert_allclose(sel.scores_, ref.scores_, equal_nan=True)


def test_datetime_in_numpy_and_timedelta_too():
    X, y = _table(7)
    dates = np.array(["2020-01-01"] * len(y), dtype="datetime64[D]") + X[:, 0]
    sel = _make("mim", k=1).fit(dates.reshape(-1, 1), y)
    assert sel.feature_types_ == ["datetime"]
    frame = pd.DataFrame({"a": X[:, 0], "dt": pd.to_timedelta(X[:, 1], unit="h")})
    assert _make("relieff").fit(frame, y).feature_types_ == ["integer", "numeric"]


def test_declared_categorical_datetime_is_used_as_codes():
    X, y = _table(8)
    frame = pd.DataFrame({"when": pd.Timestamp("2021-05-01") + pd.to_timedelta(X[:, 0], "D")})
    frame["b"] = X[:, 1]
    got = _make("mim", categorical=["when"]).fit(frame, y)
    ref = _make("mim", categorical=[0]).fit(X[:, :2], y)  # column 0 as codes too
    np.testing.assert_array_equal(got.scores_, ref.scores_)
    # transform on the same frame gives the selected columns (dates kept)
    out = _make("mim", k=1, categorical=["when"]).fit(frame, y).transform(frame)
    np.testing.assert_array_equal(out[:, 0], frame["when"].to_numpy())
    with pytest.raises(ValueError, match="feature names should match"):
        got.transform(frame[["when"]])


# ------------------------------------------------------- duplicate column names
@pytest.mark.parametrize("name", ALL)
def test_duplicate_column_names_are_refused(name):
    X, y = _table(9)
    frame = pd.DataFrame(X, columns=["a", "b", "a"])
    with pytest.raises(ValueError, match=r"duplicate column names \['a'\]"):
        _make(name).fit(frame, y)


def test_duplicate_column_names_refused_by_npfs():
    from fsel.meta.npfs import NPFS

    X, y = _table(10)
    frame = pd.DataFrame(X, columns=["a", "b", "a"])
    with pytest.raises(ValueError, match=r"NPFS: X has duplicate column names \['a'\]"):
        NPFS(_make("mim", k=1), n_resamples=5).fit(frame, y)


# ------------------------------------------------ boolean column with pd.NA
@pytest.mark.parametrize("name", ["mim", "relieff", "classifiability", "k1"])
def test_boolean_column_with_na_reports_missing_values(name):
    X, y = _table(11)
    flags = pd.array(X[:, 1] > 0, dtype="boolean")
    flags[3] = pd.NA
    frame = pd.DataFrame({"a": X[:, 0], "flag": flags})
    # refused under missing="error", naming the holes, not calling the column non-numeric
    with pytest.raises(ValueError, match=r"missing values .*column 'flag'") as info:
        _make(name, k=1).set_params(missing="error").fit(frame, y)
    assert "not numeric" not in str(info.value)
    # by default each family's own missing-value rule takes it, as a boolean (codes) column
    sel = _make(name, k=1).fit(frame, y)
    assert sel.n_features_in_ == 2 and sel.get_support().sum() == 1


@pytest.mark.parametrize("name", ["betagamma", "jmi", "mim"])
def test_float_codes_beyond_int64_are_compacted_without_overflow(name):
    """A float column with few distinct values is kept as codes; values beyond int64
    (found by the fuzz test: -2.4e19) used to overflow the integer cast."""
    X, y = _table(12)
    Xf = X.astype(np.float64)
    Xf[:, 2] = np.where(X[:, 2] > 0, -2.44146738e19, -4.13063543e18)
    ref = Xf.copy()
    ref[:, 2] = _unique_codes(X[:, 2:3] > 0)[:, 0]
    # five bins: every column (at most 4 distinct values) is kept as codes, so both
    # tables take the all-codes path (n_bins="auto" gives 2 bins on 60 rows)
    bins = {"discretize": "uniform", "n_bins": 5}
    got = _make(name, **bins).fit(Xf, y)
    np.testing.assert_array_equal(got.scores_, _make(name, **bins).fit(ref, y).scores_)


@pytest.mark.parametrize("name", ["mim", "relieff", "k1"])
def test_transform_on_a_frame_with_category_and_bool_columns(name):
    """fit accepts a categorical column beside a boolean one; scikit-learn's transform
    could not convert that frame to one array (found by the fuzz test)."""
    X, y = _table(13)
    frame = pd.DataFrame(
        {
            "flag": X[:, 1] > 0,
            "cat": pd.Categorical(np.where(X[:, 0] >= 2, "hi", "lo")),
            "n": X[:, 2],
        }
    )
    est = _make(name, k=2).fit(frame, y)
    out = est.transform(frame)
    cols = frame.columns[est.get_support()]
    assert out.shape == (len(y), 2)
    for j, c in enumerate(cols):
        assert out[:, j].tolist() == frame[c].tolist()
    est.set_output(transform="pandas")
    kept = est.transform(frame)
    assert list(kept.columns) == list(cols)
    assert kept.dtypes.tolist() == frame[cols].dtypes.tolist()
