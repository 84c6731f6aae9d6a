from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = (ROOT / ".." / "shared" / "datasets").resolve()

# a script run by tests/test_gpu.py in a subprocess under numba's CUDA simulator; it
# refuses to be imported without the simulator, so doctest collection skips it
collect_ignore = [
    "_gpu_sim_worker.py",
    "_dask_gpu_sim_worker.py",
    "_gpu_sim_conditional.py",
    "_gpu_sim_columns.py",
]


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


@pytest.fixture
def papers_relief_scaling(monkeypatch):
    """The Relief family's default ``scaling`` set to the papers' rule, ``"range"``
    (min-max scaled features), for the tests that check the papers' formulas against
    brute-force twins written with min-max scaling; an explicit ``scaling=`` still
    wins. fsel's default is ``"robust"`` (issue 23)."""
    from fsel.selectors.relief import _base, _iterative, _nearest, _parzen

    inits = {
        _base.BaseRelief.__init__,
        _nearest._Sampled.__init__,
        _nearest.ReliefF.__init__,
        _iterative.IRelief.__init__,
        _parzen.PRelief.__init__,
    }
    for init in inits:
        monkeypatch.setattr(init, "__kwdefaults__", {**init.__kwdefaults__, "scaling": "range"})
