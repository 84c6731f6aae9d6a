"""
NPFS on a Dask cluster
======================

NPFS's bootstraps are independent, so they spread over a cluster. fsel runs them
through joblib; :func:`fsel.meta.resampling.dask_backend` points joblib at a Dask
cluster, the data are sent to the workers once (scattered), and each task carries
only its seed. The result is identical to the local run for the same
``random_state``, whatever the backend or the number of workers.

Here the "cluster" is a small :class:`distributed.LocalCluster` of threads in this
process; on a real deployment pass the scheduler's address
(``dask_backend("tcp://HOST:8786")``) or a ``distributed.Client``.
"""

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster

import fsel
from fsel.datasets import make_npfs_uniform
from fsel.meta.resampling import dask_backend

X, y, relevant = make_npfs_uniform(n_samples=500, n_features=25, n_relevant=5, random_state=0)

cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None)
client = Client(cluster)

tic = time.perf_counter()
with dask_backend(client):
    on_dask = fsel.NPFS(fsel.MIM(10), n_resamples=200, random_state=0).fit(X, y)
dask_s = time.perf_counter() - tic

client.close()
cluster.close()

tic = time.perf_counter()
local = fsel.NPFS(fsel.MIM(10), n_resamples=200, random_state=0).fit(X, y)
local_s = time.perf_counter() - tic

print("relevant on Dask: ", sorted(on_dask.relevant_features_.tolist()))
print("relevant locally: ", sorted(local.relevant_features_.tolist()))
print(
    "identical selection matrices:",
    np.array_equal(on_dask.selection_matrix_, local.selection_matrix_),
)
print(
    f"time: Dask {dask_s:.1f} s, local {local_s:.1f} s (a tiny job: the cluster's "
    "overhead dominates; it pays off for costly selectors and many bootstraps)"
)

# %%
# How often each feature was picked on the 200 bootstraps, against the NPFS
# threshold.

fig, ax = plt.subplots(figsize=(6, 3))
counts = on_dask.counts_
ax.bar(
    range(X.shape[1]), counts, color=["C3" if j in relevant else "C0" for j in range(X.shape[1])]
)
ax.axhline(on_dask.threshold_, color="k", ls="--", lw=1, label="NPFS threshold")
ax.set_xlabel("feature (red: relevant)")
ax.set_ylabel("times selected (of 200)")
ax.legend()
fig.tight_layout()
