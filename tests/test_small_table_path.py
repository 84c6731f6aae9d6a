"""Small tables are counted with numpy, bit-identical to the numba kernels.

A small job (e.g. ``fsel select`` on a 569 x 30 table) then needs no numba import or
JIT load, which took longer than the whole computation (issue 17, item 15).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import fsel
import fsel.kernels._counting as counting
import fsel.kernels.discretize as discretize
from _criteria import INFORMATION_CRITERIA

pytest.importorskip("numba")

NAMES = INFORMATION_CRITERIA


def _data(seed: int, kind: str):
    rng = np.random.default_rng(seed)
    n, d = (300, 25) if kind != "wide-levels" else (200, 12)
    if kind == "float":
        X = rng.normal(size=(n, d))
        y = (X[:, 0] + X[:, 3] * X[:, 4] + 0.5 * rng.normal(size=n) > 0).astype(int)
    elif kind == "wide-levels":  # many levels: the numba kernel's sparse path in places
        X = rng.integers(0, 40, (n, d))
        y = rng.integers(0, 3, n)
    else:
        X = rng.integers(0, 4, (n, d))
        y = ((X[:, 1] + X[:, 2]) % 3 + rng.integers(0, 2, n)) % 3
    return X, y


@pytest.mark.parametrize("kind", ["float", "codes", "wide-levels"])
@pytest.mark.parametrize("name", NAMES)
def test_small_path_is_bit_identical_to_numba(name, kind, monkeypatch):
    monkeypatch.delenv("FSEL_DISABLE_NUMBA", raising=False)
    X, y = _data(3, kind)
    small = getattr(fsel, name)(8).fit(X, y)
    monkeypatch.setattr(counting, "SMALL_TABLE_CELLS", 0)
    monkeypatch.setattr(discretize, "SMALL_TABLE_CELLS", 0)
    big = getattr(fsel, name)(8).fit(X, y)
    assert small.selection_order_.tolist() == big.selection_order_.tolist()
    np.testing.assert_array_equal(small.scores_, big.scores_)
    np.testing.assert_array_equal(small.selection_scores_, big.selection_scores_)


def test_grouped_nlogn_small_path_matches_numba_exactly():
    rng = np.random.default_rng(0)
    C = rng.integers(0, 5, (30, 500)).astype(np.uint8)
    z = rng.integers(0, 6, 500)
    table = counting.nlogn_table(500)
    assert counting._small_dense(C, 6)
    got = counting.grouped_nlogn(C, z, 6, 3, table)
    ref = counting._numba_grouped(C, np.asarray(z), 6, 3, table, 1)
    for a, b in zip(got, ref, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_small_selection_does_not_import_numba():
    code = (
        "import sys, numpy as np, fsel\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.normal(size=(569, 30)); y = (X[:, 0] > 0).astype(int)\n"
        "fsel.JMI(10).fit(X, y); fsel.MRMR(10).fit(X, y)\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("numba_off", ["1", "0"])
def test_boolean_columns_on_both_paths(numba_off, monkeypatch):
    """Boolean codes on the numpy path (small tables, or numba disabled) used to fail
    with numpy's boolean-subtract TypeError."""
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", numba_off)
    rng = np.random.default_rng(1)
    X = rng.random((60, 4)) < 0.5
    y = (X[:, 2] ^ (rng.random(60) < 0.1)).astype(int)
    got = fsel.JMI(2).fit(X, y)
    ref = fsel.JMI(2).fit(X.astype(np.int64), y)
    np.testing.assert_array_equal(got.scores_, ref.scores_)
    assert got.selection_order_[0] == 2
