"""Every registered method x many odd inputs, each case under a time limit.

For each case the selector must either

* return a fitted estimator that keeps the contract (``support_``, ``ranking_``,
  ``selection_order_`` and ``scores_`` consistent and of the right shapes, no NaN
  score, ``transform`` giving the selected columns), or
* raise ``ValueError``/``TypeError`` with a one-line message, raised by a ``raise``
  statement of fsel or scikit-learn (not an error escaping from numpy's internals such
  as "negative dimensions not allowed"),

and must never modify its input, raise anything else (IndexError, ZeroDivisionError,
AttributeError, ...) or run past the time limit. Inputs with missing values (NaN) may
give either outcome (missing-value support is being added).

The default run keeps to small tables (well under 30 s); the ``slow`` test adds larger
tables and hypothesis-generated frames.
"""

from __future__ import annotations

import copy
import signal
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsel._registry import METHODS

pd = pytest.importorskip("pandas")

ALL = sorted(METHODS)
TIME_LIMIT_S = 20
I64 = np.iinfo(np.int64)
FSEL_DIR = str(Path(__import__("fsel").__file__).resolve().parent)


@dataclass
class Case:
    name: str
    X: Any
    y: Any
    may_have_result: bool = True  # False: must be a clean ValueError/TypeError
    nan: bool = False  # NaN inputs: either outcome


class CaseTimeout(Exception):
    pass


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def handler(signum, frame):  # pragma: no cover - only on a hang
        raise CaseTimeout(f"ran past {seconds} s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _labels(n: int, c: int = 2, seed: int = 0) -> np.ndarray:
    y = np.random.default_rng(seed).integers(0, c, n)
    y[:c] = np.arange(c)
    return y


def small_cases() -> list[Case]:
    rng = np.random.default_rng(0)
    n = 24
    y = _labels(n)
    base = rng.normal(size=(n, 4))
    base[:, 0] += 2 * y
    ints = rng.integers(0, 3, (n, 4))
    ints[:, 0] = y
    cases = [
        Case("plain", base, y),
        Case("float32", base.astype(np.float32), y),
        Case("fortran_and_strided", np.asfortranarray(np.repeat(base, 2, axis=1))[:, ::2], y),
        Case("list_of_lists", base.tolist(), y.tolist()),
        Case("tiny_2x1", np.array([[0.0], [1.0]]), np.array([0, 1])),
        Case("one_row", base[:1], y[:1], may_have_result=False),
        Case("two_rows", base[:2], np.array([0, 1])),
        Case("one_column", base[:, :1], y),
        Case("constant_columns", np.ones((n, 3)), y),
        Case("some_constant", np.column_stack([base[:, :2], np.zeros(n), np.full(n, 7.0)]), y),
        Case("duplicate_columns", np.column_stack([base[:, :2], base[:, :2]]), y),
        Case("ints", ints, y),
        Case("bool", ints > 0, y),
        Case("bool_and_float_frame", pd.DataFrame({"b": ints[:, 0] > 0, "f": base[:, 1]}), y),
        Case("big_int_ids", ints.astype(np.int64) + np.int64(2**62), y),
        Case("uint64_above_2_63", ints.astype(np.uint64) + np.uint64(2**63 + 1), y),
        Case(
            "int64_extremes",
            np.where(ints > 0, I64.max, I64.min).astype(np.int64),
            y,
        ),
        Case("huge_finite_range", base * 1e300, y),
        Case("range_overflow", np.where(base > 0, 1e308, -1e308), y),
        Case("subnormal", base * 1e-310, y),
        Case("inf", np.where(base > 2, np.inf, base), y, may_have_result=False),
        Case("nan", np.where(base > 1.5, np.nan, base), y, nan=True),
        Case("all_nan_column", np.column_stack([base[:, :2], np.full(n, np.nan)]), y, nan=True),
        # text columns are categorical by default (constant ones here)
        Case("strings", np.array([["a", "b"]] * n, dtype=object), y),
        Case("object_numbers", base.astype(object), y),
        Case("complex", base.astype(complex), y, may_have_result=False),
        Case("empty_rows", np.empty((0, 3)), np.empty(0), may_have_result=False),
        Case("empty_columns", np.empty((n, 0)), y, may_have_result=False),
        Case("three_d", base.reshape(n, 2, 2), y, may_have_result=False),
        Case("one_d", base[:, 0], y, may_have_result=False),
        Case("length_mismatch", base, y[:-1], may_have_result=False),
        Case("none_X", None, y, may_have_result=False),
        Case("none_y", base, None, may_have_result=False),
        Case("one_class", base, np.zeros(n, dtype=int), may_have_result=False),
        Case("string_labels", base, np.where(y == 1, "yes", "no")),
        Case("many_classes", base, np.arange(n)),
        Case("three_classes", base, _labels(n, 3)),
        Case("y_nan", base, np.where(y == 1, np.nan, 0.0), may_have_result=False),
        Case("y_2d_column", base, y.reshape(-1, 1)),
        Case("y_2d_wide", base, np.column_stack([y, y]), may_have_result=False),
        Case("float_target", base, base[:, 0] + rng.normal(size=n)),
        Case(
            "datetime_frame",
            # a datetime column becomes seconds since the epoch
            pd.DataFrame({"a": base[:, 0], "d": pd.date_range("2020-01-01", periods=n)}),
            y,
        ),
        Case(
            "duplicate_names",
            pd.DataFrame(base[:, :3], columns=["a", "a", "b"]),
            y,
            may_have_result=False,
        ),
        Case("int_column_names", pd.DataFrame(base, columns=[3, 1, 0, 2]), y),
        Case(
            "category_frame",
            pd.DataFrame(
                {"c": pd.Categorical(np.where(y == 1, "u", "v")), "f": base[:, 1]},
            ),
            y,
        ),
        Case(
            # text among numbers: a categorical column
            "mixed_object_column",
            pd.DataFrame({"m": [1, "a"] * (n // 2), "f": base[:, 1]}),
            y,
        ),
        Case(
            "nullable_bool_with_na",
            pd.DataFrame(
                {"b": pd.array([True, None] * (n // 2), dtype="boolean"), "f": base[:, 1]}
            ),
            y,
            nan=True,
        ),
        Case(
            "nullable_int",
            pd.DataFrame({"i": pd.array(ints[:, 1], dtype="Int64"), "f": base[:, 1]}),
            y,
        ),
        Case("series_target", pd.DataFrame(base), pd.Series(y, index=np.arange(n) + 100)),
    ]
    return cases


def _snapshot(obj: Any) -> Any:
    return copy.deepcopy(obj)


def _unchanged(before: Any, after: Any) -> bool:
    if before is None:
        return after is None
    if isinstance(before, np.ndarray):
        return (
            before.dtype == after.dtype
            and before.shape == after.shape
            and np.array_equal(before, after, equal_nan=before.dtype.kind in "fc")
        )
    if hasattr(before, "equals"):  # pandas objects: values, index and dtypes
        return bool(before.equals(after)) and str(before.dtypes) == str(after.dtypes)
    return before == after


def _check_clean_error(exc: BaseException, where: str) -> None:
    msg = str(exc)
    assert msg.strip(), f"{where}: empty message"
    assert "\n" not in msg.strip(), f"{where}: multi-line message {msg!r}"
    last = traceback.extract_tb(exc.__traceback__)[-1]
    ok_file = last.filename.startswith(FSEL_DIR) or "sklearn" in last.filename
    raised_here = (last.line or "").lstrip().startswith("raise")
    assert ok_file and raised_here, (
        f"{where}: {type(exc).__name__}({msg!r}) escaped from {last.filename}:{last.lineno} "
        f"({last.line!r}), not from a raise statement of fsel"
    )


def _check_contract(est: Any, X: Any, where: str) -> None:
    d = est.n_features_in_
    support = np.asarray(est.support_)
    assert support.dtype == bool and support.shape == (d,), where
    order = np.asarray(est.selection_order_)
    assert order.ndim == 1 and np.unique(order).size == order.size, where
    assert ((order >= 0) & (order < d)).all(), where
    assert support.sum() == order.size and support[order].all(), where
    ranking = np.asarray(est.ranking_)
    # scikit-learn's RFE rule: 1 for the kept features, 2, 3, ... for the others
    assert ranking.shape == (d,) and (ranking[order] == 1).all(), where
    assert sorted(ranking[~support].tolist()) == list(range(2, d - order.size + 2)), where
    scores = np.asarray(est.scores_, dtype=np.float64)
    assert scores.shape == (d,), where
    nan_scores = np.isnan(scores)
    if nan_scores.any():
        # only the ranking indices may leave a feature unscored (NaN, ranked last), and
        # only one with too few observed values to be scored at all
        assert hasattr(est, "index"), f"{where}: NaN scores {scores}"
        arr = np.asarray(X, dtype=np.float64) if not hasattr(X, "columns") else None
        if arr is not None and arr.ndim == 2:
            observed = (~np.isnan(arr)).sum(axis=0)
            assert (observed[nan_scores] < 7).all(), f"{where}: NaN scores {scores}"
    assert np.array_equal(est.get_support(), support), where
    if isinstance(X, np.ndarray) and X.dtype.kind in "biuf" and X.ndim == 2:
        out = est.transform(X)
        assert out.shape == (X.shape[0], order.size), where
        np.testing.assert_array_equal(out, X[:, support])
    elif hasattr(X, "iloc"):  # a DataFrame fit on must transform too
        out = est.transform(X)
        assert out.shape == (X.shape[0], order.size), where


def run_case(method: str, case: Case, make: Callable[[], Any] | None = None) -> str:
    """Fit one method on one case and check the outcome; returns 'result' or 'error'."""
    where = f"{method} on {case.name}"
    est = make() if make is not None else METHODS[method].make(n_features_to_select=1)
    X_before, y_before = _snapshot(case.X), _snapshot(case.y)
    outcome = "result"
    try:
        with time_limit(TIME_LIMIT_S):
            est.fit(case.X, case.y)
    except CaseTimeout:
        pytest.fail(f"{where}: ran past {TIME_LIMIT_S} s")
    except (ValueError, TypeError) as exc:
        _check_clean_error(exc, where)
        outcome = "error"
    except Exception as exc:
        pytest.fail(f"{where}: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
    assert _unchanged(X_before, case.X), f"{where}: X was modified"
    assert _unchanged(y_before, case.y), f"{where}: y was modified"
    if outcome == "result":
        assert case.may_have_result or case.nan, f"{where}: bad input was accepted"
        _check_contract(est, case.X, where)
    return outcome


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("method", ALL)
def test_every_method_on_odd_inputs(method):
    outcomes = {c.name: run_case(method, c) for c in small_cases()}
    assert outcomes["plain"] == "result"  # the grid is not all errors
    assert outcomes["big_int_ids"] == "result"
    assert outcomes["range_overflow"] == "error"


# ------------------------------------------------------------------- slow version
@st.composite
def frames(draw):
    n = draw(st.integers(2, 40))
    d = draw(st.integers(1, 5))
    kinds = draw(
        st.lists(st.sampled_from(["f", "i", "b", "c", "big", "const"]), min_size=d, max_size=d)
    )
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    cols = {}
    for j, kind in enumerate(kinds):
        if kind == "f":
            scale = 10.0 ** draw(st.integers(-300, 300))
            cols[f"c{j}"] = rng.normal(size=n) * scale
        elif kind == "i":
            cols[f"c{j}"] = rng.integers(-5, 5, n)
        elif kind == "b":
            cols[f"c{j}"] = rng.random(n) < 0.5
        elif kind == "c":
            cols[f"c{j}"] = pd.Categorical(rng.choice(["x", "y", "z"], n))
        elif kind == "big":
            cols[f"c{j}"] = rng.integers(0, 4, n).astype(np.int64) + np.int64(2**60)
        else:
            cols[f"c{j}"] = np.full(n, 3.5)
    c = draw(st.integers(1, max(1, min(n, 6))))
    y = rng.integers(0, c, n)
    as_frame = draw(st.booleans())
    X = pd.DataFrame(cols)
    if not as_frame and all(k in "fi" or k == "const" for k in kinds):
        X = X.to_numpy()
    return Case(f"generated(seed={seed}, kinds={kinds}, c={c})", X, y)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("method", ALL)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames())
def test_every_method_on_generated_frames(method, case):
    run_case(method, case)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("method", ALL)
def test_every_method_on_larger_odd_inputs(method):
    rng = np.random.default_rng(1)
    n = 400
    y = _labels(n, 3)
    base = rng.normal(size=(n, 12))
    base[:, 0] += y
    cases = [
        Case("larger_plain", base, y),
        Case("larger_many_classes", base[:, :3], np.arange(n)),
        Case("larger_constant", np.zeros((n, 12)), y),
        Case("larger_big_ids", rng.integers(0, 5, (n, 6)) + np.int64(2**61), y),
        Case("larger_nan", np.where(base > 2, np.nan, base), y, nan=True),
    ]
    for case in cases:
        run_case(method, case, make=lambda: METHODS[method].make(n_features_to_select=3))


# ------------------------------------------------- fsel.select and the NPFS wrapper
_API_CASES = (
    "plain",
    "one_row",
    "constant_columns",
    "big_int_ids",
    "range_overflow",
    "strings",
    "one_class",
    "datetime_frame",
    "duplicate_names",
    "nan",
)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("method", ALL)
def test_select_api_on_odd_inputs(method):
    """``fsel.select`` gives the estimator's outcome: a result, or a clean error."""
    import fsel

    for case in (c for c in small_cases() if c.name in _API_CASES):
        where = f"fsel.select({method!r}) on {case.name}"
        X_before = _snapshot(case.X)
        try:
            with time_limit(TIME_LIMIT_S):
                res = fsel.select(case.X, case.y, method=method, n_features_to_select=1)
        except (ValueError, TypeError) as exc:
            _check_clean_error(exc, where)
        else:
            assert case.may_have_result or case.nan, f"{where}: bad input was accepted"
            # classifiability and CMI stop early when no feature adds anything (e.g. only
            # constant columns); every other method returns exactly k
            if method not in ("classifiability", "cmi"):
                assert len(res.features) == 1, where
            assert len(res.features) <= 1 and len(res.names) == len(res.features), where
            assert np.isfinite(res.scores).all() or case.nan, where
        assert _unchanged(X_before, case.X), f"{where}: X was modified"


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_npfs_wrapper_on_odd_inputs():
    from fsel.meta.npfs import NPFS

    def make():
        return NPFS(METHODS["mim"].make(n_features_to_select=1), n_resamples=5, random_state=0)

    for case in small_cases():
        run_case("npfs(mim)", case, make=make)
