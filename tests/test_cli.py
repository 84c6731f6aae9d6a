"""The ``fsel`` command end to end, through the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from fsel.cli.main import main

FSEL = shutil.which("fsel") or ""


def run(*args: str) -> subprocess.CompletedProcess:
    cmd = [FSEL, *args] if FSEL else [sys.executable, "-m", "fsel", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_version_and_methods():
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("fsel ")
    r = run("methods")
    assert r.returncode == 0
    for name in ("jmi", "mrmr", "cmim", "relieff", "classifiability", "k3"):
        assert f"  {name} " in r.stdout


def test_select_csv_writes_json_and_csv(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = np.where(X[:, 4] > 0, "yes", "no")
    path = tmp_path / "d.csv"
    with path.open("w") as fh:
        fh.write("a,b,c,d,signal,f,label\n")
        for row, lab in zip(X, y, strict=True):
            fh.write(",".join(f"{v:.6f}" for v in row) + f",{lab}\n")
    out = tmp_path / "r.json"
    r = run(
        "select", str(path), "--target", "label", "--method", "jmi", "-k", "2", "--output", str(out)
    )
    assert r.returncode == 0, r.stderr
    assert "signal" in r.stdout
    res = json.loads(out.read_text())
    assert res["features"][0]["name"] == "signal"
    assert res["features"][0]["index"] == 4
    assert res["n_features"] == 6
    out_csv = tmp_path / "r.csv"
    r = run("select", str(path), "-t", "label", "-m", "mrmr", "-k", "3", "-o", str(out_csv))
    assert r.returncode == 0, r.stderr
    lines = out_csv.read_text().splitlines()
    assert lines[0] == "rank,index,name,score" and len(lines) == 4


def test_select_real_dataset(shared_datasets):
    r = run("select", str(shared_datasets / "wdbc.npz"), "--method", "jmi", "-k", "5")
    assert r.returncode == 0, r.stderr
    assert len([ln for ln in r.stdout.splitlines() if ln.strip()[:1].isdigit()]) == 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["select", "missing.csv", "-t", "y"], "no such file"),
        (["select", "{csv}", "-t", "nope"], "label column 'nope' is not in"),
        (["select", "{csv}", "-t", "y", "-k", "9"], "out of range"),
        (["select", "{csv}", "-t", "y", "-m", "nosuch"], "unknown method"),
        (["select", "{csv}", "-t", "y", "--sigma", "0.1"], "--sigma is not a parameter of jmi"),
        (["select", "{txt}", "-t", "y"], "cannot read"),
        (["select", "{strcsv}", "-t", "y"], "not declared categorical"),
    ],
)
def test_errors_are_one_clear_line(tmp_path, capsys, args, message):
    csv_path = tmp_path / "d.csv"
    csv_path.write_text("a,b,y\n1,2,0\n2,3,1\n3,1,0\n4,4,1\n")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x01\x02\xff")
    strcsv = tmp_path / "s.csv"
    strcsv.write_text("a,b,y\nred,2,0\nblue,3,1\nred,1,0\n")
    args = [a.format(csv=csv_path, txt=bad, strcsv=strcsv) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_categorical_flag_and_generated_data(tmp_path, capsys):
    strcsv = tmp_path / "s.csv"
    rows = ["colour,b,y"] + [f"{'red' if i % 2 else 'blue'},{i % 3},{i % 2}" for i in range(40)]
    strcsv.write_text("\n".join(rows) + "\n")
    assert main(["select", str(strcsv), "-t", "y", "-k", "1", "--categorical", "colour"]) == 0
    assert "colour" in capsys.readouterr().out
    assert main(["select", "generated:npfs", "-k", "5", "-m", "jmi"]) == 0
    out = capsys.readouterr().out
    picked = [int(ln.split()[1]) for ln in out.splitlines() if ln.strip()[:1].isdigit()]
    assert sorted(picked) == [0, 1, 2, 3, 4]


def test_parquet(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.integers(0, 3, size=(100, 4)), columns=list("abcd"))
    df["y"] = (df["c"] > 0).astype(int)
    path = tmp_path / "d.parquet"
    df.to_parquet(path)
    assert main(["select", str(path), "-t", "y", "-k", "1"]) == 0
    assert " c" in capsys.readouterr().out
