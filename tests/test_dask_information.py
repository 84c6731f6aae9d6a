"""Information criteria on Dask input: the same selection as in memory, data on the workers."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import fsel  # noqa: E402
from _criteria import INFORMATION_CRITERIA  # noqa: E402
from fsel.kernels._counting import joint_histograms  # noqa: E402

ALL = INFORMATION_CRITERIA
UNEVEN = (37, 200, 1, 512, 250)  # 1000 rows in uneven chunks, one of a single row


@pytest.fixture(autouse=True)
def _threads():
    with dask.config.set(scheduler="threads"):
        yield


def _data(seed: int = 0, n: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 10))
    X[:, 3] = rng.integers(-2, 2, n)  # integer values in a float column: few distinct
    X[:, 7] = X[:, 1] + 0.3 * rng.normal(size=n)  # redundant with 1
    y = (X[:, 1] + X[:, 5] > 0).astype(int) + (X[:, 3] > 0)
    return X, y


@contextmanager
def _local_client(processes: bool = False) -> Iterator[Any]:
    """A ``distributed.Client`` on a 2-worker LocalCluster (threads in this process,
    or worker processes)."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=processes, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _persisted(client: Any, X: np.ndarray, y: np.ndarray) -> tuple[Any, Any]:
    """``X`` and ``y`` as dask arrays in uneven row chunks, persisted on the workers."""
    import distributed

    Xd, yd = client.persist(
        [da.from_array(X, chunks=(UNEVEN, 10)), da.from_array(y, chunks=(UNEVEN,))]
    )
    distributed.wait([Xd, yd])
    return Xd, yd


def _assert_same(a, b, tol: float = 1e-9) -> None:
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_allclose(a.selection_scores_, b.selection_scores_, rtol=0, atol=tol)
    np.testing.assert_allclose(a.relevance_, b.relevance_, rtol=0, atol=tol)
    np.testing.assert_array_equal(a.n_levels_, b.n_levels_)
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_array_equal(a.support_, b.support_)


@pytest.mark.parametrize("name", ALL)
def test_every_criterion_equals_in_memory_on_uneven_chunks(name):
    X, y = _data()
    mem = getattr(fsel, name)(6).fit(X, y)
    Xd = da.from_array(X, chunks=(UNEVEN, 10))
    yd = da.from_array(y, chunks=(UNEVEN,))
    on_dask = getattr(fsel, name)(6).fit(Xd, yd)
    _assert_same(mem, on_dask)
    for e_mem, e_dask in zip(mem.bin_edges_, on_dask.bin_edges_, strict=True):
        if e_mem is None:
            assert e_dask is None
        else:
            np.testing.assert_array_equal(e_mem, e_dask)  # exact min/max: identical edges


@pytest.mark.parametrize("name", ["JMI", "CMIM", "CMI"])
def test_both_counting_backends(name, backend):
    X, y = _data(3)
    mem = getattr(fsel, name)(5, mi_estimator="miller_madow").fit(X, y)
    Xd = da.from_array(X, chunks=(333, 4))  # column chunks are merged
    got = getattr(fsel, name)(5, mi_estimator="miller_madow").fit(Xd, y)  # y in memory
    _assert_same(mem, got)


def test_integer_codes_and_string_labels_exact():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 300, size=(900, 6))  # > 256 levels: uint16 codes on the workers
    X[:, 2] = rng.integers(5, 8, 900)
    labels = np.array(["a", "b", "c"])[(X[:, 2] + X[:, 4] % 2) % 3]
    Xd = da.from_array(X, chunks=(250, 6))
    for name in ("JMI", "CMI", "MRMR"):
        mem = getattr(fsel, name)(4, discretize=None).fit(X, labels)
        got = getattr(fsel, name)(4, discretize=None).fit(Xd, da.from_array(labels, chunks=250))
        _assert_same(mem, got)
        assert got.n_levels_[2] == 3


def test_dask_dataframe_with_a_category_and_a_series_target():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = _data(5, n=600)
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(10)])
    df["colour"] = pd.Categorical(np.array(["red", "green", "blue"])[y])  # the target's twin
    df["n"] = (X[:, 5] > 0).astype(np.int64)
    df["target"] = y
    ddf = dd.from_pandas(df, npartitions=4)
    feats = [c for c in df.columns if c != "target"]
    mem = fsel.JMI(5).fit(df[feats], df["target"])
    got = fsel.JMI(5).fit(ddf[feats], ddf["target"])
    _assert_same(mem, got)
    assert got.selection_order_[0] == feats.index("colour")
    np.testing.assert_array_equal(got.feature_names_in_, np.asarray(feats, dtype=object))
    assert got.n_features_in_ == len(feats)


@pytest.mark.parametrize("categorical", ["auto", [1]])
def test_boolean_columns_typed_as_in_memory(categorical):
    # boolean columns are categorical by default (an explicit list decides alone), on
    # a Dask frame and a Dask array as in memory
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"flag": rng.random(200) < 0.3, "x": rng.normal(size=200)})
    y = rng.integers(0, 2, 200)
    mem = fsel.MIM(1, categorical=categorical).fit(df, y)
    yd = dd.from_pandas(pd.Series(y), npartitions=2)
    got = fsel.MIM(1, categorical=categorical).fit(dd.from_pandas(df, npartitions=2), yd)
    assert got.feature_types_ == mem.feature_types_
    assert mem.feature_types_[0] == ("categorical" if categorical == "auto" else "integer")
    B = rng.random((200, 3)) < 0.5
    mem = fsel.MIM(1, categorical=categorical).fit(B, y)
    got = fsel.MIM(1, categorical=categorical).fit(da.from_array(B, chunks=(100, 3)), y)
    assert got.feature_types_ == mem.feature_types_


def test_quantile_bins_are_exact_for_one_chunk_and_for_many():
    X, y = _data(2)
    mem = fsel.JMI(5, discretize="quantile").fit(X, y)
    one = fsel.JMI(5, discretize="quantile").fit(da.from_array(X, chunks=(1000, 10)), y)
    _assert_same(mem, one)
    many = fsel.JMI(5, discretize="quantile").fit(da.from_array(X, chunks=(UNEVEN, 10)), y)
    _assert_same(mem, many)  # exact order statistics: the same edges bit for bit
    for e_mem, e_dask in zip(mem.bin_edges_, many.bin_edges_, strict=True):
        if e_mem is not None:
            np.testing.assert_array_equal(e_mem, e_dask)


def test_recovers_the_relevant_features_of_a_lazily_generated_array():
    rng = da.random.default_rng(0)
    X = rng.random((60_000, 12), chunks=(7_000, 12))
    y = (X[:, 4] + X[:, 9] > 1).astype(np.int8)
    sel = fsel.JMI(2).fit(X, y)
    assert sorted(sel.selection_order_.tolist()) == [4, 9]


@pytest.mark.parametrize("name", ["JMI", "CMI", "CMIM", "MRMR"])
def test_small_integer_codes_with_gaps_exact(name, backend):
    # negative values, gaps, a value absent from some chunks: the one-pass levels and
    # the paired counting kernel give the in-memory selection
    rng = np.random.default_rng(11)
    X = rng.choice(np.array([-3, -1, 0, 2, 5, 9]), size=(1000, 9)).astype(np.int16)
    X[:700, 6] = 4  # chunks where column 6 is constant
    y = ((X[:, 2] > 0) + (X[:, 5] == 9)).astype(np.int8)
    mem = getattr(fsel, name)(5, discretize=None).fit(X, y)
    got = getattr(fsel, name)(5, discretize=None).fit(da.from_array(X, chunks=(UNEVEN, 9)), y)
    _assert_same(mem, got)
    np.testing.assert_array_equal(mem.n_levels_, got.n_levels_)


# ----------------------------------------------------------------------------- bad input


def test_unknown_chunk_sizes_with_an_in_memory_target():
    X, y = _data()
    Xd = da.from_array(X, chunks=(250, 10))
    Xu = Xd[Xd[:, 0] > -10]  # boolean mask: unknown row chunk sizes
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        fsel.JMI(3).fit(Xu, y)
    yu = da.from_array(y, chunks=250)[Xd[:, 0] > -10]
    got = fsel.JMI(3).fit(Xu, yu)  # same partitions, unknown sizes: fine
    _assert_same(fsel.JMI(3).fit(X, y), got)


def test_nan_is_refused_by_the_error_and_available_rules_and_inf_always():
    X, y = _data()
    X[500, 4] = np.nan
    Xd = da.from_array(X, chunks=(300, 10))
    with pytest.raises(
        ValueError, match=r"missing values \(NaN\) in column '4' and missing='error'"
    ):
        fsel.JMI(3, missing="error").fit(Xd, y)
    with pytest.raises(ValueError, match=r"missing='available' \(pairwise deletion\) is not supp"):
        fsel.JMI(3, missing="available").fit(Xd, y)
    X[500, 4] = np.inf
    with pytest.raises(ValueError, match="inf in column '4'"):
        fsel.MIM(3).fit(da.from_array(X, chunks=(300, 10)), y)


def test_without_holes_every_missing_rule_equals_in_memory():
    X, y = _data(4)
    Xd = da.from_array(X, chunks=(UNEVEN, 10))
    for rule in ("level", "available", "error"):
        _assert_same(fsel.JMI(4, missing=rule).fit(X, y), fsel.JMI(4, missing=rule).fit(Xd, y))


def _holes(seed: int = 6) -> tuple[np.ndarray, np.ndarray]:
    X, y = _data(seed)
    rng = np.random.default_rng(seed)
    X[rng.random(X.shape) < 0.1] = np.nan  # holes everywhere, several per chunk
    X[:, 6] = np.nan  # a column with no observed value: one level
    X[y == 2, 8] = np.nan  # informative holes: "is missing" tells the class
    X[:, 9] = np.where(rng.random(X.shape[0]) < 0.2, np.nan, rng.integers(0, 3, X.shape[0]))
    return X, y


@pytest.mark.filterwarnings(
    "ignore:.*take a single value on the training rows:UserWarning"
)  # a column all holes
@pytest.mark.parametrize("name", ["MIM", "MRMR", "JMI", "CMIM", "CMI"])
def test_a_hole_is_one_more_level_as_in_memory(name):
    X, y = _holes()
    mem = getattr(fsel, name)(6).fit(X, y)
    on_dask = getattr(fsel, name)(6).fit(da.from_array(X, chunks=(UNEVEN, 10)), y)
    _assert_same(mem, on_dask)
    assert on_dask.n_levels_[6] == 1
    for e_mem, e_dask in zip(mem.bin_edges_, on_dask.bin_edges_, strict=True):
        if e_mem is None:
            assert e_dask is None
        else:
            np.testing.assert_array_equal(e_mem, e_dask)  # learned on the observed values


@pytest.mark.filterwarnings(
    "ignore:.*take a single value on the training rows:UserWarning"
)  # a column all holes
def test_holes_with_codes_quantile_bins_and_a_dataframe():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = _holes(7)
    mem = fsel.JMI(5, discretize="quantile").fit(X, y)
    one = fsel.JMI(5, discretize="quantile").fit(da.from_array(X, chunks=(1000, 10)), y)
    _assert_same(mem, one)  # one chunk: exact percentiles of the observed values
    df = pd.DataFrame(X[:, :6], columns=[f"f{i}" for i in range(6)])
    df["colour"] = pd.Categorical(np.array(["red", "green", "blue"])[y])
    df.loc[::7, "colour"] = np.nan
    df["n"] = pd.array(np.where(X[:, 9] >= 0, X[:, 9], 0), dtype="Int64")
    df.loc[np.isnan(X[:, 9]), "n"] = pd.NA
    df["target"] = y
    feats = [c for c in df.columns if c != "target"]
    ddf = dd.from_pandas(df, npartitions=3)
    _assert_same(
        fsel.CMI(5).fit(df[feats], df["target"]), fsel.CMI(5).fit(ddf[feats], ddf["target"])
    )


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_a_continuous_target_is_binned_as_in_memory(strategy):
    X, _ = _data(8)
    rng = np.random.default_rng(8)
    yc = X[:, 2] + 0.5 * X[:, 5] + 0.1 * rng.normal(size=X.shape[0])
    with pytest.warns(UserWarning, match="y is continuous"):
        mem = fsel.JMI(4, discretize=strategy).fit(X, yc)
    chunks = (1000, 10) if strategy == "quantile" else (UNEVEN, 10)  # quantile: 1 chunk exact
    with pytest.warns(UserWarning, match="y is continuous"):
        got = fsel.JMI(4, discretize=strategy).fit(
            da.from_array(X, chunks=chunks), da.from_array(yc, chunks=chunks[0])
        )
    _assert_same(mem, got)
    np.testing.assert_array_equal(mem.y_bin_edges_, got.y_bin_edges_)
    with pytest.warns(UserWarning, match="y is continuous"):  # many chunks: close edges
        many = fsel.JMI(4, discretize=strategy).fit(da.from_array(X, chunks=(UNEVEN, 10)), yc)
    np.testing.assert_allclose(mem.y_bin_edges_, many.y_bin_edges_, atol=0.1)
    assert set(many.selection_order_[:2].tolist()) == {2, 5}
    with pytest.raises(ValueError, match="y is continuous"):
        fsel.JMI(4, discretize=None).fit(da.from_array(X, chunks=(UNEVEN, 10)), yc)
    few = np.round(yc).clip(-1, 1) + 0.5  # non-integer floats, at most n_bins values: classes
    _assert_same(
        fsel.JMI(4).fit(X, few), fsel.JMI(4).fit(da.from_array(X, chunks=(UNEVEN, 10)), few)
    )


def test_pair_mi_equals_the_pair_terms_bit_for_bit():
    from fsel.kernels.information_dask import dask_information_table

    X, y = _data(9)
    blocks = list(da.from_array(X, chunks=(UNEVEN, 10)).to_delayed().ravel())
    bounds = np.cumsum((0, *UNEVEN))
    ys = [y[a:b] for a, b in itertools.pairwise(bounds)]
    table, _, _ = dask_information_table(blocks, ys, np.zeros(10, bool), estimator="miller_madow")
    for j in (0, 3, 7):
        np.testing.assert_array_equal(table.pair_mi(j), table.pair_terms(j).mi)


def test_bad_targets_and_shapes():
    X, y = _data()
    Xd = da.from_array(X, chunks=(300, 10))
    with pytest.raises(ValueError, match="inconsistent lengths"):
        fsel.JMI(3).fit(Xd, y[:-1])
    with pytest.raises(ValueError, match="single class"):
        fsel.JMI(3).fit(Xd, np.zeros(1000, dtype=int))
    yf = y.astype(float)
    yf[3] = np.nan
    with pytest.raises(ValueError, match="y has missing values"):
        fsel.JMI(3).fit(Xd, da.from_array(yf, chunks=300))
    with pytest.raises(ValueError, match="2-D"):
        fsel.JMI(3).fit(da.from_array(X[:, 0], chunks=300), y)
    with pytest.raises(ValueError, match="n_features_to_select"):
        fsel.JMI(11).fit(Xd, y)
    with pytest.raises(ValueError, match="non-integer"):
        fsel.JMI(3, discretize=None).fit(Xd, y)


def test_input_is_not_modified_and_results_repeat():
    X, y = _data()
    Xd = da.from_array(X.copy(), chunks=(300, 10))
    before = X.copy()
    a = fsel.CMIM(4).fit(Xd, y)
    b = fsel.CMIM(4).fit(Xd, y)
    np.testing.assert_array_equal(X, before)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_array_equal(a.scores_, b.scores_)


# ------------------------------------------------------------------ distributed clusters


def test_on_a_distributed_client_via_dask_backend():
    distributed = pytest.importorskip("distributed")
    from fsel.meta.resampling import dask_backend

    X, y = _data(6)
    Xd = da.from_array(X, chunks=(UNEVEN, 10))
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        dask_backend(cluster.scheduler_address) as client,
    ):
        names = ("JMI", "CMI", "MIM")
        got = {n: getattr(fsel, n)(5).fit(Xd, da.from_array(y, chunks=(UNEVEN,))) for n in names}
        assert len(client.scheduler_info()["workers"]) == 2
    for n in names:
        _assert_same(getattr(fsel, n)(5).fit(X, y), got[n])


@pytest.mark.slow
def test_process_workers_equal_in_memory_and_the_client_stays_small():
    pytest.importorskip("distributed")
    import tracemalloc

    X, y = _data(7)
    with _local_client(processes=True) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        Xd = da.from_array(X, chunks=(UNEVEN, 10))
        for n in ("JMI", "CMI", "DISR"):
            _assert_same(getattr(fsel, n)(5).fit(X, y), getattr(fsel, n)(5).fit(Xd, y))
        # a lazily generated 2M x 20 float64 array (320 MB): never in the client
        rng = da.random.default_rng(0)
        Xl = rng.random((2_000_000, 20), chunks=(250_000, 20))
        yl = ((Xl[:, 0] + Xl[:, 1]) > 1).astype(np.int8) + (Xl[:, 2] > 0.5)
        fsel.JMI(2).fit(Xl[:1000], yl[:1000])  # imports and first-call caches
        tracemalloc.start()
        try:
            sel = fsel.JMI(5).fit(Xl, yl)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert sorted(sel.selection_order_[:3].tolist()) == [0, 1, 2]
    assert peak < Xl.nbytes / 40, peak  # measured about 4 MB against 320 MB


@pytest.mark.parametrize("name", ["ReliefF", "Classifiability", "RankingIndex"])
def test_selectors_without_a_dask_path_refuse_dask_input_clearly(name):
    est_cls = getattr(fsel, name)
    X, y = _data()
    with pytest.raises(TypeError, match=r"Dask collection.*runs in memory"):
        est_cls().fit(da.from_array(X, chunks=(300, 10)), y)


def test_futures_helpers_merge_per_worker_and_reduce_in_a_tree():
    # the distributed path of the table: blocks merged per worker (in groups of at most
    # max_bytes), reductions as a tree of futures above FAN_IN parts
    pytest.importorskip("distributed")
    from fsel.kernels import _dask as kd

    rng = np.random.default_rng(2)
    parts = [rng.integers(0, 5, size=(3, 40 + i)) for i in range(20)]
    with _local_client() as client:
        futs = client.scatter(parts)
        tables = kd.map_futures(client, np.sum, [futs], (1,))  # np.sum(block, 1)
        assert len(tables) == 20 > kd.FAN_IN
        total = kd.reduce_futures(client, tables, kd.add_arrays)
        np.testing.assert_array_equal(total, sum(p.sum(axis=1) for p in parts))

        def concat(*blocks):
            return np.concatenate(blocks, axis=1)

        given = list(futs)
        merged = kd.merge_per_worker(client, given, concat, parts[0].nbytes)
        assert given == []  # emptied: each block can be released once merged
        assert len(merged) <= 2
        got = np.concatenate(client.gather(merged), axis=1)
        want = np.concatenate(parts, axis=1)
        assert got.shape == want.shape
        # the same columns, in some order of the blocks
        key = sorted(map(tuple, got.T.tolist()))
        assert key == sorted(map(tuple, want.T.tolist()))
        small = kd.merge_per_worker(client, list(futs), concat, 100, max_bytes=150)  # alone
        assert len(small) == 20
        assert kd.client_futures(futs[:0]) is None


def test_the_table_on_a_client_holds_one_block_per_worker(monkeypatch):
    pytest.importorskip("distributed")
    from fsel.kernels.information_dask import dask_information_table
    from fsel.utils.dask_table import check_dask_table

    X, y = _data(9)
    Xd = da.from_array(X, chunks=(UNEVEN, 10))
    with _local_client():
        data = check_dask_table(Xd, da.from_array(y, chunks=(UNEVEN,)))
        table, _, _ = dask_information_table(data.blocks, data.y_blocks, data.discrete)
        assert 1 <= len(table.blocks) <= 2 < len(UNEVEN)
        got = fsel.CMIM(5).fit(Xd, y)
        mem_table = fsel.CMIM(5).fit(X, y)
        terms = table.pair_terms(1)
        # blocks that are not plain futures: the delayed path, packed on the workers
        monkeypatch.setattr("fsel.kernels.information_dask.client_futures", lambda b: None)
        plain = fsel.CMIM(5).fit(Xd, y)
    _assert_same(mem_table, got)
    _assert_same(mem_table, plain)
    assert terms.mi[7] > 0.3  # column 7 is a noisy copy of column 1


def test_data_persisted_on_a_client_is_encoded_straight_into_merged_blocks():
    pytest.importorskip("distributed")
    from fsel.kernels.information_dask import _raw_futures
    from fsel.utils.dask_table import check_dask_table

    X, y = _data(12)
    X[:, 9] = np.where(np.arange(X.shape[0]) % 7 == 0, np.nan, X[:, 9])  # holes: a level
    with _local_client() as client:
        Xd, yd = _persisted(client, X, y)
        data = check_dask_table(Xd, yd)
        assert _raw_futures(data.blocks, data.y_blocks) is not None  # the direct path
        lazy = check_dask_table(da.from_array(X, chunks=(UNEVEN, 10)), yd)
        assert _raw_futures(lazy.blocks, lazy.y_blocks) is None  # not in memory yet
        got = {n: getattr(fsel, n)(5).fit(Xd, yd) for n in ("JMI", "CMI", "MIM")}
        np.testing.assert_array_equal(Xd.compute(), X)  # the input is untouched
    for n, est in got.items():
        _assert_same(getattr(fsel, n)(5).fit(X, y), est)


def test_steps_on_a_client_run_through_one_actor_per_worker(monkeypatch):
    # a greedy step is one direct call per worker (no task for the scheduler); the
    # futures path (blocks of unknown placement) gives the same selection
    pytest.importorskip("distributed")
    from fsel.kernels import _dask as helpers
    from fsel.kernels import information_dask as kd
    from fsel.utils.dask_table import check_dask_table

    X, y = _data(14)
    X[:, 2] = np.round(X[:, 2])  # integer values among floats
    mem = {n: getattr(fsel, n)(5).fit(X, y) for n in ("JMI", "MRMR", "CMI")}
    calls: list[int] = []
    real_sum = helpers.BlockActor.sum_map

    def counted(self, fn, args):  # runs on the (in-process) workers
        calls.append(len(self.blocks))
        return real_sum(self, fn, args)

    monkeypatch.setattr(helpers.BlockActor, "sum_map", counted)
    with _local_client() as client:
        Xd, yd = _persisted(client, X, y)
        data = check_dask_table(Xd, yd)
        table, _, _ = kd.dask_information_table(data.blocks, data.y_blocks, data.discrete)
        assert table._actor_futures is not None
        assert len(table._actor_futures) == len(
            {w for ws in client.who_has(table.blocks).values() for w in ws}
        )
        before = len(calls)
        terms = table.pair_terms(1)
        assert len(calls) - before == len(table._actor_futures)  # one call per worker
        assert sum(calls[before:]) == len(table.blocks)  # every block counted once
        args = (1, int(table.n_levels[1]), table.width, table.n_classes)
        parts = helpers.map_futures(client, kd._hist_pair, [table.blocks], args)
        want = helpers.reduce_futures(client, parts, helpers.add_arrays)
        got = table._reduce(kd._hist_pair, *args)
        np.testing.assert_array_equal(got, want)  # the same integer counts either way
        assert terms.mi[7] > 0.3
        on_actors = {n: getattr(fsel, n)(5).fit(Xd, yd) for n in mem}
        monkeypatch.setattr(kd, "block_actors", lambda *a: None)  # the futures path
        on_futures = {n: getattr(fsel, n)(5).fit(Xd, yd) for n in mem}
        assert helpers.block_actors(client, [], []) is None
        assert helpers.block_actors(client, [0], [None]) is None  # placement unknown
    for n, est in mem.items():
        _assert_same(est, on_actors[n])
        _assert_same(est, on_futures[n])


def test_a_failed_actor_call_falls_back_to_the_futures_path(monkeypatch):
    # a worker lost mid-fit takes its actor with it: the steps go on as futures (whose
    # blocks the scheduler can recompute) and the selection is the in-memory one
    pytest.importorskip("distributed")
    from fsel.kernels import information_dask as kd

    X, y = _data(15)
    mem = fsel.JMI(5).fit(X, y)
    real = kd.actor_sum
    failures: list[int] = []

    def flaky(actors, fn, args, table_bytes=0):
        if fn is kd._hist_pair and not failures:  # the first greedy step's call dies
            failures.append(1)
            raise OSError("Timed out trying to connect to tcp://127.0.0.1:1 (worker lost)")
        return real(actors, fn, args, table_bytes)

    monkeypatch.setattr(kd, "actor_sum", flaky)
    with _local_client() as client:
        Xd, yd = _persisted(client, X, y)
        got = fsel.JMI(5).fit(Xd, yd)
    assert failures == [1]
    _assert_same(mem, got)


def _int_codes(seed: int = 3, n: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """Small integer codes: a run from 0, a run from 5, a column with wide gaps, a
    signed one, one spanning more than 16 values and one with gaps in a narrow span."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 8)).astype(np.int16)
    X[:, 1] = rng.integers(5, 9, n)
    X[:, 2] = rng.choice([0, 3, 100], n)  # gaps: not a run
    X[:, 3] = rng.integers(-3, 3, n)
    X[:, 4] = rng.integers(0, 40, n)  # more than PACK_MAX_LEVELS values
    X[:, 5] = (X[:, 0] + rng.integers(0, 2, n)) % 4  # a noisy copy of 0
    X[:, 6] = rng.choice([0, 2, 5], n)  # gaps in a narrow span: empty levels on Dask
    y = ((X[:, 0] + (X[:, 1] > 6) + (X[:, 4] > 20)) > 2).astype(np.int8) + 3
    return X, y


def test_prepared_groups_give_the_stats_and_codes_of_the_chunk_path():
    # per worker: small integer chunks transposed once; its stats and codes agree with
    # the per-chunk path up to the level sets (a run min..max: a superset)
    from fsel.kernels import information_dask as kd

    X, y = _int_codes()
    pairs = [(X[:300], y[:300]), (X[300:], y[300:])]
    cols = np.ones(8, dtype=bool)
    prep = kd._prepare_group(True, *pairs)
    assert prep is not None
    np.testing.assert_array_equal(prep[0], X.T)
    np.testing.assert_array_equal(prep[1], y)
    assert kd._prepare_group(False, *pairs) is None  # a column to bin: as they are
    floats = [(x.astype(np.float64), t) for x, t in pairs]
    assert kd._prepare_group(True, *floats) is None
    wide = [(x.astype(np.int64), t) for x, t in pairs]
    assert kd._prepare_group(True, *wide) is None
    st = kd._group_stats(prep, cols, 5, None)
    ref = kd._group_stats(None, cols, 5, None, *pairs)
    assert st["prepared"] and not ref["prepared"]
    assert st["n"] == ref["n"] == 1000
    np.testing.assert_array_equal(st["classes"], ref["classes"])
    np.testing.assert_array_equal(st["lo"], ref["lo"])
    np.testing.assert_array_equal(st["hi"], ref["hi"])
    for j in range(8):
        assert set(ref["distinct"][j].tolist()) <= set(st["distinct"][j].tolist())
    np.testing.assert_array_equal(st["distinct"][2], [0, 3, 100])  # a wide span: exact
    np.testing.assert_array_equal(st["distinct"][3], np.arange(-3, 3))  # a run
    np.testing.assert_array_equal(st["distinct"][6], np.arange(6))  # 0, 2, 5: their span
    levels = st["distinct"]
    args = ([None] * 8, levels, st["classes"], np.uint8, None)
    C, yc, packed = kd._encode_prepared(args, prep)
    C_ref, yc_ref, _ = kd._encode_group(args, *pairs)
    np.testing.assert_array_equal(C, C_ref)
    np.testing.assert_array_equal(yc, yc_ref)
    assert C.dtype == np.uint8 and np.array_equal(yc, y - 3)
    assert packed is None or packed[1] == int(C.max()) + 1
    same = X[:, [0, 5]].astype(np.uint8)  # values are their codes: the block itself
    prep = kd._prepare_group(True, (same, y))
    lev = kd._group_stats(prep, np.ones(2, bool), 5, None)["distinct"]
    C, _, _ = kd._encode_prepared(([None] * 2, lev, np.array([3, 4]), np.uint8, None), prep)
    assert C is prep[0]
    np.testing.assert_array_equal(X, _int_codes()[0])  # the input is untouched
    with pytest.raises(ValueError, match="inconsistent lengths"):
        kd._prepare_group(True, (X[:10], y[:9]))


def test_small_integer_codes_on_a_client_take_the_prepared_path(monkeypatch):
    distributed = pytest.importorskip("distributed")
    from fsel.kernels import information_dask as kd

    X, y = _int_codes(5)
    # codes (discretize=None; by default integer columns are numbers, binned where
    # they have more values than bins)
    mem = {n: getattr(fsel, n)(5, discretize=None).fit(X, y) for n in ("JMI", "CMI", "MIM", "MRMR")}
    seen: list[bool] = []
    real = kd.reduce_futures

    def spy(client, parts, combine):
        out = real(client, parts, combine)
        if isinstance(out, dict):
            seen.append(out["prepared"])
        return out

    monkeypatch.setattr(kd, "reduce_futures", spy)
    with _local_client() as client:
        Xd, yd = client.persist(
            [da.from_array(X, chunks=(UNEVEN, 8)), da.from_array(y, chunks=(UNEVEN,))]
        )
        distributed.wait([Xd, yd])
        got = {n: getattr(fsel, n)(5, discretize=None).fit(Xd, yd) for n in mem}
        assert seen and all(seen)
        Xf = client.persist(da.from_array(X.astype(np.float64), chunks=(UNEVEN, 8)))
        distributed.wait(Xf)
        floats = fsel.JMI(5, discretize=None).fit(Xf, yd)  # float values: chunk path
        assert seen[-1] is False
        np.testing.assert_array_equal(Xd.compute(), X)  # the input is untouched
    for n, est in mem.items():
        _assert_same(est, got[n])
    _assert_same(fsel.JMI(5, discretize=None).fit(X.astype(np.float64), y), floats)


def test_actor_tables_narrow_to_int32_and_add_back_exactly():
    # tables go over the wire as int32 when they fit; the client's sum switches to
    # int64 before it could overflow
    from fsel.kernels import _dask as kd

    a = np.array([[3, 0], [2**31 - 1, 5]], dtype=np.int64)
    assert kd.narrow_counts(a).dtype == np.int32
    assert kd.narrow_counts(a + 1).dtype == np.int64  # 2**31 does not fit
    small = kd.narrow_counts(np.array([[1, 2], [3, 4]], dtype=np.int64))
    total = kd.add_counts(kd.add_counts(None, kd.narrow_counts(a)), small)
    assert total.dtype == np.int64
    np.testing.assert_array_equal(total, [[4, 2], [2**31 + 2, 9]])
    twice = kd.add_counts(kd.add_counts(None, small), small)
    assert twice.dtype == np.int32
    np.testing.assert_array_equal(twice, [[2, 4], [6, 8]])


class _FakeCall:
    def __init__(self, value, log, name):
        self.value, self.log, self.name = value, log, name

    def result(self):
        self.log.append(("done", self.name))
        return self.value


class _FakeActor:
    """An actor handle whose calls answer at once, logging when they are sent and
    when their results are taken."""

    def __init__(self, name, blocks, log):
        self.name, self.blocks, self.log = name, blocks, log

    def sum_map(self, fn, args):
        self.log.append(("sent", self.name))
        out = sum(fn(b, *args) for b in self.blocks)
        return _FakeCall(out, self.log, self.name)


def test_actor_sums_over_many_workers_bound_the_tables_in_flight(monkeypatch):
    # any number of workers: one call each; while the tables fit IN_FLIGHT_BYTES all
    # calls are sent at once, else only that many are in flight at a time
    from fsel.kernels import _dask as kd

    rng = np.random.default_rng(4)
    blocks = [[rng.integers(0, 9, size=(3, 4)) for _ in range(i % 3 + 1)] for i in range(20)]
    want = sum(b.sum(axis=0) * 2 for bs in blocks for b in bs)  # fn: 2 * column sums
    log: list = []
    actors = [_FakeActor(i, bs, log) for i, bs in enumerate(blocks)]

    def fn(b, scale):
        return b.sum(axis=0).astype(np.int64) * scale

    got = kd.actor_sum(actors, fn, (2,))
    np.testing.assert_array_equal(got, want)
    assert [e for e, _ in log[:20]] == ["sent"] * 20  # all in flight at once
    log.clear()
    monkeypatch.setattr(kd, "IN_FLIGHT_BYTES", 3 * 16)
    got = kd.actor_sum(actors, fn, (2,), table_bytes=16)
    np.testing.assert_array_equal(got, want)
    in_flight = peak = 0
    for event, _ in log:
        in_flight += 1 if event == "sent" else -1
        peak = max(peak, in_flight)
    assert peak == 3 and len(log) == 40


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
@pytest.mark.parametrize("K", [2, 7, 10])
def test_a_block_counted_in_the_worker_threads_gives_one_calls_counts(monkeypatch, threads, K):
    # each thread counts a range of packed pairs, row block by row block (an odd last
    # feature alone), or a range of the features
    from fsel.kernels import information_dask as kd
    from fsel.kernels._counting import pack_pairs

    rng = np.random.default_rng(K)
    n = 3 * 64 + 11  # several row blocks, a short last one
    C = rng.integers(0, 5, size=(K, n)).astype(np.uint8)
    z = rng.integers(0, 6, size=n)
    monkeypatch.setattr(kd, "_worker_threads", lambda: threads)
    monkeypatch.setattr(kd, "_ROW_BLOCK", 64)
    monkeypatch.setattr(kd, "_PAIR_TABLE_BYTES", 2 * 4 * 25 * 6)  # two pairs at a time
    want = np.zeros((K, 7, 6), dtype=np.int64)  # a plain loop; 7 levels wide
    for k in range(K):
        np.add.at(want[k], (C[k].astype(np.intp), z), 1)
    for packed in (pack_pairs(C), None):
        for zz in (z, z.astype(np.uint8)):
            got = kd._counts(C, zz, 6, 7, packed)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(got, joint_histograms(C, z, 6, 7, packed))
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")  # the numpy counting
    np.testing.assert_array_equal(kd._counts(C, z, 6, 7, pack_pairs(C)), want)


def test_workers_with_several_threads_select_what_memory_selects():
    distributed = pytest.importorskip("distributed")
    X, y = _data(16)
    mem = {n: getattr(fsel, n)(5).fit(X, y) for n in ("JMI", "CMI")}
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=3, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        Xd, yd = _persisted(client, X, y)
        got = {n: getattr(fsel, n)(5).fit(Xd, yd) for n in mem}
    for n, est in mem.items():
        _assert_same(est, got[n])


def test_the_joint_code_of_a_pick_and_the_target_fits_one_byte_when_it_can():
    from fsel.kernels import information_dask as kd

    x = np.array([0, 2, 1, 2], dtype=np.uint8)
    yc = np.array([1, 0, 2, 2], dtype=np.uint8)
    z = kd._joint_code(x, yc, 3, 9)
    assert z.dtype == np.uint8 and z.tolist() == [1, 6, 5, 8]
    assert kd._joint_code(x, yc, 3, 300).tolist() == [1, 6, 5, 8]  # int64 above 256
    y256 = np.array([255, 0, 7, 1], dtype=np.uint8)  # 256 classes, a one-level pick
    z = kd._joint_code(np.zeros(4, np.uint8), y256, 256, 256)
    assert z.dtype == np.uint8 and z.tolist() == [255, 0, 7, 1]
