"""Classifiability with missing values: the partial-distance rule (SPEC section 10).

The reference is written with plain loops over pairs, separately from the kernels:
range scaling over the observed values, per pair the observed terms (a numeric term
needs both values, a symbolic term is always observed and a missing symbolic value
mismatches everything), ``D2 = (k / c) * sum``, neighbourhoods as in SPEC section 4.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsel import Classifiability, classifiability


def reference_samples(X, y, features, symbolic, radius_factor=3.0):
    n = len(X)
    classes = sorted(set(y.tolist()))
    cols = {}
    for f in features:
        col = [float(v) for v in X[:, f]]
        if symbolic[f]:
            cols[f] = col
            continue
        obs = [v for v in col if not math.isnan(v)]
        lo = min(obs) if obs else 0.0
        span = (max(obs) - lo) if obs else 1.0
        span = span if span != 0 else 1.0
        cols[f] = [(v - lo) / span for v in col]
    k = len(features)
    prior = sum((list(y).count(c) / n) ** 2 for c in classes)

    def constant(f):  # one observed value (numeric); one value or all missing (symbolic)
        vals = [v for v in X[:, f].tolist() if not math.isnan(v)]
        if symbolic[f] and 0 < len(vals) < n:
            return False
        return len(set(vals)) <= 1

    if all(constant(f) for f in features):  # no information: the empty set's value
        return np.full(n, prior)
    D2 = [[math.inf] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            total, count = 0.0, 0
            for f in features:
                a, b = cols[f][i], cols[f][j]
                if symbolic[f]:
                    total += 0.0 if a == b else 1.0  # NaN == x is False: a mismatch
                    count += 1
                elif not (math.isnan(a) or math.isnan(b)):
                    total += (a - b) ** 2
                    count += 1
            if count:
                D2[i][j] = total * k / count
    nn2 = [min(row) for row in D2]
    finite = [v for v in nn2 if v < math.inf]
    out = [prior] * n
    if not finite:
        return np.array(out)
    thr = (radius_factor * math.sqrt(sum(finite) / len(finite))) ** 2
    for i in range(n):
        if nn2[i] == math.inf:
            continue
        theta = max(thr, nn2[i])
        members = [y[j] for j in range(n) if D2[i][j] <= theta]
        out[i] = sum((members.count(c) / len(members)) ** 2 for c in classes)
    return np.array(out)


def _table(seed: int, n: int, rate: float):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.standard_normal((n, 4))
    X[:, 0] += y
    X[:, 2] = rng.integers(0, 3, n)  # symbolic
    X[rng.random(X.shape) < rate] = np.nan
    return X, y, np.array([False, False, True, False])


@pytest.mark.parametrize("features", [[0], [2], [0, 2], [3, 1, 0, 2]])
def test_partial_distance_matches_loops(features):
    X, y, symbolic = _table(0, 25, 0.3)
    value, samples = classifiability(
        X, y, features=features, categorical=[2], return_samples=True, radius_factor=1.5
    )
    ref = reference_samples(X, y, features, symbolic, radius_factor=1.5)
    np.testing.assert_allclose(samples, ref, rtol=1e-12, atol=1e-12)
    assert value == pytest.approx(ref.mean(), rel=1e-12)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 14), rate=st.floats(0.0, 0.95))
def test_partial_distance_property(seed, n, rate):
    X, y, symbolic = _table(seed, n, rate)
    if np.unique(y).size < 2:
        y[0] = 1 - min(y[0], 1)
    samples = classifiability(
        X, y, features=[0, 1, 2], categorical=[2], return_samples=True, missing="partial"
    )[1]
    np.testing.assert_allclose(
        samples, reference_samples(X, y, [0, 1, 2], symbolic), rtol=1e-12, atol=1e-12
    )


def test_forward_search_with_missing_equals_subset_values():
    X, y, symbolic = _table(3, 40, 0.2)
    X_before = X.copy()
    sel = Classifiability(epsilon=-1.0, categorical=[2], radius_factor=2.0).fit(X, y)
    np.testing.assert_array_equal(X, X_before)
    assert sel.n_features_selected_ == 4
    chosen = sel.selection_order_.tolist()
    for step, L in enumerate(sel.selection_scores_):
        ref = reference_samples(X, y, chosen[: step + 1], symbolic, radius_factor=2.0).mean()
        assert L == pytest.approx(ref, rel=1e-12)
        # and it was the best candidate at that step
        row = sel.candidate_scores_[step]
        assert np.nanargmax(row) == chosen[step]
    assert chosen[0] == 0  # the feature that carries the class
    # the cached state and the per-block rebuild give identical numbers
    small = Classifiability(
        epsilon=-1.0, categorical=[2], radius_factor=2.0, memory_budget=20_000
    ).fit(X, y)
    assert np.array_equal(small.candidate_scores_, sel.candidate_scores_, equal_nan=True)


def test_no_missing_is_bit_identical_and_error_rule():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((60, 4))
    y = (X[:, 1] > 0).astype(int)
    a = Classifiability(epsilon=-1.0).fit(X, y)
    b = Classifiability(epsilon=-1.0, missing="error").fit(X, y)
    assert np.array_equal(a.candidate_scores_, b.candidate_scores_, equal_nan=True)
    assert classifiability(X, y) == classifiability(X, y, missing="error")
    Xn = X.copy()
    Xn[5, 2] = np.nan
    with pytest.raises(ValueError, match="missing values"):
        Classifiability(missing="error").fit(Xn, y)
    with pytest.raises(ValueError, match="missing must be one of"):
        Classifiability(missing="impute-mean").fit(Xn, y)
    assert Classifiability().__sklearn_tags__().input_tags.allow_nan
    assert not Classifiability(missing="error").__sklearn_tags__().input_tags.allow_nan


def test_incomparable_samples_get_the_empty_value():
    X = np.array([[0.0], [np.nan], [1.0], [np.nan]])
    y = np.array([0, 0, 1, 1])
    samples = classifiability(X, y, return_samples=True)[1]
    # rows 1 and 3 share no observed term with anyone: the empty set's value 0.5
    assert samples.tolist() == [1.0, 0.5, 1.0, 0.5]
    all_missing = np.full((4, 1), np.nan)
    assert classifiability(all_missing, y) == 0.5
    # a missing symbolic value mismatches everything, itself included
    S = np.array([[0.0], [np.nan], [np.nan], [0.0]])
    got = classifiability(S, np.array([0, 1, 1, 0]), categorical=[0], return_samples=True)[1]
    np.testing.assert_allclose(
        got, reference_samples(S, np.array([0, 1, 1, 0]), [0], [True]), rtol=1e-12
    )


def test_constant_columns_carry_no_information():
    # issue 17 item 4: a constant column must not beat the empty set
    y = np.array([0, 1] * 6)
    X = np.ones((12, 3))
    X[:, 1] = 5.0
    X[:, 2] = 2.0
    empty = 0.5  # sum_c prior(c)^2 for two balanced classes
    for cat in ("auto", None, [2]):
        sel = Classifiability(categorical=cat).fit(X, y)
        assert sel.selection_order_.tolist() == []
        assert sel.classifiability_empty_ == empty
        assert sel.candidate_scores_.tolist() == [[empty] * 3]
    assert classifiability(X, y) == empty
    # beside an informative column, a constant one adds nothing and is never picked
    X[:, 0] = y + 0.01 * np.arange(12)
    sel = Classifiability(epsilon=-1.0).fit(X, y)
    assert sel.selection_order_[0] == 0
    assert sel.selection_scores_[1] == sel.selection_scores_[0]  # no change in L
    # the same with missing values (partial-distance path)
    X[3, 1] = np.nan
    assert classifiability(X, y, features=[1, 2]) == empty
    assert Classifiability(n_features_to_select=2).fit(X, y).selection_order_.tolist() == [0]


def test_first_positional_parameter_is_the_count():
    X, y, _ = _table(4, 40, 0.0)
    sel = Classifiability(2, epsilon=-1.0).fit(X, y)
    assert sel.n_features_to_select == 2 and sel.n_features_selected_ == 2
    with pytest.raises(TypeError):
        Classifiability(2, 0.1)  # epsilon is keyword-only


@pytest.mark.parametrize("holes", [0.0, 0.1])
def test_many_classes_use_pair_counts_with_identical_results(monkeypatch, holes):
    # issue 17 item 6: one sample per class must not build (N, n_classes) tables
    import fsel.kernels.classifiability as K

    rng = np.random.default_rng(6)
    n = 90
    X = rng.standard_normal((n, 3))
    X[rng.random(X.shape) < holes] = np.nan
    y = np.arange(n) % 80  # 80 classes, most with one sample
    sparse = Classifiability(epsilon=-1.0).fit(X, y)
    single = classifiability(X, y, features=[1], return_samples=True)[1]
    monkeypatch.setattr(K, "_DENSE_CLASSES", 10_000)
    dense = Classifiability(epsilon=-1.0).fit(X, y)
    assert np.array_equal(sparse.candidate_scores_, dense.candidate_scores_, equal_nan=True)
    assert np.array_equal(single, classifiability(X, y, features=[1], return_samples=True)[1])
    for step in range(3):
        chosen = sparse.selection_order_[: step + 1].tolist()
        ref = reference_samples(X, y, chosen, [False] * 3).mean()
        assert sparse.selection_scores_[step] == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_input_matches_dense(fmt):
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(9)
    n = 70
    X = rng.standard_normal((n, 5)) * (rng.random((n, 5)) < 0.3)  # mostly implicit zeros
    X[:, 1] -= 2.0 * (X[:, 1] != 0)  # a column whose nonzeros are all negative
    y = (X[:, 0] > 0).astype(int) + (X[:, 3] > 0)
    M = sp.coo_matrix(X).asformat(fmt)
    a = Classifiability(epsilon=-1.0).fit(M, y)
    b = Classifiability(epsilon=-1.0).fit(X, y)
    assert np.array_equal(a.candidate_scores_, b.candidate_scores_, equal_nan=True)
    assert classifiability(M, y, features=[0, 3]) == classifiability(X, y, features=[0, 3])
    # integer (symbolic under "auto") and missing values (stored NaN) as well
    Xi = rng.integers(0, 3, (n, 4)) * (rng.random((n, 4)) < 0.5)
    ai = Classifiability(epsilon=-1.0).fit(sp.csr_matrix(Xi), y)
    bi = Classifiability(epsilon=-1.0).fit(Xi, y)
    assert np.array_equal(ai.candidate_scores_, bi.candidate_scores_, equal_nan=True)
    Xn = X.copy()
    Xn[[2, 5], 0] = np.nan
    an = Classifiability(n_features_to_select=2).fit(sp.csc_matrix(Xn), y)
    bn = Classifiability(n_features_to_select=2).fit(Xn, y)
    assert np.array_equal(an.candidate_scores_, bn.candidate_scores_, equal_nan=True)


@pytest.mark.parametrize("n_classes", [3, 70])
def test_compiled_from_scratch_scans_equal_numpy_blocks(n_classes):
    pytest.importorskip("numba")
    from fsel.kernels import classifiability as K

    if K._numba_kernels() is None:
        pytest.skip("numba disabled (FSEL_DISABLE_NUMBA)")
    rng = np.random.default_rng(11)
    n = 150
    X = rng.standard_normal((n, 4))
    X[:, 1] = rng.integers(0, 3, n)  # ties and a symbolic column
    symbolic = np.array([False, True, False, False])
    y = rng.integers(0, n_classes, n)
    Xs = K.scale_columns(X, symbolic)
    for feats in ([0], [2, 1], [3, 0, 1]):
        a, ta = K.subset_scores(Xs, symbolic, y, n_classes, feats, 2.0, use_numba=True)
        b, tb = K.subset_scores(Xs, symbolic, y, n_classes, feats, 2.0, use_numba=False)
        assert ta == tb and np.array_equal(a, b)
    # and the forward search (few candidates go through subset_scores) agrees
    fast = Classifiability(epsilon=-1.0, categorical=[1]).fit(X, y)
    ref = [reference_samples(X, y, fast.selection_order_[:1].tolist(), symbolic).mean()]
    assert fast.selection_scores_[0] == pytest.approx(ref[0], rel=1e-12)


def test_pandas_missing_values_are_holes():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(12)
    n = 40
    y = rng.integers(0, 2, n)
    num = rng.standard_normal(n) + y
    cat = np.where(y == 1, "a", "b").astype(object)
    cat[[1, 4]] = None  # missing category
    ints = pd.array(rng.integers(0, 3, n), dtype="Int64")
    ints[[0, 9]] = pd.NA
    df = pd.DataFrame({"num": num, "cat": pd.Categorical(cat), "ints": ints})
    df.loc[[3, 5], "num"] = np.nan
    sel = Classifiability(epsilon=-1.0, categorical=["cat", "ints"]).fit(df, y)
    assert sel.symbolic_.tolist() == [False, True, True]
    # "auto": the category column is symbolic, the integer column a number
    auto = Classifiability(epsilon=-1.0).fit(df, y)
    assert auto.symbolic_.tolist() == [False, True, False]
    assert auto.feature_types_ == ["numeric", "categorical", "integer"]
    codes = df["cat"].cat.codes.to_numpy().astype(float)
    codes[codes < 0] = np.nan
    X = np.column_stack([df["num"].to_numpy(), codes, df["ints"].to_numpy(float, na_value=np.nan)])
    for step in range(3):
        chosen = sel.selection_order_[: step + 1].tolist()
        ref = reference_samples(X, y, chosen, [False, True, True]).mean()
        assert sel.selection_scores_[step] == pytest.approx(ref, rel=1e-12)
