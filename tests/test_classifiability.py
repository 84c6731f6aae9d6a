"""Tests of Dong & Kothari's classifiability and its forward selection (SPEC section 4)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsel import Classifiability, classifiability
from fsel.datasets import make_corral, make_dong_kothari, make_m_of_n, make_monk
from fsel.kernels import classifiability as K
from fsel.kernels.distances import numba_available


# ------------------------------------------------------------ independent reference
def brute_force_L(X, y, features, radius_factor, symbolic):
    """Plain loops, written from SPEC section 4 without the library's kernels."""
    X = [list(map(float, row)) for row in np.asarray(X)]
    n = len(X)
    classes = sorted(set(int(v) for v in y))
    if not features:
        return sum((sum(1 for v in y if v == c) / n) ** 2 for c in classes)
    lo, span = {}, {}
    for f in features:
        col = [row[f] for row in X]
        lo[f], span[f] = min(col), (max(col) - min(col)) or 1.0
    if all(len({row[f] for row in X}) == 1 for f in features):
        # all samples coincide: no information, the empty set's value (issue 17 item 4)
        return sum((sum(1 for v in y if v == c) / n) ** 2 for c in classes)

    def d2(i, j):
        s = 0.0
        for f in features:
            if symbolic[f]:
                s += 0.0 if X[i][f] == X[j][f] else 1.0
            else:
                a = (X[i][f] - lo[f]) / span[f]
                b = (X[j][f] - lo[f]) / span[f]
                s += (a - b) ** 2
        return s

    D = [[d2(i, j) for j in range(n)] for i in range(n)]
    nn = [min(D[i][j] for j in range(n) if j != i) for i in range(n)]
    thr = (radius_factor * math.sqrt(sum(nn) / n)) ** 2
    total = 0.0
    for i in range(n):
        theta = max(thr, nn[i])
        neigh = [j for j in range(n) if j != i and D[i][j] <= theta]
        total += sum((sum(1 for j in neigh if y[j] == c) / len(neigh)) ** 2 for c in classes)
    return total / n


# ------------------------------------------------------------ hand-computed values
def test_numeric_hand_computed():
    # scaled values 0, .25, .5, 1; nn2 = .0625, .0625, .0625, .25; mean .109375
    X = np.array([[0.0], [1.0], [2.0], [4.0]])
    y = np.array([0, 0, 1, 1])
    # radius 1 r: neighbourhoods {1}, {0, 2}, {1}, {} -> nearest {2}
    assert classifiability(X, y, radius_factor=1.0) == pytest.approx(0.875, abs=1e-15)
    # radius 2 r (d^2 = .4375): {1, 2}, {0, 2}, {0, 1, 3}, {2}
    assert classifiability(X, y, radius_factor=2.0) == pytest.approx(23 / 36, abs=1e-15)


def test_checkerboard_neighbourhoods_are_pure():
    # SPEC's L = mean sum_c p_i(c)^2 measures neighbourhood purity: each point's
    # neighbours (at radius r) all belong to the other class, so L = 1.
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 1, 0, 1])
    assert classifiability(X, y, radius_factor=1.0) == pytest.approx(1.0)


def test_symbolic_hand_computed():
    X = np.array([[0], [0], [1], [1], [2]])
    y = np.array([0, 1, 1, 1, 0])
    # nn2 = 0, 0, 0, 0, 1 -> r^2 = .2; sample 4 has no neighbour within d and falls
    # back to its nearest samples: all four at distance 1 (classes 0, 1, 1, 1)
    assert classifiability(X, y, radius_factor=1.0, categorical=[0]) == pytest.approx(
        (4 + 10 / 16) / 5
    )
    # radius 3 r (d^2 = 1.8): everybody is a neighbour of everybody
    assert classifiability(X, y, radius_factor=3.0, categorical=[0]) == pytest.approx(0.55)


def test_symbolic_differs_from_numeric():
    X = np.array([[0], [1], [2]])
    y = np.array([0, 0, 1])
    # numeric: scaled 0, .5, 1
    assert classifiability(X, y, radius_factor=1.0) == pytest.approx(2.5 / 3)
    # symbolic: every pair at distance 1, every sample a neighbour of every other
    assert classifiability(X, y, radius_factor=1.0, categorical=[0]) == pytest.approx(2 / 3)
    # "auto" takes integers as numbers (the library's one rule), text as symbols
    assert classifiability(X, y, radius_factor=1.0, categorical="auto") == pytest.approx(2.5 / 3)
    Xs = np.array([["a"], ["b"], ["c"]], dtype=object)
    assert classifiability(Xs, y, radius_factor=1.0) == pytest.approx(2 / 3)


def test_mixed_hand_computed():
    X = np.array([[0.0, 0], [0.0, 1], [4.0, 0], [4.0, 1]])
    y = np.array([0, 1, 0, 1])
    # pairs differing in one feature are at squared distance 1, in both at 2
    assert classifiability(X, y, radius_factor=1.0, categorical=[1]) == pytest.approx(0.5)
    assert classifiability(X, y, radius_factor=1.5, categorical=[1]) == pytest.approx(5 / 9)


def test_duplicates_with_zero_radius():
    X = np.array([[0.0], [0.0], [1.0], [1.0], [2.0]])
    y = np.array([0, 0, 1, 0, 1])
    # d = 0: duplicates are neighbours; sample 4 falls back to its two nearest (1, 0)
    L, samples = classifiability(X, y, radius_factor=0.0, return_samples=True)
    np.testing.assert_allclose(samples, [1.0, 1.0, 1.0, 1.0, 0.5])
    assert L == pytest.approx(0.9)


def test_empty_set_is_sum_of_squared_priors():
    y = np.array([0, 0, 0, 1, 2, 2])
    X = np.arange(12.0).reshape(6, 2)
    assert classifiability(X, y, features=[]) == pytest.approx((9 + 1 + 4) / 36)
    sel = Classifiability().fit(X, y)
    assert sel.classifiability_empty_ == pytest.approx((9 + 1 + 4) / 36)


def test_perfectly_separated_classes():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 30)
    X = rng.uniform(size=(90, 2)) + 10.0 * y[:, None]
    assert classifiability(X, y) == 1.0
    _L, samples = classifiability(X, y, return_samples=True)
    assert np.all(samples == 1.0)


def test_bounds_and_samples_mean():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 3, 60)
    L, s = classifiability(X, y, return_samples=True)
    assert 0.0 <= L <= 1.0
    assert L == pytest.approx(s.mean())
    assert np.all((s >= 1 / 3 - 1e-12) & (s <= 1.0))


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(3, 25),
    d=st.integers(1, 4),
    rf=st.sampled_from([0.0, 0.7, 1.0, 3.0, 6.0]),
    seed=st.integers(0, 10_000),
)
def test_matches_brute_force(n, d, rf, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    symbolic = rng.uniform(size=d) < 0.4
    X[:, symbolic] = rng.integers(0, 3, size=(n, int(symbolic.sum())))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    feats = list(rng.permutation(d)[: rng.integers(1, d + 1)])
    got = classifiability(X, y, features=feats, radius_factor=rf, categorical=symbolic)
    assert got == pytest.approx(brute_force_L(X, y, feats, rf, symbolic), abs=1e-12)


def test_affine_link_to_paper_measure():
    # the paper's C(x_i) = sum_j w_jj - sum_{j != k} w_jk with w = p p^T
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    y = rng.integers(0, 3, 40)
    _L, s = classifiability(X, y, return_samples=True)
    # recover p_i from the brute force definition for one sample and check C = 2 s - 1
    Xs = (X - X.min(0)) / np.ptp(X, axis=0)
    D = ((Xs[:, None, :] - Xs[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    thr = (3.0 * np.sqrt(D.min(1).mean())) ** 2
    for i in range(5):
        nb = np.flatnonzero(D[i] <= max(thr, D[i].min()))
        p = np.bincount(y[nb], minlength=3) / nb.size
        w = np.outer(p, p)
        C = np.trace(w) - (w.sum() - np.trace(w))
        assert C == pytest.approx(2 * s[i] - 1)


# ------------------------------------------------------------ incremental == scratch
@pytest.mark.parametrize("engine", ["numpy", "numba"])
@pytest.mark.parametrize("budget", [2_000, 256 * 2**20])
@pytest.mark.parametrize("n_jobs", [1, 2, 3])
def test_incremental_equals_from_scratch(engine, budget, n_jobs, monkeypatch):
    """The incremental search's per-sample values are subset_scores' from scratch, bit
    for bit; with several threads the distance updates and the row sorts are split by
    row ranges however small the table (the bytes-a-thread threshold lifted)."""
    if engine == "numba" and not numba_available():
        pytest.skip("numba absent or disabled (FSEL_DISABLE_NUMBA)")
    monkeypatch.setattr(K, "n_threads_for", lambda nbytes, jobs: jobs)
    rng = np.random.default_rng(3)
    n, d = 70, 5
    X = rng.normal(size=(n, d))
    X[:, 1] = rng.integers(0, 3, n)  # symbolic
    X[:, 3] = np.round(X[:, 3])  # numeric with ties
    symbolic = np.array([False, True, False, False, False])
    y = rng.integers(0, 3, n)
    Xs = K.scale_columns(X, symbolic)
    search = K.IncrementalSearch(Xs, symbolic, y, 3, 3.0, budget, n_jobs, engine=engine)
    for step, f_add in enumerate([2, 1, 4]):
        rest = [f for f in range(d) if f not in search.selected]
        got = search.evaluate(rest)
        for q, f in enumerate(rest):
            ref, _ = K.subset_scores(Xs, symbolic, y, 3, [*search.selected, f], 3.0, budget)
            # same floating-point operations (kernels.distances): the same bits
            np.testing.assert_array_equal(got[q], ref, err_msg=f"step {step}")
        search.add(f_add)


def test_selector_scores_equal_classifiability_of_subsets():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(80, 6))
    y = (X[:, 2] + 0.5 * X[:, 4] > 0).astype(int)
    sel = Classifiability(n_features_to_select=3).fit(X, y)
    order = list(sel.selection_order_)
    for t in range(len(order)):
        assert sel.selection_scores_[t] == pytest.approx(
            classifiability(X, y, features=order[: t + 1]), abs=1e-12
        )
        row = sel.candidate_scores_[t]
        for f in range(6):
            if f in order[:t]:
                assert np.isnan(row[f])
            else:
                assert row[f] == pytest.approx(
                    classifiability(X, y, features=[*order[:t], f]), abs=1e-12
                )


def test_numba_and_numpy_engines_agree_on_selection():
    if not numba_available():
        pytest.skip("numba absent or disabled (FSEL_DISABLE_NUMBA)")
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 8))
    y = (X[:, 0] * X[:, 5] > 0).astype(int)
    Xs = K.scale_columns(X, np.zeros(8, bool))
    a = K.IncrementalSearch(Xs, np.zeros(8, bool), y, 2, 3.0, engine="numpy")
    b = K.IncrementalSearch(Xs, np.zeros(8, bool), y, 2, 3.0, engine="numba")
    for f in (0, 5):
        np.testing.assert_array_equal(a.evaluate(range(8)), b.evaluate(range(8)))
        a.add(f)
        b.add(f)


# ------------------------------------------------------------ the selector
def test_selects_known_relevant_features():
    rng = np.random.default_rng(6)
    n = 300
    X = rng.uniform(size=(n, 8))
    y = (X[:, 1] + X[:, 6] > 1.0).astype(int)  # features 1 and 6, six noise features
    sel = Classifiability().fit(X, y)
    assert set(sel.selection_order_[:2]) == {1, 6}
    assert sel.selection_scores_[1] > 0.85
    np.testing.assert_array_equal(np.diff(sel.selection_scores_) > 0, True)


def test_monk1_selects_the_rule_attributes():
    X, y, relevant = make_monk(1)
    sel = Classifiability().fit(X, y)
    # the paper's Table 2 order is a5, a1, a2 (1-based)
    np.testing.assert_array_equal(sel.selection_order_, [4, 0, 1])
    assert sel.selection_scores_[-1] == 1.0
    assert set(sel.selection_order_) == set(relevant)


def test_m_of_n_and_corral_find_the_relevant_set():
    X, y, relevant = make_m_of_n()
    sel = Classifiability().fit(X, y)
    assert set(sel.selection_order_) == set(relevant)
    X, y, relevant = make_corral(128, random_state=0)
    sel = Classifiability().fit(X, y)
    assert set(relevant) <= set(sel.selection_order_)


def test_dong_kothari_irrelevant_attributes_lower_L():
    # group I of the paper: adding the two uniform attributes lowers L. (A single
    # uniform attribute alone can score above attribute 1: with about four neighbours
    # per sample, sum_c p^2 of random labels is about 0.5 + 0.5 E[1/k] ~ 0.65.)
    for seed in range(3):
        X, y, _relevant = make_dong_kothari(400, random_state=seed)
        assert classifiability(X, y, [0]) > classifiability(X, y, [0, 1, 2]) + 0.02


def test_fitted_attributes_and_epsilon_stopping():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(120, 5))
    y = (X[:, 3] > 0).astype(int)
    sel = Classifiability().fit(X, y)
    k = sel.n_features_selected_
    assert sel.selection_order_[0] == 3
    assert sel.support_.sum() == k == sel.selection_scores_.size
    # scikit-learn's RFE rule: 1 for the selected, the others by decreasing score
    assert (sel.ranking_[sel.support_] == 1).all()
    rest = np.flatnonzero(~sel.support_)
    by_score = rest[np.lexsort((rest, -sel.scores_[rest]))]
    assert sel.ranking_[by_score].tolist() == list(range(2, rest.size + 2))
    # the search stopped because no candidate gained more than epsilon
    if k < 5:
        assert np.nanmax(sel.candidate_scores_[-1]) <= sel.selection_scores_[-1]
    # a huge epsilon keeps nothing beyond... nothing: no first gain is that large
    big = Classifiability(epsilon=0.9).fit(X, y)
    assert big.n_features_selected_ == 0
    capped = Classifiability(n_features_to_select=1).fit(X, y)
    assert capped.selection_order_.tolist() == [3]
    frac = Classifiability(n_features_to_select=0.4).fit(X, y)
    assert frac.n_features_selected_ <= 2
    # the default "auto" lets the search decide; an int caps it
    auto = Classifiability(n_features_to_select="auto").fit(X, y)
    np.testing.assert_array_equal(auto.selection_order_, sel.selection_order_)


def test_functional_api_and_registry():
    import fsel

    rng = np.random.default_rng(10)
    X = rng.normal(size=(100, 6))
    y = (X[:, 4] > 0).astype(int)
    res = fsel.select(X, y, method="classifiability", n_features_to_select=2, radius_factor=2.0)
    assert res.features[0] == 4
    assert len(res.features) <= 2


def test_n_jobs_and_budget_do_not_change_results():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(90, 7))
    y = (X[:, 0] + X[:, 2] > 0).astype(int)
    ref = Classifiability(n_features_to_select=4).fit(X, y)
    for kw in ({"n_jobs": 2}, {"memory_budget": 5_000}, {"n_jobs": -1, "memory_budget": 50_000}):
        other = Classifiability(n_features_to_select=4, **kw).fit(X, y)
        np.testing.assert_array_equal(other.selection_order_, ref.selection_order_)
        np.testing.assert_array_equal(other.candidate_scores_, ref.candidate_scores_)


def test_categorical_options():
    X = np.array([[0, 0.1], [1, 0.2], [2, 0.3], [0, 0.4], [1, 0.5], [2, 0.6]])
    y = np.array([0, 1, 0, 0, 1, 0])
    Xi = X.copy()
    auto = Classifiability(categorical="auto").fit(X, y)
    assert auto.symbolic_.tolist() == [False, False]  # float array: nothing discrete
    listed = Classifiability(categorical=[0]).fit(X, y)
    masked = Classifiability(categorical=np.array([True, False])).fit(X, y)
    assert listed.symbolic_.tolist() == masked.symbolic_.tolist() == [True, False]
    ints = np.column_stack([X[:, 0].astype(int), X[:, 0].astype(int) * 3])
    # "auto": integer columns are numbers, boolean columns categorical
    assert Classifiability().fit(ints, y).symbolic_.tolist() == [False, False]
    bools = np.column_stack([X[:, 0] > 0, X[:, 0] > 1])
    assert Classifiability().fit(bools, y).symbolic_.tolist() == [True, True]
    np.testing.assert_array_equal(X, Xi)


def test_pandas_categorical_column_is_symbolic():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(
        {
            "colour": pd.Categorical(["r", "g", "b", "r", "g", "b"]),
            "x": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        }
    )
    y = np.array([0, 1, 0, 0, 1, 0])
    sel = Classifiability(categorical=None).fit(df, y)
    assert sel.symbolic_.tolist() == [True, False]
    assert sel.get_feature_names_out().tolist() == [
        ["colour", "x"][i] for i in sorted(sel.selection_order_)
    ]


def test_input_not_modified():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 4)).astype(np.float32)
    y = rng.integers(0, 2, 40)
    X0, y0 = X.copy(), y.copy()
    Classifiability(n_jobs=2).fit(X, y)
    classifiability(X, y, features=[0, 2], return_samples=True)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"radius_factor": -1.0}, ValueError, "radius_factor"),
        ({"radius_factor": "3"}, TypeError, "radius_factor"),
        ({"radius_factor": np.nan}, ValueError, "radius_factor"),
        ({"epsilon": np.inf}, ValueError, "epsilon"),
        ({"epsilon": "0"}, TypeError, "epsilon"),
        ({"categorical": "all"}, ValueError, "categorical"),
        ({"categorical": [7]}, ValueError, "out of range"),
        ({"memory_budget": 0}, ValueError, "memory_budget"),
        ({"n_features_to_select": "all"}, ValueError, "auto"),
        ({"n_features_to_select": 0}, ValueError, "at least 1"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
    ],
)
def test_bad_parameters(kwargs, exc, match):
    X = np.random.default_rng(0).normal(size=(10, 3))
    y = np.array([0, 1] * 5)
    with pytest.raises(exc, match=match):
        Classifiability(**kwargs).fit(X, y)


def test_bad_data():
    X = np.random.default_rng(0).normal(size=(10, 3))
    y = np.array([0, 1] * 5)
    with pytest.raises(ValueError, match="single class"):
        Classifiability().fit(X, np.zeros(10))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        classifiability(Xn, y, missing="error")
    with pytest.raises(ValueError, match="missing must be one of"):
        classifiability(Xn, y, missing="drop")
    with pytest.raises(ValueError, match="inconsistent"):
        classifiability(X, y[:5])
    with pytest.raises(ValueError, match="minimum of 2"):
        classifiability(X[:1], y[:1])
    with pytest.raises(ValueError, match="out of range"):
        classifiability(X, y, features=[3])
    with pytest.raises(ValueError, match="twice"):
        classifiability(X, y, features=[1, 1])
    with pytest.raises(TypeError, match="ints"):
        classifiability(X, y, features=[0.5])
    from scipy import sparse  # accepted since round 2 (SPEC section 11), same value

    assert classifiability(sparse.csr_matrix(X), y) == classifiability(X, y)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_permuting_columns_permutes_the_selection(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, 5))
    y = (X[:, 1] - X[:, 3] > 0).astype(int)
    perm = rng.permutation(5)
    a = Classifiability(n_features_to_select=3).fit(X, y)
    b = Classifiability(n_features_to_select=3).fit(X[:, perm], y)
    assert perm[b.selection_order_].tolist() == a.selection_order_.tolist()


@pytest.mark.datasets
def test_pima_selection_shared_dataset(shared_datasets):
    from fsel.datasets import load

    ds = load("pima_diabetes", shared_datasets)
    sel = Classifiability().fit(ds.X, ds.y)
    # the paper's Table 2 picks 2, 8, 1 (1-based): plas first
    assert sel.selection_order_[0] == 1


class _Terminal:
    """A stand-in for a terminal's stderr: what the progress bar draws."""

    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, s: str) -> None:
        self.text += s

    def flush(self) -> None:
        pass


def test_verbose_draws_a_step_per_feature_added_and_changes_nothing(monkeypatch):
    X, y = make_corral(n_samples=200, random_state=0)[:2]
    quiet = Classifiability(3).fit(X, y)
    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    loud = Classifiability(3, verbose=1).fit(X, y)
    assert "Classifiability" in term.text and "3/3" in term.text
    np.testing.assert_array_equal(quiet.selection_order_, loud.selection_order_)
    np.testing.assert_array_equal(quiet.scores_, loud.scores_)
    term.text = ""
    Classifiability(3).fit(X, y)  # verbose=0: nothing drawn, even on a terminal
    assert term.text == ""
