"""Every compiled (numba) kernel against an independent reference.

Each kernel is a module-level function of a ``fsel.kernels._numba_*`` module. Here it
is called directly, compiled and as its plain Python source (``py_func``), and both are
compared with a plain-loop reference written from the formula in its docstring (the
distance, neighbour, Gaussian-sum and classifiability kernels the same way, in
``test_compiled_geometry.py``). The kernels whose signature is a whole algorithm (lazy
CMIM, the expected-difference builds, the pairwise-deletion counts, ...) are checked
against their numpy twins by the tests named in :data:`TWIN_TESTS`;
:func:`test_every_compiled_kernel_is_checked` fails when a kernel is added without
either.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _compiled import both
from fsel.utils.parallel import numba_available

pytestmark = pytest.mark.skipif(not numba_available(), reason="numba is not installed")

TESTS = Path(__file__).parent

#: kernel -> the test that checks it against its numpy twin (file::test).
TWIN_TESTS = {
    "_numba_available_counting.available": "test_information_missing.py",
    "_numba_available_counting.available_dense": "test_information_missing.py",
    "_numba_available_counting.available_packed": "test_information_missing.py",
    "_numba_cmim.refresh_block": "test_information_selectors.py",
    "_numba_counting.sparse_codes_grouped": "test_sparse_information.py",
    "_numba_discretize.column_ranks": "test_sparse_information.py",
    "_numba_discretize._few_distinct": "test_sparse_information.py",
    "_numba_discretize._rank_in": "test_sparse_information.py",
    "_numba_discretize.first_fraction": "test_sparse_information.py",
    "_numba_discretize.bin_stored": "test_sparse_information.py",
    "_numba_discretize.drop_zero_codes": "test_sparse_information.py",
    "_numba_discretize.csr_to_columns": "test_sparse_information.py",
    "_numba_distances.manhattan_knn_stream": "test_neighbors.py",
    "_numba_distances.l1_corr": "test_relief_sparse.py",
    "_numba_neighbors.absdiff_csr": "test_relief_sparse.py",
    "_numba_neighbors.radius_rows": "test_neighbors.py",
    "_numba_neighbors.radius_pairs": "test_neighbors.py",
    "_numba_relief_margins.search": "test_expected_tables.py",
    "_numba_relief_margins.block": "test_expected_tables.py",
    "_numba_relief_margins.absdiff": "test_expected_tables.py",
    "_numba_relief_margins.build": "test_expected_tables.py",
    "_numba_relief_margins.absdiff_v": "test_expected_tables.py",
    "_numba_relief_margins.w_rows": "test_expected_tables.py",
    "_numba_relief_margins.w_upper": "test_expected_tables.py",
    "_numba_relief_margins.w_block": "test_expected_tables.py",
    "_numba_classifiability.nn_rows": "test_classifiability.py",
    "_numba_classifiability.count_rows": "test_classifiability.py",
    "_numba_knn.tree_levels": "test_knn_mi.py",
    "_numba_knn.quickselect": "test_knn_mi.py",
    "_numba_knn.kd_build": "test_knn_mi.py",
    "_numba_knn._box_min": "test_knn_mi.py",
    "_numba_knn._box_max": "test_knn_mi.py",
    "_numba_knn.kth_neighbour_radius": "test_knn_mi.py",
    "_numba_knn.count_within": "test_knn_mi.py",
    "_numba_knn.knn_radius": "test_knn_mi.py",
    "_numba_knn.count_within_all": "test_knn_mi.py",
    "_numba_select.float_keys": "test_binning.py",
    "_numba_select.select_keys": "test_binning.py",
    "_numba_select._bit_length": "test_binning.py",  # through select_keys
    "_numba_counting.histogram_sums": "test_gpu_rows.py",
}

#: kernels checked in this file (the test names below).
DIRECT = {
    "_numba_labels.byte_counts",
    "_numba_labels.label_counts_rows",
    "_numba_counting.grouped_dense",
    "_numba_counting.grouped_touched",
    "_numba_counting._sorted_sums",
    "_numba_counting.grouped_packed",
    "_numba_counting.pair_counts_rows",
    "_numba_counting.packed_sums",
    "_numba_counting.pair_counts_z",
    "_numba_counting.stacked_pair_sums",
    "_numba_discretize.int_ranges",
    "_numba_discretize.transpose_offsets",
    "_numba_discretize.remap_codes",
    "_numba_discretize.pack_offsets",
    "_numba_discretize.transpose_bytes8",
    "_numba_discretize.flat_min_max",
    "_numba_discretize._swap_halves",  # through transpose_bytes8
    "_numba_discretize.remap_pairs",
    "_numba_counting.histograms",
    "_numba_counting.paired_histograms",
    "_numba_counting._dense_sums",
    "_numba_counting._pair_dense_sums",  # through grouped_packed, packed_sums, stacked
    "_numba_counting._split_pair",
    "_numba_available_counting._sum_clear",
    "_numba_available_counting._available_work",
    "_numba_available_counting._available_sums",
    "_numba_cmim.pair_cmi",
    "_numba_cmim.pair_histogram",  # through pair_cmi and split by rows below
    "_numba_cmim.pair_cmi_sorted",  # against pair_cmi below
    "_numba_cmim.cmi_of_histogram",  # through pair_cmi
    "_numba_discretize.compact",
    "_numba_discretize.float_ranges",
    "_numba_discretize.presence",
    "_numba_distances.l1",
    "_numba_distances.manhattan",
    "_numba_distances.manhattan_upper",
    "_numba_distances.gram_upper",
    "_numba_distances.sq_delta_add",
    "_numba_neighbors.knn_block",
    "_numba_neighbors.absdiff_rows",
    "_numba_neighbors.absdiff_sparse",
    "_numba_neighbors.row_mean_std",
    "_numba_neighbors.radius_counts",
    "_numba_gaussian_sums.gauss_sums",
    "_numba_classifiability.dense_nn",
    "_numba_classifiability.dense_count",
    "_numba_classifiability.dense_purity",
    "_numba_relief_margins.transpose",
    "_numba_discretize.bin_by_edges",
    "_numba_joint.mark_states",
    "_numba_joint.state_ranks",
    "_numba_joint.target_joint",
}


def _compiled_kernels() -> dict[str, object]:
    import numba.core.registry

    import fsel.kernels as pkg

    found = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_numba_"):
            continue
        mod = importlib.import_module(f"fsel.kernels.{info.name}")
        for name, obj in vars(mod).items():
            if (
                isinstance(obj, numba.core.registry.CPUDispatcher)
                and obj.__module__ == mod.__name__
            ):
                found[f"{info.name}.{name}"] = obj
    return found


def test_every_compiled_kernel_is_checked():
    kernels = _compiled_kernels()
    assert len(kernels) >= 40
    missing = sorted(set(kernels) - DIRECT - set(TWIN_TESTS))
    assert not missing, f"compiled kernels without a check: {missing}"
    assert not (DIRECT | set(TWIN_TESTS)) - set(kernels)
    for name, obj in kernels.items():
        assert obj.py_func.__doc__ and len(obj.py_func.__doc__) > 30, f"{name}: no docstring"
    for test_file in set(TWIN_TESTS.values()):
        text = (TESTS / test_file).read_text()
        assert re.search(r"numba|FSEL_DISABLE_NUMBA|use_numba|engine", text), test_file


def test_import_fsel_stays_light():
    code = (
        "import sys, fsel, fsel.kernels.distances, fsel.kernels.neighbors, "
        "fsel.kernels.classifiability, fsel.kernels.discretize, fsel.kernels.information, "
        "fsel.kernels.ranking_indices, fsel.utils.parallel; "
        "print(sorted(m for m in ('numba', 'sklearn', 'dask', 'scipy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "numba" not in out.stdout


# ------------------------------------------------------------------------ counting


def _nlogn_table(n):
    t = np.zeros(n + 1)
    c = np.arange(1, n + 1, dtype=np.float64)
    t[1:] = c * np.log2(c)
    return t


def _ref_grouped(C, z, group):
    out = []
    for row in C:
        full = Counter(zip(row.tolist(), z.tolist(), strict=True))
        coarse = Counter((x, v // group) for x, v in zip(row.tolist(), z.tolist(), strict=True))
        out.append(
            (
                sum(c * math.log2(c) for c in full.values()),
                sum(c * math.log2(c) for c in coarse.values()),
                len(full),
                len(coarse),
            )
        )
    return np.array(out).T


codes_case = st.tuples(
    st.integers(1, 6), st.integers(1, 40), st.integers(1, 4), st.integers(1, 3), st.integers(0, 99)
)


@settings(max_examples=25, deadline=None)
@given(codes_case)
def test_grouped_counting_kernels_against_counters(case):
    from fsel.kernels import _counting
    from fsel.kernels import _numba_counting as nc

    K, n, a, group, seed = case
    rng = np.random.default_rng(seed)
    nz = group * int(rng.integers(1, 4))
    C = rng.integers(0, a, (K, n)).astype(np.uint8)
    z = rng.integers(0, nz, n).astype(np.int64)
    table = _nlogn_table(n)
    ref = _ref_grouped(C, z, group)
    amax = int(C.max()) + 1
    for kernel in both(nc.grouped_dense) + both(nc.grouped_touched):
        outs = (np.empty(K), np.empty(K), np.empty(K, np.int64), np.empty(K, np.int64))
        kernel(C, z, nz, group, amax, table, *outs, 0, K)
        for o, r in zip(outs, ref, strict=True):
            np.testing.assert_allclose(o, r, rtol=1e-12, atol=1e-9)
    packed = _counting.pack_pairs(C)
    if packed is not None:
        P, pa = packed
        for kernel in both(nc.grouped_packed):
            outs = (np.zeros(K), np.zeros(K), np.zeros(K, np.int64), np.zeros(K, np.int64))
            kernel(P, z, nz, group, pa, table, *outs, 0, P.shape[0])
            m = 2 * P.shape[0]
            for o, r in zip(outs, ref, strict=True):
                np.testing.assert_allclose(o[:m], r[:m], rtol=1e-12, atol=1e-9)
    # the helpers, called from Python
    F = np.zeros(amax * nz, np.int64)
    np.add.at(F, C[0].astype(np.int64) * nz + z, 1)
    sf, sc, mf, mc = nc._dense_sums.py_func(
        F, nz, group, amax, table, np.zeros(amax * nz, np.int64)
    )
    np.testing.assert_allclose([sf, sc, mf, mc], ref[:, 0], rtol=1e-12, atol=1e-9)
    assert not F.any()  # cleared on the way


@settings(max_examples=25, deadline=None)
@given(codes_case, st.integers(1, 4))
def test_row_split_pair_counts_against_counters(case, parts):
    """Row-range histograms of packed pairs, summed over any split of the rows, and
    the sums read from their totals: those of one pass over all rows."""
    from fsel.kernels import _counting
    from fsel.kernels import _numba_counting as nc
    from fsel.utils.parallel import spans

    K, n, a, group, seed = case
    rng = np.random.default_rng(seed)
    nz = group * 2
    C = rng.integers(0, a, (max(K, 2), n)).astype(np.uint8)
    z = rng.integers(0, nz, n).astype(np.uint8)
    P, pa = _counting.pack_pairs(C)
    Q = P.shape[0]
    H = np.zeros((Q, pa * pa * nz), np.int64)
    for i0, i1 in spans(n, parts):
        got = []
        for kernel in both(nc.pair_counts_rows):
            got.append(np.zeros((Q, pa * pa * nz), np.int32))
            kernel(P, z, nz, 0, Q, i0, i1, got[-1])
        np.testing.assert_array_equal(got[0], got[1])
        H += got[0]
    ref = np.zeros_like(H)
    for q in range(Q):
        np.add.at(ref[q], P[q].astype(np.int64) * nz + z, 1)
    np.testing.assert_array_equal(H, ref)
    table = _nlogn_table(n)
    want = _ref_grouped(C[: 2 * Q], z.astype(np.int64), group)
    for kernel in both(nc.packed_sums):
        outs = (
            np.zeros(2 * Q),
            np.zeros(2 * Q),
            np.zeros(2 * Q, np.int64),
            np.zeros(2 * Q, np.int64),
        )
        kernel(H, nz, group, pa, table, *outs, 0, Q)
        for o, r in zip(outs, want, strict=True):
            np.testing.assert_allclose(o, r, rtol=1e-12, atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(codes_case, st.integers(1, 4), st.booleans())
def test_step_pair_counts_against_counters(case, parts, with_y):
    """Pair counts against ``z = zlut[src] + y`` (an odd last row alongside) over any
    split of the rows, then the sums of the stacked totals: those of one pass."""
    from fsel.kernels import _counting
    from fsel.kernels import _numba_counting as nc
    from fsel.utils.parallel import spans

    K, n, a, ny, seed = case
    rng = np.random.default_rng(seed)
    K = max(K, 2) | 1  # odd
    C = rng.integers(0, a, (K, n)).astype(np.uint8)
    y = rng.integers(0, ny, n).astype(np.uint8) if with_y else np.zeros(0, np.uint8)
    P, pa = _counting.pack_pairs(C)
    Q = P.shape[0]
    ny = ny if with_y else 1
    zlut = np.zeros(256, np.uint8)
    zlut[: pa * pa] = (np.arange(pa * pa) % pa) * ny  # feature 1: the low part of pair 0
    z = C[1].astype(np.int64) * ny + (y if with_y else 0)
    nz = pa * ny
    sp = spans(n, parts)
    Hs = np.full((len(sp), Q, pa * pa * nz), 7, np.int32)  # written, not added to
    Hl = np.full((len(sp), pa * nz), 7, np.int32)
    for kernel in both(nc.pair_counts_z):
        for t, (i0, i1) in enumerate(sp):
            kernel(P, P[0], zlut, y, nz, C[K - 1], i0, i1, Hs[t], Hl[t])
        ref = np.zeros((Q, pa * pa * nz), np.int64)
        for q in range(Q):
            np.add.at(ref[q], P[q].astype(np.int64) * nz + z, 1)
        np.testing.assert_array_equal(Hs.sum(axis=0), ref)
        last = np.zeros(pa * nz, np.int64)
        np.add.at(last, C[K - 1].astype(np.int64) * nz + z, 1)
        np.testing.assert_array_equal(Hl.sum(axis=0), last)
    table = _nlogn_table(n)
    want = _ref_grouped(C[: 2 * Q], z, ny)
    for kernel in both(nc.stacked_pair_sums):
        outs = (
            np.zeros(2 * Q),
            np.zeros(2 * Q),
            np.zeros(2 * Q, np.int64),
            np.zeros(2 * Q, np.int64),
        )
        kernel(Hs, nz, ny, pa, table, *outs, 0, Q)
        for o, r in zip(outs, want, strict=True):
            np.testing.assert_allclose(o, r, rtol=1e-12, atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 60), st.integers(1, 5), st.integers(1, 3), st.integers(0, 99))
def test_parallel_coding_kernels_against_unique(n, d, parts, seed):
    """Ranges of row spans, offsets with presence, and the remap of gapped columns:
    the codes of ``np.unique(column, return_inverse=True)``."""
    from fsel.kernels import _numba_discretize as nd
    from fsel.utils.parallel import spans

    rng = np.random.default_rng(seed)
    X = (rng.integers(0, 5, (n, d)) * rng.integers(1, 3, d) - 3).astype(np.int16)
    sp = spans(n, parts)
    lo = np.empty((len(sp), d), X.dtype)
    hi = np.empty((len(sp), d), X.dtype)
    for t, (a, b) in enumerate(sp):
        for kernel in both(nd.int_ranges):
            kernel(X, lo[t], hi[t], a, b)
    np.testing.assert_array_equal(lo.min(axis=0), X.min(axis=0))
    np.testing.assert_array_equal(hi.max(axis=0), X.max(axis=0))
    vmin = X.min(axis=0).astype(np.int64)
    width = int((X.max(axis=0).astype(np.int64) - vmin).max()) + 1
    out = np.empty((d, n), np.uint8)
    present = np.zeros((len(sp), d, width), bool)
    for t, (a, b) in enumerate(sp):
        for kernel in both(nd.transpose_offsets):
            kernel(X, vmin, out, present[t], a, b)
    np.testing.assert_array_equal(out, (X.astype(np.int64) - vmin).T)
    seen = present.any(axis=0)
    lut = (np.cumsum(seen, axis=1) - 1).astype(np.uint8)
    need = np.ones(d, bool)
    for kernel in both(nd.remap_codes):
        codes = out.copy()
        for a, b in sp:
            kernel(codes, lut, need, a, b)
        for j in range(d):
            np.testing.assert_array_equal(codes[j], np.unique(X[:, j], return_inverse=True)[1])


@settings(max_examples=25, deadline=None)
@given(codes_case)
def test_histogram_kernels_against_add_at(case):
    from fsel.kernels import _counting
    from fsel.kernels import _numba_counting as nc

    K, n, a, nz, seed = case
    rng = np.random.default_rng(seed)
    C = rng.integers(0, a, (K, n)).astype(np.uint8)
    z = rng.integers(0, nz, n).astype(np.int64)
    amax = int(C.max()) + 1
    ref = np.zeros((K, amax * nz), np.int64)
    for k in range(K):
        np.add.at(ref[k], C[k].astype(np.int64) * nz + z, 1)
    for kernel in both(nc.histograms):
        out = np.zeros_like(ref)
        kernel(C, z, nz, out)
        np.testing.assert_array_equal(out, ref)
    packed = _counting.pack_pairs(C)
    if packed is not None:
        P, pa = packed
        for kernel in both(nc.paired_histograms):
            out = np.zeros_like(ref)
            kernel(P, pa, z, nz, out)
            np.testing.assert_array_equal(out[: 2 * P.shape[0]], ref[: 2 * P.shape[0]])
        H = np.zeros(pa * pa * nz, np.int32)
        h1, h2 = np.zeros(pa * nz, np.int64), np.zeros(pa * nz, np.int64)
        nc._split_pair.py_func(P[0], z, nz, pa, H, h1, h2)
        np.testing.assert_array_equal(h1, ref[0])
        np.testing.assert_array_equal(h2, ref[1])


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 40), st.integers(1, 4), st.integers(1, 3), st.integers(0, 99))
def test_available_helpers_against_counters(n, a, group, seed):
    """The pairwise-deletion sums of one feature: the seven histograms of its kept
    cells (code not ``mk``, ``z`` not skipped)."""
    from fsel.kernels import _numba_available_counting as na

    rng = np.random.default_rng(seed)
    nz = group * 2
    x = rng.integers(0, a + 1, n)
    mk = a  # the missing code
    z = rng.integers(-1, nz, n)
    table = _nlogn_table(n)
    zp, work = na._available_work.py_func(z, nz, group, a + 1)
    np.testing.assert_array_equal(zp, np.where(z >= 0, z, nz))
    w = nz + 1
    full = np.zeros((a + 1) * w, np.int64)
    np.add.at(full, x * w + zp, 1)
    s_out, m_out, n_out = np.zeros((7, 1)), np.zeros((7, 1), np.int64), np.zeros(1, np.int64)
    na._available_sums.py_func(full, mk, nz, group, a + 1, table, work, s_out, m_out, n_out, 0)
    keep = (x != mk) & (z >= 0)
    xs, zs = x[keep].tolist(), z[keep].tolist()
    hists = [
        Counter(zip(xs, zs, strict=True)),
        Counter((u, v // group) for u, v in zip(xs, zs, strict=True)),
        Counter(xs),
        Counter((u, v % group) for u, v in zip(xs, zs, strict=True)),
        Counter(zs),
        Counter(v // group for v in zs),
        Counter(v % group for v in zs),
    ]
    for r, h in enumerate(hists):
        assert s_out[r, 0] == pytest.approx(sum(c * math.log2(c) for c in h.values()), abs=1e-9)
        assert m_out[r, 0] == len(h)
    assert n_out[0] == keep.sum()
    h = np.array([0, 2, 0, 3], np.int64)
    s, m = na._sum_clear.py_func(h, _nlogn_table(8))
    assert (s, m) == (pytest.approx(2 + 3 * math.log2(3)), 2) and not h.any()


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 40), st.integers(1, 3), st.integers(0, 99), st.booleans())
def test_pair_cmi_against_entropies(n, a, seed, miller_madow):
    """I(X_c; Y | X_j) = H(c, j) + H(j, y) - H(c, j, y) - H(j) (plug-in) plus the
    Miller-Madow correction of the four entropies."""
    from fsel.kernels import _numba_cmim as nm

    rng = np.random.default_rng(seed)
    C = rng.integers(0, a + 1, (2, n)).astype(np.uint8)
    y = rng.integers(0, 2, n).astype(np.int64)
    table = _nlogn_table(n)
    rows = C.tolist()

    def s_m(*cols):
        cnt = Counter(zip(*cols, strict=True))
        return sum(c * math.log2(c) for c in cnt.values()), len(cnt)

    s_j, m_j = s_m(rows[1])
    s_jy, m_jy = s_m(rows[1], y.tolist())
    s_cj, m_cj = s_m(rows[0], rows[1])
    s_cjy, m_cjy = s_m(rows[0], rows[1], y.tolist())
    mm = 1.0 / (2 * n * math.log(2)) if miller_madow else 0.0
    ref = (s_cjy + s_j - s_cj - s_jy) / n + (m_cj + m_jy - m_cjy - m_j) * mm
    levels = np.array([int(C[0].max()) + 1, int(C[1].max()) + 1], np.int64)
    for kernel in both(nm.pair_cmi):
        hist = np.zeros(int(levels.max()) ** 2 * 2, np.int64)
        got = kernel(C, y, 2, levels, 0, 1, table, s_j, s_jy, m_j, m_jy, 1.0 / n, mm, hist)
        assert got == pytest.approx(max(0.0, ref), abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 60), st.integers(1, 4), st.integers(1, 3), st.integers(0, 99))
def test_pair_histogram_split_by_rows_adds_up(n, a, ny, seed):
    """The histograms of any split of the rows add up to the whole one, which holds
    every row once in the cell ``(x_c * a_j + x_j) * ny + y``."""
    from fsel.kernels import _numba_cmim as nm

    rng = np.random.default_rng(seed)
    C = rng.integers(0, a, (3, n)).astype(np.uint8)
    y = rng.integers(0, ny, n).astype(np.uint8)
    aj = int(C[2].max()) + 1
    want = np.zeros(a * aj * ny, np.int64)
    for xc, xj, t in zip(C[0].tolist(), C[2].tolist(), y.tolist(), strict=True):
        want[(xc * aj + xj) * ny + t] += 1
    cut = int(rng.integers(0, n + 1))
    for kernel in both(nm.pair_histogram):
        parts = np.full((2, want.size), 7, np.int64)  # stale counts: the kernel clears
        kernel(C, y, ny, aj, 0, 2, 0, cut, parts[0])
        kernel(C, y, ny, aj, 0, 2, cut, n, parts[1])
        np.testing.assert_array_equal(parts.sum(axis=0), want)


# ---------------------------------------------------------------------- discretize


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 30), st.integers(1, 4), st.integers(-5, 5), st.integers(0, 99))
def test_compact_and_ranges_against_unique(n, d, shift, seed):
    from fsel.kernels import _numba_discretize as nd

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, (n, d)).astype(np.int64) * 2 + shift
    lo = X.min(axis=0)
    width = int((X.max(axis=0) - lo).max()) + 1
    for kernel in both(nd.compact):
        out = np.empty((d, n), np.int64)
        levels = kernel(X, lo, width, out, np.zeros(d, bool), np.zeros(d, np.int64))
        for j in range(d):
            u, inv = np.unique(X[:, j], return_inverse=True)
            assert levels[j] == u.size
            np.testing.assert_array_equal(out[j], inv.ravel())
    F = X.astype(np.float64)
    F[0, 0] = np.nan
    for kernel in both(nd.float_ranges):
        lo_f, hi_f, seen = np.empty(d), np.empty(d), np.zeros(d, bool)
        assert kernel(F, lo_f, hi_f, seen)
        np.testing.assert_array_equal(lo_f, np.nanmin(F, axis=0))
        np.testing.assert_array_equal(hi_f, np.nanmax(F, axis=0))
        np.testing.assert_array_equal(seen, np.isnan(F).any(axis=0))
        F2 = F.copy()
        F2[-1, -1] = 0.5
        assert not kernel(F2, lo_f, hi_f, np.zeros(d, bool))
    for kernel in both(nd.presence):
        present = np.zeros((d, width), bool)
        kernel(X, lo, present)
        for j in range(d):
            np.testing.assert_array_equal(np.flatnonzero(present[j]) + lo[j], np.unique(X[:, j]))


@pytest.mark.parametrize("n", [0, 1, 3, 4, 7, 1001])
def test_byte_counts_against_bincount(n):
    pytest.importorskip("numba")
    from fsel.kernels._numba_labels import byte_counts

    y = np.random.default_rng(n).integers(0, 256, n).astype(np.uint8)
    np.testing.assert_array_equal(byte_counts(y), np.bincount(y, minlength=256))


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 300), st.integers(1, 4), st.integers(0, 99), st.booleans())
def test_label_counts_rows_against_bincount(n, parts, seed, sorted_):
    """Label counts of any split of the rows, added: ``np.bincount``; the labels copied
    to one byte; False on a label outside 0..255."""
    from fsel.kernels._numba_labels import label_counts_rows
    from fsel.utils.parallel import spans

    y = np.random.default_rng(seed).integers(0, 256, n).astype(np.int64)
    if sorted_:
        y.sort()
    for kernel in both(label_counts_rows):
        small = np.zeros(n, np.uint8)
        counts = np.zeros(256, np.int64)
        assert all(kernel(y, small, counts, a, b) for a, b in spans(n, parts))
        np.testing.assert_array_equal(counts, np.bincount(y, minlength=256))
        np.testing.assert_array_equal(small, y)
        bad = y.copy()
        bad[-1] = 256
        assert not kernel(bad, small, np.zeros(256, np.int64), 0, n)


def test_label_summary_threads_alike(monkeypatch):
    import fsel.kernels.information as information

    monkeypatch.setattr(information, "_LABEL_ROWS_PER_THREAD", 10)
    y = np.random.default_rng(0).integers(0, 5, 1000)
    for n_jobs in (1, 2, 3):
        counts, small = information.label_summary(y, n_jobs)
        np.testing.assert_array_equal(counts, np.bincount(y))
        np.testing.assert_array_equal(small, y)
    counts, small = information.label_summary(y + 300, 2)  # wide labels: numpy's counts
    np.testing.assert_array_equal(counts, np.bincount(y + 300))
    assert small is None


def _check_pack_offsets(X, parts, kernels, seed=0):
    """pack_offsets over ``parts`` row spans of ``X`` (each compiled/Python kernel in
    ``kernels``) against numpy's arithmetic on the whole table; the presence masks
    against ``np.unique``; remap_pairs against a table lookup."""
    from fsel.kernels import _numba_discretize as nd
    from fsel.utils.parallel import spans

    rng = np.random.default_rng(seed)
    n, d = X.shape
    vmin = X.min(axis=0).astype(np.int64)
    off = X.astype(np.int64) - vmin
    span = off.max(axis=0) + 1
    w = int(span.max())
    full = ((1 << span) - 1).astype(np.uint32)
    Q = d // 2
    want = off[:, 0 : 2 * Q : 2] * w + off[:, 1 : 2 * Q : 2]
    lut = rng.integers(0, 256, (Q, 256)).astype(np.uint8)
    need = rng.integers(0, 2, Q).astype(bool)
    for kernel, flat in [(k, f) for k in kernels for f in (X.reshape(-1), X[:0, 0])]:
        P = np.zeros((Q, n), np.uint8)
        last = np.zeros(n if d % 2 else 0, np.uint8)
        T = len(spans(n, parts))
        masks = np.zeros((T, d), np.uint32)
        lo, hi = np.zeros((T, d), X.dtype), np.zeros((T, d), X.dtype)
        for t, (a, b) in enumerate(spans(n, parts)):
            kernel(X, flat, vmin, w, full, P, last, masks[t], lo[t], hi[t], a, b)
            np.testing.assert_array_equal(lo[t], X[a:b].min(axis=0))
            np.testing.assert_array_equal(hi[t], X[a:b].max(axis=0))
        np.testing.assert_array_equal(P, want.T)
        if d % 2:
            np.testing.assert_array_equal(last, off[:, d - 1])
        seen = np.bitwise_or.reduce(masks, axis=0)
        for j in range(d):
            assert seen[j] == sum(1 << int(v) for v in np.unique(off[:, j]))
        for remap in both(nd.remap_pairs):
            R = P.copy()
            for a, b in spans(n, parts):
                remap(R, lut, need, a, b)
            for q in range(Q):
                np.testing.assert_array_equal(R[q], lut[q][P[q]] if need[q] else P[q])


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 60), st.integers(2, 7), st.integers(1, 3), st.integers(0, 99))
def test_pack_offsets_and_remap_pairs_against_numpy(n, d, parts, seed):
    """Packed offsets of any split of the rows with each column's present offsets,
    then the pairs remapped through a table: numpy's arithmetic on the whole table."""
    from fsel.kernels import _numba_discretize as nd

    rng = np.random.default_rng(seed)
    X = (rng.integers(0, 4, (n, d)) * rng.integers(1, 3, d) + 5).astype(np.int16)
    _check_pack_offsets(X, parts, both(nd.pack_offsets), seed)


@pytest.mark.parametrize("d", [2, 17, 130, 131])
@pytest.mark.parametrize("dtype", [np.uint8, np.int64])
def test_pack_offsets_over_many_tiles(d, dtype):
    """Tables longer than one tile (a tile is 224 rows at 130 features, 2048 at 2), row spans
    that end inside a tile and inside a block of 8 rows, the last pair's block of
    eight part-filled, and levels that first show up late: a column whose one row
    of its top level is the last, a gapped column (its mask never full) and a
    column whose top level appears only in the second thread's rows."""
    from fsel.kernels import _numba_discretize as nd

    rng = np.random.default_rng(d)
    n = 5003
    X = rng.integers(0, 10, (n, d)).astype(dtype)
    X[:, 0] = rng.integers(0, 3, n) * 4  # gaps: 0, 4, 8
    X[:, 1] = X[:, 1] % 9
    X[-1, 1] = 9  # the top level in the very last row
    X[:, d - 1] = np.minimum(X[:, d - 1], 8)
    X[n // 2 + 3, d - 1] = 15
    for parts in (1, 2, 3, 7):
        _check_pack_offsets(X, parts, [nd.pack_offsets], parts)
    _check_pack_offsets(X[:900], 2, [nd.pack_offsets.py_func])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 9), st.integers(1, 4), st.integers(0, 99))
def test_transpose_bytes8_is_a_byte_transpose(nblk, G, seed):
    """The 8 x 8 block transpose in words: ``S.view(uint8)[q, r] ==
    W.view(uint8)[r, q]`` for the first ``8 nblk`` rows; the rest of ``S`` is not
    written. (The Python twin runs with the Python swap: the compiled one hands
    back Python ints, which numba then reads as int64.)"""
    from fsel.kernels import _numba_discretize as nd

    rng = np.random.default_rng(seed)
    W = rng.integers(0, 2**63, (8 * nblk + 3, G), dtype=np.int64).astype(np.uint64)
    W ^= rng.integers(0, 2, W.shape).astype(np.uint64) << np.uint64(63)
    for kernel in both(nd.transpose_bytes8):
        S = np.full((8 * G, nblk + 1), 7, np.uint64)
        with pytest.MonkeyPatch.context() as mp:
            if kernel is nd.transpose_bytes8.py_func:
                mp.setattr(nd, "_swap_halves", nd._swap_halves.py_func)
            kernel(W, S, nblk)
        S8, W8 = S.view(np.uint8), W.view(np.uint8)
        np.testing.assert_array_equal(S8[:, : 8 * nblk], W8[: 8 * nblk].T)
        assert (S[:, nblk] == 7).all()


@settings(max_examples=40, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 4)), min_size=1, max_size=60),
    cut=st.integers(0, 60),
)
def test_joint_kernels_against_loops(pairs, cut):
    """mark_states, state_ranks and target_joint on the rows ``r0..r1`` of a split,
    against plain loops from their docstrings: the rows outside are not touched."""
    from fsel.kernels import _numba_joint as nj

    s = np.array([p[0] for p in pairs], dtype=np.int64)
    c = np.array([p[1] for p in pairs], dtype=np.uint8)
    y = (s * 3 + c) % 2
    n = s.size
    r0, r1 = min(cut, n) // 2, min(cut, n)
    a, ny = 5, 2
    rank = np.arange(10 * a, dtype=np.int64) * 7  # any table
    want_present = np.zeros(10 * a, dtype=bool)
    want_out = np.full(n, -1, dtype=np.int64)
    want_z = np.full(n, -1, dtype=np.int64)
    want_counts = np.zeros(10 * ny, dtype=np.int64)
    for r in range(r0, r1):
        want_present[s[r] * a + c[r]] = True
        want_out[r] = rank[s[r] * a + c[r]]
        want_z[r] = s[r] * ny + y[r]
        want_counts[want_z[r]] += 1
    for mark, ranks, target in zip(
        both(nj.mark_states), both(nj.state_ranks), both(nj.target_joint), strict=True
    ):
        present = np.zeros(10 * a, dtype=bool)
        mark(s, c, a, present, r0, r1)
        out = np.full(n, -1, dtype=np.int64)
        ranks(s, c, a, rank, out, r0, r1)
        z = np.full(n, -1, dtype=np.int64)
        counts = np.zeros(10 * ny, dtype=np.int64)
        target(s, y, ny, z, counts, r0, r1)
        np.testing.assert_array_equal(present, want_present)
        np.testing.assert_array_equal(out, want_out)
        np.testing.assert_array_equal(z, want_z)
        np.testing.assert_array_equal(counts, want_counts)


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(1, 40),
    widths=st.lists(st.sampled_from([0, 1, 2, 5, 9, 70]), min_size=1, max_size=5),
    nan_bin=st.booleans(),
    split=st.integers(0, 40),
)
def test_bin_by_edges_counts_the_edges_at_or_below(seed, n, widths, nan_bin, split):
    """bin_by_edges (edge by edge, or a binary search past 64 edges) against the count
    of sorted edges ``<= x`` (the numpy binning's rule), with values on the edges,
    +-0.0, +-inf and NaN, columns of different numbers of edges and a code column
    copied as it is; rows outside ``i0..i1`` are not written."""
    from fsel.kernels import _numba_discretize as nd

    rng = np.random.default_rng(seed)
    d = len(widths) + 1
    X = rng.choice([-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, np.inf, -np.inf, np.nan], (n, d))
    X[:, 0] = rng.integers(-3, 300, n)  # column 0 is a code column: copied
    cols = np.arange(1, d, dtype=np.intp)
    lengths = np.array(widths, dtype=np.intp)
    E = np.zeros((cols.size, max(1, max(widths))))
    for q, m in enumerate(widths):
        E[q, :m] = np.sort(rng.choice([-1.0, 0.0, 0.5, 1.0, 2.0], m))
    i0, i1 = min(split, n) // 2, min(split, n)
    want = np.full((n, d), 99, dtype=np.int64)
    for i in range(i0, i1):
        want[i, 0] = int(X[i, 0])
        for q, j in enumerate(cols):
            x = X[i, j]
            if np.isnan(x):
                want[i, j] = widths[q] + 1 if nan_bin else 0
            else:
                want[i, j] = sum(1 for e in E[q, : widths[q]] if e <= x)
    for kernel in both(nd.bin_by_edges):
        out = np.full((n, d), 99, dtype=np.int64)
        kernel(X, cols, E, lengths, nan_bin, np.array([0], dtype=np.intp), out, i0, i1)
        np.testing.assert_array_equal(out, want)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 60), st.integers(1, 7), st.integers(1, 9), st.integers(1, 3), st.integers(0, 99)
)
def test_sorted_sums_against_counts(n, a, nz, group, seed):
    """The sums of the joint histogram of (row, z) and of its coarse cells (// group)
    from sorted cells: against plain counting."""
    from fsel.kernels import _numba_counting as nc

    rng = np.random.default_rng(seed)
    row = rng.integers(0, a, n).astype(np.uint8)
    z = rng.integers(0, nz, n).astype(np.int64)
    table = _nlogn_table(n)
    full = Counter((int(r) * nz + int(v)) for r, v in zip(row, z, strict=True))
    coarse = Counter(
        c // group for c in (int(r) * nz + int(v) for r, v in zip(row, z, strict=True))
    )
    for kernel in both(nc._sorted_sums):
        sf, sc, nt, nct = kernel(row, z, nz, group, table, np.empty(n, np.int64))
        assert sf == pytest.approx(sum(c * math.log2(c) for c in full.values()), abs=1e-9)
        assert sc == pytest.approx(sum(c * math.log2(c) for c in coarse.values()), abs=1e-9)
        assert (nt, nct) == (len(full), len(coarse))


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 50), st.integers(1, 6), st.integers(1, 3), st.integers(0, 99))
def test_pair_cmi_sorted_equals_the_dense_histogram(n, a, ny, seed):
    """The sorted-cells term and the dense-histogram term: the same number, bit for bit
    (both sum in cell order)."""
    from fsel.kernels import _numba_cmim as nm

    rng = np.random.default_rng(seed)
    C = rng.integers(0, a, (2, n)).astype(np.uint8)
    y = rng.integers(0, ny, n).astype(np.uint8)
    levels = np.array([a, a], np.int64)
    table = _nlogn_table(n)
    args = (table, 1.5, 2.5, 2, 3, 1.0 / n, 0.01)
    hist = np.zeros(a * a * ny, np.int64)
    for dense, srt in zip(both(nm.pair_cmi), both(nm.pair_cmi_sorted), strict=True):
        want = dense(C, y, ny, levels, 0, 1, *args, hist)
        buf = (np.empty(n, np.int64), np.empty(n, np.int64))
        assert srt(C, y, ny, a, 0, 1, *args, *buf) == want
