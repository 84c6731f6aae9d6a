"""CLI failures are one line and a non-zero exit, never a traceback (issue 17, item 8)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from fsel.cli.io import name_columns
from fsel.cli.main import main

FSEL = shutil.which("fsel") or ""


def _npz(path, **arrays):
    np.savez(path, **arrays)
    return str(path)


def _good_arrays(n: int = 40, d: int = 3):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] > 0).astype(int)
    return X, y


def _fails_in_one_line(capsys, argv, pattern):
    code = main(argv)
    err = capsys.readouterr().err
    assert code != 0
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fsel: error: ")
    assert re.search(pattern, lines[0]), lines[0]
    return lines[0]


def test_npz_with_1d_X(tmp_path, capsys):
    X, y = _good_arrays()
    path = _npz(tmp_path / "d.npz", X=X[:, 0], y=y)
    _fails_in_one_line(capsys, ["select", path, "-q"], r"'X' must be 2-D .*\(40,\)")


def test_npz_with_short_feature_names(tmp_path, capsys):
    X, y = _good_arrays()
    path = _npz(tmp_path / "d.npz", X=X, y=y, feature_names=np.array(["a", "b"]))
    _fails_in_one_line(capsys, ["select", path, "-q"], r"'feature_names' has 2 entries .* 3 col")


def test_npz_with_y_of_wrong_length(tmp_path, capsys):
    X, y = _good_arrays()
    path = _npz(tmp_path / "d.npz", X=X, y=y[:-1])
    _fails_in_one_line(capsys, ["select", path, "-q"], r"'y' must be 1-D with one label per row")


def test_output_under_a_file_or_onto_a_folder(tmp_path, capsys):
    X, y = _good_arrays()
    path = _npz(tmp_path / "d.npz", X=X, y=y)
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    _fails_in_one_line(
        capsys,
        ["select", path, "-q", "-k", "1", "-o", str(blocker / "r.json")],
        r"--output .*cannot write the file",
    )
    folder = tmp_path / "out"
    folder.mkdir()
    _fails_in_one_line(
        capsys, ["select", path, "-q", "-k", "1", "-o", str(folder)], r"--output .*is a folder"
    )


def test_messages_name_columns_by_header(tmp_path, capsys):
    X, y = _good_arrays()
    X[:, 2] = np.where(y == 1, 1e308, -1e308)
    path = _npz(tmp_path / "d.npz", X=X, y=y, feature_names=np.array(["age", "income", "big"]))
    line = _fails_in_one_line(capsys, ["select", path, "-q", "-m", "relieff"], r"column 'big'")
    assert "column '2'" not in line


def test_csv_inf_named_by_header(tmp_path, capsys):
    path = tmp_path / "d.csv"
    rows = ["a,b,label"] + [f"{i % 5},{'inf' if i == 3 else i},{i % 2}" for i in range(20)]
    path.write_text("\n".join(rows) + "\n")
    line = _fails_in_one_line(capsys, ["select", str(path), "-t", "label", "-q"], r"column 'b'")
    assert "'1'" not in line


def test_unexpected_error_is_one_line_and_debug_shows_traceback(tmp_path, monkeypatch, capsys):
    import fsel.cli.main as cli

    def boom(args):
        raise IndexError("index 7 is out of bounds for axis 0 with size 3")

    monkeypatch.setattr(cli, "_cmd_methods", boom)
    line = _fails_in_one_line(capsys, ["methods"], r"IndexError: index 7 .*--debug")
    assert line
    with pytest.raises(IndexError):
        main(["--debug", "methods"])


def test_debug_flag_through_the_console_script(tmp_path):
    X, y = _good_arrays()
    path = _npz(tmp_path / "d.npz", X=X[:, 0], y=y)
    cmd = [FSEL] if FSEL else [sys.executable, "-m", "fsel"]
    r = subprocess.run([*cmd, "select", path], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = subprocess.run(
        [*cmd, "select", path, "--debug"], capture_output=True, text=True, timeout=120
    )
    assert r.returncode != 0 and "Traceback (most recent call last)" in r.stderr


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("column '2' is bad", "column 'c' is bad"),
        ("in column 1, and column '0'", "in column 'b', and column 'a'"),
        ("column 9 is out of range", "column 9 is out of range"),  # no such column: kept
        ("column 1.5 of x", "column 1.5 of x"),
    ],
)
def test_name_columns(message, expected):
    assert name_columns(message, ["a", "b", "c"]) == expected


def test_boolean_column_with_empty_cells_reports_missing_values(tmp_path, capsys):
    path = tmp_path / "d.csv"
    rows = ["a,flag,label"] + [f"{i},{'' if i == 2 else i % 2 == 0},{i % 2}" for i in range(12)]
    path.write_text("\n".join(rows) + "\n")
    # a boolean column is categorical; its empty cells are missing values, handled by
    # the method's own rule
    out = tmp_path / "r.json"
    assert main(["select", str(path), "-t", "label", "-q", "-o", str(out)]) == 0
    import json

    assert json.loads(out.read_text())["feature_types"]["flag"] == "categorical"


def _cleve_like(n: int = 120, seed: int = 0):
    """A table whose label follows column ``thal``; ``chol`` is noise."""
    rng = np.random.default_rng(seed)
    thal = rng.integers(0, 3, n)
    chol = rng.normal(240, 40, n).round()
    label = (thal + rng.integers(0, 2, n) > 1).astype(int)
    return thal, chol, label


def _write_rows(path, header, rows):
    path.write_text(",".join(header) + "\n" + "\n".join(",".join(r) for r in rows) + "\n")
    return str(path)


@pytest.mark.parametrize("marker", ["?", "NA", ""])
def test_question_mark_cells_are_missing_values_like_na(tmp_path, capsys, marker):
    """A UCI-style "?" is a missing value: the columns stay numeric and the picks are
    those of the same table with NA or empty cells (before, "?" made every column
    with one a text column, and JMI ranked the noise first)."""
    thal, chol, label = _cleve_like()
    rows = []
    for i in range(thal.size):
        t = marker if i % 10 == 3 else str(thal[i])
        c = marker if i % 7 == 2 else f"{chol[i]:.0f}"
        rows.append([t, c, str(label[i])])
    path = _write_rows(tmp_path / "t.csv", ["thal", "chol", "label"], rows)
    out = tmp_path / "r.json"
    assert main(["select", path, "-t", "label", "-k", "2", "-q", "-o", str(out)]) == 0
    import json

    got = json.loads(out.read_text())
    assert [f["name"] for f in got["features"]] == ["thal", "chol"]
    assert "categorical" not in capsys.readouterr().err  # no column taken as text


def test_question_mark_without_pandas_too(tmp_path, monkeypatch):
    from fsel.cli import io

    path = tmp_path / "t.csv"
    path.write_text("a,b,y\n1,?,0\n2,x,1\nNA,3,0\n")
    names, cols = io._read_csv_plain(path)
    assert names == ["a", "b", "y"]
    assert np.isnan(cols["a"][2]) and cols["a"][:2].tolist() == [1.0, 2.0]
    assert cols["b"].tolist() == [None, "x", "3"]  # a text column: "?" is missing there too


@pytest.mark.parametrize("plain", [False, True])
def test_a_column_name_given_twice_is_an_error(tmp_path, capsys, monkeypatch, plain):
    """Two columns named ``label``: an error naming it (before, pandas renamed the
    second ``label.1`` and ``-t label`` silently took the first)."""
    if plain:
        monkeypatch.setitem(sys.modules, "pandas", None)
    path = _write_rows(tmp_path / "d.csv", ["label", "x", "label"], [["1", "2", "0"]] * 5)
    _fails_in_one_line(capsys, ["select", path, "-t", "label"], r"more than once: 'label'")


def test_npz_refuses_a_target_name(tmp_path, capsys):
    X, y = _good_arrays()
    path = _npz(tmp_path / "d.npz", X=X, y=y)
    _fails_in_one_line(capsys, ["select", path, "-t", "foo"], r"--target foo: a \.npz file")
    assert main(["select", path, "-t", "y", "-k", "1", "-q"]) == 0


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (["--plot", "p.png"], r"--plot applies with --npfs only"),
        (["--alpha", "0.5"], r"--alpha applies with --npfs only"),
        (["--threshold", "0.9"], r"--threshold applies with --stability only"),
        (["--draws", "4"], r"--draws applies with --fdr only"),
        (["--n-resamples", "7"], r"--n-resamples applies with --npfs or --stability"),
        (["--npfs", "--threshold", "0.9"], r"--threshold applies with --stability only"),
        (["-m", "k3", "--bootstrap", "0"], r"--bootstrap needs .* >= 1, got 0"),
        (["-o", "r.tsv"], r"give a \.json or a \.csv file name"),
    ],
)
def test_options_that_would_be_ignored_are_refused(tmp_path, capsys, monkeypatch, extra, pattern):
    monkeypatch.chdir(tmp_path)  # an output written in spite of the error lands here
    X, y = _good_arrays()
    path = _npz(tmp_path / "d.npz", X=X, y=y)
    _fails_in_one_line(capsys, ["select", path, "-k", "1", *extra], pattern)


def test_json_output_writes_null_for_nan_scores(tmp_path):
    """A ranking index scores a column without an observed value NaN: the JSON says
    null (strict JSON, which Python's and JavaScript's parsers accept)."""
    import json

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=60), np.full(60, np.nan)])
    y = (X[:, 0] > 0).astype(int)
    path = _npz(tmp_path / "d.npz", X=X, y=y)
    out = tmp_path / "r.json"
    assert main(["select", path, "-m", "k3", "-k", "2", "-q", "-o", str(out)]) == 0
    text = out.read_text()
    assert "NaN" not in text
    scores = [f["score"] for f in json.loads(text, parse_constant=lambda c: 1 / 0)["features"]]
    assert None in scores


def test_usage_errors_are_one_line(capsys):
    """argparse's usage errors: one line naming the argument (not the whole usage)."""
    with pytest.raises(SystemExit) as exit_:
        main(["select", "x.npz", "-k", "abc"])
    assert exit_.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fsel: error: argument -k"), lines


def test_warnings_are_one_line_once_and_restored(tmp_path, capsys):
    import warnings

    path = tmp_path / "w.csv"
    # column b holds a distinct value in every row: the identifier warning
    path.write_text("a,b,label\n" + "".join(f"{i % 5},id{i},{i % 2}\n" for i in range(60)))
    before = warnings.formatwarning
    assert main(["select", str(path), "-t", "label", "-k", "1", "-q"]) == 0
    assert warnings.formatwarning is before  # the caller's settings are restored
    # as printed by a real process (pytest records warnings instead of printing them)
    run = subprocess.run(
        [sys.executable, "-m", "fsel", "select", str(path), "-t", "label", "-k", "1", "-q"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    err = run.stderr
    warned = [ln for ln in err.splitlines() if "warning" in ln.lower()]
    assert warned and all(ln.startswith("fsel: warning: ") for ln in warned), err
    assert len(warned) == len(set(warned))
    assert ".py:" not in err  # no library file and line


def test_a_one_class_target_names_the_class_plainly(tmp_path, capsys):
    X, _ = _good_arrays()
    path = _npz(tmp_path / "d.npz", X=X, y=np.ones(40, dtype=np.int64))
    line = _fails_in_one_line(capsys, ["select", path, "-k", "1"], r"only one class \(1\)")
    assert "np.int64" not in line
