"""The CLI reads what the file says, or refuses it in one line (defects found by an
audit of the command line's inputs): the same table from the pandas reader, the plain
CSV reader of a base install and the Dask reader."""

from __future__ import annotations

import datetime
import json
import re
import sys

import numpy as np
import pytest

from fsel.cli import io
from fsel.cli.main import main

pytest.importorskip("pandas")


def _fails_in_one_line(capsys, argv, pattern):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fsel: error: "), err
    assert "Traceback" not in err
    assert re.search(pattern, lines[0]), lines[0]
    return lines[0]


def _select(argv, tmp_path):
    """``fsel select ... -o r.json``: the JSON written."""
    out = tmp_path / "r.json"
    assert main(["select", *argv, "-q", "-o", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.fixture(params=["pandas", "plain"])
def reader(request, monkeypatch):
    """Run a test with pandas, and with the plain CSV reader of a base install."""
    if request.param == "plain":
        monkeypatch.setitem(sys.modules, "pandas", None)
    return request.param


def _separating_table(n: int = 8):
    """label follows a exactly; b is noise."""
    a = [i % 4 for i in range(n)]
    b = [(3 * i + 1) % 5 for i in range(n)]
    return a, b, [int(v >= 2) for v in a]


# -- item 2: a separator at the end of every row -------------------------------------


def test_trailing_separator_on_every_row_keeps_the_columns(tmp_path, reader):
    """Before, pandas took the first column as the index: label held a's values, a
    held b's and b was empty, and a scored 0.2 instead of 1."""
    a, b, label = _separating_table()
    rows = "".join(f"{lab},{x},{z},\n" for lab, x, z in zip(label, a, b, strict=True))
    path = tmp_path / "t.csv"
    path.write_text("label,a,b\n" + rows)
    got = _select([str(path), "-t", "label", "-m", "mim", "-k", "2"], tmp_path)
    assert got["features"][0]["name"] == "a"
    assert got["features"][0]["score"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("0.1,Rome,0\n0.2,Paris, TX,0\n0.8,Rome,1\n", 3),  # an unquoted comma
        ("0.1,Rome,0,9\n0.2,Oslo,1\n", 2),  # pandas dropped the 9 with index_col=False
        ("0.1,Rome,0,\n0.2,Oslo,1,7\n", 3),  # a trailing comma, then a value there
    ],
)
def test_a_row_with_more_fields_than_the_header_is_refused(tmp_path, capsys, reader, body, line):
    """Before, the plain reader dropped the extra field (a third class ' TX')."""
    path = tmp_path / "r.csv"
    path.write_text("a,city,label\n" + body)
    _fails_in_one_line(
        capsys, ["select", str(path), "-t", "label", "-q"], rf"line {line} has \d fields .* 3 col"
    )


def test_dask_reader_keeps_the_columns_of_a_trailing_separator(tmp_path):
    pytest.importorskip("dask.dataframe")
    a, b, label = _separating_table()
    path = tmp_path / "t.csv"
    rows = "".join(f"{lab},{x},{z},\n" for lab, x, z in zip(label, a, b, strict=True))
    path.write_text("label,a,b\n" + rows)
    data = io.read_data_dask(str(path), "label")
    X = data.X.compute(scheduler="sync")
    assert data.feature_names == ["a", "b"]
    assert X["a"].tolist() == a and X["b"].tolist() == b
    assert data.y.compute(scheduler="sync").tolist() == label


# -- items 3, 4 and 6: dates ---------------------------------------------------------


def _dated_rows(years0, years1):
    """Dates that separate the classes: class 0 in years0, class 1 in years1."""
    rows = []
    for i in range(20):
        y0, y1 = years0[0] + i, years1[0] + i
        rows += [(f"{y0:04d}-0{1 + i % 9}-1{i % 9}", 0), (f"{y1:04d}-0{1 + i % 9}-1{i % 9}", 1)]
    return rows


@pytest.mark.parametrize("years", [((1380,), (1950,)), ((2000,), (9980,))])
def test_dates_outside_the_nanosecond_range_keep_their_order(tmp_path, reader, years):
    """Before, the cast to datetime64[ns] wrapped 1380 and 9999 around: the date that
    separates the classes scored 0 (and '9999-12-31' landed in 1816)."""
    rows = _dated_rows(*years)
    path = tmp_path / "d.csv"
    path.write_text("when,label\n" + "".join(f"{d},{c}\n" for d, c in rows))
    got = _select([str(path), "-t", "label", "-m", "mim", "-k", "1"], tmp_path)
    assert got["features"][0]["score"] == pytest.approx(1.0)
    X = io._read_data(str(path), "label", None, None).X
    seconds = io._seconds(X["when"].to_numpy()) if reader == "pandas" else X[:, 0]
    epoch = datetime.date(1970, 1, 1)
    days = [(datetime.date.fromisoformat(d) - epoch).days for d, _ in rows]
    assert seconds.tolist() == [86400.0 * d for d in days]


def test_api_datetime_column_outside_the_nanosecond_range():
    """The Python API (and Parquet) take a datetime64[s] column in its own unit."""
    import pandas as pd

    import fsel

    days = np.array(["1400-01-01", "1401-06-01", "1990-01-01", "9999-12-31"] * 10, "M8[s]")
    X = pd.DataFrame({"when": days, "noise": np.arange(40) % 3})
    assert str(X["when"].dtype) == "datetime64[s]"
    y = (days > np.datetime64("1500-01-01")).astype(int)
    sel = fsel.MIM(n_features_to_select=1).fit(X, y)
    assert sel.feature_types_[0] == "datetime"
    assert sel.get_feature_names_out().tolist() == ["when"]
    assert sel.scores_[0] == pytest.approx(1.0)


def test_times_whose_utc_offset_changes_are_dates(tmp_path, reader):
    """A daylight-saving change: +01:00, then +02:00. Before, pandas refused the mixed
    offsets and the column was taken as categories."""
    stamps = [f"2020-03-{d}T{h}:00:00+0{1 if d < 29 else 2}:00" for d in (26, 27, 30, 31)
              for h in (10, 15)]  # fmt: skip
    path = tmp_path / "d.csv"
    path.write_text("when,label\n" + "".join(f"{s},{int(i >= 4)}\n" for i, s in enumerate(stamps)))
    got = _select([str(path), "-t", "label", "-m", "mim", "-k", "1"], tmp_path)
    assert got["features"][0]["score"] == pytest.approx(1.0)
    if reader == "pandas":
        assert got["feature_types"]["when"] == "datetime"
    X = io._read_data(str(path), "label", None, None).X
    when = io._seconds(X["when"].to_numpy()) if reader == "pandas" else X[:, 0]
    # in UTC: 10:00+01:00 is 09:00, 10:00+02:00 is 08:00
    assert when[4] - when[0] == pytest.approx(4 * 86400 - 3600)


def test_plain_reader_takes_iso_dates(tmp_path, capsys, monkeypatch):
    """Without pandas a date column was refused as 'not numeric'; now it is its
    seconds since the epoch, as with pandas."""
    monkeypatch.setitem(sys.modules, "pandas", None)
    path = tmp_path / "d.csv"
    days = [f"2020-01-{d:02d}" for d in range(1, 11)]
    path.write_text("day,city,label\n" + "".join(
        f"{d},{'ab'[i % 2]},{int(i >= 5)}\n" for i, d in enumerate(days)))  # fmt: skip
    got = _select([str(path), "-t", "label", "-m", "mim", "-k", "2"], tmp_path)
    assert got["features"][0]["name"] == "day"
    X = io._read_data(str(path), "label", None, None).X
    assert X[1, 0] - X[0, 0] == 86400.0


# -- item 5: the Dask reader follows the in-memory reader's rules --------------------


def test_dask_reader_refuses_a_repeated_name(tmp_path):
    """Before, Dask renamed the second 'a' to 'a.1' and --target a took the first."""
    pytest.importorskip("dask.dataframe")
    path = tmp_path / "d.csv"
    path.write_text("a,a,label\n0.1,5,0\n0.9,3,1\n")
    with pytest.raises(io.CliError, match=r"more than once: 'a'"):
        io.read_data_dask(str(path), "a")


def test_dask_reader_reads_question_marks_as_missing(tmp_path):
    """Before, '?' made the column text (refused, and --categorical then scored ~90
    codes of a continuous column)."""
    pytest.importorskip("dask.dataframe")
    path = tmp_path / "d.csv"
    path.write_text("a,b,label\n?,1,0\n0.5,NA,1\n1.5,2,0\n")
    data = io.read_data_dask(str(path), "label")
    X = data.X.compute(scheduler="sync")
    assert X["a"].dtype.kind == "f" and X["b"].dtype.kind == "f"
    assert np.isnan(X["a"][0]) and X["a"].tolist()[1:] == [0.5, 1.5]
    assert np.isnan(X["b"][1])


# -- item 6: the plain CSV reader reads what pandas reads ----------------------------


def test_plain_reader_drops_a_byte_order_mark_and_blank_lines(tmp_path, capsys, reader):
    """Before, without pandas the first name kept the BOM ('label' was not found) and a
    blank last line was a row with a missing label."""
    a, b, label = _separating_table()
    path = tmp_path / "d.csv"
    rows = "".join(f"{lab},{x},{z}\n" for lab, x, z in zip(label, a, b, strict=True))
    path.write_bytes(("\ufefflabel,a,b\n" + rows + "\n\n").encode("utf-8"))
    got = _select([str(path), "-t", "label", "-m", "mim", "-k", "2"], tmp_path)
    assert got["n_samples"] == len(label)
    assert got["features"][0]["name"] == "a"
    assert got["features"][0]["score"] == pytest.approx(1.0)


# -- items 7 and 13: errors name the column by its header name -----------------------


@pytest.mark.parametrize("wrapper", [[], ["--npfs", "--n-resamples", "3"], ["--fdr", "0.5"]])
def test_digit_headers_are_named_as_they_are(tmp_path, capsys, wrapper):
    """The inf is in the column named '0' (the second feature); a text column makes
    the table a DataFrame, whose names the library's message already uses. Before,
    the CLI took '0' for a position and named the text column '1'."""
    path = tmp_path / "d.csv"
    # inf in every third row: every resample of the wrapped fits draws one
    rows = [f"{i % 2},{'xy'[i % 2]},{'inf' if i % 3 == 0 else i / 10}" for i in range(12)]
    path.write_text("label,1,0\n" + "\n".join(rows) + "\n")
    argv = ["select", str(path), "-t", "label", "-q", "--random-state", "0", *wrapper]
    _fails_in_one_line(capsys, argv, r"inf in column '0'")


def test_digit_headers_of_a_numeric_table_are_named_from_positions(tmp_path, capsys):
    """All numeric: X is an ndarray and the library's message gives the position (1),
    whose header name is '0'."""
    path = tmp_path / "d.csv"
    rows = [f"{i % 2},{i % 3},{'inf' if i == 3 else i / 10}" for i in range(12)]
    path.write_text("label,1,0\n" + "\n".join(rows) + "\n")
    _fails_in_one_line(capsys, ["select", str(path), "-t", "label", "-q"], r"inf in column '0'")


def test_report_names_a_bad_column_by_its_header(tmp_path, capsys):
    """Before, ``fsel report`` said column '1' for the column named 'income'."""
    path = tmp_path / "d.csv"
    rows = [f"{20 + i},{'inf' if i == 4 else 1000 * i},{i % 2}" for i in range(10)]
    path.write_text("age,income,label\n" + "\n".join(rows) + "\n")
    argv = ["report", str(path), "-t", "label", "--quick", "-q", "-o", str(tmp_path / "rep")]
    line = _fails_in_one_line(capsys, argv, r"inf in column 'income'")
    assert "'1'" not in line


# -- items 8 and 12: outputs checked before the fit ----------------------------------


def _small_csv(tmp_path):
    a, b, label = _separating_table(24)
    path = tmp_path / "data.csv"
    rows = "".join(f"{x},{z},{lab}\n" for lab, x, z in zip(label, a, b, strict=True))
    path.write_text("a,b,label\n" + rows)
    return path


@pytest.mark.parametrize("flag", ["-o", "--plot"])
def test_an_output_onto_the_input_file_is_refused(tmp_path, capsys, monkeypatch, flag):
    """Before, ``-o data.csv`` replaced the data set by the result."""
    path = _small_csv(tmp_path)
    before = path.read_bytes()
    monkeypatch.chdir(tmp_path)
    extra = ["--npfs", "--n-resamples", "5"] if flag == "--plot" else []
    for name in (str(path), "data.csv", "./data.csv"):
        argv = ["select", name, "-t", "label", "-k", "1", "-q", *extra, flag, str(path)]
        word = "--output" if flag == "-o" else flag
        _fails_in_one_line(capsys, argv, rf"{word} .*data\.csv: is an input file")
    assert path.read_bytes() == before


@pytest.mark.parametrize("plot", ["sel.txt", "noext"])
def test_plot_name_is_checked_before_the_fit(tmp_path, capsys, monkeypatch, plot):
    """Before, the fit ran and wrote -o, then matplotlib refused '.txt'; and 'noext'
    was written as noext.png while the CLI said 'wrote noext'."""
    monkeypatch.chdir(tmp_path)
    path = _small_csv(tmp_path)
    argv = ["select", str(path), "-t", "label", "--npfs", "--n-resamples", "5", "-q"]
    _fails_in_one_line(capsys, [*argv, "--plot", plot, "-o", "r.json"], r"--plot .*\.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv"]  # nothing written
    pytest.importorskip("matplotlib")
    assert main([*argv, "--plot", "m.svg"]) == 0
    assert f"wrote {'m.svg'}" in capsys.readouterr().out
    assert (tmp_path / "m.svg").is_file()


# -- item 9: feature names given twice -----------------------------------------------


def test_npz_feature_names_given_twice_are_refused(tmp_path, capsys):
    """Before, the JSON's frequencies (a dict by name) lost the second 'p'."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 3)), np.arange(30) % 2
    path = tmp_path / "d.npz"
    np.savez(path, X=X, y=y, feature_names=np.array(["p", "q", "p"]))
    _fails_in_one_line(
        capsys, ["select", str(path), "-q"], r"'feature_names' .*more than once: 'p'"
    )
    np.savez(path, X=X, y=y)
    names = tmp_path / "names.txt"
    names.write_text("p\nq\np\n")
    argv = ["select", str(path), "-q", "--feature-names", str(names)]
    _fails_in_one_line(capsys, argv, r"names\.txt: .*more than once: 'p'")


# -- item 10: fsel report --fdr ------------------------------------------------------


@pytest.mark.parametrize("fdr", ["2", "-0.5", "1"])
def test_report_refuses_an_fdr_outside_0_1(tmp_path, capsys, fdr):
    """Before, the report ran (exit 0) and its page said the knockoff filter was not run."""
    path = _small_csv(tmp_path)
    out = tmp_path / "rep"
    argv = ["report", str(path), "-t", "label", "--quick", "-q", "--fdr", fdr, "-o", str(out)]
    _fails_in_one_line(capsys, argv, rf"fdr must be a number in \(0, 1\), got {fdr}")
    assert not (out / "report.html").exists()


# -- item 11: names quoted in the messages -------------------------------------------


def test_column_names_are_quoted_in_the_messages(tmp_path, capsys, reader):
    """A space after each comma: the real name is ' label'. Before, the message said
    'label' is not in the file and listed ``a, b, label``."""
    path = tmp_path / "d.csv"
    path.write_text("a, b, label\n1,2,0\n3,4,1\n")
    line = _fails_in_one_line(capsys, ["select", str(path), "-t", "label"], r"is not in")
    assert line.endswith("columns are: 'a', ' b', ' label'")
    path.write_text(",,label\n1,2,0\n3,4,1\n")
    _fails_in_one_line(capsys, ["select", str(path), "-t", "label"], r"more than once: '' ")


# -- items 14 and 15: usage and file-type messages -----------------------------------


def test_bins_says_what_it_expects(capsys):
    """Before: 'invalid <lambda> value'."""
    with pytest.raises(SystemExit) as exit_:
        main(["select", "x.csv", "-t", "y", "--bins", "abc"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fsel: error: argument --bins: expected an int or 'auto', got 'abc'")
    assert "lambda" not in err and len(err.splitlines()) == 1


def test_a_file_that_is_not_an_npz_says_so(tmp_path, capsys):
    """Before, numpy's message about loading pickled data unsafely was passed on."""
    path = tmp_path / "d.npz"
    path.write_text("hello")
    line = _fails_in_one_line(capsys, ["select", str(path)], r"d\.npz: not a \.npz file")
    assert "pickle" not in line
