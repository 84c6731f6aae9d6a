"""Constant columns in the greedy engine: taken after every other column (a column with
zero entropy on the training rows tells nothing about anything), in column order, on
every path (dense, sparse, Dask, threads, lazy CMIM, the nearest-neighbour estimator),
with one warning naming them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import fsel
from fsel.kernels.lazy_cmim import lazy_cmim_search

CRITERIA = [
    "MIM",
    "MIFS",
    "MRMR",
    "JMI",
    "CMIM",
    "ICAP",
    "CIFE",
    "DISR",
    "CondRed",
    "BetaGamma",
    "JMIM",
]
CONSTANT = [10, 11, 12, 13, 14]
QUIET = "ignore:.*take a single value on the training rows:UserWarning"


def _disr_table(seed=3):
    """The audit's table (finding 5): y depends on column 0 (strongly), 1 and 2
    (weakly); columns 10-14 hold 7.0 in every row."""
    rng = np.random.default_rng(seed)
    n, d = 1000, 20
    Z = rng.normal(size=(n, d))
    y = ((2 * Z[:, 0] + 0.6 * Z[:, 1] + 0.6 * Z[:, 2] + 0.5 * rng.normal(size=n)) > 0).astype(int)
    X = Z.copy()
    X[:, CONSTANT] = 7.0
    return X, y


@pytest.mark.filterwarnings(QUIET)
def test_disr_takes_the_relevant_columns_before_constant_ones():
    X, y = _disr_table()
    sel = fsel.DISR(3).fit(X, y)
    assert sel.selection_order_[0] == 0
    assert sorted(sel.selection_order_.tolist()) == [0, 1, 2]


@pytest.mark.filterwarnings(QUIET)
@pytest.mark.parametrize("name", CRITERIA)
def test_constant_columns_come_last_in_column_order(name, backend):
    X, y = _disr_table()
    sel = getattr(fsel, name)(X.shape[1]).fit(X, y)
    order = sel.selection_order_.tolist()
    assert order[-len(CONSTANT) :] == CONSTANT
    assert sorted(order) == list(range(X.shape[1]))
    # the criterion's own score at the step (here 0 or the sums of pair terms; finite)
    assert np.isfinite(sel.scores_[CONSTANT]).all()
    # the first pick is the most relevant column
    assert order[0] == 0


@pytest.mark.filterwarnings(QUIET)
def test_cmi_never_reaches_constant_columns():
    X, y = _disr_table()
    sel = fsel.CMI(X.shape[1]).fit(X, y)
    assert not set(sel.selection_order_.tolist()) & set(CONSTANT)


@pytest.mark.filterwarnings(QUIET)
@pytest.mark.parametrize("name", ["MIM", "JMI", "CMIM", "DISR", "MRMR"])
def test_a_constant_first_column_is_not_the_first_pick_when_nothing_is_relevant(name):
    """Every relevance 0: the tie rule took column 0 first, a constant; now it is
    the first column that varies."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(40, 6)).astype(float)
    X[:, 0] = 1.0
    y = np.tile([0, 1], 20)
    X[:, 1:] = np.repeat(X[:20, 1:], 2, axis=0)  # the pairs (rows 2i, 2i+1) agree: MI 0
    sel = getattr(fsel, name)(6).fit(X, y)
    assert sel.selection_order_[0] != 0
    assert sel.selection_order_[-1] == 0


def test_one_warning_names_the_constant_columns():
    X, y = _disr_table()
    with pytest.warns(UserWarning, match="take a single value") as record:
        fsel.JMI(3).fit(X, y)
    msgs = [str(w.message) for w in record if "single value" in str(w.message)]
    assert len(msgs) == 1
    assert msgs[0].startswith("JMI: column(s) 10, 11, 12, 13, 14 take a single value")
    rng = np.random.default_rng(0)
    Xv = rng.normal(size=(200, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fsel.JMI(2).fit(Xv, (Xv[:, 0] > 0).astype(int))


@pytest.mark.filterwarnings(QUIET)
@pytest.mark.parametrize("name", ["JMI", "MRMR", "CMIM", "DISR", "MIFS"])
def test_every_path_gives_the_same_order(name, backend):
    """Dense, threads, sparse and Dask: the same order, constants last. Codes as given
    (integers) so that the sparse and dense bins agree trivially."""
    X, y = _disr_table()
    Xc = np.floor(np.abs(X) * 2).clip(0, 5)
    Xc[:, CONSTANT] = 0.0  # zeros: the sparse matrix stores none of them
    k = Xc.shape[1]
    ref = getattr(fsel, name)(k).fit(Xc, y)
    assert ref.selection_order_[-len(CONSTANT) :].tolist() == CONSTANT
    for other in (
        getattr(fsel, name)(k, n_jobs=4).fit(Xc, y),
        getattr(fsel, name)(k).fit(sp.csr_matrix(Xc), y),
    ):
        np.testing.assert_array_equal(other.selection_order_, ref.selection_order_)
        np.testing.assert_allclose(other.scores_, ref.scores_, rtol=0, atol=1e-9)
    da = pytest.importorskip("dask.array")
    on_dask = getattr(fsel, name)(k).fit(
        da.from_array(Xc, chunks=(300, 20)), da.from_array(y, chunks=300)
    )
    np.testing.assert_array_equal(on_dask.selection_order_, ref.selection_order_)


@pytest.mark.filterwarnings(QUIET)
def test_knn_estimator_takes_constant_columns_last():
    X, y = _disr_table()
    X = X[:300]
    y = y[:300]
    for name in ("JMI", "CMIM", "MRMR"):
        sel = getattr(fsel, name)(X.shape[1], mi_estimator="knn").fit(X, y)
        assert sel.selection_order_[-len(CONSTANT) :].tolist() == CONSTANT


def test_lazy_search_holds_the_flagged_candidates_back():
    """The lazy CMIM search with ``last``: the flagged candidates after the others, in
    index order, each with its fresh score."""
    rel = np.array([0.0, 0.9, 0.5, 0.0, 0.2])
    last = np.array([True, False, False, True, False])

    def refresh(top, seen, order, t):
        return np.where(seen < t, rel[top] / 2, np.inf)

    order, steps, _ = lazy_cmim_search(rel, 5, 1e-10, refresh, last=last)
    assert order.tolist() == [1, 2, 4, 0, 3]
    np.testing.assert_allclose(steps, [0.9, 0.25, 0.1, 0.0, 0.0])
    order, _, _ = lazy_cmim_search(rel, 5, 1e-10, refresh)
    assert order.tolist()[:3] == [1, 2, 4]
