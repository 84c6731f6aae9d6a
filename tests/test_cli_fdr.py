"""``fsel select --fdr Q`` and ``--stability``: the JSON records agree with the estimators."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

import fsel
from fsel.cli.main import main


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 24))
    y = (X[:, :12].sum(axis=1) + rng.normal(size=400) > 0).astype(int)
    path = tmp_path_factory.mktemp("d") / "d.npz"
    np.savez(path, X=X, y=y)
    return path, X, y


def _run(*argv):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        rc = main(list(argv))
    return rc, buf.getvalue()


def test_fdr_json_matches_the_estimator(data_file, tmp_path):
    path, X, y = data_file
    out = tmp_path / "ko.json"
    rc, text = _run(
        "select",
        str(path),
        "-m",
        "jmi",
        "--fdr",
        "0.2",
        "--random-state",
        "1",
        "-q",
        "-o",
        str(out),
    )
    assert rc == 0 and "false discovery rate 0.2" in text
    rec = json.loads(out.read_text())
    kf = fsel.KnockoffFilter(fsel.JMI(n_features_to_select=0.25), fdr=0.2, random_state=1)
    kf.fit(X, y)
    assert rec["method"] == "knockoff(jmi)" and rec["fdr"] == 0.2
    assert [f["index"] for f in rec["features"]] == kf.relevant_features_.tolist()
    assert rec["n_relevant"] == int(kf.support_.sum())
    assert rec["threshold"] == (kf.threshold_ if np.isfinite(kf.threshold_) else None)
    assert len(rec["W"]) == 24


def test_stability_json_matches_the_estimator(data_file, tmp_path):
    path, X, y = data_file
    out = tmp_path / "ss.json"
    rc, _ = _run(
        "select",
        str(path),
        "-m",
        "jmi",
        "-k",
        "4",
        "--stability",
        "--n-resamples",
        "8",
        "--threshold",
        "0.7",
        "--random-state",
        "2",
        "-q",
        "-o",
        str(out),
    )
    assert rc == 0
    rec = json.loads(out.read_text())
    ss = fsel.StabilitySelection(fsel.JMI(4), threshold=0.7, n_resamples=8, random_state=2)
    ss.fit(X, y)
    assert [f["index"] for f in rec["features"]] == ss.relevant_features_.tolist()
    assert rec["average_selected"] == 4.0
    assert rec["error_bound"] == pytest.approx(16 / (0.4 * 24))
    np.testing.assert_allclose(list(rec["frequencies"].values()), ss.selection_frequencies_)


def test_one_wrapper_at_a_time(data_file):
    path, _, _ = data_file
    rc, _ = _run("select", str(path), "--fdr", "0.1", "--stability", "-q")
    assert rc != 0


def test_the_docs_page_examples_run():
    """The code blocks of docs/user_guide/knockoffs.rst run as written (in order)."""
    import re
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "knockoffs.rst"
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", page.read_text())
    assert len(blocks) == 3
    namespace: dict = {}
    for block in blocks:
        code = "\n".join(line[3:] for line in block.splitlines())
        exec(compile(code, str(page), "exec"), namespace)
    assert set(range(15)) >= set(namespace["kf"].relevant_features_[:5].tolist())
    assert namespace["ss"].error_bound_ == pytest.approx(25 / (0.2 * 60))
