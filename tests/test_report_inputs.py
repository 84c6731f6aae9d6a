"""``fsel.report``'s input: the table is typed, counted and passed to the methods by
the library's one column rule, as :func:`fsel.select` and every estimator take it."""

from __future__ import annotations

import numpy as np
import pytest

import fsel
from fsel.reporting.data import prepare
from fsel.utils.validation import check_table

pd = pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

QUICK = {"quick": True, "fdr": None, "progress": False}


def test_dates_and_durations_are_seconds_as_in_fsel_select():
    rng = np.random.default_rng(0)
    n = 300
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    df = pd.DataFrame(X, columns=list("abcd"))
    df["when"] = pd.date_range("2024-01-01", periods=n, freq="h")  # unrelated to y
    df["took"] = pd.to_timedelta(rng.permutation(n), unit="s")  # unrelated to y
    rep = fsel.report(df, y, methods=["jmi", "mim"], n_features_to_select=2, **QUICK)
    table = check_table(df, allow_missing=True)
    assert rep.summary.feature_types == table.feature_types
    assert rep.summary.feature_types[4] == "datetime"
    for m in ("jmi", "mim"):
        direct = fsel.select(df, y, method=m, n_features_to_select=2)
        assert rep.selections[m].features.tolist() == direct.features.tolist()
        np.testing.assert_allclose(rep.selections[m].scores, direct.scores)
    assert {rep.name(f) for f in rep.selections["jmi"].features} == {"a", "b"}
    assert not {"when", "took"} & {rep.name(f) for f in rep.npfs.relevant}
    # the model's numbers are the estimators' numbers: seconds, not level codes
    _, values, _, _, cat = prepare(df, y, None, None, "auto")
    assert cat == []
    np.testing.assert_array_equal(values, table.values)
    np.testing.assert_allclose(np.diff(values[:, 4]), 3600.0)


def test_pandas_na_in_boolean_and_string_columns_is_missing():
    rng = np.random.default_rng(0)
    n = 200
    x = rng.normal(size=n)
    y = (x > 0).astype(int)
    na = np.arange(n) % 10 == 0
    df = pd.DataFrame(
        {
            "x": x,
            "flag": pd.Series(rng.random(n) > 0.5, dtype="boolean").mask(na),
            "city": pd.Series(rng.choice(["p", "q"], n), dtype="string").mask(na),
        }
    )
    rep = fsel.report(df, y, methods=["jmi"], **QUICK)
    assert rep.summary.missing.tolist() == df.isna().sum().tolist() == [0, 20, 20]
    assert "40 missing values" in rep.summary_text()
    assert rep.summary.feature_types == ["numeric", "categorical", "categorical"]
    # "<NA>" is no level: two codes and NaN in the missing rows
    _, values, _, _, cat = prepare(df, y, None, None, "auto")
    assert cat == [1, 2]
    for j in (1, 2):
        assert np.isnan(values[na, j]).all()
        assert sorted(np.unique(values[~na, j]).tolist()) == [0.0, 1.0]


@pytest.mark.parametrize("fmt", ["csr_matrix", "coo_array"])
def test_sparse_x_gives_the_dense_report(fmt):
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 6))
    X[np.abs(X) < 0.2] = 0.0  # a sixth of the cells
    y = (X[:, 1] + X[:, 4] > 0.8).astype(int)
    kw = {"methods": "mim,jmi", "n_features_to_select": 2, "quick": True, "progress": False}
    S = getattr(sparse, fmt)(X)
    rep, dense = fsel.report(S, y, **kw), fsel.report(X, y, **kw)
    assert rep.errors == {} and rep.to_dict()["data"] == dense.to_dict()["data"]
    for m in ("mim", "jmi"):
        assert rep.selections[m].features.tolist() == dense.selections[m].features.tolist()
        np.testing.assert_allclose(rep.selections[m].scores, dense.selections[m].scores)
        np.testing.assert_allclose(rep.curves[m].scores, dense.curves[m].scores)
        np.testing.assert_array_equal(rep.bootstrap_matrices[m], dense.bootstrap_matrices[m])
    assert rep.guarantees == dense.guarantees
    assert "error" not in rep.guarantees["knockoffs"]


def test_too_few_rows_for_the_curves_is_one_line_naming_the_minimum():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 4))
    y = np.arange(8) % 2
    # the smallest training fold must hold the model's 5 neighbours
    for n, kw, need in [(6, {"quick": True}, 8), (7, {"quick": True}, 8), (6, {}, 7)]:
        with pytest.raises(ValueError, match=rf"^fsel\.report: X has {n} rows.* at least {need} "):
            fsel.report(X[:n], y[:n], methods="mim", progress=False, **kw)
    for n, kw, folds in [(8, {"quick": True}, 3), (7, {}, 5)]:  # the minimum itself runs
        rep = fsel.report(X[:n], y[:n], methods="mim", progress=False, fdr=None, **kw)
        assert rep.errors == {} and rep.baseline.scores.shape == (folds, 1)


def test_n_features_to_select_as_a_fraction_as_in_fsel_select(tmp_path, capsys):
    from fsel.cli.main import main

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 6))
    y = (X[:, 2] + X[:, 5] > 0).astype(int)
    rep = fsel.report(X, y, methods="mim", n_features_to_select=0.5, **QUICK)
    direct = fsel.select(X, y, method="mim", n_features_to_select=0.5)
    assert rep.k == 3 == direct.features.size
    assert rep.selections["mim"].features.tolist() == direct.features.tolist()
    bad_values = [(1.5, ValueError), (0.0, ValueError), (0, ValueError), (7, ValueError)]
    for bad, kind in [*bad_values, ("3", ValueError), (True, TypeError)]:
        with pytest.raises(kind, match=r"^fsel\.report: n_features_to_select"):
            fsel.report(X, y, methods="mim", n_features_to_select=bad, **QUICK)
    # the same -k on the command line
    csv = tmp_path / "t.csv"
    rows = [",".join(map(str, [*x, t])) for x, t in zip(X.tolist(), y.tolist(), strict=True)]
    csv.write_text("a,b,c,d,e,f,label\n" + "\n".join(rows) + "\n")
    argv = ["report", str(csv), "--target", "label", "--methods", "mim", "-k", "0.5"]
    assert main([*argv, "--quick", "--fdr", "0", "--output", str(tmp_path / "r"), "-q"]) == 0
    assert "-k 3 " in (tmp_path / "r" / "report.html").read_text()
