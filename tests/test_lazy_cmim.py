"""Fleuret's lazy CMIM search (:mod:`fsel.kernels.lazy_cmim`) against CMIM computed
in full: the same picks and step scores, bounds above the exact scores, and fewer
terms than the full pass."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fsel
from fsel.kernels.lazy_cmim import batch_size, best_first, lazy_cmim_search

TOL = 1e-10


def _full_cmim(rel, cmi, k):
    """CMIM in full: every candidate's score is the minimum of its relevance and its
    terms against every pick; the lowest index within TOL of the best wins."""
    K = rel.size
    order, steps = [], []
    score = rel.copy()
    for _ in range(min(k, K)):
        free = [c for c in range(K) if c not in order]
        best = max(score[c] for c in free)
        pick = min(c for c in free if score[c] >= best - TOL)
        order.append(pick)
        steps.append(score[pick])
        score = np.minimum(score, cmi[:, pick])
    return order, steps, score


@settings(max_examples=60, deadline=None)
@given(
    K=st.integers(1, 40),
    k=st.integers(1, 12),
    levels=st.integers(1, 6),
    max_batch=st.sampled_from([1, 3, 64]),
    seed=st.integers(0, 10_000),
)
def test_search_equals_cmim_in_full(K, k, levels, max_batch, seed):
    # scores on a coarse grid: many exact ties, which go to the lowest index
    rng = np.random.default_rng(seed)
    rel = rng.integers(0, levels + 1, K) / levels
    cmi = np.minimum(rel[:, None], rng.integers(0, levels + 1, (K, K)) / levels)
    asked = []

    def refresh(top, seen, order, t):
        asked.append(int((t - seen).sum()))
        out = np.full(top.size, np.inf)
        for i, c in enumerate(top.tolist()):
            for s in range(int(seen[i]), t):
                out[i] = min(out[i], cmi[c, order[s]])
        return out

    order, steps, bounds = lazy_cmim_search(rel, k, TOL, refresh, max_batch)
    want_order, want_steps, exact = _full_cmim(rel, cmi, k)
    assert order.tolist() == want_order
    np.testing.assert_array_equal(steps, want_steps)
    assert (bounds >= exact).all()
    # each term at most once: never more than the full pass (after the t-th pick, the
    # K - t candidates left against it), but for the last pick, which nothing follows
    assert sum(asked) <= sum(K - t for t in range(1, min(k, K)))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 300), st.integers(1, 5), st.integers(1, 70), st.integers(0, 10_000))
def test_best_first_is_the_stable_sort(size, levels, b, seed):
    # few distinct scores: ties at the b-th place, on both the sort and partition paths
    rng = np.random.default_rng(seed)
    score = rng.integers(0, levels + 1, size).astype(float)
    cand = np.flatnonzero(rng.random(size) < 0.8)
    want = cand[np.argsort(-score[cand], kind="stable")[:b]]
    assert best_first(cand, score, b).tolist() == want.tolist()


def test_batch_sizes_double_up_to_the_cap():
    assert [batch_size(i) for i in range(9)] == [1, 2, 4, 8, 16, 32, 64, 64, 64]
    assert batch_size(100, 5) == 5


def test_first_refresh_of_a_step_is_the_best_bound_alone():
    # independent candidates whose terms equal their relevance: the best bound, once
    # fresh, prunes every other candidate, so each step asks for one candidate's terms
    rel = np.linspace(1.0, 0.1, 30)
    sizes = []

    def refresh(top, seen, order, t):
        sizes.append(top.size)
        return rel[top]

    order, _, _ = lazy_cmim_search(rel, 6, TOL, refresh)
    assert order.tolist() == [0, 1, 2, 3, 4, 5]
    assert sizes == [1] * 5


@pytest.mark.parametrize("estimator", ["plugin", "miller_madow"])
def test_dense_cmim_against_the_engine_on_codes(estimator, monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.delenv("FSEL_DISABLE_NUMBA", raising=False)
    from fsel.kernels.information import InformationTable

    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, (500, 25))
    X[:, 7] = X[:, 2]  # an exact copy: equal terms tie
    y = (X[:, 2] + X[:, 3] + rng.integers(0, 3, 500)) % 3
    lazy = fsel.CMIM(8, discretize=None, mi_estimator=estimator).fit(X, y)
    monkeypatch.setattr(InformationTable, "lazy_cmim", lambda self, k, tol: None)
    full = fsel.CMIM(8, discretize=None, mi_estimator=estimator).fit(X, y)
    assert lazy.selection_order_.tolist() == full.selection_order_.tolist()
    np.testing.assert_allclose(lazy.selection_scores_, full.selection_scores_, rtol=0, atol=1e-12)
    rest = ~lazy.support_
    assert (lazy.scores_[rest] >= full.scores_[rest] - 1e-12).all()


def test_terms_split_by_rows_equal_terms_by_candidates(monkeypatch):
    # each term's rows split among threads, histograms added: the same numbers, bit
    # for bit, as one thread counting every row (redundant features: terms below the
    # relevance, so the bounds left on unselected features are the terms themselves)
    pytest.importorskip("numba")
    monkeypatch.delenv("FSEL_DISABLE_NUMBA", raising=False)
    import fsel.kernels.lazy_cmim as lazy_cmim

    rng = np.random.default_rng(5)
    base = rng.integers(0, 4, (2000, 4))
    noisy = np.where(
        rng.random((2000, 8)) < 0.3, rng.integers(0, 4, (2000, 8)), base[:, [0, 1] * 4]
    )
    X = np.hstack([base, noisy])
    y = (base[:, 0] + base[:, 1] + rng.integers(0, 2, 2000)) % 3
    one = fsel.CMIM(6, discretize=None, n_jobs=1).fit(X, y)
    monkeypatch.setattr(lazy_cmim, "ROWS_PER_THREAD", 1)
    split = fsel.CMIM(6, discretize=None, n_jobs=3).fit(X, y)
    assert split.selection_order_.tolist() == one.selection_order_.tolist()
    np.testing.assert_array_equal(split.selection_scores_, one.selection_scores_)
    np.testing.assert_array_equal(split.scores_, one.scores_)
    rest = ~one.support_
    assert (one.scores_[rest] < one.relevance_[rest] - 1e-3).any()


def test_terms_too_large_to_hold_are_counted_from_sorted_cells(monkeypatch):
    # 1,500 levels a column on 2,000 rows: a term's histogram would hold 4.5M cells;
    # from the rows' sorted cells it costs O(N) memory, with the engine's picks, and
    # the same numbers whether the threads split rows or candidates
    pytest.importorskip("numba")
    monkeypatch.delenv("FSEL_DISABLE_NUMBA", raising=False)
    import fsel.kernels.lazy_cmim as lazy_cmim
    from fsel.kernels.information import InformationTable

    rng = np.random.default_rng(2)
    X = rng.integers(0, 1500, (2000, 12))
    X[:, 5] = X[:, 1]  # a copy: a term of 0 for it once 1 is picked
    y = (X[:, 1] % 3 + rng.integers(0, 2, 2000)) % 3
    import tracemalloc

    fsel.CMIM(5, discretize=None).fit(X, y)  # warm-up: compiled kernels loaded
    tracemalloc.start()
    lazy = fsel.CMIM(5, discretize=None).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8e6, peak  # a held histogram: 1,500**2 x 3 x 8 B = 54 MB
    monkeypatch.setattr(lazy_cmim, "ROWS_PER_THREAD", 1)
    split = fsel.CMIM(5, discretize=None, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(split.scores_, lazy.scores_)
    monkeypatch.setattr(InformationTable, "lazy_cmim", lambda self, k, tol: None)
    full = fsel.CMIM(5, discretize=None).fit(X, y)
    assert lazy.selection_order_.tolist() == full.selection_order_.tolist()
    np.testing.assert_allclose(lazy.selection_scores_, full.selection_scores_, atol=1e-12)
