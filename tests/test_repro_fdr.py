"""``fsel reproduce fdr``: the designs, the stability-selection size rule, and the quick
run end to end (slow)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fsel.experiments.repro_fdr import FULL_GRID, _stability_m, make_design


@pytest.mark.parametrize("design", ["iid", "ar1", "categorical"])
@pytest.mark.parametrize("response", ["logistic", "xor", "threshold"])
def test_designs(design, response):
    X, y, rel, cov = make_design(design, response, 2000, 12, 4, np.random.default_rng(0))
    assert X.shape == (2000, 12) and rel.size == 4 and set(np.unique(y)) == {0, 1}
    if design == "categorical":
        assert cov is None and set(np.unique(X)) == {0.0, 1.0, 2.0, 3.0}
    else:
        # the sample covariance is the design's (AR(1) with rho 0.5, or identity)
        np.testing.assert_allclose(np.cov(X, rowvar=False), cov, atol=0.1)
    if response == "xor" and design != "categorical":
        # no marginal signal: each relevant feature alone is nearly uncorrelated with y
        c = [abs(np.corrcoef(X[:, j], y)[0, 1]) for j in rel]
        assert max(c) < 0.1


def test_stability_size_keeps_the_bound_at_one():
    for p in (50, 200, 500):
        m = _stability_m(p)
        assert m**2 / (0.2 * p) <= 1.0 < (m + 1) ** 2 / (0.2 * p)


def test_full_grid_spans_the_issue_ranges():
    ns = {c[2] for c in FULL_GRID}
    ps = {c[3] for c in FULL_GRID}
    assert min(ns) == 300 and max(ns) == 3000 and min(ps) == 50 and max(ps) == 500
    assert all(10 <= c[4] <= 20 and c[5] >= 100 for c in FULL_GRID)


@pytest.mark.slow
def test_quick_run(tmp_path):
    from fsel.experiments.repro_fdr import fdr_study

    rep = fdr_study(tmp_path, quick=True)
    assert rep.quick and rep.tables["summary"].exists()
    text = rep.tables["summary"].read_text()
    assert "KO JMI order, true cov" in text and "SelectFdr" in text
    assert not math.isnan(len(rep.ours))
