"""Inputs an audit found mishandled: each is now either taken the way its equivalent
is, or refused with a one-line error naming the problem."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel

pd = pytest.importorskip("pandas")


def _one_line(exc_info) -> str:
    msg = str(exc_info.value)
    assert "\n" not in msg
    return msg


def test_rows_mixing_numbers_and_text_keep_their_numbers():
    # numpy would make every value of such rows text (every column categorical)
    rng = np.random.default_rng(1)
    n = 400
    age = rng.integers(20, 70, n)
    noise = rng.normal(size=n).round(1)
    city = rng.choice(["a", "b"], n)
    y = (age + rng.normal(size=n) * 8 > 45).astype(int)
    rows = [[int(age[i]), float(noise[i]), str(city[i])] for i in range(n)]
    frame = pd.DataFrame({"age": age, "noise": noise, "city": city})
    got = fsel.MIM(1).fit(rows, y)
    want = fsel.MIM(1).fit(frame, y)
    np.testing.assert_allclose(got.scores_, want.scores_, rtol=0, atol=1e-12)
    assert got.feature_types_[1:] == ["numeric", "categorical"]


def test_ragged_rows_are_refused():
    with pytest.raises(ValueError, match="rows have different lengths") as e:
        fsel.MIM(1).fit([[1.0, 2.0], [3.0]] * 10, np.arange(20) % 2)
    assert _one_line(e).startswith("MIM:")


def test_complex_values_are_refused_in_a_frame_and_in_y():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=100), rng.normal(size=100)
    y = (b > 0).astype(int)
    with pytest.raises(ValueError, match=r"Complex data not supported \(column 'z'\)"):
        fsel.MIM(1).fit(pd.DataFrame({"z": a + 1j * b}), y)
    X = rng.normal(size=(100, 3))
    for est in (fsel.MIM(1), fsel.ReliefF(1), fsel.RankingIndex(1), fsel.KnockoffFilter()):
        with pytest.raises(ValueError, match="y is complex") as e:
            est.fit(X, y.astype(complex))
        _one_line(e)


def test_polars_inputs_numpy_cannot_hold_are_named():
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(0)
    y = np.arange(10) % 2
    with pytest.raises(TypeError, match=r"LazyFrame.*collect\(\)"):
        fsel.MIM(1).fit(pl.DataFrame({"a": rng.normal(size=10)}).lazy(), y)
    struct = pl.DataFrame({"s": [{"a": 1, "b": 2}] * 10, "x": rng.normal(size=10)})
    with pytest.raises(TypeError, match="column 's' is not numeric") as e:
        fsel.MIM(1).fit(struct, y)
    _one_line(e)
    wide = pl.DataFrame({"s": pl.Series([1] * 10, dtype=pl.Int128), "x": rng.normal(size=10)})
    with pytest.raises(TypeError, match=r"column 's' is not numeric \(dtype Int128\)"):
        fsel.MIM(1).fit(wide, y)


def test_knockoff_default_statistic_refuses_a_class_of_one_row():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.zeros(60, int)
    y[0] = 1
    with pytest.raises(ValueError, match="class 1 has 1 row") as e:
        fsel.KnockoffFilter(random_state=0).fit(X, y)
    _one_line(e)


def test_select_names_columns_whatever_their_labels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 4))
    y = (X[:, 1] > 0).astype(int)
    res = fsel.select(pd.DataFrame(X, columns=[30, 10, 20, 40]), y, method="mim")
    assert res.features[0] == 1 and res.names[0] == "10"


def test_ranking_index_warns_where_it_orders_unordered_levels():
    rng = np.random.default_rng(0)
    lev = rng.choice(["a", "b", "c"], 300)
    y = (lev == "b") + rng.normal(size=300) * 0.3
    frame = pd.DataFrame({"cat": lev, "noise": rng.normal(size=300)})
    for cls in (fsel.RankingIndex, fsel.BootstrapRanking):
        with pytest.warns(UserWarning, match="'cat' have no order"):
            cls(1).fit(frame, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fsel.RankingIndex(1, index="chi2").fit(frame, y)  # a table index: no order read
        two = frame.assign(cat=lev == "b")  # two levels: reversed, the same values
        fsel.RankingIndex(1).fit(two, y)


@pytest.mark.parametrize("scale", [1e160, 1e-170])
def test_difference_index_refuses_a_target_beyond_float_range(scale):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    z = X[:, 3] + 0.3 * rng.normal(size=200)
    assert fsel.RankingIndex(1, index="In").fit(X, z).selection_order_.tolist() == [3]
    for cls in (fsel.RankingIndex, fsel.BootstrapRanking):
        with pytest.raises(ValueError, match="rescale y") as e:
            cls(1, index="In").fit(X, z * scale)
        _one_line(e)


def _wide_ids():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    noise = rng.normal(size=200)
    return y, noise, y.astype(np.int64) + 2**60  # ids beyond 2**53 that are y


@pytest.mark.parametrize("est", [fsel.MIM(1), fsel.ReliefF(1)], ids=["MIM", "ReliefF"])
def test_integers_beyond_2_53_stay_apart_with_holes_and_as_objects(est):
    # a float64 copy would merge ids 2**60 and 2**60 + 1: a copy of y scoring 0
    y, noise, ids = _wide_ids()
    holes = np.arange(200) % 10 == 0
    plain = est.fit(pd.DataFrame({"noise": noise, "id": ids}), y).scores_[1]
    objects = pd.Series([int(v) for v in ids], dtype=object)
    assert est.fit(pd.DataFrame({"noise": noise, "id": objects}), y).scores_[1] == plain
    nullable = pd.Series(ids, dtype="Int64").mask(holes)
    want = est.fit(pd.DataFrame({"noise": noise, "id": pd.Series(ids - 2**60).mask(holes)}), y)
    got = est.fit(pd.DataFrame({"noise": noise, "id": nullable}), y)
    assert got.scores_[1] == pytest.approx(want.scores_[1], abs=1e-12) and got.scores_[1] > 0.5
    pl = pytest.importorskip("polars")
    col = [None if h else int(v) for h, v in zip(holes, ids, strict=True)]
    frame = pl.DataFrame({"noise": noise, "id": col})
    assert est.fit(frame, y).scores_[1] == pytest.approx(want.scores_[1], abs=1e-12)


def test_integers_beyond_2_53_in_sparse_or_dask_input_are_refused():
    import scipy.sparse as sp

    y, noise, ids = _wide_ids()
    X = sp.csr_matrix(np.c_[np.round(noise * 3).astype(np.int64), ids])
    with pytest.raises(ValueError, match=r"integer column '1' spans .* beyond 2\*\*53") as e:
        fsel.MIM(1).fit(X, y)
    _one_line(e)
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(pd.DataFrame({"noise": noise, "id": ids, "t": y}), npartitions=2)
    with pytest.raises(ValueError, match="integer column 'id' spans"):
        fsel.MIM(1).fit(ddf[["noise", "id"]], ddf["t"])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(st.text(max_size=3), st.integers(-3, 3), st.booleans(), st.floats(-2, 2)),
        min_size=1,
        max_size=40,
    )
)
def test_object_codes_by_hashing_equal_numpys_sorted_codes(cells):
    """Text columns are coded by hashing (``_object_codes``), not by sorting every cell:
    the codes are numpy's sorted-label codes wherever numpy can sort the labels (ints,
    floats and bools compare as numbers, 1 == 1.0 == True), and the mixed-type rule
    (labels as text) where it cannot."""
    from fsel.utils.column_types import _codes

    col = np.empty(len(cells), dtype=object)
    col[:] = cells
    try:
        want = np.unique(col, return_inverse=True)[1]
    except TypeError:
        want = np.unique(col.astype(str), return_inverse=True)[1]
    np.testing.assert_array_equal(_codes(col), want.reshape(-1).astype(np.float64))
