"""The nearest-neighbour information estimator (``mi_estimator="knn"``): its values against
scikit-learn, exact Gaussian values and a brute-force twin; the criteria on it; its
input rules (missing values, inf, sparse, Dask, DISR); regression targets."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import digamma

import fsel
from fsel.kernels.knn_mi import (
    TARGET,
    KNNInformationTable,
    knn_conditional_mutual_information,
    knn_mutual_information,
)

LN2 = np.log(2.0)
#: the estimator parameter, by its name in this version (``estimator`` until the 0.2
#: rename to ``mi_estimator``)
KNN = {"mi_estimator": "knn"}


# --------------------------------------------------------------------------- a twin


def _brute_cmi(cols: dict[str, list[np.ndarray]], group: np.ndarray | None, g_in: str, k: int):
    """``I(X;Y|Z)`` in nats from the full max-norm distance matrices: a plain-loop twin
    of the estimator (KSG counts strictly inside the k-th neighbour distance, Gao's rule
    at distance 0, within-class search for a discrete variable)."""
    n = (cols["x"] + cols["y"] + cols["z"])[0].shape[0]

    def dist(names):
        d = np.zeros((n, n))
        for s in names:
            for c in cols[s]:
                d = np.maximum(d, np.abs(c[:, None] - c[None, :]))
            if group is not None and g_in == s:
                d = np.where(group[:, None] == group[None, :], d, np.inf)
        return d

    keep = np.ones(n, bool)
    if group is not None:
        sizes = np.array([(group == g).sum() for g in group])
        keep = sizes >= 2
    idx = np.flatnonzero(keep)
    dj = dist("xyz")[np.ix_(idx, idx)]
    spaces = {s: dist(s)[np.ix_(idx, idx)] for s in ("xz", "yz", "z")}
    m = idx.size
    total = 0.0
    for a in range(m):
        others = np.delete(dj[a], a)
        kk = min(k, int(np.isfinite(others).sum()))
        rho = np.sort(others)[kk - 1]
        if rho == 0:
            k_i = int((others == 0).sum())
            cnt = {s: int((np.delete(v[a], a) <= 0).sum()) for s, v in spaces.items()}
        else:
            k_i = kk
            cnt = {s: int((np.delete(v[a], a) < rho).sum()) for s, v in spaces.items()}
        if not cols["z"] and not (group is not None and g_in == "z"):
            cnt["z"] = m - 1
        total += digamma(k_i) + digamma(cnt["z"] + 1) - digamma(cnt["xz"] + 1)
        total -= digamma(cnt["yz"] + 1)
    return max(0.0, total / m)


def _scaled(a):
    a = np.asarray(a, float)
    sd = a.std()
    return a / sd if sd > 0 else a


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("discrete_y", [False, True])
def test_table_terms_match_a_brute_force_twin(backend, ties, discrete_y):
    rng = np.random.default_rng(3)
    n = 120
    X = rng.normal(size=(n, 3))
    if ties:  # integer-valued columns: many exact duplicates (Gao's rule)
        X = np.round(X * 1.5)
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int) if discrete_y else X[:, 0] + X[:, 1]
    t = KNNInformationTable(X, y, y_discrete=discrete_y, n_neighbors=3)
    # the table's own scaled columns: with ties, distances equal in exact arithmetic
    # differ by rounding after another scaling, and strict counts would follow that
    np.testing.assert_allclose(t.values, np.column_stack([_scaled(c) for c in X.T]), rtol=1e-14)
    xs = [t.values[:, c] for c in range(3)]
    ycol = [] if discrete_y else [t.y]
    grp = y if discrete_y else None

    def twin(x, yy, z, g_in):
        return _brute_cmi({"x": x, "y": yy, "z": z}, grp, g_in, 3) / LN2

    for c in range(3):
        assert t.relevance[c] == pytest.approx(twin([xs[c]], ycol, [], "y"), abs=1e-10)
    cases = [
        (t.term([0], [1]), twin([xs[0]], [xs[1]], [], "none")),
        (t.term([0], [1], [TARGET]), twin([xs[0]], [xs[1]], ycol, "z")),
        (t.term([0, 1], [TARGET]), twin([xs[0], xs[1]], ycol, [], "y")),
        (t.term([0], [TARGET], [1]), twin([xs[0]], ycol, [xs[1]], "y")),
        (t.term([2], [TARGET], [0, 1]), twin([xs[2]], ycol, [xs[0], xs[1]], "y")),
    ]
    for got, want in cases:
        assert got == pytest.approx(want, abs=1e-10)


# --------------------------------------------------------------------------- references


def test_mim_matches_scikit_learn_classif_and_regression():
    """scikit-learn scales continuous columns and adds noise of 1e-10 times their mean
    absolute value; on continuous data without ties that noise changes no neighbour
    order (the closest pair of distances differs by far more), so the values agree to
    rounding after nats -> bits."""
    from sklearn.feature_selection import mutual_info_classif, mutual_info_regression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(800, 8)) * np.arange(1, 9)  # different scales
    y = (X[:, 0] / 1 + (X[:, 1] / 2) ** 2 > 1).astype(int)
    yr = X[:, 2] / 3 + np.sin(X[:, 3] / 2) + 0.2 * rng.normal(size=800)
    for target, ref_fn in ((y, mutual_info_classif), (yr, mutual_info_regression)):
        for k in (3, 5):
            ref = ref_fn(X, target, n_neighbors=k, random_state=0) / LN2
            mim = fsel.MIM(8, **KNN, n_neighbors=k).fit(X, target)
            np.testing.assert_allclose(mim.relevance_, ref, atol=1e-9)
            assert list(mim.selection_order_[:4]) == list(np.argsort(-ref, kind="stable")[:4])


@pytest.mark.slow
@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
def test_bivariate_gaussian_exact_value(rho):
    """``I = -1/2 log2(1 - rho^2)`` bits. KSG's bias at k=3, N=2000 is a few thousandths
    of a nat for these correlations (Kraskov et al. 2004, Fig. 4) and the spread of one
    estimate about 0.01 nats: the mean of 5 samples is within 0.02 bits."""
    exact = -0.5 * np.log2(1 - rho**2)
    est = []
    for seed in range(5):
        rng = np.random.default_rng(seed)
        xy = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=2000)
        est.append(knn_mutual_information(xy[:, 0], xy[:, 1]))
    assert np.mean(est) == pytest.approx(exact, abs=0.02)


def test_gaussian_conditional_value():
    """``X = Z + e1``, ``Y = Z + e2``: ``I(X;Y|Z) = 0``; with ``Y = Z + X/2 + e2`` the
    partial correlation gives ``-1/2 log2(1 - r^2)``."""
    rng = np.random.default_rng(1)
    n = 3000
    z = rng.normal(size=n)
    x = z + rng.normal(size=n)
    y0 = z + rng.normal(size=n)
    y1 = z + 0.5 * x + rng.normal(size=n)
    assert knn_conditional_mutual_information(x, y0, z) < 0.02
    # partial correlation of x and y1 given z: both residuals on z are x - z and
    # 0.5 (x - z) + e2, so r = 0.5 / sqrt(0.25 + 1)
    r = 0.5 / np.sqrt(1.25)
    exact = -0.5 * np.log2(1 - r**2)
    assert knn_conditional_mutual_information(x, y1, z) == pytest.approx(exact, abs=0.03)


def test_agrees_with_the_binned_selection_where_both_should():
    """Monotone effects of clearly different strengths: both estimators rank the
    three relevant columns first, in the same order, for MIM and JMI."""
    rng = np.random.default_rng(2)
    n = 2000
    X = rng.normal(size=(n, 10))
    y = np.digitize(4 * X[:, 0] + 2.5 * X[:, 1] + 1.5 * X[:, 2] + rng.normal(size=n), [-2, 0, 2])
    for cls in (fsel.MIM, fsel.JMI):
        knn = cls(3, **KNN).fit(X, y).selection_order_
        binned = cls(3, discretize="quantile", n_bins=8).fit(X, y).selection_order_
        assert list(knn) == list(binned) == [0, 1, 2]


def test_nonlinear_recovery_beats_coarse_binning():
    """A sine, a product and an XOR of continuous columns (uniform on [-1, 1]): JMI with
    knn recovers at least as many relevant columns as JMI on the default 5 equal-width
    bins in every design, and more in all (recovery measured). The sine has a period of
    one bin width, so binning averages it away. A pure XOR has no marginal relevance, so
    no greedy criterion can start on it: here one of its columns also has a main effect.
    """
    rng = np.random.default_rng(0)
    n = 2000
    X = rng.uniform(-1, 1, size=(n, 12))
    sine = np.sin(5 * np.pi * X[:, 0]) + np.sin(5 * np.pi * X[:, 1])
    xor = ((X[:, 3] > 0) ^ (X[:, 4] > 0)).astype(float)
    designs = [
        (sine + 0.2 * rng.normal(size=n), {0, 1}),
        ((sine + 0.2 * rng.normal(size=n) > 0).astype(int), {0, 1}),
        (X[:, 1] * X[:, 2] * X[:, 3] + 0.02 * rng.normal(size=n), {1, 2, 3}),
        ((xor + 0.5 * X[:, 3] > 0.75).astype(int), {3, 4}),
        (
            np.sin(5 * np.pi * X[:, 0])
            + 2 * X[:, 1] * X[:, 2]
            + xor
            + X[:, 3]
            + 0.1 * rng.normal(size=n),
            {0, 1, 2, 3, 4},
        ),
    ]
    rec_knn, rec_binned = [], []
    for y, truth in designs:
        k = len(truth)
        knn = fsel.JMI(k, **KNN).fit(X, y).selection_order_
        with warnings.catch_warnings():  # the binned run warns about the binned float y
            warnings.simplefilter("ignore", UserWarning)
            binned = fsel.JMI(k).fit(X, y).selection_order_
        rec_knn.append(len(set(knn.tolist()) & truth))
        rec_binned.append(len(set(binned.tolist()) & truth))
    assert all(a >= b for a, b in zip(rec_knn, rec_binned, strict=True))
    assert sum(rec_knn) > sum(rec_binned)
    assert sum(rec_knn) >= sum(len(t) for _, t in designs) - 1


# --------------------------------------------------------------------------- properties


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    coef=st.floats(-3, 3),
    scale=st.floats(0.01, 100),
    shift=st.floats(-100, 100),
)
def test_properties_symmetry_nonnegativity_affine_invariance(seed, coef, scale, shift):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=150)
    y = coef * x + rng.normal(size=150)
    a = knn_mutual_information(x, y)
    assert a >= 0.0  # clipped at 0
    assert knn_mutual_information(y, x) == pytest.approx(a, abs=1e-12)
    # columns are scaled to unit standard deviation: an affine map changes nothing
    # beyond the rounding of the scaled values
    assert knn_mutual_information(scale * x + shift, y) == pytest.approx(a, abs=0.02)
    labels = (y > 0).astype(int)
    b = knn_mutual_information(x, labels)
    assert b >= 0.0
    assert knn_mutual_information(x, 5 - 3 * labels) == pytest.approx(b, abs=1e-12)


def test_approximate_invariance_to_a_monotone_transform():
    """I(X;Y) is invariant to a monotone map of X; KSG is so approximately."""
    rng = np.random.default_rng(4)
    x = rng.normal(size=3000)
    y = x + rng.normal(size=3000)
    a = knn_mutual_information(x, y)
    for f in (np.exp, lambda v: v**3, np.arctan):
        assert knn_mutual_information(f(x), y) == pytest.approx(a, abs=0.1)


# --------------------------------------------------------------------------- the criteria


CRITERIA = ["MIM", "JMI", "MRMR", "CMIM", "ICAP", "CIFE", "JMIM", "CondRed", "MIFS", "CMI"]


@pytest.mark.parametrize("name", CRITERIA)
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_every_criterion_finds_the_relevant_columns(name, task):
    rng = np.random.default_rng(5)
    n = 600
    X = rng.normal(size=(n, 8))
    signal = 2 * X[:, 1] + np.sin(2 * X[:, 5])
    y = (signal > 0).astype(int) if task == "classification" else signal
    y = y + (0 if task == "classification" else 0.1 * rng.normal(size=n))
    sel = getattr(fsel, name)(2, **KNN).fit(X, y)
    assert set(sel.selection_order_.tolist()) == {1, 5}
    assert sel.relevance_.argmax() == 1
    if task == "regression":
        assert not hasattr(sel, "classes_") and sel.y_bin_edges_ is None
    else:
        assert list(sel.classes_) == [0, 1]


def test_results_do_not_depend_on_n_jobs_or_backend(monkeypatch):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 6))
    y = (X[:, 0] * X[:, 1] + X[:, 2] > 0).astype(int)
    runs = []
    for disable in ("", "1"):
        monkeypatch.setenv("FSEL_DISABLE_NUMBA", disable)
        for n_jobs in (1, 2):
            sel = fsel.CMIM(4, **KNN, n_jobs=n_jobs).fit(X, y)
            runs.append((sel.selection_order_.tolist(), sel.scores_))
    for order, scores in runs[1:]:
        assert order == runs[0][0]
        np.testing.assert_allclose(scores, runs[0][1], rtol=0, atol=1e-12)


def test_input_is_not_modified():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 4))
    X[::5, 2] = np.nan
    y = rng.normal(size=200)
    X0, y0 = X.copy(), y.copy()
    fsel.JMI(2, **KNN, missing="available").fit(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


# --------------------------------------------------------------------------- input rules


def test_missing_values_each_term_on_its_observed_rows():
    rng = np.random.default_rng(8)
    n = 400
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    Xm = X.copy()
    holes = rng.random(n) < 0.2
    Xm[holes, 1] = np.nan
    with pytest.raises(ValueError, match="missing='available'"):
        fsel.JMI(2, **KNN).fit(Xm, y)
    with pytest.raises(ValueError, match=r"[Mm]issing"):
        fsel.JMI(2, **KNN, missing="error").fit(Xm, y)
    sel = fsel.JMI(3, **KNN, missing="available").fit(Xm, y)
    # I(X1;Y) is the estimate on the rows where X1 is observed, with the scale of
    # X1 taken over those rows
    obs = ~holes
    assert sel.relevance_[1] == pytest.approx(knn_mutual_information(X[obs, 1], y[obs]))
    assert sel.relevance_[0] == pytest.approx(knn_mutual_information(X[:, 0], y))


def test_inf_sparse_dask_disr_and_bad_n_neighbors_are_errors():
    import scipy.sparse as sp

    rng = np.random.default_rng(9)
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] > 0).astype(int)
    Xi = X.copy()
    Xi[3, 1] = np.inf
    with pytest.raises(ValueError, match="inf"):
        fsel.JMI(2, **KNN, missing="available").fit(Xi, y)
    with pytest.raises(ValueError, match="sparse"):
        fsel.JMI(2, **KNN).fit(sp.csr_matrix(X), y)
    with pytest.raises(ValueError, match="DISR"):
        fsel.DISR(2, **KNN).fit(X, y)
    with pytest.raises(TypeError, match="n_neighbors"):
        fsel.JMI(2, **KNN, n_neighbors=2.5).fit(X, y)
    with pytest.raises(ValueError, match="n_neighbors"):
        fsel.JMI(2, **KNN, n_neighbors=0).fit(X, y)
    with pytest.raises(ValueError, match="more than n_neighbors"):
        fsel.JMI(2, **KNN, n_neighbors=60).fit(X, y)
    with pytest.raises(ValueError, match="CPU only"):
        fsel.JMI(2, **KNN, device="cuda").fit(X, y)
    assert fsel.JMI(2, **KNN, device="auto").fit(X, y).device_ == "cpu"
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="Dask"):
        fsel.JMI(2, **KNN).fit(da.from_array(X, chunks=25), y)


def test_discrete_columns_and_ties():
    """Integer columns are codes (unscaled); a discrete column that determines the
    label carries about H(Y) bits (Gao et al.'s rule tends to the plug-in value)."""
    rng = np.random.default_rng(10)
    n = 1000
    codes = rng.integers(0, 4, size=n)
    y = codes % 2
    noise = rng.normal(size=n)
    X = np.column_stack([codes, noise])
    sel = fsel.MIM(2, **KNN).fit(X, y)
    p = np.bincount(y) / n
    h_y = float(-(p * np.log2(p)).sum())
    assert sel.relevance_[0] == pytest.approx(h_y, abs=0.05)
    assert sel.relevance_[1] < 0.05


# --------------------------------------------------------------------------- regression


def test_bootstrap_repeats_inflate_the_estimate_subsamples_do_not():
    """Why NPFS warns with knn and bootstrap resampling: repeated rows are exact ties."""
    rng = np.random.default_rng(14)
    n = 1000
    x, y = rng.normal(size=n), rng.normal(size=n)
    boot = rng.integers(0, n, n)
    sub = rng.permutation(n)[: n // 2]
    assert knn_mutual_information(x[boot], y[boot]) > 0.5
    assert knn_mutual_information(x[sub], y[sub]) < 0.1


def test_regression_target_npfs_and_cli(tmp_path, capsys):
    from fsel.cli.main import main

    rng = np.random.default_rng(11)
    n = 300
    X = rng.normal(size=(n, 5))
    y = X[:, 0] + np.sin(3 * X[:, 3]) + 0.1 * rng.normal(size=n)
    jmi = fsel.JMI(2, **KNN)
    with pytest.warns(UserWarning, match="subsample"):
        fsel.NPFS(jmi, n_resamples=10, random_state=0).fit(X, y)
    npfs = fsel.NPFS(jmi, n_resamples=20, resampling="subsample", random_state=0).fit(X, y)
    assert set(np.flatnonzero(npfs.support_).tolist()) == {0, 3}
    path = tmp_path / "reg.csv"
    with path.open("w") as fh:
        fh.write("a,b,c,d,e,target\n")
        for row, t in zip(X, y, strict=True):
            fh.write(",".join(f"{v:.6f}" for v in row) + f",{t:.6f}\n")
    args = ["select", str(path), "--target", "target", "--method", "jmi", "-k", "2"]
    code = main([*args, "--mi-estimator", "knn", "-q"])
    assert code == 0
    out = capsys.readouterr().out
    assert " a" in out and " d" in out
    code = main(["select", str(path), "--target", "target", "--method", "mim-knn", "-k", "2"])
    assert code == 0


def test_report_runs_knn_methods_on_a_numeric_target():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(240, 6))
    y = X[:, 1] - np.cos(2 * X[:, 4]) + 0.1 * rng.normal(size=240)
    rep = fsel.report(
        X, y, methods="jmi-knn,k3", n_features_to_select=2, quick=True, progress=False
    )
    assert rep.summary.task == "regression"
    assert sorted(rep.selections["jmi-knn"].features.tolist()) == [1, 4]
    assert np.isnan(rep.curves["jmi-knn"].ber).all()  # R^2 curves: no error rate


def test_user_guide_example_runs():
    import doctest
    from pathlib import Path

    rst = Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "information.rst"
    result = doctest.testfile(str(rst), module_relative=False, verbose=False)
    assert result.attempted >= 5 and result.failed == 0


def test_lazy_cmim_picks_like_the_vectorised_engine():
    from fsel.selectors.information._engine import greedy_select

    class Vectorised(KNNInformationTable):
        def lazy_cmim(self, k, tol):
            return None

    rng = np.random.default_rng(13)
    X = rng.normal(size=(300, 9))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + np.sin(2 * X[:, 3]) > 0).astype(int)
    lazy = greedy_select(KNNInformationTable(X, y, y_discrete=True), "cmim", 5)
    full = greedy_select(Vectorised(X, y, y_discrete=True), "cmim", 5)
    assert lazy.order.tolist() == full.order.tolist()
    np.testing.assert_allclose(lazy.step_scores, full.step_scores, rtol=0, atol=1e-12)
    unselected = np.setdiff1d(np.arange(9), lazy.order)
    assert (lazy.last_scores[unselected] >= full.last_scores[unselected] - 1e-12).all()


# --------------------------------------------------------------------------- kernels


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 90),
    d=st.integers(1, 3),
    k=st.integers(1, 4),
    leaf=st.integers(1, 8),
    seed=st.integers(0, 999),
    ties=st.booleans(),
)
def test_numba_tree_searches_against_brute_force(n, d, k, leaf, seed, ties):
    """The compiled k-d tree (compiled and as Python, ``py_func``) against the full
    max-norm distance matrix: the k-th other point's distance and the counts within a
    radius (``<=``), with ties and leaves of any size."""
    nk = pytest.importorskip("fsel.kernels._numba_knn")
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(n, d))
    if ties:
        pts = np.round(pts)
    k = min(k, n - 1)
    dist = np.abs(pts[:, None, :] - pts[None, :, :]).max(axis=2)
    kth = np.sort(dist, axis=1)[:, k]  # column 0 is the point itself
    radius = np.where(rng.random(n) < 0.5, kth, np.nextafter(kth, 0))
    counts = (dist <= radius[:, None]).sum(axis=1) - 1
    assert nk.tree_levels(n, leaf) >= 1
    for knn_radius, count_all in (
        (nk.knn_radius, nk.count_within_all),
        (nk.knn_radius.py_func, nk.count_within_all.py_func),
    ):
        np.testing.assert_array_equal(knn_radius(pts, k, leaf), kth)
        np.testing.assert_array_equal(count_all(pts, radius, leaf), counts)
    rp, idx, ns, ne, lo, hi, first_leaf, levels = nk.kd_build.py_func(pts, leaf)
    np.testing.assert_array_equal(rp, pts[idx])
    assert sorted(idx.tolist()) == list(range(n))
    assert ns.size == 2**levels - 1 and (ne[first_leaf:] - ns[first_leaf:] <= leaf).all()
    for node in range(ns.size):  # every box is its points' bounding box
        if ne[node] > ns[node]:
            np.testing.assert_array_equal(lo[node], rp[ns[node] : ne[node]].min(axis=0))
            np.testing.assert_array_equal(hi[node], rp[ns[node] : ne[node]].max(axis=0))


def test_lazy_cmim_leaves_the_same_bounds_for_every_n_jobs():
    # the refresh batches once grew with n_jobs (8 per thread), so the bounds left on
    # unselected features (their scores_) depended on the number of threads
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(200, 3))
    X = Z @ rng.normal(size=(3, 40)) + rng.normal(size=(200, 40))
    y = (Z[:, 0] + 0.5 * rng.normal(size=200) > 0).astype(int)
    one = fsel.CMIM(6, mi_estimator="knn", n_jobs=1).fit(X, y)
    three = fsel.CMIM(6, mi_estimator="knn", n_jobs=3).fit(X, y)
    assert one.selection_order_.tolist() == three.selection_order_.tolist()
    np.testing.assert_array_equal(one.scores_, three.scores_)
