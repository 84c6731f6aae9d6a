"""The resampling engine: index generators and a parallel replicate runner.

Every resampling method in fsel (NPFS, bootstrap ranking, stability protocols) draws
its row indices here and runs its replicates through :func:`run_replicates`, so the
rules hold everywhere:

* one child seed per replicate, spawned from the caller's ``random_state`` with
  :class:`numpy.random.SeedSequence`; a replicate's indices depend only on that seed
  and its position, never on ``n_jobs`` or the joblib backend, so results are
  bit-identical with one or many workers, threads, processes or a Dask cluster;
* replicates run through :class:`joblib.Parallel`, so any joblib backend carries
  them (``with joblib.parallel_config(backend="dask"): ...``);
* the data goes to the workers once: large arrays are memory-mapped by joblib's
  process backend and scattered once by the Dask backend (see :func:`run_replicates`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from joblib import Parallel, delayed

__all__ = [
    "bootstrap_indices",
    "kfold_indices",
    "replicate_seeds",
    "resample_indices",
    "run_replicates",
    "subsample_indices",
]


def replicate_seeds(random_state: Any, n_replicates: int) -> list[np.random.SeedSequence]:
    """Spawn one independent child seed per replicate.

    ``random_state`` may be None (fresh entropy), an int, a ``SeedSequence`` or a
    ``numpy.random.Generator`` (its bit generator's seed sequence is used, so the
    caller's generator is not advanced). A legacy ``RandomState`` is turned into a
    seed by drawing one integer from it.
    """
    if isinstance(random_state, np.random.SeedSequence):
        root = random_state
    elif isinstance(random_state, np.random.Generator):
        root = random_state.bit_generator.seed_seq  # type: ignore[attr-defined]
    elif isinstance(random_state, np.random.RandomState):
        root = np.random.SeedSequence(int(random_state.randint(0, 2**31 - 1)))
    elif random_state is None or isinstance(random_state, (int, np.integer)):
        root = np.random.SeedSequence(None if random_state is None else int(random_state))
    else:
        raise TypeError(
            f"random_state must be None, an int, a SeedSequence or a Generator, "
            f"got {type(random_state).__name__}"
        )
    return root.spawn(int(n_replicates))


def bootstrap_indices(n_samples: int, seed: np.random.SeedSequence) -> np.ndarray:
    """Row indices of one bootstrap sample (``n_samples`` draws with replacement)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_samples, size=n_samples)


def subsample_indices(
    n_samples: int, seed: np.random.SeedSequence, fraction: float = 0.5
) -> np.ndarray:
    """Row indices of one subsample without replacement (sorted)."""
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    rng = np.random.default_rng(seed)
    m = max(1, int(round(fraction * n_samples)))
    return np.sort(rng.choice(n_samples, size=m, replace=False))


def kfold_indices(
    n_samples: int, n_splits: int, random_state: Any = None
) -> list[np.ndarray]:
    """Training-row indices of each of ``n_splits`` shuffled folds (complements of
    the held-out fold)."""
    if n_splits < 2 or n_splits > n_samples:
        raise ValueError(f"n_splits must be in [2, n_samples={n_samples}], got {n_splits}")
    (seed,) = replicate_seeds(random_state, 1)
    perm = np.random.default_rng(seed).permutation(n_samples)
    folds = np.array_split(perm, n_splits)
    return [np.sort(np.concatenate(folds[:i] + folds[i + 1 :])) for i in range(n_splits)]


def resample_indices(
    n_samples: int,
    n_replicates: int,
    *,
    scheme: str = "bootstrap",
    random_state: Any = None,
    fraction: float = 0.5,
) -> list[np.ndarray]:
    """Row indices of ``n_replicates`` resamples.

    Parameters
    ----------
    scheme : {"bootstrap", "subsample", "kfold"}
        ``"kfold"`` returns the ``n_replicates`` training sets of a shuffled k-fold split.
    """
    if n_replicates < 1:
        raise ValueError(f"the number of replicates must be at least 1, got {n_replicates}")
    if scheme == "kfold":
        return kfold_indices(n_samples, n_replicates, random_state)
    seeds = replicate_seeds(random_state, n_replicates)
    if scheme == "bootstrap":
        return [bootstrap_indices(n_samples, s) for s in seeds]
    if scheme == "subsample":
        return [subsample_indices(n_samples, s, fraction) for s in seeds]
    raise ValueError(f"scheme must be 'bootstrap', 'subsample' or 'kfold', got {scheme!r}")


def run_replicates(
    func: Callable[..., Any],
    X: Any,
    y: Any,
    indices: Sequence[np.ndarray],
    *,
    n_jobs: int | None = None,
    verbose: int = 0,
    progress: Callable[[], None] | None = None,
    **kwargs: Any,
) -> list[Any]:
    """Run ``func(X, y, idx, **kwargs)`` for every index array, in order.

    ``X`` and ``y`` are passed whole with every task; joblib's process backend
    memory-maps large arrays so they are written once, and the Dask backend scatters
    them once when used as ``joblib.parallel_config(backend="dask", scatter=[X, y])``
    (see :func:`fsel.meta.resampling` docs). Results come back in the order of
    ``indices`` whatever the backend.

    ``progress``, when given, is called once per finished replicate (in order).
    """
    tasks = (delayed(func)(X, y, idx, **kwargs) for idx in indices)
    parallel = Parallel(n_jobs=n_jobs, verbose=verbose, return_as="generator")
    out = []
    for result in parallel(tasks):
        out.append(result)
        if progress is not None:
            progress()
    return out
