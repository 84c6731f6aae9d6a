"""The ranking-index kernel against plain-loop references, identities and properties."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fsel.kernels import ranking_indices as ri
from fsel.kernels import ranking_tables
from fsel.kernels.ranking_indices import (
    INDEX_NAMES,
    INDICES,
    chi2_index,
    difference_index,
    get_index,
    ks_indices,
    mi_index,
    ranking_scores,
    ranking_scores_batch,
    resolve_slices,
)

# ----------------------------------------------------------- plain-loop references

COEF = {
    "In": ([-1.0, 1.0], None),
    "In3": ([0.194, 0.281, 0.383, -0.858], 1.0),
    "In5": ([0.906, -0.26, -0.217, -0.177, -0.142, -0.11], 1.0),
}


def ref_midranks(v):
    """1-based average ranks, by counting."""
    n = len(v)
    out = []
    for i in range(n):
        less = sum(1 for j in range(n) if v[j] < v[i])
        equal = sum(1 for j in range(n) if v[j] == v[i])
        out.append(less + (equal + 1) / 2)
    return out


def ref_slice_shares(v, n_slices):
    """Slices of every value as {slice: share}, the module's rule by counting.

    One slice per distinct value when there are few; otherwise the midpoint coordinate
    u = (r - 1/2) H / n of the value's 1-based mid rank r (exact, as a fraction): slice
    floor(u), or halves of slices u - 1 and u when u is a whole number.
    """
    distinct = sorted(set(v))
    if len(distinct) <= n_slices:
        return [{distinct.index(a): 1.0} for a in v]
    n = len(v)
    out = []
    for r in ref_midranks(v):
        u = Fraction(round(2 * r) - 1, 2 * n) * n_slices
        if u.denominator == 1:
            out.append({int(u) - 1: 0.5, int(u): 0.5})
        else:
            out.append({math.floor(u): 1.0})
    return out


def ref_slices(v, n_slices):
    """One slice per value: the lower slice of a shared value (the K-S indices' rule)."""
    return [min(shares) for shares in ref_slice_shares(v, n_slices)]


def ref_difference(x, y, name):
    coef, scale = COEF[name]
    n, m = len(x), len(coef) - 1
    order = sorted(range(n), key=lambda i: (x[i], i))  # stable: ties keep row order
    ys = [y[i] for i in order]
    total = 0.0
    for i in range(n - m):
        term = 0.0
        for j in range(m + 1):
            term += coef[j] * ys[i + j]
        total += term * term
    return total / (2 * n) if scale is None else total


def ref_ks(x, y, n_slices):
    n = len(x)
    xs = [(r - 0.5) / n for r in ref_midranks(x)]
    sl = ref_slices(y, n_slices)
    maxes, means = [], []
    for h in sorted(set(sl)):
        members = [i for i in range(n) if sl[i] == h]
        inner = ref_midranks([x[i] for i in members])
        devs = [abs((inner[j] - 0.5) / len(members) - xs[i]) for j, i in enumerate(members)]
        maxes.append(max(devs))
        means.append(sum(devs) / len(devs))
    return sum(maxes) / len(maxes), max(maxes), sum(means) / len(means)


def ref_table(x, y, S, T):
    n = len(x)
    sx, sy = ref_slice_shares(x, S), ref_slice_shares(y, T)
    counts = [[0.0] * T for _ in range(S)]
    for shares_x, shares_y in zip(sx, sy, strict=True):
        for a, wa in shares_x.items():
            for b, wb in shares_y.items():
                counts[a][b] += wa * wb
    rows = [sum(r) for r in counts]
    cols = [sum(counts[s][t] for s in range(S)) for t in range(T)]
    chi = mi = 0.0
    for s in range(S):
        for t in range(T):
            e = rows[s] * cols[t] / n
            if e > 0:
                chi += (counts[s][t] - e) ** 2 / e
            if counts[s][t] > 0:
                mi += counts[s][t] / n * math.log2(counts[s][t] * n / (rows[s] * cols[t]))
    return chi, mi


def reference(X, y, name, n_slices=4, S=3, T=3):
    out = []
    for j in range(X.shape[1]):
        x, yy = X[:, j].tolist(), (y if y.ndim == 1 else y[:, j]).tolist()
        if name in COEF:
            out.append(ref_difference(x, yy, name))
        elif name in ("K1", "K2", "K3"):
            out.append(ref_ks(x, yy, n_slices)[int(name[1]) - 1])
        else:
            out.append(ref_table(x, yy, S, T)[0 if name == "chi2" else 1])
    return np.array(out)


def _data(seed, n, d, ties):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X[:, 0] + X[:, 1] ** 2 + 0.5 * rng.standard_normal(n)
    if ties:
        X = np.round(X * 1.5)
        y = np.round(y)
    return X, y


# ------------------------------------------------------------- agreement with loops


@pytest.mark.parametrize("name", INDEX_NAMES)
@pytest.mark.parametrize(("n", "ties"), [(7, False), (13, True), (40, False), (41, True)])
def test_index_matches_loop_reference(name, n, ties):
    X, y = _data(n, n, 5, ties)
    got = ranking_scores(X, y, name, n_slices=4, n_bins_x=3, n_bins_y=3)[name]
    np.testing.assert_allclose(got, reference(X, y, name), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", INDEX_NAMES)
def test_class_target_and_discrete_columns_match_reference(name):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 30).astype(float)
    X = np.column_stack([y + rng.integers(0, 2, 30), rng.integers(0, 2, 30), rng.random(30)])
    got = ranking_scores(X, y, name, n_slices=4, n_bins_x=3, n_bins_y=3)[name]
    np.testing.assert_allclose(got, reference(X, y, name), rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    X=arrays(np.float64, (12, 3), elements=st.integers(-3, 3).map(float)),
    y=arrays(np.float64, 12, elements=st.integers(-2, 2).map(float)),
    name=st.sampled_from(INDEX_NAMES),
    h=st.integers(2, 5),
)
def test_hypothesis_heavy_ties_match_reference(X, y, name, h):
    if np.ptp(y) == 0:
        with pytest.raises(ValueError, match="y is constant"):
            ranking_scores(X, y, name, n_slices=h, n_bins_x=h, n_bins_y=2)
        return
    got = ranking_scores(X, y, name, n_slices=h, n_bins_x=h, n_bins_y=2)[name]
    np.testing.assert_allclose(got, reference(X, y, name, h, h, 2), rtol=1e-12, atol=1e-12)


def test_blocks_of_columns_give_the_same_scores(monkeypatch):
    X, y = _data(5, 50, 40, True)
    whole = ranking_scores(X, y, n_slices=4, n_bins_x=3, n_bins_y=3)
    monkeypatch.setattr(ranking_tables, "_BLOCK_ELEMENTS", 150)  # 3 columns per block
    blocked = ranking_scores(X, y, n_slices=4, n_bins_x=3, n_bins_y=3)
    for name in INDEX_NAMES:
        np.testing.assert_array_equal(whole[name], blocked[name])


# ------------------------------------------------------------- exact small cases


def test_difference_indices_on_a_line_are_exact():
    # y = 2 x on equally spaced x: every window of a sequence d gives 2 * sum_j j d_j
    x = np.arange(10.0)
    got = ranking_scores(x[:, None], 2 * x, ["In", "In3", "In5"])
    assert got["In"][0] == pytest.approx(9 * 4 / 20)
    d3 = 2 * (0.281 + 2 * 0.383 - 3 * 0.858)
    assert got["In3"][0] == pytest.approx(7 * d3**2)
    d5 = 2 * (-0.26 - 2 * 0.217 - 3 * 0.177 - 4 * 0.142 - 5 * 0.11)
    assert got["In5"][0] == pytest.approx(5 * d5**2)


def test_difference_sequences_are_normalised():
    for name in ("In3", "In5"):
        c = ri.DIFFERENCE_COEFFICIENTS[name][0]
        assert abs(c.sum()) < 1e-12
        assert c @ c == pytest.approx(1.0, abs=2e-3)


def test_ties_in_x_keep_row_order_for_difference_indices():
    # one tie group: concomitants in row order 0, 5, 1 -> diffs 5, -4
    X = np.zeros((3, 1))
    assert difference_index(X, np.array([0.0, 5.0, 1.0]))[0] == pytest.approx((25 + 16) / 6)


def test_ks_and_table_by_hand():
    x = np.arange(8.0)
    # identical x and y, 2 slices: inside a slice ranks .125 .375 .625 .875 vs global
    k = ks_indices(x[:, None], x, n_slices=2)
    assert k["K2"][0] == pytest.approx(0.4375)
    assert k["K3"][0] == pytest.approx(0.25)
    assert chi2_index(x[:, None], x, 2, 2)[0] == pytest.approx(8.0)
    assert mi_index(x[:, None], x, 4, 4)[0] == pytest.approx(2.0)


def test_chi2_equals_spec_formula_for_equal_count_slices():
    rng = np.random.default_rng(1)
    n, S, T = 60, 3, 4
    X = rng.standard_normal((n, 6))
    y = X[:, 0] + rng.standard_normal(n)
    got = chi2_index(X, y, S, T)
    sx = np.argsort(np.argsort(X, axis=0), axis=0) * S // n
    sy = np.argsort(np.argsort(y)) * T // n
    e = n / (S * T)
    for j in range(6):
        counts = np.zeros((S, T))
        np.add.at(counts, (sx[:, j], sy), 1)
        assert got[j] == pytest.approx(((counts - e) ** 2 / e).sum())


# ------------------------------------------------------------- statistical behaviour


def test_ks_small_for_independence_and_large_for_monotone():
    rng = np.random.default_rng(0)
    n = 5000
    x_ind, y = rng.standard_normal(n), rng.standard_normal(n)
    X = np.column_stack([x_ind, np.exp(y)])
    k = ks_indices(X, y, n_slices=10)
    assert k["K3"][0] < 0.02 and k["K1"][0] < 0.07
    assert k["K3"][1] > 0.2 and k["K1"][1] > 0.4
    for name in ("K1", "K2", "K3"):
        assert k[name][1] > 5 * k[name][0]


def test_in_of_noiseless_smooth_function_is_near_zero():
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, 2000)
    noise = rng.standard_normal(2000)
    X = np.column_stack([x, noise])
    y = np.sin(x)
    s = ranking_scores(X, y, ["In", "In3", "In5"])
    assert s["In"][0] < 1e-4 * np.var(y)
    assert s["In3"][0] / 2000 < 1e-3 * np.var(y)
    assert s["In5"][0] / 2000 < 1e-3 * np.var(y)
    # against an unrelated column, In estimates Var(y): E(y1 - y2)^2 / 2 = Var(y)
    assert s["In"][1] == pytest.approx(np.var(y), rel=0.1)


@pytest.mark.parametrize("transform", [np.exp, lambda v: v**3 + v, np.arctan])
def test_rank_indices_invariant_to_increasing_transforms(transform):
    X, y = _data(2, 60, 4, ties=False)
    a = ranking_scores(X, y, ["K1", "K2", "K3", "chi2", "mi"])
    b = ranking_scores(transform(X), y, ["K1", "K2", "K3", "chi2", "mi"])
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-12, atol=1e-12)


def test_ks_invariant_to_decreasing_transforms_with_ties():
    X, y = _data(4, 50, 4, ties=True)
    a = ks_indices(X, y, n_slices=5)
    b = ks_indices(-(X**3), y, n_slices=5)
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-12, atol=1e-12)


INCREASING = {
    "cube": lambda v: v**3 + v,
    "exp": lambda v: np.exp(v / 10),
    "arctan": lambda v: np.arctan(v / 10),
}
DECREASING = {
    "negate": lambda v: -v,
    "neg_cube": lambda v: -(v**3) - 2 * v,
    "exp_neg": lambda v: np.exp(-v / 10),
    "reciprocal": lambda v: 1 / (v + 100),
}
RANK_INDICES = ["K1", "K2", "K3", "chi2", "mi"]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(5, 90),
    ties=st.booleans(),
    h=st.integers(2, 10),  # one slice or bin compares nothing: refused
    s_x=st.integers(2, 10),
    t_y=st.integers(2, 10),
    transform=st.sampled_from(sorted(INCREASING) + sorted(DECREASING)),
)
def test_rank_indices_invariant_to_monotone_transforms_of_x(seed, n, ties, h, s_x, t_y, transform):
    # any n (multiple of the slice counts or not), ties or not, increasing or decreasing
    rng = np.random.default_rng(seed)
    if ties:
        X = rng.integers(-4, 5, (n, 3)).astype(float)
    else:  # distinct values 1/7 apart: every transform keeps them strictly ordered
        X = np.column_stack([rng.permutation(np.arange(n) - n // 2) / 7 for _ in range(3)])
    y = np.round(X[:, 0] + rng.standard_normal(n), 0 if ties else 3)
    if np.ptp(y) == 0:
        y[0] += 1.0
    f = {**INCREASING, **DECREASING}[transform]
    params = {"n_slices": h, "n_bins_x": s_x, "n_bins_y": t_y}
    base = ranking_scores(X, y, RANK_INDICES, **params)
    moved = ranking_scores(f(X), y, RANK_INDICES, **params)
    for name in RANK_INDICES:
        np.testing.assert_allclose(moved[name], base[name], rtol=1e-12, atol=1e-12)
    # the table is symmetric in x and y: chi2 and mi also ignore a decreasing map of y
    flipped = ranking_scores(X, -y, ["chi2", "mi"], **params)
    for name in ("chi2", "mi"):
        np.testing.assert_allclose(flipped[name], base[name], rtol=1e-12, atol=1e-12)


def test_decreasing_transform_with_n_not_a_multiple_of_the_slices():
    # the audit's case: n = 61, 6 x slices; the old floor(p S / n) rule gave 4.46 apart
    rng = np.random.default_rng(0)
    X = rng.standard_normal((61, 8))
    y = X[:, 0] + X[:, 1] ** 2 + rng.standard_normal(61)
    for S in (2, 4, 6):
        a = ranking_scores(X, y, ["chi2", "mi"], n_bins_x=S, n_bins_y=S)
        b = ranking_scores(-np.exp(X), y, ["chi2", "mi"], n_bins_x=S, n_bins_y=S)
        for name in a:
            np.testing.assert_allclose(a[name], b[name], rtol=1e-12, atol=1e-12)


def test_item_on_a_slice_boundary_is_shared_by_hand():
    # n = 5, two slices: the median's midpoint coordinate (2 + 1/2) * 2 / 5 = 1 is the
    # boundary; the table counts it a quarter in each cell, K-S puts it in slice 0
    x = np.arange(5.0)
    n = 5
    counts = np.array([[2.25, 0.25], [0.25, 2.25]])  # margins 2.5, expected 1.25
    assert chi2_index(x[:, None], x, 2, 2)[0] == pytest.approx(4 * 1.0**2 / 1.25)
    p = counts / n
    mi = sum(p[s, t] * math.log2(p[s, t] / 0.25) for s in range(2) for t in range(2))
    assert mi_index(x[:, None], x, 2, 2)[0] == pytest.approx(mi)
    # y slices {0, 1, 2} and {3, 4}; x' = .1 .3 .5 .7 .9
    # slice 0: inner 1/6, 1/2, 5/6 -> |dev| 1/15, 1/5, 1/3; slice 1: .25, .75 -> .45, .15
    k = ks_indices(x[:, None], x, n_slices=2)
    assert k["K1"][0] == pytest.approx((1 / 3 + 0.45) / 2)
    assert k["K2"][0] == pytest.approx(0.45)
    assert k["K3"][0] == pytest.approx(((1 / 15 + 1 / 5 + 1 / 3) / 3 + 0.3) / 2)
    # a tie group centred on the boundary is shared as a whole: x = 0 1 1 2, y = x
    xt = np.array([0.0, 1.0, 1.0, 2.0])
    # x, y slices: {0} + half of {1, 1} | half of {1, 1} + {2}: cells 1.5 .5 / .5 1.5
    assert chi2_index(xt[:, None], xt, 2, 2)[0] == pytest.approx(4 * 0.5**2 / 1.0)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(8, 40), ties=st.booleans())
def test_properties_ranges_and_row_permutation(seed, n, ties):
    X, y = _data(seed, n, 3, ties)
    s = ranking_scores(X, y, n_slices=3, n_bins_x=3, n_bins_y=4)
    for name in ("K1", "K2", "K3"):
        assert np.all((s[name] >= 0) & (s[name] < 1))
    assert np.all(s["K2"] >= s["K1"] - 1e-15) and np.all(s["K1"] >= s["K3"] - 1e-15)
    assert np.all(s["chi2"] >= -1e-9) and np.all(s["mi"] >= 0)
    assert np.all(s["mi"] <= np.log2(3) + 1e-12)
    for name in ("In", "In3", "In5"):
        assert np.all(s[name] >= 0)
    # the rank indices do not depend on the row order
    perm = np.random.default_rng(seed).permutation(n)
    p = ranking_scores(
        X[perm], y[perm], ["K1", "K2", "K3", "chi2", "mi"], n_slices=3, n_bins_x=3, n_bins_y=4
    )
    for name in p:
        np.testing.assert_allclose(p[name], s[name], rtol=1e-12, atol=1e-12)
    # permuting the columns permutes the scores
    cols = np.array([2, 0, 1])
    c = ranking_scores(X[:, cols], y, n_slices=3, n_bins_x=3, n_bins_y=4)
    for name in INDEX_NAMES:
        np.testing.assert_array_equal(c[name], s[name][cols])


# ------------------------------------------------------------- batches and 2-D targets


def test_two_dimensional_target_and_batches_equal_separate_calls():
    rng = np.random.default_rng(9)
    Xb = np.round(rng.standard_normal((4, 30, 3)), 1)
    yb = Xb[:, :, 0] + np.round(rng.standard_normal((4, 30)), 1)
    batch = ranking_scores_batch(Xb, yb, n_slices=3, n_bins_x=3, n_bins_y=3)
    for b in range(4):
        one = ranking_scores(Xb[b], yb[b], n_slices=3, n_bins_x=3, n_bins_y=3)
        for name in INDEX_NAMES:
            np.testing.assert_array_equal(batch[name][b], one[name])
    X2 = Xb[0]
    Y2 = np.column_stack([yb[0], yb[1], yb[2]])
    two_d = ranking_scores(X2, Y2, n_slices=3, n_bins_x=3, n_bins_y=3)
    for j in range(3):
        one = ranking_scores(X2[:, [j]], Y2[:, j], n_slices=3, n_bins_x=3, n_bins_y=3)
        for name in INDEX_NAMES:
            np.testing.assert_array_equal(two_d[name][j], one[name][0])


@pytest.mark.parametrize(("n", "slices"), [(31, 2), (31, 4), (45, 6), (23, 10)])
def test_shared_boundary_items_in_batches_and_blocks_match_reference(n, slices, monkeypatch):
    # n odd, slice counts even: medians (and tie groups) centred on a boundary, in x and
    # in y, with one target per column and with column blocks
    rng = np.random.default_rng(n * slices)
    Xb = np.round(rng.standard_normal((3, n, 4)), 1)
    yb = Xb[:, :, 0] + np.round(rng.standard_normal((3, n)), 1)
    params = {"n_slices": slices, "n_bins_x": slices, "n_bins_y": slices}
    batch = ranking_scores_batch(Xb, yb, RANK_INDICES, **params)
    monkeypatch.setattr(ranking_tables, "_BLOCK_ELEMENTS", 2 * n)  # two columns per block
    blocked = ranking_scores_batch(Xb, yb, RANK_INDICES, **params)
    for name in RANK_INDICES:
        for b in range(3):
            ref = reference(Xb[b], yb[b], name, slices, slices, slices)
            np.testing.assert_allclose(batch[name][b], ref, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(blocked[name], batch[name])


def test_inputs_are_not_modified():
    X, y = _data(0, 30, 4, ties=True)
    X0, y0 = X.copy(), y.copy()
    ranking_scores(X, y)
    ranking_scores_batch(X[None], y[None])
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


# ------------------------------------------------------------- registry and errors


def test_registry_directions():
    assert set(INDICES) == set(INDEX_NAMES)
    lower = {n for n, spec in INDICES.items() if not spec.higher_is_better}
    assert lower == {"In", "In3", "In5"}
    X, y = _data(0, 30, 3, ties=False)
    np.testing.assert_array_equal(get_index("K3").func(X, y), ranking_scores(X, y, "K3")["K3"])


def test_resolve_slices_rules():
    assert resolve_slices("auto", 200, kind="ks") == 10
    assert resolve_slices("auto", 30, kind="ks") == 2
    assert resolve_slices("auto", 10_000, kind="ks") == 10
    assert resolve_slices("auto", 200, kind="table") == 6
    assert resolve_slices("auto", 10, kind="table") == 2


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"indices": "K4"}, ValueError, "index must be one of"),
        ({"n_slices": 0}, ValueError, "at least 2"),
        ({"n_slices": 1}, ValueError, "at least 2"),
        ({"n_bins_x": 1}, ValueError, "at least 2"),
        ({"n_bins_y": 1}, ValueError, "at least 2"),
        ({"n_slices": "many"}, ValueError, "'auto'"),
        ({"n_bins_x": 2.5}, TypeError, "int"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    X, y = _data(0, 20, 2, ties=False)
    with pytest.raises(error, match=match):
        ranking_scores(X, y, **kwargs)


def test_bad_data():
    X, y = _data(0, 20, 2, ties=False)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ranking_scores(Xn, y)
    with pytest.raises(ValueError, match="NaN"):
        ranking_scores(X, np.full(20, np.inf))
    with pytest.raises(ValueError, match="samples"):
        ranking_scores(X, y[:5])
    with pytest.raises(ValueError, match="In5 needs at least 6"):
        ranking_scores(X[:4], y[:4], "In5")
    with pytest.raises(ValueError, match="2-D"):
        ranking_scores(X[:, 0], y)
    with pytest.raises(ValueError, match="n_sets"):
        ranking_scores_batch(X, y)


def test_constant_target_raises_in_every_kernel_function():
    X, _ = _data(0, 20, 2, ties=False)
    const = np.full(20, 3.5)
    calls = [
        lambda: ranking_scores(X, const),
        lambda: difference_index(X, const, "In3"),
        lambda: ks_indices(X, const),
        lambda: chi2_index(X, const),
        lambda: mi_index(X, const),
        lambda: get_index("K1").func(X, const),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="y is constant"):
            call()
    # one target per column: the constant one is named
    Y = np.column_stack([np.arange(20.0), const])
    with pytest.raises(ValueError, match=r"y is constant \(column 1\)"):
        ranking_scores(X, Y)


def test_batch_with_a_constant_set_raises_or_scores_zero():
    rng = np.random.default_rng(2)
    Xb = rng.standard_normal((3, 20, 4))
    yb = Xb[:, :, 0] + rng.standard_normal((3, 20))
    yb[1] = 7.0
    with pytest.raises(ValueError, match=r"y is constant \(set 1\)"):
        ranking_scores_batch(Xb, yb)
    with pytest.raises(ValueError, match="constant_target"):
        ranking_scores_batch(Xb, yb, constant_target="skip")
    got = ranking_scores_batch(Xb, yb, constant_target="zero", n_slices=3)
    for name in INDEX_NAMES:
        np.testing.assert_array_equal(got[name][1], np.zeros(4))
        for b in (0, 2):
            one = ranking_scores(Xb[b], yb[b], name, n_slices=3)[name]
            np.testing.assert_array_equal(got[name][b], one)


@settings(max_examples=25, deadline=None)
@given(
    X=arrays(np.float64, (15, 2), elements=st.integers(-2, 2).map(float)),
    y=arrays(np.float64, 15, elements=st.integers(-3, 3).map(float)),
)
def test_all_indices_at_once_equal_one_at_a_time(X, y):
    if np.ptp(y) == 0:
        with pytest.raises(ValueError, match="y is constant"):
            ranking_scores(X, y, n_slices=3, n_bins_x=3, n_bins_y=3)
        return
    together = ranking_scores(X, y, n_slices=3, n_bins_x=3, n_bins_y=3)
    for name in INDEX_NAMES:
        alone = ranking_scores(X, y, name, n_slices=3, n_bins_x=3, n_bins_y=3)[name]
        np.testing.assert_array_equal(together[name], alone)
        np.testing.assert_allclose(alone, reference(X, y, name, 3, 3, 3), atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    scale=st.floats(0.1, 10),
    shift=st.floats(-100, 100),
    ties=st.booleans(),
)
def test_target_transforms(seed, scale, shift, ties):
    X, y = _data(seed, 25, 3, ties)
    base = ranking_scores(X, y, n_slices=4, n_bins_x=3, n_bins_y=3)
    lin = ranking_scores(X, scale * y + shift, n_slices=4, n_bins_x=3, n_bins_y=3)
    mono = ranking_scores(X, np.exp(y / 4), n_slices=4, n_bins_x=3, n_bins_y=3)
    for name in ("In", "In3", "In5"):  # difference indices: shift-invariant, scale^2
        np.testing.assert_allclose(lin[name], scale**2 * base[name], rtol=1e-6, atol=1e-6)
    for name in ("K1", "K2", "K3", "chi2", "mi"):  # rank indices: any increasing map
        np.testing.assert_allclose(mono[name], base[name], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(lin[name], base[name], rtol=1e-12, atol=1e-12)
