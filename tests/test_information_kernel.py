"""The information kernel: closed forms, identities, and agreement of the vectorised
table with the scalar functions (both counting back-ends)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsel.kernels import _counting
from fsel.kernels.discretize import compact_codes, discretize
from fsel.kernels.information import (
    InformationTable,
    conditional_mutual_information,
    entropy,
    joint,
    mutual_information,
)


def ref_entropy(*cols) -> float:
    """Independent plug-in entropy in bits from tuple counts."""
    n = len(cols[0])
    counts = Counter(zip(*cols, strict=True))
    return -sum(c / n * math.log2(c / n) for c in counts.values())


codes = st.lists(st.integers(0, 3), min_size=2, max_size=40)


def test_closed_forms():
    assert entropy([0, 1, 2, 3]) == pytest.approx(2.0)
    assert entropy([7, 7, 7]) == 0.0
    assert entropy([0, 0, 0, 1]) == pytest.approx(
        -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))
    )
    assert mutual_information([0, 1, 0, 1], [5, 6, 5, 6]) == pytest.approx(1.0)
    x, z = np.array([0, 0, 1, 1] * 3), np.array([0, 1, 0, 1] * 3)
    y = x ^ z
    assert mutual_information(x, y) == pytest.approx(0.0, abs=1e-12)
    assert conditional_mutual_information(x, y, z) == pytest.approx(1.0)
    assert entropy([0, 1], base=math.e) == pytest.approx(math.log(2))


def test_miller_madow_adds_cells_over_2n():
    x = [0, 0, 1, 2, 2, 2]
    plug = entropy(x)
    mm = entropy(x, estimator="miller_madow")
    assert mm - plug == pytest.approx((3 - 1) / (2 * 6) / math.log(2))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_identities(data):
    n = data.draw(st.integers(2, 40))
    col = st.lists(st.integers(0, 3), min_size=n, max_size=n)
    x, y, z = (np.array(data.draw(col)) for _ in range(3))
    hx = entropy(x)
    assert hx == pytest.approx(ref_entropy(x.tolist()), abs=1e-12)
    assert mutual_information(x, x) == pytest.approx(hx, abs=1e-12)
    assert mutual_information(x, y) == pytest.approx(mutual_information(y, x), abs=1e-12)
    assert mutual_information(x, y) >= 0
    assert conditional_mutual_information(x, y, z) >= 0
    # chain rule: I(X;Y|Z) = I(X,Z;Y) - I(Z;Y)
    lhs = conditional_mutual_information(x, y, z)
    rhs = mutual_information(joint(x, z), y) - mutual_information(z, y)
    assert lhs == pytest.approx(max(rhs, 0.0), abs=1e-9)
    # relabelling codes changes nothing
    perm = np.array([3, 0, 2, 1])
    assert mutual_information(perm[x], y) == pytest.approx(mutual_information(x, y), abs=1e-12)


def test_joint_is_compact_and_injective():
    a = np.array([0, 0, 1, 1, 2])
    b = np.array([0, 1, 0, 1, 0])
    j = joint(a, b)
    assert sorted(set(j.tolist())) == list(range(5))
    assert entropy(j) == pytest.approx(ref_entropy(a.tolist(), b.tolist()))


def _random_table(rng, n=80, k=9):
    X = rng.integers(0, 4, size=(n, k))
    X[:, 3] = X[:, 0]  # an exact copy
    X[:, 5] = 0  # a constant feature
    y = (X[:, 0] + rng.integers(0, 2, n) > 2).astype(int)
    return X, y


@pytest.mark.parametrize("estimator", ["plugin", "miller_madow"])
def test_table_matches_scalar_functions(backend, estimator):
    rng = np.random.default_rng(1)
    X, y = _random_table(rng)
    codes, levels = compact_codes(X)
    t = InformationTable(codes, levels, y, estimator=estimator)
    kw = {"estimator": estimator}
    for k in range(X.shape[1]):
        assert t.relevance[k] == pytest.approx(mutual_information(X[:, k], y, **kw), abs=1e-10)
        assert t.feature_entropy[k] == pytest.approx(entropy(X[:, k], **kw), abs=1e-10)
    for j in (0, 2, 5):
        p = t.pair_terms(j)
        for k in range(X.shape[1]):
            xk, xj = X[:, k], X[:, j]
            assert p.mi[k] == pytest.approx(mutual_information(xk, xj, **kw), abs=1e-10)
            assert p.cmi_given_y[k] == pytest.approx(
                conditional_mutual_information(xk, xj, y, **kw), abs=1e-10
            )
            assert p.joint_mi[k] == pytest.approx(
                mutual_information(joint(xk, xj), y, **kw), abs=1e-10
            )
            assert p.joint_entropy[k] == pytest.approx(entropy(xk, xj, y, **kw), abs=1e-10)
            assert p.cmi_given_j[k] == pytest.approx(
                conditional_mutual_information(xk, y, xj, **kw), abs=1e-10
            )
    s = joint(X[:, 0], X[:, 1])
    cr = t.conditional_relevance(s)
    for k in range(X.shape[1]):
        assert cr[k] == pytest.approx(
            conditional_mutual_information(X[:, k], y, s, **kw), abs=1e-10
        )


def test_sparse_counting_path_agrees(backend, monkeypatch):
    """Many conditioning states force the sparse counting path (both back-ends)."""
    rng = np.random.default_rng(2)
    n = 300
    X = rng.integers(0, 6, size=(n, 5))
    y = rng.integers(0, 3, n)
    s = rng.integers(0, 250, n)  # nearly one state per sample
    codes, levels = compact_codes(X)
    monkeypatch.setattr(_counting, "_NUMPY_BLOCK_CELLS", 64)
    t = InformationTable(codes, levels, y)
    _, s_c = np.unique(s, return_inverse=True)
    cr = t.conditional_relevance(s_c)
    for k in range(5):
        assert cr[k] == pytest.approx(conditional_mutual_information(X[:, k], y, s), abs=1e-10)


def test_discretize_rules():
    X = np.column_stack(
        [
            np.array([0, 0.05, 0.25, 0.3, 0.45, 0.5, 0.65, 0.7, 0.85, 0.9, 1.0]),  # 5 bins
            np.array([0.5, 1.5] * 5 + [0.5]),  # few distinct floats -> kept as codes
            np.arange(11) * 7,  # integer-valued but not declared discrete -> binned
        ]
    )
    codes, levels, edges = discretize(X, np.array([False, False, True]), n_bins=5)
    assert levels.tolist() == [5, 2, 11]
    assert edges[1] is None and edges[2] is None
    assert codes[0].tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 4]
    q, _, _ = discretize(X[:, :1], None, n_bins=2, strategy="quantile")
    assert np.bincount(q[0]).tolist() == [5, 6]
    with pytest.raises(ValueError, match="non-integer"):
        discretize(X, None, strategy=None)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.lists(st.integers(-5, 300), min_size=3, max_size=3), min_size=1, max_size=30),
    st.sampled_from(["numpy", "numba"]),
)
def test_compact_codes_maps_sorted_values_to_ranks(rows, which):
    if which == "numba":
        pytest.importorskip("numba")
    X = np.array(rows, dtype=np.int64)
    import os

    old = os.environ.get("FSEL_DISABLE_NUMBA")
    os.environ["FSEL_DISABLE_NUMBA"] = "1" if which == "numpy" else "0"
    try:
        codes, levels = compact_codes(X)
    finally:
        if old is None:
            del os.environ["FSEL_DISABLE_NUMBA"]
        else:
            os.environ["FSEL_DISABLE_NUMBA"] = old
    for j in range(X.shape[1]):
        uniq, inv = np.unique(X[:, j], return_inverse=True)
        assert levels[j] == uniq.size
        assert codes[j].tolist() == inv.reshape(-1).tolist()


@pytest.mark.parametrize("d", [1, 2, 7, 8])
@pytest.mark.parametrize("levels", [2, 5, 16, 17])
def test_pair_mi_is_pair_terms_mi_bit_for_bit(backend, d, levels):
    """The I(Xk;Xj)-only count (two features per byte with numba) gives exactly the
    values of the full pair terms, for odd and even feature counts, small and large
    alphabets (above 16 levels: the full path)."""
    from fsel.kernels.information import InformationTable

    rng = np.random.default_rng(d * 100 + levels)
    codes = rng.integers(0, levels, size=(d, 400)).astype(np.uint8)
    codes[:, 0] = levels - 1  # every feature has its top level
    y = rng.integers(0, 3, 400)
    table = InformationTable(codes, np.full(d, levels), y, n_jobs=2)
    for j in range(d):
        np.testing.assert_array_equal(table.pair_mi(j), table.pair_terms(j).mi)
    # pairwise deletion: the top level of the even features is their missing code
    miss = np.where(np.arange(d) % 2 == 0, levels - 1, -1)
    table = InformationTable(codes, np.full(d, levels), y, n_jobs=2, missing_codes=miss)
    for j in range(d):
        np.testing.assert_array_equal(table.pair_mi(j), table.pair_terms(j).mi)


@pytest.mark.parametrize("d", [2, 3, 9])
@pytest.mark.parametrize(("levels", "nz", "group"), [(2, 6, 3), (5, 10, 2), (16, 16, 4), (7, 1, 1)])
def test_paired_counting_is_grouped_counting_bit_for_bit(monkeypatch, d, levels, nz, group):
    """Two features per byte (numba) against the one-feature dense kernel."""
    pytest.importorskip("numba")
    monkeypatch.delenv("FSEL_DISABLE_NUMBA", raising=False)
    from fsel.kernels._counting import grouped_nlogn, nlogn_table, pack_pairs, paired_nlogn

    rng = np.random.default_rng(d + 10 * levels + nz)
    n = 500
    codes = rng.integers(0, levels, size=(d, n)).astype(np.uint8)
    codes[:, 0] = levels - 1
    z = rng.integers(0, nz, n)
    table = nlogn_table(n)
    want = grouped_nlogn(codes, z, nz, group, table)
    for n_jobs in (1, 2):
        got = paired_nlogn(codes, pack_pairs(codes), z, nz, group, table, n_jobs)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)


def _ref_float_codes(X: np.ndarray, missing: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Plain reference for float columns taken as codes: the sorted rank of each
    observed value; a hole of a flagged column gets the code after the observed ones
    (an all-missing column: the single code 0)."""
    n, d = X.shape
    codes = np.zeros((d, n), dtype=np.int64)
    levels = np.zeros(d, dtype=np.int64)
    for j in range(d):
        col = X[:, j]
        hole = np.isnan(col)
        uniq = np.unique(col[~hole])
        codes[j, ~hole] = np.searchsorted(uniq, col[~hole])
        codes[j, hole] = uniq.size
        levels[j] = uniq.size + int(missing is not None and missing[j])
    return codes, levels


@pytest.mark.parametrize(
    "case",
    [
        "complete",
        "holes",
        "gaps, negatives, an all-missing column",
        "257 levels with holes",
        "column-major",
        "a value beyond int64",
        "a span too wide for a lookup table",
        "infinity",
        "a flagged column without holes",
    ],
)
@pytest.mark.parametrize("declared", ["discretize=None", "every column discrete"])
def test_large_float_code_tables_coded_as_the_plain_reference(backend, case, declared):
    # above the small-table size float code tables (with and without holes) take the
    # numba path (one checking pass, one compaction pass); both back-ends must give
    # the codes and levels of the plain per-column reference, in the smallest dtype
    rng = np.random.default_rng(len(case))
    n, d = 300, 500  # 150,000 cells: above SMALL_TABLE_CELLS
    assert n * d > _counting.SMALL_TABLE_CELLS
    X = rng.integers(0, 10, size=(n, d)).astype(np.float64)
    if case == "gaps, negatives, an all-missing column":
        X = rng.choice([-40.0, -3.0, 0.0, 7.0, 1000.0], size=(n, d))
        X[:, 5] = np.nan
    elif case == "257 levels with holes":
        X[:, 3] = np.arange(n) % 257 - 100.0
    elif case == "column-major":
        X = np.asfortranarray(X)
    elif case == "a value beyond int64":
        X[7, 11] = 2.0**70
    elif case == "a span too wide for a lookup table":
        X[7, 11] = 1e6
    elif case == "infinity":
        X[7, 11] = np.inf
    if case != "complete":
        X[rng.random(X.shape) < 0.2] = np.nan
        X[0, :] = np.where(np.arange(d) == 5, X[0, :], 1.0)  # column 0..: observed cells
    missing = np.isnan(X).any(axis=0) if case != "complete" else None
    if case == "a flagged column without holes":  # still gets its (empty) missing level
        X[:, 9] = rng.integers(0, 10, size=n)
        missing = np.ones(d, dtype=bool)
    before = X.copy()
    strategy, discrete = (None, None)
    if declared == "every column discrete":
        strategy, discrete = "uniform", np.ones(d, dtype=bool)
    codes, levels, edges = discretize(X, discrete, 5, strategy, missing)
    want, want_levels = _ref_float_codes(X, missing)
    np.testing.assert_array_equal(X, before)  # input untouched
    np.testing.assert_array_equal(levels, want_levels)
    np.testing.assert_array_equal(codes.astype(np.int64), want)
    assert codes.shape == (d, n)
    assert codes.dtype == (np.uint16 if levels.max() > 256 else np.uint8)
    assert all(e is None for e in edges)


def test_large_float_code_tables_name_the_first_non_integer_column(backend):
    # the fast path's integrality check falls back to the general one: same message
    X = np.random.default_rng(3).integers(0, 10, size=(300, 500)).astype(np.float64)
    X[np.random.default_rng(4).random(X.shape) < 0.2] = np.nan
    X[100, 42] = 2.5
    X[0, 300] = 0.25
    with pytest.raises(ValueError, match="column 42 has non-integer values"):
        discretize(X, None, 5, None, np.isnan(X).any(axis=0))
    # declared discrete: non-integer codes are allowed (compacted by sorted value)
    codes, levels, _ = discretize(X, np.ones(500, bool), 5, "uniform", np.isnan(X).any(axis=0))
    want, want_levels = _ref_float_codes(X, np.isnan(X).any(axis=0))
    np.testing.assert_array_equal(levels, want_levels)
    np.testing.assert_array_equal(codes.astype(np.int64), want)


@pytest.mark.parametrize("n_bins", [5, 256])  # 256: 255 edges, counted in intp
@pytest.mark.parametrize("flag_all", [False, True])
def test_large_binned_tables_with_holes_coded_as_the_plain_reference(backend, flag_all, n_bins):
    # every column binned, holes in (nearly) every column: the holes take a bin above
    # the observed ones before compaction; the plain reference bins the observed values
    # with np.linspace edges, ranks the bins present, and gives the holes the next code.
    # flag_all: one more column flagged without holes keeps its (empty) missing level
    rng = np.random.default_rng(7)
    n, d = (300, 500) if n_bins < 256 else (600, 250)  # more distinct values than bins
    X = rng.normal(size=(n, d))
    if n_bins < 256:  # a column of few distinct values: kept as codes
        X[:, 17] = np.where(X[:, 17] > 0, X[:, 17], 0.0)
    X[rng.random(X.shape) < 0.2] = np.nan
    X[:, 3] = rng.normal(size=n)  # no holes
    missing = np.isnan(X).any(axis=0)
    if flag_all:
        missing = np.ones(d, dtype=bool)
    before = X.copy()
    codes, levels, _ = discretize(X, None, n_bins, "uniform", missing)
    np.testing.assert_array_equal(X, before)
    for j in range(d):
        col = X[:, j]
        hole = np.isnan(col)
        obs = col[~hole]
        inner = np.linspace(obs.min(), obs.max(), n_bins + 1)[1:-1]
        bins = np.searchsorted(inner, obs, side="right")
        if np.unique(obs).size <= n_bins:  # no more distinct values than bins: codes
            bins = obs
        present = np.unique(bins)
        want = np.full(n, present.size)
        want[~hole] = np.searchsorted(present, bins)
        assert levels[j] == present.size + int(missing[j]), j
        np.testing.assert_array_equal(codes[j].astype(np.int64), want)
    assert codes.dtype == (np.uint8 if levels.max() <= 256 else np.uint16)


@settings(max_examples=30, deadline=None)
@given(
    k=st.integers(1, 9),
    n=st.integers(1, 400),
    a=st.integers(1, 16),
    lj=st.integers(1, 5),
    ny=st.integers(1, 3),
    seed=st.integers(0, 2**16),
)
def test_available_counts_two_features_per_pass_bit_for_bit(k, n, a, lj, ny, seed):
    """Pairwise deletion's packed kernel (one histogram per pair of features) gives the
    one-feature kernel's sums, non-empty cells and row counts exactly, odd feature
    counts, skipped target rows and features without a missing code included."""
    pytest.importorskip("numba")
    from fsel.kernels._counting import available_nlogn, nlogn_table, pack_pairs

    rng = np.random.default_rng(seed)
    C = rng.integers(0, a, size=(k, n)).astype(np.uint8)
    C[:, 0] = a - 1
    miss = np.where(rng.random(k) < 0.5, a - 1, -1)
    z = rng.integers(0, lj * ny, n)
    z[rng.random(n) < 0.2] = -1
    table = nlogn_table(n)
    alone = available_nlogn(C, miss, z, lj * ny, ny, table, 1)
    packed = pack_pairs(C)
    if packed is None:  # a single feature: nothing to pack
        assert k == 1
        return
    both = available_nlogn(C, miss, z, lj * ny, ny, table, 2, packed=packed)
    for x, y in zip(alone, both, strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name", ["JMI", "MRMR", "MIFS", "DISR", "ICAP", "CIFE", "JMIM", "CMI"])
@pytest.mark.parametrize("odd", [False, True])
def test_pairs_packed_in_place_select_exactly_as_a_packed_copy(name, odd, monkeypatch):
    """A fit packs feature pairs over its own code matrix (no second copy): the same
    picks and scores, bit for bit, as with a packed copy beside the codes, and the
    caller's array is left as it was."""
    pytest.importorskip("numba")
    import fsel
    from fsel.kernels import information as info_mod

    monkeypatch.delenv("FSEL_DISABLE_NUMBA", raising=False)
    rng = np.random.default_rng(3 + odd)
    d = 61 if odd else 60
    X = rng.integers(0, 5, size=(3000, d)).astype(np.uint8)  # above the small-table size
    y = ((X[:, 3] + X[:, 17] + rng.integers(0, 3, 3000)) > 5).astype(int)
    X_before = X.copy()
    real = info_mod.pack_pairs_in_place
    packed: list[bool] = []

    def spy(C, *args, **kwargs):
        out = real(C, *args, **kwargs)
        packed.append(out is not None)
        return out

    monkeypatch.setattr(info_mod, "pack_pairs_in_place", spy)
    # integer input would be packed straight from X (test_packed_codes.py): code first
    monkeypatch.setattr(
        "fsel.kernels.packed_codes.packed_integer_codes", lambda values, n_jobs=1: None
    )
    a = getattr(fsel, name)(8).fit(X, y)
    assert packed and all(packed)  # the in-place path ran
    monkeypatch.setattr(info_mod, "pack_pairs_in_place", lambda C, *a, **k: None)
    b = getattr(fsel, name)(8).fit(X, y)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_array_equal(a.selection_scores_, b.selection_scores_)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(X, X_before)


@settings(max_examples=40, deadline=None)
@given(k=st.integers(2, 9), n=st.integers(1, 50), a=st.integers(1, 16), seed=st.integers(0, 99))
def test_pair_codes_read_back_the_matrix_they_replace(k, n, a, seed):
    from fsel.kernels._counting import pack_pairs, pack_pairs_in_place

    rng = np.random.default_rng(seed)
    C = rng.integers(0, a, size=(k, n)).astype(np.uint8)
    C[0, 0] = a - 1
    ref = pack_pairs(C)
    buf = C.copy()
    pc = pack_pairs_in_place(buf)
    assert pc.shape == C.shape and pc.max() == C.max() and pc.a == ref[1]
    np.testing.assert_array_equal(pc.packed, ref[0])  # the same pairs as the copy
    np.testing.assert_array_equal(np.asarray(pc), C)
    for j in range(-k, k):
        np.testing.assert_array_equal(pc[j], C[j])
    np.testing.assert_array_equal(pc[[k - 1, 0]], C[[k - 1, 0]])
    np.testing.assert_array_equal(pc[1:], C[1:])
    with pytest.raises(IndexError):
        pc.row(k)
    assert pack_pairs_in_place(np.zeros((1, 3), np.uint8)) is None  # no pair
    assert pack_pairs_in_place(np.full((2, 3), 16, np.uint8)) is None  # 17 levels


def test_jmi_allocates_at_most_half_a_code_matrix_beyond_it():
    """Issue 14 item 6: a JMI fit's peak allocations stay within 1.5x the code matrix
    (they were 1.24x before feature pairs were packed; a packed copy beside the codes
    made them 1.74x; packing over the fit's own codes keeps them near 1.25x). An
    allocation bound, not a timing."""
    import gc
    import tracemalloc

    import fsel

    rng = np.random.default_rng(0)
    X = rng.integers(0, 10, size=(200_000, 100), dtype=np.uint8)
    y = (X[:, 0].astype(int) + X[:, 1] > 9).astype(np.uint8)
    # compiled (or loaded) outside the measurement: the same table, so the same path
    # (a table of a few thousand rows is counted by other kernels than this one's)
    fsel.JMI(3).fit(X, y)
    gc.collect()  # earlier tests' garbage freed before the measurement
    tracemalloc.start()
    try:
        fsel.JMI(10).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 1.5 * X.nbytes, peak / X.nbytes


@pytest.mark.parametrize("k", [2, 5, 8])
def test_pack_pairs_in_place_threads_give_the_same_bytes(k):
    # over 2 * 65,536 samples: two threads take a span of the samples each
    from fsel.kernels._counting import pack_pairs, pack_pairs_in_place

    rng = np.random.default_rng(k)
    C = rng.integers(0, 7, size=(k, 140_001)).astype(np.uint8)
    ref = pack_pairs(C)
    buf = C.copy()
    pc = pack_pairs_in_place(buf, n_jobs=2)
    assert pc.a == ref[1] == 7 and pc.max() == 6
    np.testing.assert_array_equal(pc.packed, ref[0])
    np.testing.assert_array_equal(np.asarray(pc), C)
    for j in range(k):  # row spans unpack to the rows
        np.testing.assert_array_equal(pc.row_span(j, 3, 70_000), C[j, 3:70_000])


def test_pair_z_codes_threads_agree_with_one_pass():
    from fsel.kernels._counting import pack_pairs_in_place
    from fsel.kernels.information import pair_z_codes

    rng = np.random.default_rng(0)
    C = rng.integers(0, 5, size=(3, 600_000)).astype(np.uint8)
    y = rng.integers(0, 3, size=600_000).astype(np.uint8)
    packed = pack_pairs_in_place(C.copy())
    for j in range(3):
        want = C[j].astype(np.uint8) * np.uint8(3) + y
        np.testing.assert_array_equal(pair_z_codes(C, j, 3, y, np.uint8, 2), want)
        np.testing.assert_array_equal(pair_z_codes(packed, j, 3, y, np.uint8, 2), want)


def test_wide_alphabets_count_in_memory_of_the_rows(monkeypatch):
    # 2,000 levels a column and 100 classes: a table of the pair-and-target cells
    # would hold 2,000 x 2,000 x 100 counts (3.2 GB); sorted cells need O(N)
    import tracemalloc

    import fsel

    pytest.importorskip("numba")
    import fsel.kernels._counting as counting

    monkeypatch.delenv("FSEL_DISABLE_NUMBA", raising=False)
    monkeypatch.setattr(counting, "SMALL_TABLE_CELLS", 0)  # the compiled counts
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2000, (3000, 6))
    y = rng.integers(0, 100, 3000)
    y[:1500] = X[:1500, 2] % 100  # column 2 tells half of the target
    fsel.JMI(3, discretize=None).fit(X, y)  # warm-up
    tracemalloc.start()
    got = fsel.JMI(3, discretize=None).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50e6, peak
    assert got.selection_order_[0] == 2
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")  # the numpy counts: the same picks
    want = fsel.JMI(3, discretize=None).fit(X, y)
    assert got.selection_order_.tolist() == want.selection_order_.tolist()
    np.testing.assert_allclose(got.scores_, want.scores_, rtol=0, atol=1e-9)
