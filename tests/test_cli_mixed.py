"""Mixed tables without declarations: text, category-like, boolean and date columns."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fsel.cli.main import main

pd = pytest.importorskip("pandas")


def _census(path, n=300, seed=0, with_id=False):
    rng = np.random.default_rng(seed)
    education = rng.choice(["basic", "school", "college", "degree"], n)
    level = pd.Series(education).map({"basic": 0, "school": 1, "college": 2, "degree": 3})
    hours = rng.normal(40, 8, n).round(1)
    signup = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n), unit="D")
    label = (level.to_numpy() + rng.normal(0, 0.5, n) > 1.5).astype(int)
    frame = pd.DataFrame(
        {
            "workclass": rng.choice(["private", "public", "self"], n),  # noise text
            "education": education,  # text that matters
            "hours": hours,  # numbers (noise)
            "member": rng.choice([True, False], n),  # boolean (noise)
            "signup": signup.strftime("%Y-%m-%d"),  # dates as text
            "label": np.where(label == 1, "high", "low"),
        }
    )
    if with_id:
        frame.insert(0, "customer", [f"c{i:05d}" for i in range(n)])
    frame.to_csv(path, index=False)
    return frame


def test_select_mixed_csv_without_declarations(tmp_path, capsys):
    path = tmp_path / "adult.csv"
    _census(path)
    out = tmp_path / "res.json"
    rc = main(["select", str(path), "-t", "label", "-m", "jmi", "-k", "2", "-q", "-o", str(out)])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "taken as categorical: workclass, education, member" in printed
    assert "taken as datetime (seconds since 1970-01-01): signup" in printed
    res = json.loads(out.read_text())
    assert res["feature_types"] == {
        "workclass": "categorical",
        "education": "categorical",
        "hours": "numeric",
        "member": "categorical",
        "signup": "datetime",
    }
    assert res["features"][0]["name"] == "education"


@pytest.mark.parametrize("method", ["relieff", "k3", "classifiability"])
def test_other_families_take_the_same_table(tmp_path, capsys, method):
    path = tmp_path / "adult.csv"
    _census(path)
    out = tmp_path / "res.json"
    args = ["select", str(path), "-t", "label", "-m", method, "-q", "-o", str(out)]
    if method == "k3":  # an ordering index on text columns of 3+ levels: said so
        with pytest.warns(UserWarning, match="'workclass', 'education' have no order"):
            assert main(args) == 0
    else:
        assert main(args) == 0
    res = json.loads(out.read_text())
    assert res["feature_types"]["signup"] == "datetime"
    assert res["feature_types"]["education"] == "categorical"
    assert "education" in [f["name"] for f in res["features"]][:2]


def test_numeric_flag_takes_a_boolean_column_as_numbers(tmp_path, capsys):
    path = tmp_path / "adult.csv"
    _census(path)
    out = tmp_path / "res.json"
    args = ["select", str(path), "-t", "label", "-k", "1", "-q", "--numeric", "member"]
    assert main([*args, "-o", str(out)]) == 0
    assert json.loads(out.read_text())["feature_types"]["member"] in ("integer", "numeric")
    assert main([*args[:-1], "education"]) == 2  # text is not a number
    assert "not a number" in capsys.readouterr().err


def test_identifier_column_warns(tmp_path):
    import fsel

    frame = _census(tmp_path / "a.csv", with_id=True)
    X, y = frame.drop(columns="label"), frame["label"]
    with pytest.warns(UserWarning, match="'customer' hold a distinct value in nearly every row"):
        sel = fsel.JMI(2).fit(X, y)
    assert sel.feature_types_[0] == "categorical"


def test_polars_string_and_categorical_are_categorical():
    pl = pytest.importorskip("polars")
    import fsel

    rng = np.random.default_rng(1)
    n = 120
    y = rng.integers(0, 2, n)
    df = pl.DataFrame(
        {
            "s": np.where(y == 1, "a", "b"),
            "c": pl.Series(rng.choice(["x", "y"], n)).cast(pl.Categorical),
            "b": rng.choice([True, False], n),
            "f": rng.normal(size=n),
        }
    )
    sel = fsel.MIM(1).fit(df, y)
    assert sel.feature_types_ == ["categorical", "categorical", "categorical", "numeric"]
    assert sel.selection_order_.tolist() == [0]
