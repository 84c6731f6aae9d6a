"""Missing values in the information criteria (SPEC section 10): the "level" rule,
pairwise deletion ("available"), "error", and bit-identical results without NaN."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import fsel

NAMES = [
    "MIM",
    "MIFS",
    "MRMR",
    "JMI",
    "CMIM",
    "DISR",
    "ICAP",
    "CIFE",
    "CondRed",
    "CMI",
    "BetaGamma",
    "JMIM",
]

FROZEN = Path(__file__).resolve().parent / "data" / "information_frozen.json"


# ------------------------------------------------- frozen results of the old code


def frozen_cases() -> list[tuple[str, tuple]]:
    """(key, (name, params, X, y)) for every frozen case; complete data only."""
    rng = np.random.default_rng(20261124)
    n, d = 150, 10
    Xf = rng.normal(size=(n, d))
    Xf[:, 3] = Xf[:, 1] + 0.3 * rng.normal(size=n)
    yf = (Xf[:, 1] + Xf[:, 5] > 0).astype(int) + (Xf[:, 7] > 1).astype(int)
    Xi = rng.integers(0, 4, size=(n, d))
    yi = (Xi[:, 2] + Xi[:, 6]) % 3
    settings = {
        "uniform": ({}, Xf, yf),
        "quantile-mm": (
            {"discretize": "quantile", "n_bins": 4, "estimator": "miller_madow"},
            Xf,
            yf,
        ),
        "integer": ({}, Xi, yi),
    }
    extra = {"MIFS": {"beta": 0.5}, "BetaGamma": {"beta": 0.3, "gamma": 0.7}}
    out = []
    for skey, (params, X, y) in settings.items():
        for name in NAMES:
            out.append((f"{skey}/{name}", (name, {**params, **extra.get(name, {})}, X, y)))
    return out


def frozen_record(fs, name: str, params: dict, X: np.ndarray, y: np.ndarray) -> dict:
    sel = getattr(fs, name)(**params).fit(X, y)

    def hexes(a):
        return [float(v).hex() for v in np.asarray(a, dtype=np.float64)]

    return {
        "order": sel.selection_order_.tolist(),
        "scores": hexes(sel.scores_),
        "step_scores": hexes(sel.selection_scores_),
        "relevance": hexes(sel.relevance_),
        "n_levels": np.asarray(sel.n_levels_).tolist(),
    }


def _current_backend() -> str:
    from fsel.kernels._counting import numba_enabled

    return "numba" if numba_enabled() else "numpy"


@pytest.mark.parametrize("missing", ["level", "available", "error"])
def test_complete_data_bit_identical_to_before(backend, missing):
    """Without NaN, every rule reproduces the results of the code before the
    missing-value rules (frozen from commit f3493ae, per back-end) bit for bit."""
    frozen = json.loads(FROZEN.read_text())[_current_backend()]
    cases = frozen_cases()
    assert set(frozen) == {key for key, _ in cases}
    for key, (name, params, X, y) in cases:
        got = frozen_record(fsel, name, {**params, "missing": missing}, X, y)
        assert got == frozen[key], key


# ------------------------------------------------------------ hand-computed tables

M = np.nan


def test_discretize_learns_edges_on_observed_values_and_adds_the_missing_level():
    from fsel.kernels.discretize import discretize

    X = np.array([[0.0, 2], [1.0, M], [2.0, 5], [3.0, 2], [M, M], [10.0, 7]])
    codes, levels, edges = discretize(X, np.array([False, True]), 2, missing=np.array([1, 1]))
    # observed range of column 0 is [0, 10]: one inner edge at 5 (NaN ignored)
    assert edges[0].tolist() == [5.0]
    assert edges[1] is None
    assert codes.tolist() == [[0, 0, 0, 0, 2, 1], [0, 3, 1, 0, 3, 2]]
    assert levels.tolist() == [3, 4]
    # quantile edges on the observed values only: median of [0, 1, 2, 3, 10] is 2
    _, _, qedges = discretize(X, None, 2, "quantile", missing=np.array([1, 0]))
    assert qedges[0].tolist() == [2.0]
    # an all-missing column is one level; strategy=None accepts NaN in integer columns
    codes, levels, _ = discretize(np.array([[M, 1.0], [M, M]]), None, 5, None, np.array([1, 1]))
    assert codes.tolist() == [[0, 0], [0, 1]]
    assert levels.tolist() == [1, 2]


def test_relevance_with_a_missing_level_by_hand():
    # x: 0 0 1 1 M M ; y: 0 0 1 1 0 1
    # "level": H(X) = log2 3, H(Y) = 1, H(X,Y) = log2 3 + 1/3  ->  I = 2/3 bit
    # "available": rows 0-3 only, where x determines y  ->  I = 1 bit
    X = np.array([[0, 1.0], [0, 0], [1, 1], [1, 0], [M, 1], [M, 0]])
    y = np.array([0, 0, 1, 1, 0, 1])
    level = fsel.MIM(missing="level").fit(X, y)
    assert level.relevance_[0] == pytest.approx(2 / 3, abs=1e-12)
    assert level.n_levels_.tolist() == [3, 2]
    avail = fsel.MIM(missing="available").fit(X, y)
    assert avail.relevance_[0] == pytest.approx(1.0, abs=1e-12)
    assert avail.n_levels_.tolist() == [3, 2]
    # column 1 (complete): cells (x, y) = (1,0) x2, (0,0), (1,1), (0,1) x2; sum c log2 c = 4,
    # so H(X,Y) = log2 6 - 4/6 and I = H(X) + H(Y) - H(X,Y) = 2 - (log2 6 - 4/6)
    expected = 2 - (np.log2(6) - 4 / 6)
    assert level.relevance_[1] == pytest.approx(expected, abs=1e-12)
    assert avail.relevance_[1] == pytest.approx(expected, abs=1e-12)


def test_pair_terms_with_missing_by_hand(backend):
    from fsel.kernels.discretize import discretize
    from fsel.kernels.information import InformationTable

    # x1 = x2 = 0 0 1 1 M M, y = 0 1 0 1 0 1
    X = np.array([[0, 0], [0, 0], [1, 1], [1, 1], [M, M], [M, M]], dtype=float)
    y = np.array([0, 1, 0, 1, 0, 1])
    codes, levels, _ = discretize(X, np.ones(2, bool), 5, missing=np.ones(2, bool))
    level = InformationTable(codes, levels, y).pair_terms(0)
    # "level": X1 = X2 with three equiprobable levels: I(X1;X2) = log2 3
    assert level.mi[1] == pytest.approx(np.log2(3), abs=1e-12)
    # y is independent of x1 given every level (one 0 and one 1 each): I(X1X2;Y) = 0,
    # H(X1,X2,Y) = log2 6
    assert level.joint_mi[1] == pytest.approx(0.0, abs=1e-12)
    assert level.joint_entropy[1] == pytest.approx(np.log2(6), abs=1e-12)
    avail = InformationTable(codes, levels, y, missing_codes=levels - 1).pair_terms(0)
    # "available": rows 0-3 only: I(X1;X2) = 1, H(X1,X2,Y) = log2 4 = 2
    assert avail.mi[1] == pytest.approx(1.0, abs=1e-12)
    assert avail.joint_entropy[1] == pytest.approx(2.0, abs=1e-12)
    assert avail.cmi_given_y[1] == pytest.approx(1.0, abs=1e-12)
