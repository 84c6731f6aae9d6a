"""``fsel select FILES --scheduler ...``: lazy reading and the information criteria on Dask."""

from __future__ import annotations

import json

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

import fsel  # noqa: E402
from fsel.cli.main import main  # noqa: E402


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """Three Parquet files and the same table in memory."""
    folder = tmp_path_factory.mktemp("parts")
    rng = np.random.default_rng(0)
    frames = []
    for i in range(3):
        X = rng.normal(size=(700, 6))
        df = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
        df["colour"] = np.array(["red", "green", "blue"])[rng.integers(0, 3, 700)]
        df["label"] = np.where(X[:, 1] - X[:, 4] > 0.2, "up", "down")
        df.to_parquet(folder / f"part{i}.parquet")
        df.to_csv(folder / f"part{i}.csv", index=False)
        frames.append(df)
    return folder, pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def address():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster:
        yield cluster.scheduler_address


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_glob_on_a_scheduler_equals_in_memory(parts, address, tmp_path, capsys, suffix):
    folder, whole = parts
    out = tmp_path / "r.json"
    rc = main(
        [
            "select",
            str(folder / f"*.{suffix}"),
            "--target",
            "label",
            "--method",
            "mrmr",
            "-k",
            "3",
            "--categorical",
            "colour",
            "--scheduler",
            address,
            "-o",
            str(out),
            "-q",
        ]
    )
    assert rc == 0, capsys.readouterr().err
    got = json.loads(out.read_text())
    ref = fsel.MRMR(3, categorical=["colour"]).fit(whole.drop(columns="label"), whole["label"])
    assert [r["index"] for r in got["features"]] == ref.selection_order_.tolist()
    np.testing.assert_allclose(
        [r["score"] for r in got["features"]], ref.selection_scores_, atol=1e-9
    )
    assert {r["name"] for r in got["features"][:2]} == {"f1", "f4"}
    assert got["scheduler"] == address


def test_scheduler_errors(parts, address, capsys):
    folder, _ = parts
    rc = main(
        [
            *["select", str(folder / "*.parquet"), "-t", "label", "-m", "surf"],
            *["--scheduler", address],
        ]
    )
    assert rc == 2 and "surf does not run on Dask yet" in capsys.readouterr().err
    rc = main(
        [
            *["select", str(folder / "*.parquet"), "-t", "label", "-m", "relieff"],
            *["--scheduler", address],
        ]
    )
    assert rc == 2 and "needs --sample-size" in capsys.readouterr().err
    rc = main(["select", str(folder / "*.parquet"), "-t", "label", "--scheduler", address])
    assert rc == 2 and "--categorical colour" in capsys.readouterr().err
    rc = main(["select", str(folder / "none*.parquet"), "-t", "label", "--scheduler", address])
    assert rc == 2 and "no such file" in capsys.readouterr().err
    rc = main(["select", str(folder / "*.parquet"), "-t", "label", "--scheduler", "local:x"])
    assert rc == 2 and "local:N" in capsys.readouterr().err


def test_relieff_with_a_reference_sample_on_a_scheduler(parts, address, tmp_path, capsys):
    _, whole = parts
    numeric = whole.drop(columns="colour")
    for i, rows in enumerate([slice(0, 500), slice(500, 1400), slice(1400, None)]):
        numeric.iloc[rows].to_parquet(tmp_path / f"n{i}.parquet")
    out = tmp_path / "r.json"
    rc = main(
        [
            *["select", str(tmp_path / "n*.parquet"), "-t", "label", "-m", "relieff"],
            *["-k", "3", "--sample-size", "150", "--random-state", "4", "--n-neighbors", "5"],
            *["--scheduler", address, "-o", str(out), "-q"],
        ]
    )
    assert rc == 0, capsys.readouterr().err
    got = json.loads(out.read_text())
    ref = fsel.ReliefF(3, n_neighbors=5, sample_size=150, random_state=4)
    ref.fit(numeric.drop(columns="label"), numeric["label"])
    assert [r["index"] for r in got["features"]] == ref.selection_order_.tolist()
    np.testing.assert_allclose(
        [r["score"] for r in got["features"]],
        ref.feature_importances_[ref.selection_order_],
        atol=1e-12,
    )
    assert {r["name"] for r in got["features"][:2]} == {"f1", "f4"}
    assert got["params"]["sample_size"] == 150


@pytest.mark.slow
def test_local_cluster_of_worker_processes(parts, capsys):
    folder, whole = parts
    rc = main(
        [
            *["select", str(folder / "*.parquet"), "-t", "label", "-k", "2"],
            *["--categorical", "colour", "--scheduler", "local:2", "-q"],
        ]
    )
    assert rc == 0
    ref = fsel.JMI(2, categorical=["colour"]).fit(whole.drop(columns="label"), whole["label"])
    lines = capsys.readouterr().out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "index"])
    rows = lines[head + 1 : head + 3]
    assert [int(line.split()[1]) for line in rows] == ref.selection_order_.tolist()
