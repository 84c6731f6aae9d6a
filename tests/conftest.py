from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = (ROOT / ".." / "shared" / "datasets").resolve()


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    """Path to ../shared/datasets; skips the test when the folder is absent."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip("../shared/datasets is not available")
    return SHARED_DATASETS


@pytest.fixture(params=["numpy", "numba"])
def backend(request, monkeypatch):
    """Run a test once with the pure-numpy kernels and once with numba (if installed)."""
    if request.param == "numba":
        pytest.importorskip("numba")
        monkeypatch.delenv("FSEL_DISABLE_NUMBA", raising=False)
    else:
        monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")
    return request.param
