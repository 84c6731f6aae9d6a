"""RReliefF (ReliefF with a continuous target) against a brute-force reference written
here with plain loops; recovery on a regression problem; refusal elsewhere."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fsel.selectors.relief import SURF, IRelief, MRelief, MultiSURF, PRelief, Relief, ReliefF

# the papers' formulas on min-max scaled features: scaling="range" (conftest)
# these tests check weights on small or noisy tables, where fewer weights than the
# count to select are often positive: the warning about that is tested in
# test_relief_ties.py
pytestmark = [
    pytest.mark.usefixtures("papers_relief_scaling"),
    pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning"),
]


def brute_rrelieff(X, t, k, refs=None):
    N, D = X.shape
    Z = np.zeros_like(X)
    for d in range(D):
        lo, hi = X[:, d].min(), X[:, d].max()
        if hi > lo:
            Z[:, d] = (X[:, d] - lo) / (hi - lo)
    span = t.max() - t.min()
    s = k / 3.0
    refs = range(N) if refs is None else refs
    n_dc, n_da, n_dcda = 0.0, np.zeros(D), np.zeros(D)
    for i in refs:
        dist = [(sum(abs(Z[i, a] - Z[j, a]) for a in range(D)), j) for j in range(N) if j != i]
        near = [j for _, j in sorted(dist)[:k]]
        raw = [math.exp(-(((r + 1) / s) ** 2)) for r in range(len(near))]
        infl = [v / sum(raw) for v in raw]
        for j, w in zip(near, infl, strict=True):
            dt = abs(t[i] - t[j]) / span
            n_dc += w * dt
            for a in range(D):
                da = abs(Z[i, a] - Z[j, a])
                n_da[a] += w * da
                n_dcda[a] += w * dt * da
    m = len(refs)
    return n_dcda / n_dc - (n_da - n_dcda) / (m - n_dc)


def test_rrelieff_matches_brute_force():
    rng = np.random.default_rng(0)
    X = rng.random((15, 4))
    t = X[:, 1] + 0.3 * rng.random(15)
    est = ReliefF(n_neighbors=4).fit(X, t)
    np.testing.assert_allclose(est.margin_, brute_rrelieff(X, t, 4), rtol=1e-10, atol=1e-12)
    assert not hasattr(est, "classes_")
    refs = sorted(np.random.RandomState(2).choice(15, 6, replace=False).tolist())
    est = ReliefF(n_neighbors=4, sample_size=6, random_state=2).fit(X, t)
    np.testing.assert_allclose(est.margin_, brute_rrelieff(X, t, 4, refs), rtol=1e-10)


def test_rrelieff_recovers_regression_features():
    rng = np.random.default_rng(1)
    n = 400
    X = rng.random((n, 8))
    t = 2.0 * X[:, 3] + np.sin(6.0 * X[:, 6]) + 0.05 * rng.standard_normal(n)
    est = ReliefF().fit(X, t)
    assert set(est.selection_order_[:2].tolist()) == {3, 6}
    Xh = X.copy()
    Xh[rng.random(X.shape) < 0.2] = np.nan  # with holes (expected differences)
    assert set(ReliefF().fit(Xh, t).selection_order_[:2].tolist()) == {3, 6}


def test_integer_valued_float_target_stays_classification():
    rng = np.random.default_rng(2)
    X = rng.random((40, 3))
    y = (X[:, 0] > 0.5).astype(float)
    est = ReliefF().fit(X, y)
    assert est.classes_.tolist() == [0.0, 1.0]
    np.testing.assert_array_equal(est.margin_, ReliefF().fit(X, y.astype(int)).margin_)


@pytest.mark.parametrize("cls", [Relief, MRelief, SURF, MultiSURF, PRelief, IRelief])
def test_other_estimators_refuse_a_continuous_target(cls):
    rng = np.random.default_rng(3)
    X = rng.random((30, 3))
    with pytest.raises(ValueError, match="continuous"):
        cls().fit(X, X[:, 0] + 0.1)
