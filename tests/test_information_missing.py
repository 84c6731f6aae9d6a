"""Missing values in the information criteria (SPEC section 10): the "level" rule,
pairwise deletion ("available"), "error", and bit-identical results without NaN."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fsel
from _criteria import INFORMATION_CRITERIA

NAMES = INFORMATION_CRITERIA

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
        "uniform": ({"discretize": "uniform", "n_bins": 5}, Xf, yf),  # the old defaults
        "quantile-mm": (
            {"discretize": "quantile", "n_bins": 4, "mi_estimator": "miller_madow"},
            Xf,
            yf,
        ),
        "integer": ({"discretize": None}, Xi, yi),  # codes, as integers were then
    }
    extra = {"MIFS": {"beta": 0.5}, "BetaGamma": {"beta": 0.3, "gamma": 0.7}}
    out = []
    for skey, (params, X, y) in settings.items():
        for name in NAMES:
            out.append((f"{skey}/{name}", (name, {**params, **extra.get(name, {})}, X, y)))
    return out


def frozen_record(fs, name: str, params: dict, X: np.ndarray, y: np.ndarray) -> dict:
    # the frozen records rank every feature
    sel = getattr(fs, name)(**{"n_features_to_select": X.shape[1], **params}).fit(X, y)

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
        if _current_backend() == "numba":
            assert got == frozen[key], key
            continue
        # the numpy back-end has since learnt to add the cells in the numba kernel's
        # order (so small tables need no JIT and both back-ends agree bit for bit), which
        # moves the last bit of some sums: everything else is identical, floats to 1e-12
        for field, want in frozen[key].items():
            if field in ("relevance", "scores", "step_scores"):
                np.testing.assert_allclose(
                    [float.fromhex(v) for v in got[field]],
                    [float.fromhex(v) for v in want],
                    rtol=1e-12,
                    atol=1e-15,
                    err_msg=f"{key} {field}",
                )
            else:
                assert got[field] == want, (key, field)


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


# ------------------------------------------- "available" against a brute force


def _holey_codes(seed: int, n: int = 90, d: int = 6, frac: float = 0.2):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, d)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, n)) % 3
    X[rng.random((n, d)) < frac] = np.nan
    X[:5, 2] = np.nan  # some rows where several columns are missing
    X[:5, 3] = np.nan
    return X, y.astype(int)


def _obs(*cols):
    keep = np.ones(cols[0].size, dtype=bool)
    for c in cols:
        keep &= ~np.isnan(c)
    return keep


@pytest.mark.parametrize("estimator", ["plugin", "miller_madow"])
def test_available_terms_match_scalar_functions_on_kept_rows(backend, estimator):
    from fsel.kernels.discretize import discretize
    from fsel.kernels.information import (
        InformationTable,
        conditional_mutual_information,
        entropy,
        mutual_information,
    )

    X, y = _holey_codes(1)
    kw = {"estimator": estimator}
    codes, levels, _ = discretize(X, np.ones(X.shape[1], bool), missing=np.isnan(X).any(0))
    table = InformationTable(
        codes, levels, y, estimator=estimator, missing_codes=levels - 1, n_jobs=2
    )
    d = X.shape[1]
    for k in range(d):
        r = _obs(X[:, k])
        assert table.relevance[k] == pytest.approx(mutual_information(X[r, k], y[r], **kw))
    for j in range(d):
        t = table.pair_terms(j)
        for k in range(d):
            r = _obs(X[:, k], X[:, j])
            xk, xj, yy = X[r, k], X[r, j], y[r]
            assert t.mi[k] == pytest.approx(mutual_information(xk, xj, **kw), abs=1e-12)
            cy = conditional_mutual_information(xk, xj, yy, **kw)
            assert t.cmi_given_y[k] == pytest.approx(cy, abs=1e-12)
            pair = xk * 10 + xj
            assert t.joint_mi[k] == pytest.approx(mutual_information(pair, yy, **kw), abs=1e-12)
            assert t.joint_entropy[k] == pytest.approx(entropy(xk, xj, yy, **kw), abs=1e-12)
            cj = conditional_mutual_information(xk, yy, xj, **kw)
            assert t.cmi_given_j[k] == pytest.approx(cj, abs=1e-12)
    # I(Xk;Y|S) for S = (X0, X2): rows where Xk, X0 and X2 are all observed
    s = np.full(X.shape[0], -1)
    r = _obs(X[:, 0], X[:, 2])
    s[r] = np.unique(X[r, 0] * 10 + X[r, 2], return_inverse=True)[1]
    got = table.conditional_relevance(s)
    for k in range(d):
        r = _obs(X[:, k], X[:, 0], X[:, 2])
        want = conditional_mutual_information(X[r, k], y[r], X[r, 0] * 10 + X[r, 2], **kw)
        assert got[k] == pytest.approx(want, abs=1e-12)


def _ref_available_greedy(name, X, y, k):
    """Greedy selection with every term computed on its own kept rows (plain loops on
    the scalar functions; written independently of the vectorised table)."""
    from fsel.kernels.information import conditional_mutual_information as cmi
    from fsel.kernels.information import mutual_information as mi

    d = X.shape[1]

    def rel(a):
        r = _obs(X[:, a])
        return mi(X[r, a], y[r])

    def pair(a, b, f):
        r = _obs(X[:, a], X[:, b])
        return f(X[r, a], X[r, b], y[r])

    order = [max(range(d), key=lambda a: (round(rel(a), 9), -a))]
    while len(order) < k:
        best, pick = -np.inf, None
        for c in range(d):
            if c in order:
                continue
            if name == "MRMR":
                red = [pair(c, j, lambda a, b, _: mi(a, b)) for j in order]
                score = rel(c) - sum(red) / len(order)
            elif name == "JMI":
                score = sum(pair(c, j, lambda a, b, t: mi(a * 10 + b, t)) for j in order)
            elif name == "CMIM":
                score = min([rel(c)] + [pair(c, j, lambda a, b, t: cmi(a, t, b)) for j in order])
            elif name == "CMI":
                r = _obs(X[:, c], *(X[:, j] for j in order))
                s = np.zeros(r.sum())
                for j in order:
                    s = s * 10 + X[r, j]
                score = cmi(X[r, c], y[r], s)
            if score > best + 1e-9:
                best, pick = score, c
        order.append(pick)
    return order


@pytest.mark.parametrize("name", ["MRMR", "JMI", "CMIM", "CMI"])
@pytest.mark.parametrize("seed", [2, 3])
def test_available_selection_matches_brute_force(backend, name, seed):
    X, y = _holey_codes(seed, n=120, d=7)
    sel = getattr(fsel, name)(4, missing="available", discretize=None).fit(X, y)
    ref = _ref_available_greedy(name, X, y, sel.selection_order_.size)
    assert sel.selection_order_.tolist() == ref


def test_available_is_not_a_joint_but_level_is():
    """Under "level" the terms come from one joint distribution: the chain rule
    I(XkXj;Y) = I(Xj;Y) + I(Xk;Y|Xj) holds exactly; pairwise deletion breaks it."""
    from fsel.kernels.discretize import discretize
    from fsel.kernels.information import InformationTable

    X, y = _holey_codes(4, n=200)
    codes, levels, _ = discretize(X, np.ones(X.shape[1], bool), missing=np.isnan(X).any(0))
    gaps = {}
    for rule, miss in (("level", None), ("available", levels - 1)):
        table = InformationTable(codes, levels, y, missing_codes=miss)
        worst = 0.0
        for j in range(X.shape[1]):
            t = table.pair_terms(j)
            gap = t.joint_mi - (table.relevance[j] + t.cmi_given_j)
            worst = max(worst, float(np.abs(gap).max()))
        gaps[rule] = worst
    assert gaps["level"] < 1e-12
    assert gaps["available"] > 1e-3


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    frac=st.floats(0.0, 0.6),
    n_bins=st.integers(2, 6),
    estimator=st.sampled_from(["plugin", "miller_madow"]),
)
def test_level_rule_is_a_proper_joint_property(seed, frac, n_bins, estimator):
    """ "level" codes are ordinary discrete variables: chain rule, symmetry of I(Xk;Xj)
    and the interaction-information identity hold for every pair."""
    from fsel.kernels.discretize import discretize
    from fsel.kernels.information import InformationTable

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 4))
    X[rng.random(X.shape) < frac] = np.nan
    y = rng.integers(0, 3, 60)
    missing = np.isnan(X).any(axis=0)
    codes, levels, _ = discretize(X, None, n_bins, missing=missing if missing.any() else None)
    table = InformationTable(codes, levels, y, estimator=estimator)
    terms = [table.pair_terms(j) for j in range(4)]
    rel = table.relevance
    for j in range(4):
        t = terms[j]
        if estimator == "plugin":  # (Miller-Madow terms are clipped at 0: no identity)
            np.testing.assert_allclose(t.joint_mi, rel[j] + t.cmi_given_j, atol=1e-9)
            # interaction information: I(Xk;Xj|Y) - I(Xk;Xj) = I(XkXj;Y) - I(Xk;Y) - I(Xj;Y)
            np.testing.assert_allclose(t.cmi_given_y - t.mi, t.joint_mi - rel - rel[j], atol=1e-9)
        for k in range(4):
            assert t.mi[k] == pytest.approx(terms[k].mi[j], abs=1e-9)


# ---------------------------------------------------- behaviour of the estimators


def _mcar_problem(seed: int, frac: float):
    rng = np.random.default_rng(seed)
    n, d = 800, 16
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + 2 * (X[:, 2] - X[:, 3] > 0).astype(int)
    X[rng.random((n, d)) < frac] = np.nan  # missing completely at random
    return X, y


@pytest.mark.parametrize("name", ["MIM", "MRMR", "JMI", "CMIM", "JMIM", "DISR"])
@pytest.mark.parametrize("missing", ["level", "available"])
def test_recovers_relevant_features_with_20_percent_mcar_holes(name, missing):
    X, y = _mcar_problem(0, 0.2)
    sel = getattr(fsel, name)(4, missing=missing).fit(X, y)
    assert sorted(sel.selection_order_.tolist()) == [0, 1, 2, 3]


def test_missing_error_refuses_nan_and_bad_rule_is_named():
    X, y = _mcar_problem(1, 0.05)
    with pytest.raises(ValueError, match=r"missing values \(NaN\) in column '0'"):
        fsel.JMI(2, missing="error").fit(X, y)
    with pytest.raises(ValueError, match=r"JMI: missing must be one of"):
        fsel.JMI(2, missing="drop").fit(X, y)
    with pytest.raises(ValueError, match="inf"):
        fsel.JMI(2).fit(np.where(np.isnan(X), np.inf, X), y)


@pytest.mark.parametrize("name", NAMES)
def test_missing_parameter_and_allow_nan_tag(name):
    cls = getattr(fsel, name)
    assert cls().missing == "level"
    assert cls().__sklearn_tags__().input_tags.allow_nan
    assert cls(missing="available").__sklearn_tags__().input_tags.allow_nan
    assert not cls(missing="error").__sklearn_tags__().input_tags.allow_nan
    assert cls(missing="available").get_params()["missing"] == "available"


def test_input_with_nan_never_modified():
    X, y = _mcar_problem(2, 0.2)
    X0, y0 = X.copy(), y.copy()
    for missing in ("level", "available"):
        fsel.CMI(5, missing=missing).fit(X, y)
        fsel.CMIM(5, missing=missing).fit(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


def test_same_random_holes_same_result_and_rule_differs():
    X, y = _mcar_problem(3, 0.3)
    a = fsel.MRMR(6, missing="level").fit(X, y)
    b = fsel.MRMR(6, missing="level").fit(X.copy(), y)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    c = fsel.MRMR(6, missing="available").fit(X, y)
    assert not np.array_equal(a.relevance_, c.relevance_)
    assert a.n_levels_.tolist() == c.n_levels_.tolist() == [6] * 16


def test_pandas_nullable_and_categorical_holes_are_levels():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(
        {
            "i": pd.array([0, 0, 1, 1, None, None], dtype="Int64"),
            "c": pd.Categorical(["a", "b", "a", None, "b", "a"]),
            "f": [0.1, 0.2, 0.3, 0.4, 0.5, np.nan],
        }
    )
    y = [0, 0, 1, 1, 0, 1]
    sel = fsel.MIM(missing="level", discretize="uniform", n_bins=5).fit(df, y)
    assert sel.n_levels_.tolist() == [3, 3, 6]
    assert sel.relevance_[0] == pytest.approx(2 / 3, abs=1e-12)  # the hand table above
    assert sel.feature_names_in_.tolist() == ["i", "c", "f"]
    avail = fsel.MIM(missing="available").fit(df, y)
    assert avail.relevance_[0] == pytest.approx(1.0, abs=1e-12)


def test_all_missing_column_scores_zero_under_available():
    X, y = _mcar_problem(4, 0.1)
    X[:, 5] = np.nan
    with pytest.warns(UserWarning, match="column.s. 5 take a single value"):
        sel = fsel.JMI(16, missing="available").fit(X, y)
    assert sel.relevance_[5] == 0.0
    assert sel.n_levels_[5] == 1
    assert sel.selection_order_[-1] == 5  # after every other column
    with pytest.warns(UserWarning, match="column.s. 5 take a single value"):
        lev = fsel.JMI(16, missing="level").fit(X, y)
    assert lev.relevance_[5] == 0.0


# ------------------------------------------------- continuous target (issue 17.1)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("name", ["MIM", "JMI", "CMIM", "CMI"])
def test_continuous_target_is_binned_like_a_float_feature(name, strategy):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 8))
    y = X[:, 2] - 0.5 * X[:, 6] + 0.1 * rng.normal(size=300)
    n_bins = 4
    # the bins, computed here independently: equal width or equal frequency
    if strategy == "uniform":
        inner = np.linspace(y.min(), y.max(), n_bins + 1)[1:-1]
    else:
        inner = np.quantile(y, np.linspace(0, 1, n_bins + 1)[1:-1])
    y_codes = np.searchsorted(inner, y, side="right")
    est = getattr(fsel, name)(3, n_bins=n_bins, discretize=strategy)
    with pytest.warns(UserWarning, match="y is continuous"):
        est.fit(X, y)
    np.testing.assert_allclose(est.y_bin_edges_, inner, rtol=1e-12)
    ref = getattr(fsel, name)(3, n_bins=n_bins, discretize=strategy).fit(X, y_codes)
    assert ref.y_bin_edges_ is None
    assert est.selection_order_.tolist() == ref.selection_order_.tolist()
    np.testing.assert_allclose(est.scores_, ref.scores_, atol=1e-12)
    assert est.selection_order_[0] == 2
    assert est.classes_.tolist() == list(range(n_bins))


def test_integer_valued_float_target_stays_classes():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 3, size=(100, 4))
    y = (X[:, 1] > 0).astype(float)  # 0.0 / 1.0: two classes, no warning
    sel = fsel.JMI(2).fit(X, y)  # filterwarnings=error: a warning would fail here
    assert sel.y_bin_edges_ is None
    assert sel.classes_.tolist() == [0.0, 1.0]
    assert sel.selection_order_[0] == 1
    # few distinct non-integer values (not more than n_bins) are classes too
    sel = fsel.JMI(2).fit(X, y + 0.5)
    assert sel.y_bin_edges_ is None
    assert sel.classes_.tolist() == [0.5, 1.5]


def test_continuous_target_with_discretize_none_is_refused():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 3, size=(50, 3))
    with pytest.raises(ValueError, match="y is continuous"):
        fsel.MIM(discretize=None).fit(X, rng.normal(size=50))


def test_available_terms_many_levels_match_scalar_functions(backend):
    """High-cardinality codes: the large-histogram (touched-cells) counting path."""
    from fsel.kernels.discretize import discretize
    from fsel.kernels.information import (
        InformationTable,
        conditional_mutual_information,
        mutual_information,
    )

    rng = np.random.default_rng(8)
    n = 300
    X = rng.integers(0, 120, size=(n, 4)).astype(float)
    X[rng.random(X.shape) < 0.25] = np.nan
    y = rng.integers(0, 3, n)
    codes, levels, _ = discretize(X, np.ones(4, bool), missing=np.isnan(X).any(0))
    assert levels.max() * levels.max() * 3 > 4 * n  # beyond the small-histogram path
    table = InformationTable(codes, levels, y, missing_codes=levels - 1)
    t = table.pair_terms(1)
    for k in range(4):
        r = _obs(X[:, k], X[:, 1])
        assert t.mi[k] == pytest.approx(mutual_information(X[r, k], X[r, 1]), abs=1e-12)
        want = conditional_mutual_information(X[r, k], y[r], X[r, 1])
        assert t.cmi_given_j[k] == pytest.approx(want, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(5, 50),
    d=st.integers(1, 6),
    kind=st.sampled_from(["normal", "integers", "ties at the minimum"]),
    strategy=st.sampled_from(["uniform", "quantile"]),
    n_bins=st.integers(2, 6),
)
def test_binned_holes_coded_as_the_filled_table(seed, n, d, kind, strategy, n_bins):
    # the "level" rule: edges learned on the observed values, a hole first takes its
    # column's observed minimum (so binning and compaction see observed values only) and
    # then becomes one extra last code. Reference written here with plain numpy; the
    # kernel bins the holes in place when every column is binned (no filled copy)
    from fsel.kernels.discretize import apply_bin_edges, compact_codes, discretize, fit_bin_edges

    rng = np.random.default_rng(seed)
    if kind == "normal":
        X = rng.normal(size=(n, d))
    else:
        X = rng.integers(0, int(rng.integers(2, 12)), size=(n, d)).astype(float)
        if kind == "ties at the minimum":  # quantile edges can sit on the minimum
            X[: n // 2] = X.min()
    X[rng.random(X.shape) < rng.uniform(0.05, 0.6)] = np.nan
    X[0] = rng.normal(size=d)  # every column has an observed value
    miss = np.isnan(X).any(axis=0)
    codes, levels, _ = discretize(X, np.zeros(d, bool), n_bins, strategy, miss)
    edges = fit_bin_edges(X, np.zeros(d, bool), n_bins, strategy, miss)
    filled = np.where(np.isnan(X), np.nanmin(X, axis=0), X)
    ref, ref_levels = compact_codes(apply_bin_edges(filled, edges))
    ref, ref_levels = ref.astype(np.int64), ref_levels.copy()
    ref_levels[miss] += 1
    for j in np.flatnonzero(miss):
        ref[j, np.isnan(X[:, j])] = ref_levels[j] - 1
    np.testing.assert_array_equal(codes.astype(np.int64), ref)
    np.testing.assert_array_equal(levels, ref_levels)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(5, 50),
    d=st.integers(1, 6),
    oddity=st.sampled_from([None, "a non-integer cell", "a value beyond int64"]),
)
def test_float_code_holes_coded_as_the_filled_table(seed, n, d, oddity):
    # float columns taken as codes (categorical, or discretize=None) with holes: the
    # kernel casts once and fills the holes in place; the reference fills a copy with
    # the observed minimum, compacts it, and gives the holes the extra last code
    from fsel.kernels.discretize import compact_codes, discretize

    rng = np.random.default_rng(seed)
    X = rng.integers(-5, int(rng.integers(2, 12)), size=(n, d)).astype(float)
    if oddity == "a non-integer cell":
        X[rng.integers(0, n), rng.integers(0, d)] += 0.5
    elif oddity == "a value beyond int64":
        X[rng.integers(0, n), rng.integers(0, d)] = 2.0**70
    X[rng.random(X.shape) < rng.uniform(0.05, 0.6)] = np.nan
    X[0] = rng.integers(0, 3, size=d)  # every column has an observed value
    miss = np.isnan(X).any(axis=0)
    codes, levels, _ = discretize(X, np.ones(d, bool), 5, "uniform", miss)
    ref, ref_levels = compact_codes(np.where(np.isnan(X), np.nanmin(X, axis=0), X))
    ref, ref_levels = ref.astype(np.int64), ref_levels.copy()
    ref_levels[miss] += 1
    for j in np.flatnonzero(miss):
        ref[j, np.isnan(X[:, j])] = ref_levels[j] - 1
    np.testing.assert_array_equal(codes.astype(np.int64), ref)
    np.testing.assert_array_equal(levels, ref_levels)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**16),
    d=st.integers(2, 40),
    levels=st.integers(2, 5),
    frac=st.sampled_from([0.0, 0.1, 0.4]),
    batch=st.sampled_from([1, 3, 64]),
)
def test_lazy_cmim_with_pairwise_deletion_equals_the_vectorised_engine(
    backend, monkeypatch, seed, d, levels, frac, batch
):
    # the lazy search refreshes only candidates whose upper bound can still win; it must
    # pick what the engine's full pass over every candidate picks, with the same step
    # scores, and its stale scores must bound the exact ones from above
    from fsel.kernels.information import InformationTable

    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(150, d)).astype(float)
    X[:, d // 2] = X[:, 0]  # an exact copy: ties of equal terms
    y = ((X[:, 0] + rng.integers(0, 2, 150)) > levels // 2).astype(int)
    X[rng.random(X.shape) < frac] = np.nan
    X[0] = np.nan  # a hole in every column: pairwise deletion's table
    k = min(d, 6)
    with monkeypatch.context() as mp:
        mp.setattr(InformationTable, "LAZY_BATCH", batch)
        lazy = fsel.CMIM(k, missing="available", discretize=None).fit(X, y)
        mp.setattr(InformationTable, "lazy_cmim", lambda self, k, tol: None)
        full = fsel.CMIM(k, missing="available", discretize=None).fit(X, y)
    assert lazy.selection_order_.tolist() == full.selection_order_.tolist()
    np.testing.assert_array_equal(lazy.selection_scores_, full.selection_scores_)
    rest = ~lazy.support_
    assert np.all(lazy.scores_[rest] >= full.scores_[rest])
