"""Stability measures against hand-computed values, brute force and identities."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from fsel.meta.stability import (
    information_consistency,
    kuncheva_index,
    mean_information_consistency,
    mean_pairwise_kuncheva,
    nogueira_stability,
    stability_report,
    subsets_to_matrix,
)


# ------------------------------------------------------------- independent references
def _kuncheva_loop(a, b, K):
    k = len(a)
    r = len(set(a) & set(b))
    return (r * K - k * k) / (k * (K - k))


def _nogueira_loop(Z):
    """Plain-loop transcription of Nogueira et al. (2018), Definition 4 and Thm. 8."""
    M = len(Z)
    d = len(Z[0])
    p = [sum(Z[i][f] for i in range(M)) / M for f in range(d)]
    kbar = sum(p)
    denom = (kbar / d) * (1 - kbar / d)
    s2 = [M / (M - 1) * p[f] * (1 - p[f]) for f in range(d)]
    stab = 1 - (sum(s2) / d) / denom
    phis = []
    for i in range(M):
        ki = sum(Z[i])
        term = sum(Z[i][f] * p[f] for f in range(d)) / d
        phi = (
            term - ki * kbar / d**2 + stab / 2 * (2 * ki * kbar / d**2 - ki / d - kbar / d + 1)
        ) / denom
        phis.append(phi)
    mean_phi = sum(phis) / M
    var = 4 / M**2 * sum((x - mean_phi) ** 2 for x in phis)
    return stab, var


def _entropy(col):
    _, c = np.unique(col, return_counts=True)
    p = c / c.sum()
    return float(-(p * np.log2(p)).sum())


def _mi(a, b):
    return _entropy(a) + _entropy(b) - _entropy(a * 1000 + b)


def _info_consistency_brute(A, B, C):
    """Best matching by trying every injection of the smaller set into the larger."""
    W = np.zeros((len(A), len(B)))
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            den = _entropy(C[:, a]) + _entropy(C[:, b])
            W[i, j] = _mi(C[:, a], C[:, b]) / den if den > 0 else 0.0
    if len(A) <= len(B):
        return max(
            sum(W[i, p[i]] for i in range(len(A)))
            for p in itertools.permutations(range(len(B)), len(A))
        )
    return max(
        sum(W[p[j], j] for j in range(len(B)))
        for p in itertools.permutations(range(len(A)), len(B))
    )


# ------------------------------------------------------------- Kuncheva
def test_kuncheva_hand_values():
    # K=10, k=3, r=2: (2*10 - 9) / (3*7) = 11/21
    assert kuncheva_index([0, 1, 2], [1, 2, 5], 10) == pytest.approx(11 / 21)
    assert kuncheva_index([0, 1, 2], [0, 1, 2], 10) == 1.0
    # boolean masks give the same
    a = np.zeros(10, bool)
    a[[0, 1, 2]] = True
    b = np.zeros(10, bool)
    b[[1, 2, 5]] = True
    assert kuncheva_index(a, b, 10) == pytest.approx(11 / 21)


def test_kuncheva_errors():
    with pytest.raises(ValueError, match="equal size"):
        kuncheva_index([0], [0, 1], 5)
    with pytest.raises(ValueError, match="undefined"):
        kuncheva_index([0, 1], [0, 1], 2)
    with pytest.raises(ValueError, match="out of range"):
        kuncheva_index([0, 9], [0, 1], 5)
    with pytest.raises(ValueError, match="equal size"):
        mean_pairwise_kuncheva([[0], [0, 1]], 5)
    with pytest.raises(ValueError, match="at least two"):
        mean_pairwise_kuncheva([[0]], 5)


@settings(max_examples=40, deadline=None)
@given(
    K=st.integers(3, 12),
    data=st.data(),
)
def test_mean_pairwise_kuncheva_matches_loop(K, data):
    k = data.draw(st.integers(1, K - 1))
    M = data.draw(st.integers(2, 6))
    subsets = [
        sorted(data.draw(st.lists(st.integers(0, K - 1), min_size=k, max_size=k, unique=True)))
        for _ in range(M)
    ]
    ref = np.mean([_kuncheva_loop(a, b, K) for a, b in itertools.combinations(subsets, 2)])
    assert mean_pairwise_kuncheva(subsets, K) == pytest.approx(ref, abs=1e-12)
    # bounded and symmetric
    for a, b in itertools.combinations(subsets, 2):
        v = kuncheva_index(a, b, K)
        assert -1 - 1e-12 <= v <= 1 + 1e-12
        assert v == pytest.approx(kuncheva_index(b, a, K))


# ------------------------------------------------------------- Nogueira
def test_nogueira_hand_value():
    # M=2, d=4: {0,1} and {0,2}: p = (1, .5, .5, 0), kbar = 2, denom = 1/4,
    # mean s^2 = 2 * (0 + .25 + .25 + 0) / 4 = 0.25 -> 1 - 0.25/0.25 = 0
    assert nogueira_stability([[0, 1], [0, 2]], 4).stability == pytest.approx(0.0)
    # identical subsets -> 1 and zero variance
    r = nogueira_stability([[0, 1], [0, 1], [0, 1]], 4)
    assert r.stability == pytest.approx(1.0)
    assert r.variance == pytest.approx(0.0)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_nogueira_matches_loop_any_sizes(data):
    M = data.draw(st.integers(2, 7))
    d = data.draw(st.integers(2, 9))
    Z = np.array(
        data.draw(st.lists(st.lists(st.booleans(), min_size=d, max_size=d), min_size=M, max_size=M))
    )
    kbar = Z.sum(axis=1).mean()
    if kbar == 0 or kbar == d:
        with pytest.raises(ValueError, match="undefined"):
            nogueira_stability(Z)
        return
    stab, var = _nogueira_loop(Z.astype(int).tolist())
    r = nogueira_stability(Z, alpha=0.1)
    assert r.stability == pytest.approx(stab, abs=1e-10)
    assert r.variance == pytest.approx(var, abs=1e-10)
    half = norm.ppf(0.95) * math.sqrt(var)
    assert r.lower == pytest.approx(stab - half, abs=1e-9)
    assert r.upper == pytest.approx(stab + half, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_nogueira_equals_mean_kuncheva_for_equal_sizes(data):
    K = data.draw(st.integers(3, 12))
    k = data.draw(st.integers(1, K - 1))
    M = data.draw(st.integers(2, 6))
    subsets = [
        data.draw(st.lists(st.integers(0, K - 1), min_size=k, max_size=k, unique=True))
        for _ in range(M)
    ]
    assert nogueira_stability(subsets, K).stability == pytest.approx(
        mean_pairwise_kuncheva(subsets, K), abs=1e-10
    )


def test_nogueira_matrix_and_list_agree():
    Z = np.array([[1, 0, 1, 0], [0, 1, 1, 0], [1, 1, 1, 0]], dtype=bool)
    a = nogueira_stability(Z)
    b = nogueira_stability([[0, 2], [1, 2], [0, 1, 2]], 4)
    assert a == b
    with pytest.raises(ValueError, match="alpha"):
        nogueira_stability(Z, alpha=1.5)


# ------------------------------------------------------------- Yu, Ding & Loscalzo
def test_information_consistency_hand_values():
    C = np.array([[0, 0, 1], [0, 0, 0], [1, 1, 1], [1, 1, 0]])
    assert information_consistency([0], [1], C) == pytest.approx(0.5)  # copies
    assert information_consistency([0], [2], C) == pytest.approx(0.0)  # independent
    # identical subsets of k non-constant features -> k / 2
    assert information_consistency([0, 2], [0, 2], C) == pytest.approx(1.0)
    # the matching pairs 0 with 1 (weight 1/2) and 2 with 2 (1/2)
    assert information_consistency([0, 2], [2, 1], C) == pytest.approx(1.0)
    assert information_consistency([], [1], C) == 0.0


def test_information_consistency_matches_brute_force():
    rng = np.random.default_rng(0)
    base = rng.integers(0, 3, size=(60, 3))
    noisy = (base + (rng.random((60, 3)) < 0.3)) % 3
    C = np.hstack([base, noisy, rng.integers(0, 2, size=(60, 2))])
    for A, B in [([0, 1, 2], [3, 4, 5]), ([0, 6], [3, 4, 7]), ([1, 2, 7, 6], [5, 0])]:
        assert information_consistency(A, B, C) == pytest.approx(
            _info_consistency_brute(A, B, C), abs=1e-10
        )
    m = mean_information_consistency([[0, 1], [3, 4], [0, 4]], C)
    ref = np.mean(
        [
            _info_consistency_brute(a, b, C)
            for a, b in itertools.combinations([[0, 1], [3, 4], [0, 4]], 2)
        ]
    )
    assert m == pytest.approx(ref)


def test_information_consistency_errors():
    with pytest.raises(ValueError, match="2-D"):
        information_consistency([0], [0], np.arange(4))
    with pytest.raises(ValueError, match="at least two"):
        mean_information_consistency([[0]], np.zeros((3, 2)))


# ------------------------------------------------------------- report and helpers
def test_report_and_matrix_helper():
    rep = stability_report([[0, 1], [0, 2], [0, 1]], 4)
    assert rep.kuncheva == pytest.approx(1 / 3)
    assert rep.nogueira.stability == pytest.approx(1 / 3)
    assert rep.n_subsets == 3 and rep.mean_size == 2.0
    assert "Kuncheva" in str(rep)
    rep2 = stability_report([[0], [0, 1]], 3)
    assert math.isnan(rep2.kuncheva) and rep2.nogueira is not None
    rep3 = stability_report(np.ones((3, 4), dtype=bool))
    assert rep3.nogueira is None and "undefined" in str(rep3)
    with pytest.raises(ValueError, match="n_features"):
        subsets_to_matrix([[0]])
    with pytest.raises(ValueError, match="0/1"):
        subsets_to_matrix(np.array([[0, 2]]))


def test_inputs_not_modified():
    Z = np.array([[1, 0, 1], [0, 1, 1]], dtype=bool)
    Z0 = Z.copy()
    nogueira_stability(Z)
    mean_pairwise_kuncheva(Z)
    np.testing.assert_array_equal(Z, Z0)
