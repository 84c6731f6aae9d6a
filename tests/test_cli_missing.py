"""Missing values through ``fsel.select``, NPFS and the CLI (issue 12 items 1 and 4)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import fsel
from fsel import NPFS, RankingIndex
from fsel.cli.main import main

INCOMPLETE = ("soybean_large", "congressional_voting", "crx", "breast_cancer_wisconsin_original")


def _rows(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()[:1].isdigit()]


@pytest.mark.parametrize("name", INCOMPLETE)
def test_cli_selects_on_real_incomplete_data(shared_datasets, tmp_path, capsys, name):
    path = shared_datasets / f"{name}.npz"
    with np.load(path) as z:
        assert np.isnan(z["X"]).any()  # the holes are NaN in the file
    out = tmp_path / "r.json"
    assert main(["select", str(path), "--method", "k3", "-k", "5", "-q", "-o", str(out)]) == 0
    assert len(_rows(capsys.readouterr().out)) == 5
    res = json.loads(out.read_text())
    assert res["params"]["missing"] == "available"
    assert all(np.isfinite(f["score"]) for f in res["features"])


def test_cli_classifiability_and_error_rule(shared_datasets, capsys):
    path = str(shared_datasets / "breast_cancer_wisconsin_original.npz")
    assert main(["select", path, "-m", "classifiability", "-k", "2", "-q"]) == 0
    assert 1 <= len(_rows(capsys.readouterr().out)) <= 2
    assert main(["select", path, "-m", "k3", "-k", "2", "-q", "--missing", "error"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing values" in err[0]


def test_cli_jmi_on_soybean(shared_datasets, capsys):
    from fsel.selectors.information import JMI

    if "missing" not in JMI().get_params():
        pytest.skip("JMI has no missing-value rule on this branch (the info branch adds it)")
    path = str(shared_datasets / "soybean_large.npz")
    assert main(["select", path, "--method", "jmi", "-k", "5", "-q"]) == 0
    assert len(_rows(capsys.readouterr().out)) == 5


def _incomplete(seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 150
    X = rng.standard_normal((n, 6))
    y = (X[:, 2] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    X[rng.random(X.shape) < 0.15] = np.nan
    return X, y


def test_select_passes_the_rule():
    X, y = _incomplete()
    res = fsel.select(X, y, method="k3", n_features_to_select=2)
    assert res.estimator.missing == "available" and res.features[0] == 2
    res = fsel.select(X, y, method="classifiability", n_features_to_select=1, missing="partial")
    assert res.features.tolist() == [2]
    with pytest.raises(ValueError, match="missing values"):
        fsel.select(X, y, method="k3", n_features_to_select=2, missing="error")
    with pytest.raises(ValueError, match="missing must be one of"):
        fsel.select(X, y, method="k3", n_features_to_select=2, missing="level")


def test_npfs_lets_the_wrapped_selector_decide():
    X, y = _incomplete(1)
    X0 = X.copy()
    npfs = NPFS(RankingIndex(index="K3", n_features_to_select=1), n_resamples=20, random_state=0)
    npfs.fit(X, y)
    np.testing.assert_array_equal(X, X0)
    assert 2 in npfs.relevant_features_.tolist()
    strict = NPFS(RankingIndex(index="K3", n_features_to_select=1, missing="error"), n_resamples=5)
    with pytest.raises(ValueError, match="missing values"):
        strict.fit(X, y)
    with pytest.raises(ValueError, match="inf"):
        X[0, 0] = np.inf
        npfs.fit(X, y)


def test_cli_npfs_and_bootstrap_on_incomplete_data(shared_datasets, capsys):
    path = str(shared_datasets / "congressional_voting.npz")
    args = ["select", path, "-m", "k3", "-k", "3", "-q", "--npfs", "--n-resamples", "20"]
    assert main([*args, "--random-state", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("NPFS(k3):") and "physician-fee-freeze" in out
    assert main(["select", path, "-m", "k3", "-k", "2", "-q", "--bootstrap", "10"]) == 0
    assert len(_rows(capsys.readouterr().out)) == 2
