"""The missing-values experiment (issue 12 item 3): hole mechanisms and one small run."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from fsel import RankingIndex
from fsel.experiments.repro_missing import add_holes, missing_values


def test_mcar_rate_and_mnar_upper_tail():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4000, 5))
    X0 = X.copy()
    H = add_holes(X, "mcar", 0.2, np.random.default_rng(1))
    np.testing.assert_array_equal(X, X0)
    assert abs(np.isnan(H).mean() - 0.2) < 0.01
    np.testing.assert_array_equal(H[~np.isnan(H)], X[~np.isnan(H)])
    M = add_holes(X, "mnar", 0.5, np.random.default_rng(2))
    gone = np.isnan(M)
    q70 = np.quantile(X, 0.7, axis=0)
    assert (X[gone] > np.broadcast_to(q70, X.shape)[gone]).all()  # only the upper tail
    assert abs(gone.mean() - 0.15) < 0.01
    with pytest.raises(ValueError, match="mechanism"):
        add_holes(X, "mar", 0.1, rng)


@pytest.mark.slow
def test_small_run_scores_and_skips(tmp_path, shared_datasets):
    methods = {
        "K3": lambda k: RankingIndex(index="K3", n_features_to_select=k),
        "strict": lambda k: RankingIndex(index="K3", n_features_to_select=k, missing="error"),
    }
    rep = missing_values(tmp_path, quick=True, data_path=shared_datasets, methods=methods)
    with open(rep.tables["units"]) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * 2 * 2 * 3  # data sets x mechanisms x methods x strategies
    strict = [r for r in rows if r["method"] == "strict" and r["strategy"] == "built-in"]
    assert all(r["status"].startswith("skipped") for r in strict)
    assert "strict" in rep.ours and "skipped" in rep.ours
    own = [
        r
        for r in rows
        if r["method"] == "K3" and r["strategy"] == "built-in" and r["data"] == "generated"
    ]
    assert [float(r["score"]) for r in own] == [1.0, 1.0]  # the 3 relevant features found
    # the imputed and the strict-but-imputed runs agree: same complete table
    a = [r["selected"] for r in rows if r["method"] == "K3" and r["strategy"] == "mean-impute"]
    b = [r["selected"] for r in rows if r["method"] == "strict" and r["strategy"] == "mean-impute"]
    assert a == b
    for r in rows:
        if r["status"] == "ok":
            assert 0.0 <= float(r["score"]) <= 1.0 and 0.0 < float(r["nb"]) <= 1.0
