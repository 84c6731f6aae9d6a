"""fsel's information-theoretic selections against FEAST, the papers' own C toolbox.

The comparisons run only where the ``fstoolbox`` wheel (FEAST's Python binding, see
``benchmarks/requirements.txt``) is importable and its C library loads; they are
skipped otherwise. The tests against the plain-loop reference need no FEAST and always
run; an fsel criterion that fails to import is a failure, never a skip. FEAST is called
through its integer entry points (its ``disc*`` float ones crash).

"Identical up to exact ties": both pick sequences must agree until the first step
where they differ, and there the two candidates' scores -- recomputed by the plain-loop
reference below, independent of both libraries -- must be equal (the tie-break of two
exactly tied scores then depends on floating-point rounding order).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

try:  # the wheel logs a warning and may call exit() when its library is missing
    import fstoolbox as feast
except (ImportError, OSError, SystemExit):  # pragma: no cover - depends on the machine
    feast = None


def _feast_works() -> bool:
    """The wheel imports even when its C library is missing; try one tiny call."""
    if feast is None:
        return False
    try:
        x = np.array([[0, 1], [1, 0], [1, 1], [0, 0]], dtype=np.uint32)
        feast.MIM(x, np.array([0, 1, 1, 0], dtype=np.uint32), 1)
    except Exception:  # pragma: no cover - depends on the machine
        return False
    return True


needs_feast = pytest.mark.skipif(
    not _feast_works(), reason="fstoolbox (FEAST) or its C library is not installed"
)

TIE_TOL = 1e-9


# ----------------------------------------------------------------- reference (plain loops)


def _h(*cols: np.ndarray) -> float:
    """Plug-in joint entropy in bits, counting tuples with a Counter."""
    n = len(cols[0])
    counts = Counter(zip(*(c.tolist() for c in cols), strict=True))
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _i(a, b) -> float:
    return _h(a) + _h(b) - _h(a, b)


def _ci(a, b, c) -> float:
    return _h(a, c) + _h(b, c) - _h(a, b, c) - _h(c)


def ref_score(X, y, selected, k, crit, beta=1.0, gamma=1.0) -> float:
    """J(X_k | S) straight from SPEC section 2."""
    xk = X[:, k]
    rel = _i(xk, y)
    if not selected:
        return rel
    cols = [X[:, j] for j in selected]
    if crit == "MIM":
        return rel
    if crit == "JMI":
        return sum(_h(xk, xj) + _h(y) - _h(xk, xj, y) for xj in cols)
    if crit == "MRMR":
        return rel - sum(_i(xk, xj) for xj in cols) / len(cols)
    if crit == "CMIM":
        return min([rel] + [_ci(xk, y, xj) for xj in cols])
    if crit == "DISR":
        return sum((_h(xk, xj) + _h(y) - _h(xk, xj, y)) / _h(xk, xj, y) for xj in cols)
    if crit == "ICAP":
        return rel - sum(max(0.0, _i(xk, xj) - _ci(xk, xj, y)) for xj in cols)
    if crit == "BETAGAMMA":
        return (
            rel - beta * sum(_i(xk, xj) for xj in cols) + gamma * sum(_ci(xk, xj, y) for xj in cols)
        )
    if crit == "CMI":
        joint = [tuple(row) for row in np.column_stack(cols).tolist()]
        codes = {t: i for i, t in enumerate(dict.fromkeys(joint))}
        s = np.array([codes[t] for t in joint])
        return _ci(xk, y, s)
    raise ValueError(crit)


def test_reference_hand_computed():
    # Y = X0 xor X1 on the four equally likely pairs: I(X0;Y) = 0, I(X0X1;Y) = 1 bit,
    # I(X0;Y|X1) = 1 bit, H(X0,X1,Y) = 2 bits.
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([0, 1, 1, 0])
    assert ref_score(X, y, [], 0, "JMI") == pytest.approx(0.0)
    assert ref_score(X, y, [1], 0, "JMI") == pytest.approx(1.0)
    assert ref_score(X, y, [1], 0, "DISR") == pytest.approx(0.5)
    assert ref_score(X, y, [1], 0, "CMI") == pytest.approx(1.0)
    # Fleuret's CMIM keeps the I(X0;Y) = 0 term: min(0, 1) = 0.
    assert ref_score(X, y, [1], 0, "CMIM") == pytest.approx(0.0)


# ------------------------------------------------------------------------------ data


def _data(kind: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng({"levels10": 0, "binary": 1, "mixed": 2}[kind])
    if kind == "levels10":  # the benchmark's design, small: informative + noisy copies
        n, d = 400, 40
        X = rng.integers(0, 10, size=(n, d))
        y = (X[:, :3].sum(1) + np.rint(rng.normal(0, 2, n)) > 13.5).astype(int)
        for r in range(6):
            col = X[:, r % 3].copy()
            swap = rng.random(n) < 0.2
            col[swap] = rng.integers(0, 10, swap.sum())
            X[:, 3 + r] = col
        X = X[:, rng.permutation(d)]
    elif kind == "binary":  # few levels: many exact ties, a 3-class target
        n, d = 150, 24
        X = rng.integers(0, 2, size=(n, d))
        y = (X[:, 0] + X[:, 1] + X[:, 2] * (1 - X[:, 3])) % 3
    else:  # columns with 2..8 levels, some unused codes (values 0, 3, 7, ...)
        n, d = 250, 30
        levels = rng.integers(2, 9, size=d)
        X = np.column_stack([rng.integers(0, a, n) * (1 + (j % 3)) for j, a in enumerate(levels)])
        y = ((X[:, 4] > X[:, 5]) + (X[:, 6] % 2)).astype(int)
    return np.ascontiguousarray(X, dtype=np.int64), y.astype(np.int64)


# ------------------------------------------------------------------------- comparison

# name -> (fsel class name, fsel params, FEAST call, reference criterion, ref params)
CASES = {
    "MIM": ("MIM", {}, lambda X, y, k: feast.MIM(X, y, k), "MIM", {}),
    "JMI": ("JMI", {}, lambda X, y, k: feast.JMI(X, y, k), "JMI", {}),
    "MRMR": ("MRMR", {}, lambda X, y, k: feast.mRMR_D(X, y, k), "MRMR", {}),
    "CMIM": ("CMIM", {}, lambda X, y, k: feast.CMIM(X, y, k), "CMIM", {}),
    "DISR": ("DISR", {}, lambda X, y, k: feast.DISR(X, y, k), "DISR", {}),
    "ICAP": ("ICAP", {}, lambda X, y, k: feast.ICAP(X, y, k), "ICAP", {}),
    "CIFE": (
        "CIFE",
        {},
        lambda X, y, k: feast.BetaGamma(X, y, k, 1.0, 1.0),
        "BETAGAMMA",
        {"beta": 1.0, "gamma": 1.0},
    ),
    "MIFS": (
        "MIFS",
        {"beta": 1.0},
        lambda X, y, k: feast.BetaGamma(X, y, k, 1.0, 0.0),
        "BETAGAMMA",
        {"beta": 1.0, "gamma": 0.0},
    ),
    "CondRed": (
        "CondRed",
        {},
        lambda X, y, k: feast.BetaGamma(X, y, k, 0.0, 1.0),
        "BETAGAMMA",
        {"beta": 0.0, "gamma": 1.0},
    ),
    "BetaGamma": (
        "BetaGamma",
        {"beta": 0.5, "gamma": 0.3},
        lambda X, y, k: feast.BetaGamma(X, y, k, 0.5, 0.3),
        "BETAGAMMA",
        {"beta": 0.5, "gamma": 0.3},
    ),
    "CMI": ("CMI", {}, lambda X, y, k: feast.CondMI(X, y, k), "CMI", {}),
}


def _fsel_class(name: str):
    import fsel

    return getattr(fsel, name)  # a broken fsel fails here; it is never skipped


def _feast_order(call, X, y, k) -> list[int]:
    order, _ = call(X.astype(np.uint32), y.astype(np.uint32), k)
    order = [int(f) for f in order]
    # CondMI fills the steps after it stops with -1 (4294967295 as uint).
    return [f for f in order if f < X.shape[1]]


def _assert_same_up_to_ties(feast_order, fsel_order, X, y, crit, params) -> None:
    n = min(len(feast_order), len(fsel_order))
    for step in range(n):
        a, b = feast_order[step], fsel_order[step]
        if a == b:
            continue
        prefix = list(feast_order[:step])
        sa = ref_score(X, y, prefix, a, crit, **params)
        sb = ref_score(X, y, prefix, b, crit, **params)
        assert abs(sa - sb) <= TIE_TOL * max(1.0, abs(sa)), (
            f"{crit}: step {step}: FEAST picks {a} (score {sa!r}), fsel {b} (score {sb!r}); "
            f"not a tie. Common prefix {prefix}"
        )
        return  # an exact tie broken differently: the rest may legitimately differ
    if len(feast_order) != len(fsel_order):
        # Only CMI stops early. Whichever goes on may only add rounding noise: FEAST stops
        # when no score is > 0, fsel when none is above its tolerance (1e-10 bits).
        assert crit == "CMI", f"{crit}: lengths differ: {feast_order} vs {fsel_order}"
        longer = feast_order if len(feast_order) > len(fsel_order) else fsel_order
        extra = ref_score(X, y, list(longer[:n]), longer[n], crit, **params)
        assert extra <= 1e-9, f"CMI: one side stopped while feature {longer[n]} adds {extra}"


@needs_feast
@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("kind", ["levels10", "binary", "mixed"])
@pytest.mark.parametrize("name", list(CASES))
def test_same_selection_as_feast(name, kind, backend, monkeypatch):
    if backend == "numpy":
        monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")
    else:
        pytest.importorskip("numba")
        monkeypatch.delenv("FSEL_DISABLE_NUMBA", raising=False)
    cls_name, params, call, crit, ref_params = CASES[name]
    X, y = _data(kind)
    k = min(12, X.shape[1])
    X_before = X.copy()
    est = _fsel_class(cls_name)(n_features_to_select=k, discretize=None, n_jobs=1, **params)
    fsel_order = [int(f) for f in est.fit(X, y).selection_order_]
    np.testing.assert_array_equal(X, X_before)
    feast_order = _feast_order(call, X, y, k)
    assert len(set(fsel_order)) == len(fsel_order), "fsel re-selected a feature"
    _assert_same_up_to_ties(feast_order, fsel_order, X, y, crit, ref_params)


@pytest.mark.parametrize(
    "name", ["JMI", "MRMR", "CMIM", "CIFE", "DISR", "ICAP", "MIFS", "CondRed", "BetaGamma", "CMI"]
)
def test_step_scores_match_reference(name):
    """fsel's per-step scores are the reference's J of each pick given the picks before."""
    cls_name, params, _, crit, ref_params = CASES[name]
    X, y = _data("levels10")
    est = _fsel_class(cls_name)(n_features_to_select=6, discretize=None, **params).fit(X, y)
    order = [int(f) for f in est.selection_order_]
    expected = [ref_score(X, y, order[:i], f, crit, **ref_params) for i, f in enumerate(order)]
    np.testing.assert_allclose(est.selection_scores_, expected, rtol=1e-9, atol=1e-12)


@needs_feast
def test_single_class_target_is_an_error_not_feasts_repeated_feature_zero():
    """FEAST's JMI re-selects feature 0 at every step when y has one class (all scores
    are 0 and its scan only takes a strictly larger score); fsel refuses (SPEC 2)."""
    X = np.random.default_rng(5).integers(0, 3, size=(40, 6))
    y = np.zeros(40, dtype=np.int64)
    assert _feast_order(CASES["JMI"][2], X, y, 4) == [0, 0, 0, 0]
    with pytest.raises(ValueError):
        _fsel_class("JMI")(n_features_to_select=4, discretize=None).fit(X, y)
