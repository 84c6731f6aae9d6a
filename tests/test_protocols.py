"""Tests of the evaluation protocols (fsel.experiments.protocols) and the result cache."""

from __future__ import annotations

import joblib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.metrics import balanced_accuracy_score, roc_auc_score
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier

from fsel.experiments import protocols as P
from fsel.experiments import rank_comparison as RC
from fsel.experiments.cache import (
    ResultCache,
    array_fingerprint,
    cache_for,
    estimator_fingerprint,
    track_cache,
    use_cache_dir,
)
from fsel.meta.resampling import resample_indices


# ------------------------------------------------------------------ k-NN and errors
def test_knn_predict_matches_sklearn_without_ties():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    y = rng.integers(0, 3, 80)
    Xt = rng.normal(size=(40, 4))
    ref = KNeighborsClassifier(3, algorithm="brute").fit(X, y).predict(Xt)
    np.testing.assert_array_equal(P.knn_predict(X, y, Xt, 3), ref)


def _brute_knn(X, y, Xt, k):
    out = []
    for row in Xt:
        d = [float(np.sum((row - x) ** 2)) for x in X]
        nn = sorted(range(len(X)), key=lambda i: (d[i], i))[:k]
        votes = {}
        for i in nn:
            votes[y[i]] = votes.get(y[i], 0) + 1
        best = max(votes.values())
        out.append(min(c for c, v in votes.items() if v == best))
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5))
def test_knn_predict_with_ties_matches_a_stable_brute_force(seed, k):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(15, 2)).astype(float)  # many equal distances
    y = rng.integers(0, 3, 15)
    Xt = rng.integers(0, 3, size=(6, 2)).astype(float)
    assert P.knn_predict(X, y, Xt, k).tolist() == _brute_knn(X, y, Xt, k)


def test_knn_predict_tie_rules_and_labels():
    # three training points at the same distance: lower index wins, vote tie -> smallest
    X = np.array([[1.0], [-1.0], [1.0], [-1.0]])
    y = np.array(["b", "a", "b", "a"])
    # k=2 picks indices 0 and 1 (distance 1 each, lowest indices): tie b/a -> "a"
    assert P.knn_predict(X, y, np.array([[0.0]]), 2).tolist() == ["a"]
    # no feature: majority class
    assert P.knn_predict(np.empty((3, 0)), [1, 2, 2], np.empty((2, 0))).tolist() == [2, 2]
    with pytest.raises(ValueError, match="n_neighbors"):
        P.knn_predict(X, y, X, 0)


def test_loo_knn_mistakes_against_brute_force():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=20) > 0).astype(int)
    order = [3, 0, 4]
    got = P.loo_knn_mistakes(X, y, order, 3)
    for m in range(1, 4):
        cols = order[:m]
        wrong = 0
        for i in range(20):
            keep = np.arange(20) != i
            clf = KNeighborsClassifier(3, algorithm="brute").fit(X[keep][:, cols], y[keep])
            wrong += int(clf.predict(X[i : i + 1, cols])[0] != y[i])
        assert got[m - 1] == wrong


def test_balanced_error_rate_is_one_minus_balanced_accuracy():
    rng = np.random.default_rng(2)
    yt = rng.integers(0, 3, 50)
    yp = rng.integers(0, 3, 50)
    assert P.balanced_error_rate(yt, yp) == pytest.approx(1 - balanced_accuracy_score(yt, yp))
    assert P.balanced_error_rate([0, 0, 1, 1], [0, 1, 1, 1]) == pytest.approx(0.25)
    with pytest.raises(ValueError):
        P.balanced_error_rate([0, 1], [0])


def test_cv_error_matches_a_manual_loop():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = (X[:, 1] > 0).astype(int)
    mean, folds = P.cv_error(X, y, classifier="naive_bayes", n_splits=5, random_state=7)
    errs = []
    for train in resample_indices(60, 5, resampling="kfold", random_state=7):
        test = np.setdiff1d(np.arange(60), train)
        pred = GaussianNB().fit(X[train], y[train]).predict(X[test])
        errs.append(np.mean(pred != y[test]))
    np.testing.assert_allclose(folds, errs)
    assert mean == pytest.approx(np.mean(errs))
    m_cart, _ = P.cv_error(X, y, classifier="cart", features=[1], n_splits=5, random_state=7)
    assert m_cart <= 0.1  # one threshold on the relevant feature is almost perfect
    with pytest.raises(ValueError, match="classifier"):
        P.cv_error(X, y, classifier="svm")


# ------------------------------------------------------------------ bootstrap protocol
def _data():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(70, 6))
    y = (X[:, 0] + X[:, 2] > 0).astype(int)
    return X, y


def test_bootstrap_oob_error_against_brute_force_and_n_jobs():
    X, y = _data()
    X0, y0 = X.copy(), y.copy()
    sel = SelectKBest(f_classif, k=2)
    run = P.bootstrap_oob_error(sel, X, y, n_bootstraps=6, random_state=11, n_jobs=1)
    with joblib.parallel_config(backend="threading"):
        run2 = P.bootstrap_oob_error(sel, X, y, n_bootstraps=6, random_state=11, n_jobs=2)
    np.testing.assert_array_equal(run.oob_error, run2.oob_error)
    assert all(np.array_equal(a, b) for a, b in zip(run.subsets, run2.subsets, strict=False))
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    # brute force: same bootstrap rows, sklearn k-NN on the OOB rows
    for b, idx in enumerate(resample_indices(70, 6, resampling="bootstrap", random_state=11)):
        s = np.flatnonzero(SelectKBest(f_classif, k=2).fit(X[idx], y[idx]).get_support())
        np.testing.assert_array_equal(run.subsets[b], s)
        oob = np.setdiff1d(np.arange(70), idx)
        clf = KNeighborsClassifier(3, algorithm="brute").fit(X[idx][:, s], y[idx])
        assert run.oob_error[b] == pytest.approx(np.mean(clf.predict(X[oob][:, s]) != y[oob]))
    assert 0.0 <= run.accuracy <= 1.0
    assert set(np.concatenate(run.subsets)) >= {0, 2}


def test_bootstrap_oob_error_validates():
    X, y = _data()
    with pytest.raises(ValueError, match="X_eval"):
        P.bootstrap_oob_error(SelectKBest(k=2), X, y, n_bootstraps=2, X_eval=X[:, :2])


def test_fit_subset_uses_selection_order():
    class Ordered:
        def get_params(self, deep=True):
            return {}

        def set_params(self, **p):
            return self

        def fit(self, X, y):
            self.selection_order_ = np.array([3, 1, 0, 2])
            return self

        def get_support(self):
            return np.array([False, True, False, True])

    assert P.fit_subset(Ordered(), np.zeros((3, 4)), np.zeros(3)).tolist() == [3, 1]


# ------------------------------------------------------------------ stability
@pytest.fixture
def needs_stability():
    pytest.importorskip("fsel.meta.stability")


def test_kuncheva_on_known_subsets(needs_stability):
    # K=10, k=3, r=2: (2*10 - 9) / (3 * 7) = 11/21; identical sets give 1
    subsets = [np.array([0, 1, 2]), np.array([0, 1, 3])]
    assert P.kuncheva_stability(subsets, 10) == pytest.approx(11 / 21)
    same = [np.array([4, 5, 6])] * 3
    assert P.kuncheva_stability(same, 10) == pytest.approx(1.0)
    a = [np.array([0, 1, 2]), np.array([5, 6, 7])]
    b = [np.array([0, 1, 3]), np.array([5, 6, 7])]
    assert P.subset_similarity(a, b, 10) == pytest.approx((11 / 21 + 1) / 2)


def test_similarity_matrix_diagonal_is_stability(needs_stability):
    subsets = {
        "a": [np.array([0, 1]), np.array([0, 2])],
        "b": [np.array([0, 1]), np.array([3, 4])],
    }
    names, S = P.similarity_matrix(subsets, 8)
    assert names == ["a", "b"]
    assert S[0, 0] == pytest.approx(P.kuncheva_stability(subsets["a"], 8))
    assert S[0, 1] == S[1, 0] == pytest.approx(P.subset_similarity(subsets["a"], subsets["b"], 8))


def test_information_stability_of_identical_sets_is_the_maximum(needs_stability):
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 3, size=(200, 6))
    same = [np.array([0, 1, 2])] * 3
    diff = [np.array([0, 1, 2]), np.array([3, 4, 5]), np.array([0, 4, 2])]
    assert P.information_stability(same, codes) > P.information_stability(diff, codes)
    with pytest.raises(ValueError):
        P.information_stability(same[:1], codes)


def test_information_stability_matches_meta_stability(needs_stability):
    from fsel.meta.stability import information_consistency, mean_information_consistency

    rng = np.random.default_rng(9)
    codes = rng.integers(0, 3, size=(150, 12))
    codes[:, 5] = codes[:, 1]  # a redundant copy
    subsets = [rng.choice(12, 4, replace=False) for _ in range(5)]
    assert P.information_stability(subsets, codes) == pytest.approx(
        mean_information_consistency(subsets, codes)
    )
    a, b = subsets[:2], subsets[2:4]
    ref = np.mean([information_consistency(x, z, codes) for x, z in zip(a, b, strict=True)])
    assert P.subset_similarity(a, b, 12, measure="information", codes=codes) == pytest.approx(ref)
    _names, S = P.similarity_matrix({"a": a, "b": b}, 12, measure="information", codes=codes)
    assert S[0, 1] == pytest.approx(ref)


# ------------------------------------------------------------------ MDS and ranks
def test_classical_mds_recovers_euclidean_configuration():
    rng = np.random.default_rng(6)
    pts = rng.normal(size=(7, 2))
    D = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    Y = P.classical_mds(D, 2)
    DY = np.sqrt(((Y[:, None] - Y[None]) ** 2).sum(-1))
    np.testing.assert_allclose(DY, D, atol=1e-9)
    with pytest.raises(ValueError):
        P.classical_mds(np.array([[0.0, 1.0], [2.0, 0.0]]))


def _brute_pareto(acc, stab):
    out = []
    for i in range(len(acc)):
        n = sum(1 for j in range(len(acc)) if acc[j] > acc[i] and stab[j] > stab[i])
        out.append(1 + n)
    return out


def test_pareto_ranks_toy_table():
    # C is dominated by A and B; D by A, B, C and E
    acc = [0.9, 0.8, 0.7, 0.6, 0.95]
    stab = [0.8, 0.9, 0.7, 0.5, 0.6]
    assert RC.pareto_ranks(acc, stab).tolist() == [1, 1, 3, 5, 1]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=9))
def test_pareto_ranks_property(pairs):
    acc = [a for a, _ in pairs]
    stab = [s for _, s in pairs]
    got = RC.pareto_ranks(acc, stab)
    assert got.tolist() == _brute_pareto(acc, stab)
    assert got.min() == 1  # someone is always non-dominated


def test_average_ranks_with_ties():
    R, avg = RC.average_ranks(np.array([[3.0, 1.0, 3.0], [1.0, 2.0, 3.0]]), higher_is_better=False)
    assert R.tolist() == [[2.5, 1.0, 2.5], [1.0, 2.0, 3.0]]
    assert avg.tolist() == [1.75, 1.5, 2.75]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_friedman_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, 4, size=(12, 5)).astype(float)  # many ties
    res = RC.friedman_test(S)
    ref = stats.friedmanchisquare(*S.T)
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue)
    n, k = S.shape
    ff = (n - 1) * ref.statistic / (n * (k - 1) - ref.statistic)
    assert res.iman_davenport == pytest.approx(ff)
    assert res.average_ranks.sum() == pytest.approx(k * (k + 1) / 2)


def test_friedman_validates():
    with pytest.raises(ValueError):
        RC.friedman_test(np.ones((1, 3)))


# Demsar (2006), Table 5: critical values q_alpha of the two-tailed Nemenyi test
DEMSAR_Q = {
    0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
    0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920],
}


@pytest.mark.parametrize("alpha", sorted(DEMSAR_Q))
def test_nemenyi_q_matches_published_table(alpha):
    for k, q in zip(range(2, 11), DEMSAR_Q[alpha], strict=False):
        assert RC.nemenyi_q(k, alpha) == pytest.approx(q, abs=1e-3)


def test_nemenyi_critical_difference_and_significance():
    # Demsar's worked example: k=4 classifiers, N=14 data sets, CD(0.05) = 1.25
    cd = RC.nemenyi_critical_difference(4, 14, 0.05)
    assert cd == pytest.approx(2.569 * np.sqrt(4 * 5 / (6 * 14)), abs=1e-3)
    cds = {a: RC.nemenyi_critical_difference(3, 10, a) for a in (0.10, 0.05, 0.01)}
    assert cds[0.10] < cds[0.05] < cds[0.01]
    gap = (cds[0.05] + cds[0.01]) / 2  # significant at 95% but not at 99%
    L = RC.nemenyi_significance([1.0, 1.0 + gap, 1.0 + 10], 10)
    assert L[0, 1] == pytest.approx(0.95)
    assert L[0, 2] == pytest.approx(0.99)
    assert L[1, 0] == 0 and np.all(np.diag(L) == 0)
    with pytest.raises(ValueError):
        RC.nemenyi_q(1)


# ------------------------------------------------------------------ probe ROC
def test_probe_roc_area_equals_rank_auc():
    rng = np.random.default_rng(8)
    scores = rng.normal(size=40)
    probe = rng.uniform(size=40) < 0.4
    fpr, tpr, auc = P.probe_roc(scores, probe)
    assert auc == pytest.approx(roc_auc_score(~probe, scores))
    assert fpr[0] == tpr[0] == 0 and fpr[-1] == tpr[-1] == 1
    order = np.argsort(-scores, kind="stable")
    assert P.probe_roc(order, probe, order_given=True)[2] == pytest.approx(auc)
    # every probe first: area 0
    assert P.probe_roc([0.0, 1.0], [False, True])[2] == 0.0
    with pytest.raises(ValueError):
        P.probe_roc([1.0, 2.0], [False, False])


# ------------------------------------------------------------------ diagrams
def test_diagrams_are_written(tmp_path):
    pytest.importorskip("matplotlib")
    names = ["a", "b", "c"]
    r = [1.2, 2.0, 2.8]
    p1 = RC.plot_critical_difference(names, r, 1.0, tmp_path / "cd.png")
    L = RC.nemenyi_significance(r, 30)
    p2 = RC.plot_dominance_diagram(names, r, L, tmp_path / "dom.png")
    for p in (p1, p2):
        assert p.read_bytes()[:4] == b"\x89PNG"


# ------------------------------------------------------------------ cache
def test_cache_roundtrip_and_keys(tmp_path):
    cache = ResultCache(tmp_path)
    calls = []

    def work():
        calls.append(1)
        return {"x": np.arange(3)}

    a = cache.get_or_compute({"seed": 0, "sel": SelectKBest(k=2)}, work)
    b = cache.get_or_compute({"sel": SelectKBest(k=2), "seed": 0}, work)
    np.testing.assert_array_equal(a["x"], b["x"])
    assert len(calls) == 1 and cache.hits == 1
    cache.get_or_compute({"seed": 0, "sel": SelectKBest(k=3)}, work)
    assert len(calls) == 2
    off = ResultCache(None)
    off.get_or_compute({"seed": 0}, work)
    off.get_or_compute({"seed": 0}, work)
    assert len(calls) == 4
    assert estimator_fingerprint(SelectKBest(k=2))["params"]["k"] == 2


def test_cache_location(tmp_path):
    assert cache_for(tmp_path).directory == tmp_path / ".cache"
    with use_cache_dir(tmp_path / "shared"):
        assert cache_for(tmp_path).directory == tmp_path / "shared"
    with use_cache_dir(None):
        assert not cache_for(tmp_path).enabled


def test_cache_ignores_a_corrupt_file(tmp_path):
    cache = ResultCache(tmp_path)
    key = cache.key({"a": 1})
    (tmp_path / f"{key}.joblib").write_bytes(b"not a joblib file")
    assert cache.get_or_compute({"a": 1}, lambda: 5) == 5


def test_cache_key_holds_the_library_version_and_the_arrays(monkeypatch):
    import fsel

    X = np.arange(12.0).reshape(4, 3)
    parts = {"protocol": "demo", "data": array_fingerprint(X)}
    key = ResultCache.key(parts)
    assert ResultCache.key({"protocol": "demo", "data": array_fingerprint(X.copy())}) == key
    assert ResultCache.key({"protocol": "demo", "data": array_fingerprint(X + 1e-9)}) != key
    assert ResultCache.key({"protocol": "demo", "data": array_fingerprint(X.T)}) != key
    monkeypatch.setattr(fsel, "__version__", fsel.__version__ + ".post1")
    assert ResultCache.key(parts) != key


def test_cache_stores_and_reports_compute_seconds(tmp_path):
    import time

    cache = ResultCache(tmp_path)

    def slow():
        time.sleep(0.05)
        return 7

    with track_cache() as cold:
        assert cache.get_or_compute({"a": 1}, slow) == 7
    assert (cold.computed, cold.cached) == (1, 0) and cold.computed_seconds >= 0.05
    with track_cache() as warm:
        assert cache.get_or_compute({"a": 1}, slow) == 7
    assert (warm.computed, warm.cached) == (0, 1)
    assert warm.cached_seconds == pytest.approx(cold.computed_seconds)
    assert warm.compute_seconds == pytest.approx(cold.compute_seconds)
    # a file in an older layout (the bare value) is a miss, not a wrong value
    joblib.dump(5, tmp_path / f"{cache.key({'b': 1})}.joblib")
    assert cache.get_or_compute({"b": 1}, lambda: 6) == 6
