"""``fsel select --npfs`` end to end: the JSON report, the figure, workers, Dask."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import struct

import numpy as np
import pytest
from scipy.stats import binom

from fsel.cli.io import read_data
from fsel.cli.main import main
from fsel.datasets import make_npfs_uniform

ALPHA, N_BOOT, K = 0.01, 30, 10
ARGS = [
    "select",
    "generated:npfs",
    "--method",
    "jmi",
    "-k",
    str(K),
    "--npfs",
    "--n-resamples",
    str(N_BOOT),
    "--alpha",
    str(ALPHA),
    "--correction",
    "bh",
    "--random-state",
    "0",
    "-q",
]


def _run(tmp_path, name, *extra):
    out = tmp_path / f"{name}.json"
    assert main([*ARGS, "--output", str(out), *extra]) == 0
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    """The report of one serial run, with its figure and its printed summary."""
    tmp = tmp_path_factory.mktemp("npfs_cli")
    fig = tmp / "fig.png"
    plot = ["--plot", str(fig)] if importlib.util.find_spec("matplotlib") else []
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        report = _run(tmp, "serial", *plot)
    lines = buffer.getvalue().splitlines()
    return report, fig, lines


def test_generated_npfs_is_the_papers_uniform_data():
    # generated:npfs is make_npfs_uniform(1000, 25, 5, random_state=0): its first 5
    # features decide the class
    data = read_data("generated:npfs", None, [])
    X, y, relevant = make_npfs_uniform(1000, 25, 5, random_state=0)
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.y, y)
    assert relevant.tolist() == [0, 1, 2, 3, 4]


def test_json_report_is_consistent(serial):
    report, _, _ = serial
    K_all = report["n_features"]
    assert (report["alpha"], report["correction"], report["n_resamples"]) == (ALPHA, "bh", N_BOOT)
    rows = report["features"]
    assert len(rows) == report["n_relevant"] > 0
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    counts = np.array([r["count"] for r in rows])
    pvalues = np.array([r["pvalue"] for r in rows])
    # every relevant feature was picked more often than the threshold, best first
    assert (counts > report["threshold"]).all() and (counts <= N_BOOT).all()
    assert (np.diff(counts) <= 0).all()
    # a p-value is the binomial tail of its count: JMI returns k of K on every bootstrap
    np.testing.assert_allclose(pvalues, binom.sf(counts - 1, N_BOOT, K / K_all), rtol=1e-12)
    # p-values increase as counts decrease (equal counts, equal p-values)
    for i in range(len(rows) - 1):
        if counts[i] > counts[i + 1]:
            assert pvalues[i] < pvalues[i + 1]
        else:
            assert pvalues[i] == pvalues[i + 1]
    # Benjamini-Hochberg with m discoveries: every one has p <= alpha * m / K
    m = len(rows)
    assert report["alpha_effective"] == pytest.approx(ALPHA * m / K_all)
    assert (pvalues <= ALPHA * m / K_all).all()
    # the generator's relevant features are all found
    assert {0, 1, 2, 3, 4} <= {r["index"] for r in rows}
    assert {r["name"] for r in rows} >= {f"x{i}" for i in range(5)}


def test_summary_line_names_alpha_and_correction(serial):
    report, _, lines = serial
    summary = lines[0]
    assert summary.startswith(f"NPFS(jmi): {report['n_relevant']} relevant of 25 features")
    assert f"alpha={ALPHA}, correction=bh" in summary


def test_png_is_written(serial):
    pytest.importorskip("matplotlib")
    _, fig, lines = serial
    raw = fig.read_bytes()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    assert raw[12:16] == b"IHDR"
    width, height = struct.unpack(">II", raw[16:24])
    assert width >= 200 and height >= 200
    assert len(raw) > 5_000  # an image of the 25 x 30 matrix, not an empty canvas
    assert raw.endswith(b"IEND\xaeB`\x82")
    assert f"wrote {fig}" in lines


def test_two_jobs_give_the_same_report(serial, tmp_path):
    report, _, _ = serial
    assert _run(tmp_path, "jobs2", "--n-jobs", "2") == report


def test_dask_scheduler_gives_the_same_report(serial, tmp_path):
    distributed = pytest.importorskip("distributed")
    report, _, _ = serial
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster:
        got = _run(tmp_path, "dask", "--scheduler", cluster.scheduler_address)
    assert got == report


def test_no_correction_is_reported_as_none(tmp_path, capsys):
    args = [a if a != "bh" else "none" for a in ARGS]
    out = tmp_path / "none.json"
    assert main([*args, "--n-resamples", "10", "--output", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["correction"] == "none" and report["alpha_effective"] == ALPHA
    assert f"alpha={ALPHA}, correction=none" in capsys.readouterr().out
