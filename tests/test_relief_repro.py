"""Tests of the Yang & Hu reproductions: the incremental k-NN error curve equals the
shared protocol's classifier on every prefix, the probe protocol's pieces, and the
quick runs' outputs."""

from __future__ import annotations

import numpy as np
import pytest

from fsel.experiments import repro_yang_hu as rh
from fsel.experiments.protocols import knn_predict


def test_incremental_knn_curve_equals_protocol_knn():
    rng = np.random.default_rng(0)
    S_tr = rng.integers(0, 3, size=(40, 6)) / 2.0  # ties in distances and votes
    S_te = rng.integers(0, 3, size=(25, 6)) / 2.0
    y_tr = rng.integers(0, 3, size=40)
    y_te = rng.integers(0, 3, size=25)
    order = rng.permutation(6)
    grid = np.arange(1, 7)
    curve = rh._knn_error_curve(S_tr, y_tr, S_te, y_te, order, grid)
    for m, err in zip(grid, curve, strict=True):
        cols = order[:m]
        pred = knn_predict(S_tr[:, cols], y_tr, S_te[:, cols], rh.KNN_K)
        assert err == pytest.approx(np.mean(pred != y_te), abs=0)


def test_hide_minority_and_split():
    rng = np.random.default_rng(1)
    y = np.r_[np.zeros(80, int), np.ones(20, int)]
    X = np.arange(100.0)[:, None]
    Xh, yh = rh._hide_minority(X, y, rng)
    assert np.bincount(yh).tolist() == [80, 4]
    assert np.all(y[Xh[:, 0].astype(int)] == yh)  # rows kept with their labels
    tr, te = rh._split(yh.size, None, yh, rng)
    assert set(yh[tr]) == {0, 1}
    assert tr.size == round(0.6 * yh.size) and np.intersect1d(tr, te).size == 0


def test_probe_protocol_recovers_an_obvious_feature():
    from fsel import ReliefF

    rng = np.random.default_rng(2)
    X = rng.random((120, 2))
    y = (X[:, 0] + X[:, 1] > 1.0).astype(int)  # both original features relevant
    res = rh.evaluate_selectors(
        X,
        y,
        np.zeros(2, bool),
        {"ReliefF": lambda cat: ReliefF(categorical=cat)},
        n_runs=2,
        n_train=80,
        seed=0,
        quick=True,
    )["ReliefF"]
    assert res["auc"].shape == (2,)
    assert res["auc"].min() > 0.95  # both ranked above all 50 probes
    assert res["best_err"] < 0.1 and res["best_m"] >= 1


@pytest.mark.datasets
def test_quick_reproduction_outputs(shared_datasets, tmp_path):
    rep = rh.yanghu_multiclass(tmp_path, quick=True, data_path=shared_datasets)
    assert rep.name == "yanghu-multiclass" and rep.quick
    assert rep.command == "fsel reproduce yanghu-multiclass --seed 0 --quick"
    assert "M-Relief" in rep.ours and rep.paper and rep.agreement
    for path in rep.tables.values():
        assert path.exists() and path.stat().st_size > 0
    assert set(rh.REPRODUCTIONS) == {"yanghu-roc", "yanghu-imbalanced", "yanghu-multiclass"}
