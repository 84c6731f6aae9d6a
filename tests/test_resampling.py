"""The resampling engine: seeds, index generators, plans, the replicate runner."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from joblib import Parallel, delayed, parallel_config
from sklearn.feature_selection import SelectKBest, f_classif

from _joblib_backends import MP_MARKS
from fsel.meta.resampling import (
    Resample,
    bootstrap_indices,
    kfold_indices,
    replicate_seeds,
    resample_indices,
    resample_plan,
    run_replicates,
    selection_matrix,
    subsample_indices,
    support_indices,
)


def _data(n=80, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X, y


def test_seeds_are_distinct_and_reproducible():
    a = replicate_seeds(7, 50)
    b = replicate_seeds(7, 50)
    sa = [tuple(s.generate_state(4)) for s in a]
    assert sa == [tuple(s.generate_state(4)) for s in b]
    assert len(set(sa)) == 50


def test_bootstrap_replicates_are_distinct():
    idx = resample_indices(100, 30, random_state=0)
    assert len({tuple(i) for i in idx}) == 30
    for i in idx:
        assert i.shape == (100,) and i.min() >= 0 and i.max() < 100
        # a bootstrap sample repeats rows (with replacement)
        assert np.unique(i).size < 100


def test_subsample_without_replacement():
    for i in resample_indices(50, 10, resampling="subsample", random_state=1, fraction=0.4):
        assert i.size == 20 and np.unique(i).size == 20


def test_kfold_partitions_rows():
    folds = kfold_indices(23, 5, random_state=0)
    held_out = [np.setdiff1d(np.arange(23), f) for f in folds]
    assert sorted(np.concatenate(held_out).tolist()) == list(range(23))
    with pytest.raises(ValueError, match="n_splits"):
        kfold_indices(3, 5)


@pytest.mark.parametrize("scheme", ["bootstrap", "subsample", "kfold"])
def test_plan_matches_eager_indices(scheme):
    plan = resample_plan(40, 5, resampling=scheme, random_state=3, fraction=0.5)
    eager = resample_indices(40, 5, resampling=scheme, random_state=3, fraction=0.5)
    assert all(isinstance(p, Resample) for p in plan)
    for p, e in zip(plan, eager, strict=True):
        np.testing.assert_array_equal(p.indices(), e)
    # estimator seeds differ between replicates and are stable
    seeds = [p.estimator_seed() for p in plan]
    assert len(set(seeds)) == 5
    assert seeds == [p.estimator_seed() for p in plan]


def test_plan_bad_input():
    with pytest.raises(ValueError, match="resampling"):
        resample_plan(10, 2, resampling="jackknife")
    with pytest.raises(ValueError, match="at least 1"):
        resample_plan(10, 0)
    with pytest.raises(ValueError, match="fraction"):
        resample_plan(10, 2, resampling="subsample", fraction=0.0)
    with pytest.raises(TypeError, match="random_state"):
        replicate_seeds("seed", 2)


def test_bootstrap_index_functions_direct():
    (s,) = replicate_seeds(0, 1)
    np.testing.assert_array_equal(bootstrap_indices(10, s), bootstrap_indices(10, s))
    assert subsample_indices(10, s, 0.3).size == 3


def _row_sum(X, y, idx):
    return float(X[idx].sum() + y[idx].sum())


@pytest.mark.parametrize(
    "backend,n_jobs",
    [
        ("sequential", 1),
        ("threading", 2),
        ("loky", 2),
        pytest.param("multiprocessing", 2, marks=MP_MARKS),
    ],
)
def test_run_replicates_identical_on_every_backend(backend, n_jobs):
    X, y = _data()
    idx = resample_indices(X.shape[0], 12, random_state=5)
    ref = [_row_sum(X, y, i) for i in idx]
    calls = []
    with parallel_config(backend=backend):
        out = run_replicates(_row_sum, X, y, idx, n_jobs=n_jobs, progress=lambda: calls.append(1))
    assert out == ref
    assert len(calls) == 12


def _arg_types(X, y, idx, *, extra):
    return type(X), type(y), type(extra)


@pytest.mark.parametrize("backend", ["loky", pytest.param("multiprocessing", marks=MP_MARKS)])
def test_process_backend_ships_small_data_once(backend):
    # joblib alone pickles arrays under max_nbytes (1 MB) into every task batch;
    # run_replicates hands the workers memory maps of one file per array instead
    X, y = _data(n=200)  # 200 x 6 float64: 9.6 kB, far under 1 MB
    assert X.nbytes < 2**20
    idx = resample_indices(200, 6, random_state=0)
    with parallel_config(backend=backend):
        types = run_replicates(_arg_types, X, y, idx, n_jobs=2, extra=X[:, 0].copy())
    assert types == [(np.memmap, np.memmap, np.memmap)] * 6


def _data_file(X, y, idx):
    return X.filename, os.getpid()


def _pid(i):
    return os.getpid()


def test_process_backend_writes_the_data_once_and_keeps_the_pool():
    X, y = _data(n=200)
    idx = resample_indices(200, 8, random_state=0)
    before = set(Parallel(n_jobs=2)(delayed(_pid)(i) for i in range(8)))
    out = run_replicates(_data_file, X, y, idx, n_jobs=2)
    after = set(Parallel(n_jobs=2)(delayed(_pid)(i) for i in range(8)))
    files = {f for f, _ in out}
    assert len(files) == 1  # one file behind X for every task
    assert not os.path.exists(files.pop())  # removed when the run ends
    # joblib's settings are untouched, so the same two loky workers serve every call
    assert len(before | after | {p for _, p in out}) <= 2


@MP_MARKS[0]
@MP_MARKS[1]
def test_explicit_max_nbytes_is_honoured():
    # a caller's own parallel_config(max_nbytes=None) turns memory-mapping off (tested
    # on the multiprocessing backend: a new loky pool would cost a worker start-up)
    X, y = _data(n=200)
    idx = resample_indices(200, 4, random_state=0)
    with parallel_config(backend="multiprocessing", max_nbytes=None):
        types = run_replicates(_arg_types, X, y, idx, n_jobs=2, extra=None)
    assert all(tx is np.ndarray and ty is np.ndarray for tx, ty, _ in types)


def test_serial_and_thread_runs_see_the_callers_arrays():
    X, y = _data()
    idx = resample_indices(80, 3, random_state=0)
    for backend in ("sequential", "threading"):
        with parallel_config(backend=backend):
            seen = run_replicates(lambda A, b, i: (A is X, b is y), X, y, idx, n_jobs=2)
        assert seen == [(True, True)] * 3


def test_progress_called_once_per_replicate():
    X, y = _data()
    calls = []
    run_replicates(
        _row_sum, X, y, resample_indices(80, 7, random_state=0), progress=lambda: calls.append(1)
    )
    assert len(calls) == 7


def test_selection_matrix_any_selector_and_input_untouched():
    X, y = _data()
    X0, y0 = X.copy(), y.copy()
    M1 = selection_matrix(SelectKBest(f_classif, k=2), X, y, 15, random_state=0)
    M2 = selection_matrix(
        lambda Xb, yb: np.argsort(-f_classif(Xb, yb)[0])[:2], X, y, 15, random_state=0
    )
    np.testing.assert_array_equal(M1, M2)
    assert M1.shape == (15, 6) and (M1.sum(axis=1) == 2).all()
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


def test_support_indices_validation():
    np.testing.assert_array_equal(support_indices([3, 1], 4), [1, 3])
    np.testing.assert_array_equal(support_indices(np.array([True, False, True]), 3), [0, 2])
    with pytest.raises(ValueError, match="outside"):
        support_indices([5], 4)
    with pytest.raises(ValueError, match="twice"):
        support_indices([1, 1], 4)
    with pytest.raises(ValueError, match="shape"):
        support_indices(np.array([True, False]), 3)
    with pytest.raises(ValueError, match="indices or a boolean mask"):
        support_indices(np.array([0.5]), 3)


# ------------------------------------------------------------ a rare class of y
def _rare(n: int = 60, rare: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = np.zeros(n, dtype=int)
    y[:rare] = 1
    X[:rare, 0] += 3.0  # feature 0 tells the rare class apart
    return X, y


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(6, 80),
    rare=st.integers(1, 3),
    resampling=st.sampled_from(["bootstrap", "subsample"]),
    seed=st.integers(0, 2**31 - 1),
)
def test_a_replicate_that_missed_a_class_is_drawn_again_the_others_are_not(
    n, rare, resampling, seed
):
    """Every replicate's rows hold both classes; a replicate that held both at its
    first draw keeps exactly those rows (the redraws change nothing else)."""
    from fsel.meta.resampling import _replicate_rows, resample_plan

    y = np.zeros(n, dtype=int)
    y[:rare] = 1
    for rep in resample_plan(n, 20, resampling=resampling, random_state=seed, fraction=0.5):
        first = rep.indices()
        rows = _replicate_rows(rep, y)
        assert np.unique(y[rows]).size == 2
        if np.unique(y[first]).size == 2:
            np.testing.assert_array_equal(rows, first)
        else:  # drawn again from a sibling seed: the same size, a reproducible draw
            assert rows.size == first.size
            np.testing.assert_array_equal(rows, _replicate_rows(rep, y))


def test_meta_estimators_fit_where_a_resample_misses_the_rare_class():
    """NPFS and stability selection around a selector that needs two classes (MIM,
    ReliefF) fit on data whose rare class has 3 of 60 rows (before, a bootstrap that
    missed it made the whole fit fail), reproducibly; NPFS and complementary pairs
    around MIM keep the feature that tells the rare class apart."""
    import fsel

    X, y = _rare()
    # equal-width bins: under the quantile default features 0, 1 and 4 tie on the whole
    # table (the 3 rare rows share a bin with others in each), and a tie broken by
    # column index is no evidence (the resamples draw tied picks at random)
    mim = fsel.MIM(n_features_to_select=1, discretize="uniform")
    fits = [
        lambda: fsel.NPFS(mim, random_state=0),
        lambda: fsel.NPFS(fsel.ReliefF(n_features_to_select=1), n_resamples=30, random_state=0),
        lambda: fsel.StabilitySelection(mim, random_state=0),
        lambda: fsel.StabilitySelection(
            fsel.MIM(n_features_to_select=1), resampling="bootstrap", random_state=0
        ),
    ]
    for i, make in enumerate(fits):
        a, b = make().fit(X, y), make().fit(X, y)
        np.testing.assert_array_equal(a.get_support(), b.get_support())
        np.testing.assert_array_equal(a.scores_, b.scores_)
        if i in (0, 2):  # MIM's NPFS and complementary pairs keep the telling feature
            assert a.get_support()[0], type(a).__name__


def test_a_kfold_training_set_with_one_class_is_an_error_naming_the_folds():
    import fsel

    X, y = _rare(n=20, rare=1)
    with pytest.raises(ValueError, match="resampling='kfold': a training set"):
        fsel.NPFS(fsel.MIM(n_features_to_select=1), resampling="kfold", n_resamples=20).fit(X, y)


def test_meta_estimators_pass_sklearns_one_feature_check_around_mim():
    """scikit-learn's ``check_fit2d_1feature`` (10 rows, three classes) around MIM,
    which cannot be fitted on one class: it failed when a resample drew one."""
    from sklearn.utils.estimator_checks import check_fit2d_1feature

    import fsel

    check_fit2d_1feature("NPFS", fsel.NPFS(fsel.MIM(n_features_to_select=1), n_resamples=20))
    check_fit2d_1feature(
        "StabilitySelection", fsel.StabilitySelection(fsel.MIM(n_features_to_select=1))
    )


def test_no_more_workers_than_replicates(monkeypatch):
    """``n_jobs`` far above the replicates (a million: joblib's own limit) runs with
    one worker per replicate at most, and gives the one-worker result."""
    import joblib

    import fsel.meta.resampling as rs

    seen = []
    real = rs._parallel
    monkeypatch.setattr(rs, "_parallel", lambda n, v: seen.append(n) or real(n, v))
    X, y = _rare(n=40, rare=10)
    with joblib.parallel_config(backend="threading"):
        a = rs.selection_matrix(SelectKBest(f_classif, k=1), X, y, 5, n_jobs=10**6, random_state=0)
    b = rs.selection_matrix(SelectKBest(f_classif, k=1), X, y, 5, n_jobs=1, random_state=0)
    assert seen == [5, 1]  # a million asked: five replicates, five workers
    np.testing.assert_array_equal(a, b)


@pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning")  # the case
def test_zero_weight_ties_are_no_evidence_for_npfs_and_stability_selection():
    # MultiSURF(5) with two positive weights fills three slots with zero-weight
    # columns, by index the same ones (a constant column first) on every resample;
    # with the columns in a random order each replicate, they no longer pass the test
    import fsel

    rng = np.random.default_rng(1)
    informative = rng.normal(size=(300, 2))
    y = (informative.sum(1) > 0).astype(int)
    X = np.c_[np.zeros(300), informative, rng.normal(size=(300, 6))]
    assert (fsel.MultiSURF(5).fit(X, y).scores_[[0, 3, 4]] == 0).all()
    npfs = fsel.NPFS(fsel.MultiSURF(5), n_resamples=100, random_state=0).fit(X, y)
    assert npfs.relevant_features_.tolist() == [1, 2]
    ss = fsel.StabilitySelection(fsel.MultiSURF(5), n_resamples=25, random_state=0).fit(X, y)
    assert ss.relevant_features_.tolist() == [1, 2]


@pytest.mark.filterwarnings("ignore:.*take a single value on the training rows:UserWarning")
def test_greedy_ties_fall_at_random_and_the_real_pick_stays():
    # three constant columns and one perfect predictor: JMI picks the predictor, then
    # a constant column by index (all three add nothing, a tie); NPFS and stability
    # selection keep the predictor and no constant column
    import fsel

    rng = np.random.default_rng(0)
    a = rng.random(100)
    X = np.c_[np.zeros((100, 3)), a]
    y = (a > 0.5).astype(int)
    npfs = fsel.NPFS(fsel.JMI(2), n_resamples=100, random_state=0).fit(X, y)
    assert npfs.counts_[3] == 100 and npfs.relevant_features_.tolist() == [3]
    ss = fsel.StabilitySelection(fsel.JMI(2), random_state=0).fit(X, y)
    assert ss.relevant_features_.tolist() == [3]


@pytest.mark.parametrize("given", ["indices", "mask", "names"])
def test_reordered_columns_keep_their_categorical_declaration(given):
    # column 1 holds the codes 0..5 of a nominal variable: declared categorical,
    # ReliefF takes every code change as a difference of 1 (else |a - b| / 5), which
    # changes its weight; the declaration must follow the column wherever the
    # replicate puts it, so the weights are the same, reordered
    import fsel
    from fsel.meta.column_order import column_order, reorder_categorical, take_columns

    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 5))
    X[:, 1] = rng.integers(0, 6, 120)
    y = np.isin(X[:, 1], [0, 5]).astype(int)
    X[:, 2] = y + 0.5 * rng.normal(size=120)
    cat = {"indices": [1], "mask": np.arange(5) == 1, "names": ["x1"]}[given]
    data = pd.DataFrame(X, columns=[f"x{j}" for j in range(5)]) if given == "names" else X
    want = fsel.ReliefF(1, categorical=cat).fit(data, y).scores_
    numeric = fsel.ReliefF(1).fit(X, y).scores_
    assert abs(want[1] - numeric[1]) > 0.1  # the declaration matters here
    for seed in range(4):
        order = column_order(fsel.ReliefF(), 5, seed, None)
        est = fsel.ReliefF(1, categorical=cat)
        reorder_categorical(est, order)
        got = est.fit(take_columns(data, order), y).scores_
        np.testing.assert_allclose(got, want[order], rtol=0, atol=1e-12)


def test_replicate_warnings_name_the_true_columns():
    # columns shown in a shuffled order would be named by shuffled positions: those
    # warnings are left out, the first replicate (columns as given) speaks for them;
    # a frame's names move with its columns, so its warnings always pass
    import warnings

    import fsel
    from fsel.meta.resampling import fit_on_rows

    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 6))
    X[0, 3] = 1e6  # an outlier stretches column 3's equal-width bins: crowded bins
    y = (X[:, 0] > 0).astype(int)
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(6)])
    rows = np.arange(400)

    def crowded(data, first):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            fit_on_rows(data, y, rows, fsel.MIM(2, discretize="uniform"), 6, seed=5, first=first)
        return [str(w.message) for w in seen if "put more than" in str(w.message)]

    assert [m.split(" put")[0] for m in crowded(X, True)] == ["MIM: column(s) 3"]
    assert crowded(X, False) == []
    for first in (True, False):
        assert [m.split(" put")[0] for m in crowded(frame, first)] == ["MIM: column(s) c3"]
