"""The greedy step's count over packed pairs (:mod:`fsel.kernels.pair_step`): the
sums of numpy's counts, bit for bit, for every number of threads, an odd last
feature, codes packed in place or beside the matrix, with and without the target."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel.kernels._counting as counting
import fsel.kernels.pair_step as pair_step
from fsel.kernels.information import InformationTable

pytest.importorskip("numba")


def _numpy_sums(C, z, nz, group, table, monkeypatch):
    with monkeypatch.context() as m:
        m.setenv("FSEL_DISABLE_NUMBA", "1")
        return counting.grouped_nlogn(C, z.astype(np.int64), nz, group, table)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    k=st.integers(2, 9),
    n=st.integers(1, 400),
    a=st.integers(1, 6),
    ny=st.integers(1, 3),
    threads=st.integers(1, 4),
    in_place=st.booleans(),
)
def test_step_count_equals_numpy_counts(seed, k, n, a, ny, threads, in_place):
    rng = np.random.default_rng(seed)
    C = rng.integers(0, a, (k, n)).astype(np.uint8)
    y = rng.integers(0, ny, n).astype(np.uint8)
    table = counting.nlogn_table(n)
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(pair_step, "_MIN_ROWS_PER_THREAD", 1)
        if in_place:
            codes = counting.pack_pairs_in_place(C.copy())
            P, pa = codes.packed, codes.a
        else:
            codes = C
            P, pa = counting.pack_pairs(C)
        step = pair_step.PairStep(codes, P, pa, threads)
        for j in {0, 1, k - 1}:
            aj = int(C[j].max()) + 1
            got = step.count(j, y, ny, aj, ny, table)
            z = C[j].astype(np.int64) * ny + y
            want = _numpy_sums(C, z, aj * ny, ny, table, mp)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w)
            got = step.count(j, None, 1, aj, 1, table)  # against Xj alone
            want = _numpy_sums(C, C[j], aj, 1, table, mp)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w)
    finally:
        mp.undo()


def test_tables_take_the_step_path_and_agree(monkeypatch):
    """A table large enough for the compiled path counts its steps with PairStep; the
    pair terms and I(Xk;Xj) equal those of the general counting path."""
    rng = np.random.default_rng(3)
    n, k = 30_000, 7  # odd: the last feature rides along in the same sweep
    C = rng.integers(0, 5, (k, n)).astype(np.uint8)
    y = (C[0] + rng.integers(0, 2, n)) % 3
    levels = C.max(axis=1).astype(np.int64) + 1
    monkeypatch.setattr(pair_step, "_MIN_ROWS_PER_THREAD", 1000)
    fast = InformationTable(C.copy(), levels, y, n_jobs=3, pack_in_place=True)
    monkeypatch.setattr(InformationTable, "_step_sums", lambda self, j, with_y: None)
    slow = InformationTable(C.copy(), levels, y, n_jobs=1)  # the general counting
    np.testing.assert_array_equal(fast.relevance, slow.relevance)  # the relevance pass
    np.testing.assert_array_equal(fast.feature_entropy, slow.feature_entropy)
    ref_terms = {j: slow.pair_terms(j) for j in (0, 3, 6)}
    ref_mi = {j: slow.pair_mi(j) for j in (0, 3, 6)}
    monkeypatch.undo()
    for j in (0, 3, 6):
        got = fast.pair_terms(j)
        for field in ("mi", "cmi_given_y", "joint_mi", "joint_entropy", "cmi_given_j"):
            np.testing.assert_array_equal(getattr(got, field), getattr(ref_terms[j], field))
        np.testing.assert_array_equal(fast.pair_mi(j), ref_mi[j])
    assert fast._step is not None
