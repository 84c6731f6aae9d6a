"""The information-theoretic selectors against an independent brute-force reference
(plain loops over SPEC section 2's formulas), plus estimator behaviour."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import CategoricalNB
from sklearn.pipeline import make_pipeline

import fsel
from _criteria import INFORMATION_CRITERIA

NAMES = INFORMATION_CRITERIA


# ---------------------------------------------------------------- brute-force reference


def H(*cols):
    n = len(cols[0])
    counts = Counter(zip(*cols, strict=True))
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def I(a, b):  # noqa: E743
    return H(a) + H(b) - H(a, b)


def CI(a, b, c):
    return H(a, c) + H(b, c) - H(a, b, c) - H(c)


def pairs(a, b):
    return [(u, v) for u, v in zip(a, b, strict=True)]


def ref_score(name, X, y, k, S, beta=1.0, gamma=1.0):
    xk = list(X[:, k])
    cols = [list(X[:, j]) for j in S]
    rel = I(xk, y)
    if name == "MIM":
        return rel
    if name in ("MIFS", "BetaGamma", "CIFE", "CondRed"):
        b, g = {"MIFS": (beta, 0.0), "CIFE": (1.0, 1.0), "CondRed": (0.0, 1.0)}.get(
            name, (beta, gamma)
        )
        return rel - b * sum(I(xk, xj) for xj in cols) + g * sum(CI(xk, xj, y) for xj in cols)
    if name == "MRMR":
        return rel - sum(I(xk, xj) for xj in cols) / len(cols)
    if name == "JMI":
        return sum(I(pairs(xk, xj), y) for xj in cols)
    if name == "CMIM":
        return min([rel] + [CI(xk, y, xj) for xj in cols])
    if name == "ICAP":
        return rel - sum(max(0.0, I(xk, xj) - CI(xk, xj, y)) for xj in cols)
    if name == "DISR":
        tot = 0.0
        for xj in cols:
            h = H(xk, xj, y)
            tot += I(pairs(xk, xj), y) / h if h > 0 else 0.0
        return tot
    if name == "JMIM":
        return min(I(pairs(xk, xj), y) for xj in cols)
    if name == "CMI":
        s = [tuple(r) for r in zip(*cols, strict=True)]
        return CI(xk, y, s)
    raise AssertionError(name)


def check_against_reference(name, X, y, sel, tie=1e-9, **params):
    y = list(y)
    order = sel.selection_order_.tolist()
    assert len(set(order)) == len(order)
    for step, pick in enumerate(order):
        S = order[:step]
        cand = [k for k in range(X.shape[1]) if k not in S]
        if step == 0:
            scores = {k: I(list(X[:, k]), y) for k in cand}
        else:
            scores = {k: ref_score(name, X, y, k, S, **params) for k in cand}
        best = max(scores.values())
        assert scores[pick] >= best - tie, (name, step, pick, scores)
        tied = [k for k in cand if scores[k] >= best - tie]
        assert pick == min(tied), (name, step, pick, tied)
        assert sel.selection_scores_[step] == pytest.approx(scores[pick], abs=1e-9)


@pytest.mark.parametrize("name", NAMES)
def test_matches_brute_force_on_random_data(name, backend):
    for seed in range(4):
        rng = np.random.default_rng(seed)
        n, d = 60, 7
        X = rng.integers(0, 3, size=(n, d))
        X[:, 4] = rng.integers(0, 2, n)
        y = ((X[:, 1] + X[:, 2] + rng.integers(0, 2, n)) > 2).astype(int)
        sel = getattr(fsel, name)(n_features_to_select=5, discretize=None).fit(X, y)
        if name == "CMI":
            assert len(sel.selection_order_) <= 5
        else:
            assert len(sel.selection_order_) == 5
        check_against_reference(name, X, y, sel)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("MIFS", {"beta": 0.0}),
        ("MIFS", {"beta": 0.3}),
        ("MIFS", {"beta": 2.5}),
        ("BetaGamma", {"beta": 0.5, "gamma": 0.3}),
        ("BetaGamma", {"beta": 0.0, "gamma": 0.7}),
        ("BetaGamma", {"beta": 1.7, "gamma": 0.0}),
        ("BetaGamma", {"beta": 0.2, "gamma": 2.0}),
    ],
)
def test_mifs_and_betagamma_at_non_default_parameters(name, params, backend):
    """beta and gamma really enter the score: the brute force at these values agrees,
    and (except where they coincide) the defaults' reference would not."""
    for seed in range(3):
        rng = np.random.default_rng(100 + seed)
        n, d = 80, 7
        X = rng.integers(0, 3, size=(n, d))
        X[:, 5] = np.where(rng.random(n) < 0.6, X[:, 1], X[:, 5])  # redundant with 1
        y = ((X[:, 1] + X[:, 2] + rng.integers(0, 2, n)) > 2).astype(int)
        sel = getattr(fsel, name)(n_features_to_select=5, discretize=None, **params).fit(X, y)
        check_against_reference(name, X, y, sel, **params)
    # the score of step 2 depends on the parameters as the formula says
    S, k = sel.selection_order_[:1].tolist(), int(sel.selection_order_[1])
    b, g = params.get("beta", 1.0), params.get("gamma", 0.0 if name == "MIFS" else 1.0)
    xk, xs = list(X[:, k]), list(X[:, S[0]])
    expected = I(xk, list(y)) - b * I(xk, xs) + g * CI(xk, xs, list(y))
    assert sel.selection_scores_[1] == pytest.approx(expected, abs=1e-9)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    name=st.sampled_from(["MIFS", "BetaGamma"]),
    beta=st.floats(0, 3),
    gamma=st.floats(0, 3),
)
def test_mifs_and_betagamma_property(seed, name, beta, gamma):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(40, 6))
    y = rng.integers(0, 2, 40)
    y[:2] = [0, 1]
    params = {"beta": beta} if name == "MIFS" else {"beta": beta, "gamma": gamma}
    sel = getattr(fsel, name)(n_features_to_select=4, discretize=None, **params).fit(X, y)
    check_against_reference(name, X, y, sel, tie=1e-7, **params)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    name=st.sampled_from(NAMES),
    n_classes=st.integers(2, 4),
)
def test_matches_brute_force_property(seed, name, n_classes):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(40, 6))
    y = rng.integers(0, n_classes, 40)
    y[:n_classes] = np.arange(n_classes)
    sel = getattr(fsel, name)(n_features_to_select=4, discretize=None).fit(X, y)
    check_against_reference(name, X, y, sel)


@pytest.mark.parametrize("name", NAMES)
def test_column_permutation_permutes_selection(name):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 8))
    y = (X[:, 2] + 0.5 * X[:, 5] + 0.3 * rng.normal(size=300) > 0).astype(int)
    perm = rng.permutation(8)
    a = getattr(fsel, name)(4).fit(X, y)
    b = getattr(fsel, name)(4).fit(X[:, perm], y)
    assert perm[b.selection_order_].tolist() == a.selection_order_.tolist()


@pytest.mark.parametrize("name", [n for n in NAMES if n != "MIM"])
def test_recovers_interacting_pair(name):
    """y = XOR of two features among noise: only the pair is informative jointly."""
    X, y, rel = fsel.datasets.make_npfs_uniform(2000, 20, 3, random_state=0)
    sel = getattr(fsel, name)(3).fit(X, y)
    assert set(sel.selection_order_.tolist()) == set(rel.tolist())


def test_cmi_stops_when_nothing_adds_information():
    X, _, _ = fsel.datasets.make_m_of_n(1, 2, 6)  # full domain of 6 binary features
    y = X[:, 2] & X[:, 3]
    sel = fsel.CMI(6, discretize=None).fit(X, y)
    assert sel.selection_order_.tolist() == [2, 3]  # 2 and 3 tie first: lowest index
    # after {2, 3} the target is determined: every further score is 0, so CMI stops
    assert sel.selection_scores_[1] == pytest.approx(H(list(y)) - I(list(X[:, 2]), list(y)))
    assert sel.support_.sum() == 2


@pytest.mark.parametrize("name", [n for n in NAMES if n != "CMI"])
def test_all_zero_scores_never_reselect(name):
    X = np.zeros((20, 5), dtype=int)
    X[:, 2] = np.arange(20) % 2
    y = np.arange(20) % 2
    with pytest.warns(UserWarning, match="column.s. 0, 1, 3, 4 take a single value"):
        sel = getattr(fsel, name)(5, discretize=None).fit(X, y)
    assert sorted(sel.selection_order_.tolist()) == [0, 1, 2, 3, 4]
    assert sel.selection_order_[0] == 2
    assert sel.selection_order_[1:].tolist() == [0, 1, 3, 4]  # lowest index on ties


def test_attributes_and_transform():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    y = (X[:, 1] > 0).astype(int)
    sel = fsel.JMI(3).fit(X, y)
    assert sel.n_features_in_ == 6
    # scikit-learn's RFE rule: 1 for the selected, then 2, 3, ... by decreasing score
    assert (sel.ranking_[sel.selection_order_] == 1).all()
    rest = np.flatnonzero(~sel.support_)
    by_score = rest[np.lexsort((rest, -sel.scores_[rest]))]
    assert sel.ranking_[by_score].tolist() == [2, 3, 4]
    assert sel.transform(X).shape == (200, 3)
    np.testing.assert_array_equal(sel.transform(X), X[:, sel.support_])
    assert sel.scores_.shape == (6,)
    assert sel.selection_order_[0] == 1
    half = fsel.MIM().fit(X, y)  # the default keeps half of the features
    assert half.support_.sum() == 3 and half.transform(X).shape == (200, 3)
    full = fsel.MIM(6).fit(X, y)
    assert full.support_.all() and (full.ranking_ == 1).all()
    assert fsel.MIM(0.5).fit(X, y).support_.sum() == 3


def test_input_never_modified():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 5))
    y = rng.integers(0, 2, 100)
    X0, y0 = X.copy(), y.copy()
    for name in NAMES:
        getattr(fsel, name)(3).fit(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize(
    ("X", "y", "k", "match"),
    [
        # NaN in X: accepted by default (missing="level"); missing="error" refuses it,
        # tested in test_information_missing.py
        (np.array([[1.0, np.inf], [2, 3]]), [0, 1], 1, "inf"),
        (np.ones((4, 2)), [1, 1, 1, 1], 1, "single class"),
        (np.ones((4, 2)), [0, 1, 0], 1, "inconsistent lengths"),
        (np.empty((0, 3)), [], 1, "empty"),
        (np.ones((4, 2)), [0, 1, 0, 1], 3, "larger than the number of features"),
        (np.ones((4, 2)), [0, 1, 0, 1], 0, "at least 1"),
        (np.ones((4, 2)), [0.0, 1.0, np.nan, 1.0], 1, "y has 1 missing value"),
        (np.array([[{"a": 1}, 1], [{}, 2]], dtype=object), [0, 1], 1, "not numeric"),
    ],
)
def test_bad_input_errors(X, y, k, match):
    with pytest.raises((ValueError, TypeError), match=match):
        fsel.JMI(k).fit(X, y)


def test_constant_features_score_zero():
    X = np.column_stack([np.ones(50), np.arange(50) % 2, np.zeros(50)])
    y = np.arange(50) % 2
    with pytest.warns(UserWarning, match="column.s. 0, 2 take a single value"):
        sel = fsel.MIM().fit(X, y)
    assert sel.relevance_[0] == 0 and sel.relevance_[2] == 0
    assert sel.relevance_[1] == pytest.approx(1.0)


def test_pandas_and_polars_inputs_keep_names():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "a": rng.normal(size=120),
            "b": rng.integers(0, 3, 120),
            "color": pd.Categorical(rng.choice(["red", "blue"], 120)),
            "s": rng.choice(["x", "y", "z"], 120),
        }
    )
    y = (df["b"] > 0).astype(int).to_numpy()
    sel = fsel.JMI(2, categorical=["s"]).fit(df, y)
    assert sel.feature_names_in_.tolist() == ["a", "b", "color", "s"]
    assert sel.selection_order_[0] == 1
    assert list(sel.get_feature_names_out()) == [
        c for c, m in zip(df.columns, sel.support_, strict=True) if m
    ]
    # text columns are categorical without a declaration
    auto = fsel.JMI(2).fit(df, y)
    assert auto.feature_types_ == ["numeric", "integer", "categorical", "categorical"]
    np.testing.assert_array_equal(auto.scores_, sel.scores_)
    pl = pytest.importorskip("polars")
    pdf = pl.DataFrame({"a": df["a"].to_numpy(), "b": df["b"].to_numpy()})
    sel2 = fsel.JMI(1).fit(pdf, y)
    assert sel2.feature_names_in_.tolist() == ["a", "b"]
    assert sel2.selection_order_.tolist() == [1]


def test_pipeline_and_grid_search():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(300, 10))
    y = ((X[:, 3] > 1) ^ (X[:, 7] > 2)).astype(int)
    pipe = make_pipeline(fsel.JMI(discretize=None), CategoricalNB())
    gs = GridSearchCV(pipe, {"jmi__n_features_to_select": [1, 2, 4]}, cv=3).fit(X, y)
    assert gs.best_params_["jmi__n_features_to_select"] in (2, 4)
    assert set(gs.best_estimator_[0].selection_order_[:2].tolist()) == {3, 7}


def test_numba_and_numpy_give_identical_selections(monkeypatch):
    pytest.importorskip("numba")
    rng = np.random.default_rng(3)
    X = rng.integers(0, 8, size=(500, 40))
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 4, 500) > 9).astype(int)
    out = {}
    for flag in ("1", "0"):
        monkeypatch.setenv("FSEL_DISABLE_NUMBA", flag)
        out[flag] = {n: getattr(fsel, n)(10, discretize=None, n_jobs=2).fit(X, y) for n in NAMES}
    for n in NAMES:
        np.testing.assert_array_equal(out["1"][n].selection_order_, out["0"][n].selection_order_)
        np.testing.assert_allclose(
            out["1"][n].selection_scores_, out["0"][n].selection_scores_, atol=1e-10
        )


def test_select_function():
    X, y, _rel = fsel.datasets.make_npfs_uniform(1000, 10, 2, random_state=1)
    res = fsel.select(X, y, method="mrmr", n_features_to_select=2)
    assert sorted(res.features.tolist()) == [0, 1]
    assert res.names == [f"x{i}" for i in res.features]
    assert res.scores.shape == (2,)
    with pytest.raises(ValueError, match="unknown method"):
        fsel.select(X, y, method="nope")


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize(
    "make",
    [
        lambda v: fsel.MIFS(2, beta=v),
        lambda v: fsel.BetaGamma(2, beta=v),
        lambda v: fsel.BetaGamma(2, gamma=v),
    ],
)
def test_criterion_weights_must_be_finite(make, bad):
    """A NaN or infinite beta/gamma made every score NaN or infinite and the picks
    noise, without an error."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="must be a finite number"):
        make(bad).fit(X, y)
    with pytest.raises(TypeError, match="must be a real number"):
        make("0.5").fit(X, y)
