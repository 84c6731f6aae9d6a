"""Marks shared by the tests that run on joblib's ``multiprocessing`` backend."""

from __future__ import annotations

import pytest


def multiprocessing_available() -> bool:
    from joblib._multiprocessing_helpers import mp

    return mp is not None


# joblib's "multiprocessing" backend forks; Python >= 3.12 warns when a process with
# threads (loky's, dask's) forks, which this suite would turn into an error
MP_MARKS = [
    pytest.mark.skipif(not multiprocessing_available(), reason="multiprocessing unavailable"),
    pytest.mark.filterwarnings(
        "ignore:.*use of fork\\(\\) may lead to deadlocks:DeprecationWarning"
    ),
]
