"""Sparse input for the information criteria and MIM (issue 13, SPEC section 11).

The sparse path (sparse discretisation, counting from the non-zeros plus column totals)
must give what the dense path gives on ``X.toarray()``: the same codes, the same
selection order, the same scores up to rounding; and the counting kernel must agree with
a brute-force joint histogram written here.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from itertools import pairwise

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel
from _criteria import INFORMATION_CRITERIA
from fsel.kernels import _counting, _sparse_counting
from fsel.kernels.discretize import discretize
from fsel.kernels.discretize_sparse import discretize_sparse
from fsel.kernels.information import InformationTable
from fsel.kernels.information_sparse import SparseInformationTable

CRITERIA = INFORMATION_CRITERIA
DTYPES = [np.bool_, np.int8, np.uint16, np.float32, np.float64]
FORMATS = ["csr", "csc", "coo"]


def random_sparse(seed: int, n: int, d: int, density: float, dtype, fmt: str):
    """A random sparse matrix with one all-zero column and one all-zero row."""
    rng = np.random.default_rng(seed)
    mask = rng.random((n, d)) < density
    if np.dtype(dtype).kind == "f":
        vals = np.round(rng.standard_normal((n, d)) * 3, 1)
    elif np.dtype(dtype).kind == "b":
        vals = np.ones((n, d))
    else:
        vals = rng.integers(1, 5, (n, d)).astype(float)
    dense = np.where(mask, vals, 0.0).astype(dtype)
    dense[:, rng.integers(d)] = 0
    dense[rng.integers(n)] = 0
    return sp.coo_matrix(dense).asformat(fmt), dense


def brute_nlogn(col: np.ndarray, z: np.ndarray, group: int) -> tuple[float, float, int, int]:
    """sum c log2 c and the number of non-empty cells, from Counter over tuples."""
    full = Counter(zip(col.tolist(), z.tolist(), strict=True))
    coarse = Counter(zip(col.tolist(), (z // group).tolist(), strict=True))
    s = sum(c * math.log2(c) for c in full.values())
    sc = sum(c * math.log2(c) for c in coarse.values())
    return s, sc, len(full), len(coarse)


@pytest.mark.parametrize("numba_off", ["1", "0"])
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 40),
    d=st.integers(1, 6),
    density=st.sampled_from([0.0, 0.05, 0.3, 1.0]),
    group=st.sampled_from([1, 2, 3]),
    width=st.sampled_from([3, 100, 30_000]),  # z in one byte, two bytes
)
def test_sparse_counting_matches_brute_force(numba_off, seed, n, d, density, group, width):
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((d, n)) < density, rng.integers(0, 4, (d, n)), 0)
    zero_code = rng.integers(0, 4, d)
    # explicit entries: the cells whose code differs from the zero code
    codes_full = np.where(dense == 0, zero_code[:, None], dense)
    keep = codes_full != zero_code[:, None]
    indptr = np.concatenate(([0], np.cumsum(keep.sum(axis=1))))
    rows = np.concatenate([np.flatnonzero(keep[k]) for k in range(d)]).astype(np.int32)
    codes = np.concatenate([codes_full[k][keep[k]] for k in range(d)]).astype(np.uint8)
    nz = width * group
    z = rng.integers(0, nz, n)
    table = _counting.nlogn_table(n)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FSEL_DISABLE_NUMBA", numba_off)
        if numba_off == "0":
            pytest.importorskip("numba")
        s, sc, m, mc = _sparse_counting.sparse_grouped_nlogn(
            indptr, rows, codes, 4, z, nz, group, table
        )
    for k in range(d):
        bs, bsc, bm, bmc = brute_nlogn(codes_full[k], z, group)
        assert s[k] == pytest.approx(bs, abs=1e-9)
        assert sc[k] == pytest.approx(bsc, abs=1e-9)
        assert (m[k], mc[k]) == (bm, bmc)


def test_sparse_counting_sort_path_matches_scratch_path(monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.delenv("FSEL_DISABLE_NUMBA", raising=False)
    X, _ = random_sparse(3, 60, 8, 0.3, np.int8, "csc")
    sc, levels, _ = discretize_sparse(X.astype(np.float64), np.ones(8, bool))
    y = np.random.default_rng(1).integers(0, 3, 60)
    a = SparseInformationTable(sc, levels, y).pair_terms(2)
    monkeypatch.setattr(_sparse_counting, "_SPARSE_SCRATCH_CELLS", 0)  # force per-feature sorting
    b = SparseInformationTable(sc, levels, y).pair_terms(2)
    np.testing.assert_allclose(a.joint_mi, b.joint_mi, atol=1e-12)
    np.testing.assert_allclose(a.cmi_given_j, b.cmi_given_j, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(2, 50),
    d=st.integers(1, 8),
    density=st.sampled_from([0.0, 0.02, 0.1, 0.5, 0.9, 1.0]),
    dtype=st.sampled_from(DTYPES),
    strategy=st.sampled_from(["uniform", "quantile", None]),
    n_bins=st.integers(2, 6),
    numba_off=st.sampled_from(["0", "1"]),
)
def test_discretize_sparse_equals_dense(seed, n, d, density, dtype, strategy, n_bins, numba_off):
    X, dense = random_sparse(seed, n, d, density, dtype, "csc")
    M = X.astype(np.float64).tocsc()
    discrete = np.full(d, np.dtype(dtype).kind in "biu")
    if strategy is None and not discrete.all():
        dense = np.round(dense.astype(np.float64))
        M = sp.csc_matrix(dense)
    codes_d, levels_d, edges_d = discretize(dense.astype(np.float64), discrete, n_bins, strategy)
    with pytest.MonkeyPatch.context() as mp:  # compiled, or numpy
        mp.setenv("FSEL_DISABLE_NUMBA", numba_off)
        sc, levels_s, edges_s = discretize_sparse(M, discrete, n_bins, strategy)
    np.testing.assert_array_equal(sc.toarray(), codes_d)
    np.testing.assert_array_equal(levels_s, levels_d)
    # threads over ranges of columns: the same codes
    sc3, levels3, _ = discretize_sparse(M, discrete, n_bins, strategy, n_jobs=3)
    np.testing.assert_array_equal(sc3.toarray(), codes_d)
    np.testing.assert_array_equal(levels3, levels_d)
    for a, b in zip(edges_s, edges_d, strict=True):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a, b)
    # the structure holds only the entries that differ from the zero code
    assert not np.any(sc.codes == sc.zero_code[np.repeat(np.arange(d), np.diff(sc.indptr))])


@settings(max_examples=80, deadline=None)
@given(
    columns=st.lists(
        st.tuples(
            st.lists(
                st.one_of(
                    st.integers(-30, 30).map(float),
                    st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.5]),
                ),
                max_size=60,
            ),
            st.booleans(),  # the column has implicit zeros
            st.sampled_from([0.0, -0.0, 2.0, 100.0]),  # the value they take
        ),
        min_size=1,
        max_size=6,
    )
)
def test_column_ranks_are_ranks_among_the_distinct_values(columns):
    # the compiled per-column ranks, both ways (a scan for few values, a sort for
    # more than FEW_LEVELS), against np.unique: NaN and inf the last level together
    pytest.importorskip("numba")
    from fsel.kernels import _numba_discretize as nd

    counts = [len(c) for c, _, _ in columns]
    indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    key = np.array([v for c, _, _ in columns for v in c], dtype=np.float64)
    has_zero = np.array([hz for _, hz, _ in columns])
    zero_val = np.array([z for _, _, z in columns])
    d = len(columns)
    n_levels, zero_code = np.zeros(d, np.int64), np.zeros(d, np.int64)
    out = np.zeros(key.size, np.int64)
    kept = nd.column_ranks(indptr, key, has_zero, zero_val, n_levels, zero_code, out, True, 0, d)
    expected_kept = 0
    for k, (c, hz, z) in enumerate(columns):
        vals = np.where(np.isnan(c), np.inf, c) if c else np.zeros(0)
        pool = np.concatenate((vals, [z])) if hz else vals
        u = np.unique(pool)
        assert n_levels[k] == u.size
        zc = int(np.searchsorted(u, z)) if hz else 0
        assert zero_code[k] == zc
        ranks = np.searchsorted(u, vals)
        np.testing.assert_array_equal(out[indptr[k] : indptr[k + 1]], ranks)
        expected_kept += int(np.count_nonzero(ranks != zc))
    assert kept == expected_kept


def test_column_ranks_take_both_paths():
    # one column of FEW_LEVELS values (the scan), one of FEW_LEVELS + 1 (the sort)
    pytest.importorskip("numba")
    from fsel.kernels import _numba_discretize as nd

    f = nd.FEW_LEVELS
    key = np.concatenate((np.arange(f, 0, -1.0), np.arange(f + 1, 0, -1.0)))
    indptr = np.array([0, f, 2 * f + 1])
    n_levels, zero_code = np.zeros(2, np.int64), np.zeros(2, np.int64)
    out = np.zeros(key.size, np.int64)
    no_zero = np.array([False, False])
    nd.column_ranks(indptr, key, no_zero, np.zeros(2), n_levels, zero_code, out, True, 0, 2)
    assert n_levels.tolist() == [f, f + 1]
    assert out.tolist() == list(range(f - 1, -1, -1)) + list(range(f, -1, -1))


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(0, 50), min_size=1, max_size=40), parts=st.integers(1, 12))
def test_nnz_spans_cover_the_columns_in_order_with_even_entries(counts, parts):
    """The threads' column ranges: every column once, in order, none empty, at most
    ``parts``; each range's entries within the largest column of the target share."""
    from fsel.kernels.discretize_sparse import _nnz_spans

    indptr = np.concatenate(([0], np.cumsum(counts)))
    got = _nnz_spans(indptr, parts)
    assert got[0][0] == 0 and got[-1][1] == len(counts)
    assert all(a < b for a, b in got)
    assert all(b == c for (_, b), (c, _) in pairwise(got))
    assert len(got) <= parts
    share = indptr[-1] / parts
    for a, b in got:
        assert indptr[b] - indptr[a] <= share + max(counts)


def test_discretize_sparse_refuses_fractions_without_binning():
    M = sp.csc_matrix(np.array([[0.0, 1.5], [2.0, 0.0]]))
    with pytest.raises(ValueError, match="column 1 has non-integer values"):
        discretize_sparse(M, np.zeros(2, bool), strategy=None)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    d=st.integers(1, 12),
    n_jobs=st.sampled_from([1, 3]),
    numba_off=st.sampled_from(["0", "1"]),
)
def test_the_first_fractional_column_is_named(seed, d, n_jobs, numba_off):
    # discretize=None names the first non-discrete column holding a fraction (NaN is
    # missing, inf whole); compiled in threads over column ranges, or numpy
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((30, d)) < 0.3, rng.integers(1, 5, (30, d)), 0.0)
    special = rng.random((30, d))
    dense[special < 0.05] = np.nan
    dense[(special >= 0.05) & (special < 0.08)] = np.inf
    dense[(special >= 0.08) & (special < 0.1)] = 2.5
    discrete = rng.random(d) < 0.3
    frac = [j for j in range(d) if not discrete[j] and np.any(dense[:, j] == 2.5)]
    M = sp.csc_matrix(np.where(np.isnan(dense), np.nan, dense))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FSEL_DISABLE_NUMBA", numba_off)
        if frac:
            with pytest.raises(ValueError, match=rf"but column {frac[0]} has non-integer"):
                discretize_sparse(M, discrete, strategy=None, n_jobs=n_jobs)
        else:
            discretize_sparse(M, discrete, strategy=None, n_jobs=n_jobs)


def test_stored_nan_is_one_more_level_after_the_observed_ones():
    X = sp.csc_matrix(np.array([[0.0], [1.0], [np.nan], [2.0], [0.0]]))
    sc, levels, _ = discretize_sparse(X, np.array([True]))
    assert levels.tolist() == [4]
    assert sc.toarray().tolist() == [[0, 1, 3, 2, 0]]


def test_tables_agree_on_every_term():
    X, dense = random_sparse(11, 80, 7, 0.2, np.uint16, "csc")
    y = np.random.default_rng(2).integers(0, 3, 80)
    codes, levels, _ = discretize(dense, np.ones(7, bool))
    sc, levels_s, _ = discretize_sparse(X.astype(np.float64), np.ones(7, bool))
    for est in ("plugin", "miller_madow"):
        t_d = InformationTable(codes, levels, y, estimator=est)
        t_s = SparseInformationTable(sc, levels_s, y, estimator=est)
        np.testing.assert_allclose(t_s.relevance, t_d.relevance, atol=1e-12)
        np.testing.assert_allclose(t_s.feature_entropy, t_d.feature_entropy, atol=1e-12)
        for j in range(7):
            a, b = t_s.pair_terms(j), t_d.pair_terms(j)
            for name in ("mi", "cmi_given_y", "joint_mi", "joint_entropy", "cmi_given_j"):
                np.testing.assert_allclose(getattr(a, name), getattr(b, name), atol=1e-12)
            np.testing.assert_array_equal(t_s.codes[j], codes[j])
        s = (codes[0].astype(np.int64) * 7 + codes[3]) % 5
        np.testing.assert_allclose(
            t_s.conditional_relevance(s), t_d.conditional_relevance(s), atol=1e-12
        )


def _fit(name, X, y, **kw):
    return getattr(fsel, name)(5, **kw).fit(X, y)


def _fit_warned(name, X, y, **kw):
    """:func:`_fit` and the messages of the warnings it gave (a random table may put
    most of a column's rows in one uniform bin: a warning either path must give)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = _fit(name, X, y, **kw)
    return est, sorted(str(w.message) for w in caught)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(8, 60),
    d=st.integers(5, 12),
    density=st.sampled_from([0.02, 0.1, 0.4, 0.9]),
    dtype=st.sampled_from(DTYPES),
    fmt=st.sampled_from(FORMATS),
    discretize_=st.sampled_from(["uniform", "quantile"]),
)
def test_every_criterion_sparse_equals_dense(seed, n, d, density, dtype, fmt, discretize_):
    X, dense = random_sparse(seed, n, d, density, dtype, fmt)
    rng = np.random.default_rng(seed + 1)
    y = ((dense[:, 1].astype(float) != 0) ^ (rng.random(n) < 0.2)).astype(int)
    y[:2] = [0, 1]  # two classes at least
    before = X.copy()
    for name in CRITERIA:
        a, warned_a = _fit_warned(name, X, y, discretize=discretize_)
        b, warned_b = _fit_warned(name, dense, y, discretize=discretize_)
        assert warned_a == warned_b, name  # the same warnings sparse and dense
        np.testing.assert_array_equal(a.selection_order_, b.selection_order_, err_msg=name)
        np.testing.assert_allclose(a.selection_scores_, b.selection_scores_, atol=1e-9)
        np.testing.assert_array_equal(a.n_levels_, b.n_levels_)
        if name != "CMIM":  # dense lazy CMIM keeps upper bounds for unselected features
            np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-9, err_msg=name)
    # the caller's sparse matrix is never modified
    assert type(X) is type(before)
    np.testing.assert_array_equal(X.toarray(), before.toarray())
    if fmt != "coo":
        np.testing.assert_array_equal(X.indices, before.indices)
        np.testing.assert_array_equal(X.data, before.data)


@pytest.mark.parametrize("numba_off", ["1", "0"])
def test_both_backends_select_the_relevant_terms(numba_off, monkeypatch):
    """Two informative binary 'terms' among 300 sparse noise terms are recovered."""
    if numba_off == "0":
        pytest.importorskip("numba")
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", numba_off)
    rng = np.random.default_rng(0)
    n, d = 400, 300
    X = sp.random(n, d, density=0.02, random_state=1, format="csr")
    X.data[:] = 1.0
    y = rng.integers(0, 2, n)
    X = sp.lil_matrix(X)
    X[:, 17] = (y == 1).reshape(-1, 1) & (rng.random((n, 1)) < 0.5)
    X[:, 230] = (y == 0).reshape(-1, 1) & (rng.random((n, 1)) < 0.5)
    X = X.tocsr()
    for name in ("JMI", "MIM", "CMIM", "MRMR"):
        sel = _fit(name, X, y)
        assert set(sel.selection_order_[:2].tolist()) == {17, 230}, name
    assert sp.issparse(sel.transform(X))


@pytest.mark.filterwarnings(
    "ignore:.*take a single value on the training rows:UserWarning"
)  # all-zero columns
def test_sparse_array_and_matrix_classes_and_miller_madow():
    X, dense = random_sparse(5, 50, 6, 0.3, np.int8, "csr")
    y = (dense[:, 2] > 0).astype(int)
    ref = fsel.JMI(3, mi_estimator="miller_madow").fit(dense, y)
    for cls in (sp.csr_array, sp.csc_matrix, sp.coo_array):
        got = fsel.JMI(3, mi_estimator="miller_madow", n_jobs=2).fit(cls(X), y)
        np.testing.assert_array_equal(got.selection_order_, ref.selection_order_)
        np.testing.assert_allclose(got.scores_, ref.scores_, atol=1e-9)


@pytest.mark.filterwarnings(
    "ignore:.*take a single value on the training rows:UserWarning"
)  # all-zero columns
def test_dorothea_sparse_equals_dense(shared_datasets):
    d = np.load(shared_datasets / "dorothea_train_only.npz")
    X, y = d["X_train"][:, :20000], d["y_train"]
    a = fsel.JMI(10).fit(sp.csr_matrix(X), y)
    b = fsel.JMI(10).fit(X, y)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-9)


def test_validation_keeps_sparse_integer_dtype_and_copies():
    from fsel.utils.validation import check_table

    X = sp.csr_matrix(np.array([[0, 3], [2, 0]], dtype=np.uint8))
    kept = check_table(X, accept_sparse=True, keep_integer=True).values
    assert kept.dtype == np.uint8 and kept.format == "csc"
    assert not np.shares_memory(kept.data, X.data)
    assert check_table(X, accept_sparse=True).values.dtype == np.float64


# --------------------------------------------------- memory: blocks, no copy of the input


@pytest.mark.filterwarnings(
    "ignore:.*take a single value on the training rows:UserWarning"
)  # all-zero columns
def test_blocked_table_gives_the_unblocked_numbers_bit_for_bit(monkeypatch):
    """Counting block by block (and asking only some terms) changes no number: each
    feature's sums do not depend on the blocks."""
    X, dense = random_sparse(5, 90, 23, 0.15, np.uint16, "csc")
    y = np.random.default_rng(3).integers(0, 3, 90)
    sc, levels, _ = discretize_sparse(X, np.ones(23, bool))
    whole = SparseInformationTable(sc, levels, y, estimator="miller_madow")
    monkeypatch.setattr(SparseInformationTable, "block_features", 4)
    blocked = SparseInformationTable(sc, levels, y, estimator="miller_madow")
    np.testing.assert_array_equal(blocked.relevance, whole.relevance)
    names = ("mi", "cmi_given_y", "joint_mi", "joint_entropy", "cmi_given_j")
    for j in (0, 7, 22):
        a, b = whole.pair_terms(j), blocked.pair_terms(j)
        for name in names:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        # a subset of the terms: the same arrays, the others left out
        part = SparseInformationTable(sc, levels, y, estimator="miller_madow")
        p = part.pair_terms(j, ("cmi_given_j", "joint_mi"))
        assert p.mi is None and p.cmi_given_y is None and p.joint_entropy is None
        np.testing.assert_array_equal(p.cmi_given_j, a.cmi_given_j)
        np.testing.assert_array_equal(p.joint_mi, a.joint_mi)
        spans = [sl for sl, _ in blocked.pair_term_blocks(j, ("mi",))]
        assert [(s.start, s.stop) for s in spans] == [(k, min(k + 4, 23)) for k in range(0, 23, 4)]
    np.testing.assert_array_equal(blocked.feature_entropy, whole.feature_entropy)
    s = (np.arange(90) * 7) % 5
    np.testing.assert_array_equal(blocked.conditional_relevance(s), whole.conditional_relevance(s))
    # and every criterion selects as on the dense copy
    for name in CRITERIA:
        a = _fit(name, X, y)
        b = _fit(name, dense, y)
        np.testing.assert_array_equal(a.selection_order_, b.selection_order_, err_msg=name)
        np.testing.assert_allclose(a.selection_scores_, b.selection_scores_, atol=1e-9)


def test_chunked_argmax_is_the_plain_one(monkeypatch):
    from fsel.selectors.information import _engine

    rng = np.random.default_rng(0)
    for _ in range(30):
        scores = np.round(rng.random(50), 1)  # many exact ties
        scores[rng.random(50) < 0.1] += 1e-11  # ties within TIE_TOL
        selected = rng.random(50) < 0.3
        want = _engine._argmax_unselected(scores, selected)
        monkeypatch.setattr(_engine, "_CHUNK", 7)
        got = _engine._argmax_unselected(scores, selected)
        monkeypatch.setattr(_engine, "_CHUNK", 1 << 16)
        masked = np.where(selected, -np.inf, scores)
        assert got == want == int(np.flatnonzero(masked >= masked.max() - 1e-10)[0])


def test_canonical_csr_is_read_not_copied():
    from fsel.utils.validation import check_table

    X = sp.random(50, 30, density=0.2, format="csr", random_state=0, dtype=np.float64)
    assert check_table(X, accept_sparse="no_copy").values is X
    U = sp.csr_matrix(X.toarray().astype(np.uint8) + (X.toarray() > 0))
    assert check_table(U, accept_sparse="no_copy", keep_integer=True).values is U
    # duplicates (not canonical) or a dtype to convert: the CSC copy, as before
    D = sp.csr_matrix((np.ones(3), ([0, 0, 1], [2, 2, 0])), shape=(3, 3))
    D.has_canonical_format = False
    got = check_table(D, accept_sparse="no_copy").values
    assert got is not D and got.format == "csc" and got[0, 2] == 2.0
    assert check_table(U, accept_sparse="no_copy").values.dtype == np.float64


@pytest.mark.parametrize("numba_off", ["1", "0"])
def test_discretize_sparse_csr_equals_csc(numba_off, monkeypatch):
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", numba_off)
    for dtype in (np.bool_, np.uint8, np.float64):
        X, _ = random_sparse(8, 70, 15, 0.2, dtype, "csr")
        X.data[::5] = 0  # explicit zeros are zeros
        disc = np.zeros(15, bool)
        a, la, ea = discretize_sparse(X, disc, n_bins=3)
        b, lb, eb = discretize_sparse(X.tocsc(), disc, n_bins=3)
        c, lc, _ = discretize(X.toarray(), disc, n_bins=3)
        np.testing.assert_array_equal(a.toarray(), c)
        np.testing.assert_array_equal(b.toarray(), c)
        np.testing.assert_array_equal(la, lc)
        np.testing.assert_array_equal(lb, lc)
        assert a.rows.dtype == np.uint16
        for u, v in zip(ea, eb, strict=True):
            assert (u is None and v is None) or np.array_equal(u, v)


def test_sparse_fit_allocates_less_than_twice_the_input():
    """JMI on a wide binary CSR matrix (20,000 features, 12 non-zeros each on average):
    the fit allocates (tracemalloc peak) under twice the input's size, its fitted
    per-feature arrays included -- no copy of the input's indices, no per-step
    temporary over all candidates, the codes freed before the fitted arrays are built
    (with four per-feature arrays of slack this bound let the peak grow to 2.35x)."""
    import tracemalloc

    from fsel.kernels._counting import numba_enabled

    if not numba_enabled():
        pytest.skip("the bound is for the numba back-end (numpy counts with temporaries)")
    rng = np.random.default_rng(0)
    n, d = 800, 20_000
    X = sp.random(n, d, density=0.015, format="csr", random_state=rng, dtype=np.float64)
    X = sp.csr_matrix(X > 0, dtype=np.uint8)
    y = (np.asarray(X[:, :5].sum(axis=1)).ravel() > 0).astype(int)
    size = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    # the kernels loaded on the same table (their compilation or loading untraced)
    fsel.JMI(3).fit(X, y)
    tracemalloc.start()
    try:
        est = fsel.JMI(10).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * size, (peak, size)
    ref = fsel.JMI(10).fit(X.toarray(), y)
    np.testing.assert_array_equal(est.selection_order_, ref.selection_order_)


@pytest.mark.filterwarnings(
    "ignore:.*take a single value on the training rows:UserWarning"
)  # all-zero columns
def test_ranking_of_exact_ties_is_by_index_sparse_and_dense():
    """Duplicates of picked columns, a zero column and a scaled copy score 0 for
    ICAP, CIFE and CondRed in exact arithmetic; the two tables' sums can differ by
    rounding (0.0 against -9e-16), and ``ranking_`` still ranks them by column index
    on both: the engine's tie rule."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 8))
    y = ((X[:, 0] + X[:, 1] - X[:, 2] + 0.5 * rng.normal(size=300)) > 0).astype(int)
    X = np.hstack([X, X[:, [0, 1]], np.zeros((300, 1)), 2 * X[:, [2]]])
    for name in ("ICAP", "CIFE", "CondRed", "JMI", "MRMR"):
        a = getattr(fsel, name)(4).fit(X, y)
        b = getattr(fsel, name)(4).fit(sp.csr_matrix(X), y)
        np.testing.assert_array_equal(a.ranking_, b.ranking_, err_msg=name)
        tied = np.flatnonzero(np.abs(a.scores_) <= 1e-12)
        tied = tied[~a.support_[tied]]
        assert np.all(np.diff(a.ranking_[tied]) > 0), name  # by index among the ties
