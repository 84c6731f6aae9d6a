"""CLI failures are one line and a non-zero exit, never a traceback (issue 17, item 8)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from fsel.cli.main import main, name_columns

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
