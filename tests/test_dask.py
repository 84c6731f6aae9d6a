"""NPFS on a Dask cluster: identical results, data scattered once."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_selection import SelectKBest, f_classif

distributed = pytest.importorskip("distributed")

from fsel.datasets import make_npfs_uniform  # noqa: E402
from fsel.meta.npfs import NPFS  # noqa: E402
from fsel.meta.resampling import dask_backend  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def test_npfs_on_dask_matches_serial_and_scatters_once(client, monkeypatch):
    X, y, relevant = make_npfs_uniform(400, 30, 3, random_state=0)
    serial = NPFS(SelectKBest(f_classif, k=5), n_resamples=24, random_state=7).fit(X, y)

    calls = []
    real_scatter = client.scatter

    def counting_scatter(data, *args, **kwargs):
        calls.append(type(data).__name__)
        return real_scatter(data, *args, **kwargs)

    monkeypatch.setattr(client, "scatter", counting_scatter)
    with dask_backend(client) as c:
        assert c is client
        on_dask = NPFS(SelectKBest(f_classif, k=5), n_resamples=24, random_state=7).fit(X, y)

    np.testing.assert_array_equal(serial.selection_matrix_, on_dask.selection_matrix_)
    np.testing.assert_array_equal(serial.relevant_features_, on_dask.relevant_features_)
    assert set(relevant.tolist()) <= set(on_dask.relevant_features_.tolist())
    # X (and y) travel once for the 24 replicates, not once per task
    assert 1 <= calls.count("ndarray") <= 2
    assert client.status == "running"  # a client passed in is not closed


def test_dask_backend_by_address(client):
    X, y, _ = make_npfs_uniform(200, 12, 3, random_state=1)
    serial = NPFS(SelectKBest(f_classif, k=3), n_resamples=8, random_state=0).fit(X, y)
    with dask_backend(client.scheduler.address) as own:
        assert own is not client
        got = NPFS(SelectKBest(f_classif, k=3), n_resamples=8, random_state=0).fit(X, y)
    assert own.status == "closed"
    np.testing.assert_array_equal(serial.selection_matrix_, got.selection_matrix_)


@pytest.mark.slow
def test_npfs_on_process_workers_matches_serial():
    # worker processes: the base selector and the data are pickled to other
    # interpreters, and each replicate still draws exactly the serial rows
    X, y, relevant = make_npfs_uniform(300, 20, 3, random_state=2)
    serial = NPFS(SelectKBest(f_classif, k=4), n_resamples=16, random_state=5).fit(X, y)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        dask_backend(cluster.scheduler_address) as client,
    ):
        assert len(client.scheduler_info()["workers"]) == 2
        got = NPFS(SelectKBest(f_classif, k=4), n_resamples=16, random_state=5).fit(X, y)
    np.testing.assert_array_equal(serial.selection_matrix_, got.selection_matrix_)
    np.testing.assert_array_equal(serial.pvalues_, got.pvalues_)
    assert set(relevant.tolist()) <= set(got.relevant_features_.tolist())
