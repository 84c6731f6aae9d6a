"""check_table/check_target with missing values (SPEC section 10): every way a table can
hold a hole becomes NaN in ``Table.values`` when the caller allows it, and a clear
error otherwise; a missing target value is always an error naming its rows."""

from __future__ import annotations

import numpy as np
import pytest

from fsel.utils.targets import check_target
from fsel.utils.validation import check_missing_policy, check_table


def _frame():
    pd = pytest.importorskip("pandas")
    return pd.DataFrame(
        {
            "int": pd.Series([1, None, 3, 3], dtype="Int64"),
            "flag": pd.Series([True, None, False, True], dtype="boolean"),
            "cat": pd.Series(["x", None, "y", "x"], dtype="category"),
            "num": [1.0, np.nan, 2.5, 0.5],
            "obj": ["p", None, "q", "q"],
        }
    )


def test_pandas_missing_kinds_become_nan_and_keep_their_type():
    df = _frame()
    t = check_table(df, allow_missing=True, categorical=["obj"])
    assert np.isnan(t.values[1]).all()  # row 1 is missing in every column
    np.testing.assert_array_equal(
        t.values[[0, 2, 3]], [[1, 1, 0, 1, 0], [3, 0, 1, 2.5, 1], [3, 1, 0, 0.5, 1]]
    )
    # integer/boolean/categorical columns stay codes even though they hold NaN now
    assert t.discrete.tolist() == [True, True, True, False, True]
    assert t.missing.tolist() == [True] * 5 and t.has_missing


def test_polars_nulls_are_missing_values():
    pl = pytest.importorskip("polars")
    t_pd = check_table(_frame(), allow_missing=True, categorical=["obj"])
    t_pl = check_table(pl.from_pandas(_frame()), allow_missing=True, categorical=["obj"])
    np.testing.assert_array_equal(t_pl.values, t_pd.values)
    assert t_pl.discrete.tolist() == t_pd.discrete.tolist()


def test_missing_refused_by_default_with_column_name():
    with pytest.raises(ValueError, match=r"missing values .* column 'int'"):
        check_table(_frame(), categorical=["obj"])
    with pytest.raises(ValueError, match="column '1'"):
        check_table(np.array([[0.0, 1.0], [1.0, np.nan]]))


def test_no_missing_gives_no_mask_and_inf_stays_an_error():
    X = np.arange(6.0).reshape(3, 2)
    assert check_table(X, allow_missing=True).missing is None
    with pytest.raises(ValueError, match="inf in column '0'"):
        check_table(np.array([[np.inf, 1.0], [np.nan, 2.0]]), allow_missing=True)


def test_input_not_modified():
    X = np.array([[1.0, np.nan], [2.0, 3.0]])
    before = X.copy()
    check_table(X, allow_missing=True)
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize(
    "y", [[0, None, 1, None], np.array([0.0, np.nan, 1.0, np.nan]), ["a", np.nan, "b", None]]
)
def test_missing_target_names_rows(y):
    with pytest.raises(ValueError, match=r"2 missing value\(s\).*row\(s\) 1, 3"):
        check_target(y, 4)


def test_missing_policy_check():
    assert check_missing_policy("level", ("level", "error"), "JMI") == "level"
    with pytest.raises(ValueError, match="JMI: missing must be one of"):
        check_missing_policy(None, ("level", "error"), "JMI")


def test_sparse_accepted_as_csc_copy_with_missing_and_never_densified():
    sp = pytest.importorskip("scipy.sparse")
    X = sp.coo_matrix(([1.0, np.nan, 2.0, 0.0], ([0, 1, 2, 2], [0, 1, 1, 0])), shape=(3, 3))
    with pytest.raises(TypeError, match="sparse input is not supported"):
        check_table(X)
    with pytest.raises(ValueError, match="column '1'"):
        check_table(X, accept_sparse=True)
    t = check_table(X, accept_sparse=True, allow_missing=True)
    assert t.is_sparse and t.values.format == "csc" and t.values.nnz == 3  # explicit 0 dropped
    assert t.missing.tolist() == [False, True, False]
    np.testing.assert_array_equal(t.values.toarray(), X.toarray())
    with pytest.raises(ValueError, match="inf in column '2'"):
        check_table(sp.csr_array(np.array([[0.0, 0, np.inf]])), accept_sparse=True)
    t = check_table(sp.csr_array(np.eye(3, dtype=np.int8)), accept_sparse=True)
    assert t.discrete.all() and t.values.dtype == np.float64
