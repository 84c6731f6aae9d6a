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
    heads = [ln for ln in r.stdout.splitlines() if ln.startswith("[")]
    assert len(heads) == len(set(heads))  # each family under one heading


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


def _write_csv(path, X, y, names, target="y", y_format="{:.6f}"):
    with path.open("w") as fh:
        fh.write(",".join([*names, target]) + "\n")
        for row, v in zip(X, y, strict=True):
            fh.write(",".join(f"{a:.6f}" for a in row) + "," + y_format.format(v) + "\n")


def _regression_csv(tmp_path):
    from fsel.datasets import make_yuan_regression

    X, y, genuine = make_yuan_regression(1, n_samples=200, random_state=0)
    names = [f"f{j}" for j in range(X.shape[1])]
    path = tmp_path / "reg.csv"
    _write_csv(path, X, y, names)
    return path, {names[j] for j in genuine}, len(genuine)


def test_select_ranking_index_on_regression_csv(tmp_path):
    path, genuine, k = _regression_csv(tmp_path)
    out = tmp_path / "k3.json"
    r = run("select", str(path), "--target", "y", "--method", "k3", "-k", str(k), "-o", str(out))
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())
    assert res["method"] == "k3" and res["n_features"] == 10 and res["n_samples"] == 200
    assert {row["name"] for row in res["features"]} == genuine
    scores = [row["score"] for row in res["features"]]
    assert len(scores) == k and all(0 < s < 1 for s in scores)  # K3 lies in [0, 1)
    assert scores == sorted(scores, reverse=True)  # higher is better, best first
    # the scores are those of the library on the same table
    from fsel import RankingIndex

    data = np.loadtxt(path, delimiter=",", skiprows=1)
    sel = RankingIndex(index="K3", n_features_to_select=k).fit(data[:, :-1], data[:, -1])
    np.testing.assert_allclose(scores, sel.scores_[sel.selection_order_], rtol=1e-12)


def test_select_ranking_index_with_bootstrap(tmp_path):
    path, genuine, k = _regression_csv(tmp_path)
    out = tmp_path / "boot.json"
    r = run(
        "select",
        str(path),
        "--target",
        "y",
        "--method",
        "k3",
        "--bootstrap",
        "20",
        "--random-state",
        "0",
        "-k",
        str(k),
        "-q",
        "-o",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())
    assert res["params"]["n_resamples"] == 20 and res["params"]["index"] == "K3"
    assert {row["name"] for row in res["features"]} == genuine
    scores = [row["score"] for row in res["features"]]
    assert all(0 < s < 1 for s in scores) and scores == sorted(scores, reverse=True)


def test_integer_target_column_is_used_by_value(tmp_path, capsys):
    # the same integer-valued target written as "12" and as "12.0": identical In scores
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 4))
    y = np.round(10 * X[:, 1] + rng.normal(size=80)).astype(int)
    as_int, as_float = tmp_path / "int.csv", tmp_path / "float.csv"
    _write_csv(as_int, X, y, list("abcd"), y_format="{:d}")
    _write_csv(as_float, X, y, list("abcd"), y_format="{:.1f}")
    results = []
    for path in (as_int, as_float):
        out = path.with_suffix(".json")
        assert main(["select", str(path), "-t", "y", "-m", "in", "-k", "4", "-o", str(out)]) == 0
        results.append(json.loads(out.read_text())["features"])
    capsys.readouterr()
    assert results[0] == results[1]
    assert results[0][0]["name"] == "b"
    # In by hand on the values: (1 / 2n) sum of squared successive differences
    order = np.argsort(X[:, 1], kind="stable")
    expected = np.sum(np.diff(y[order].astype(float)) ** 2) / (2 * 80)
    assert results[0][0]["score"] == pytest.approx(expected, rel=1e-12)


def test_select_classifiability_with_epsilon_and_radius(tmp_path, capsys):
    rng = np.random.default_rng(2)
    n = 160
    labels = np.repeat(["spam", "ham"], n // 2)
    X = rng.uniform(size=(n, 5))
    X[:, 3] += 1.5 * (labels == "spam")  # only feature 3 separates the classes
    path = tmp_path / "cls.csv"
    _write_csv(path, X, labels, ["a", "b", "c", "relevant", "e"], target="label", y_format="{}")
    out = tmp_path / "cls.json"
    args = ["select", str(path), "-t", "label", "-m", "classifiability", "-k", "3", "-q"]
    args += ["--epsilon", "0.001", "--radius-factor", "5", "-o", str(out)]
    assert main(args) == 0
    assert "relevant" in capsys.readouterr().out
    res = json.loads(out.read_text())
    assert res["params"]["epsilon"] == 0.001 and res["params"]["radius_factor"] == 5.0
    assert res["features"][0]["name"] == "relevant" and res["features"][0]["index"] == 3
    # the classes do not overlap on feature 3 (gap 0.5 of its range 2.5, far more than
    # 5 nearest-neighbour distances): every neighbourhood is pure, L = 1, and no other
    # feature can add more than epsilon, so the search stops at one feature (k is a cap)
    assert [row["score"] for row in res["features"]] == [1.0]
