"""The CLI reads what the file says, or refuses it in one line (defects found by an
audit of the command line's inputs): the same table from the pandas reader, the plain
CSV reader of a base install and the Dask reader."""

from __future__ import annotations

import json
import re
import sys

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
