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
* the data goes to the workers once: for process backends the numeric arrays are
  written once to a temporary file and memory-mapped by every worker, the Dask
  backend scatters them once (see :func:`run_replicates` for the exact rules);
* backends that cannot stream results (joblib's ``"multiprocessing"``) are run with
  ``return_as="list"``, with the same results.

Replicates can be described lazily by a :class:`Resample` (its resampling and child seed;
:func:`resample_plan`), so that the rows of each replicate are drawn inside the
worker and only a few bytes per task travel; :func:`selection_matrix` runs any
selector on every replicate, and :func:`dask_backend` points all of this at a Dask
cluster.
"""

from __future__ import annotations

import contextlib
import numbers
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from joblib import Parallel, delayed

from fsel.meta.column_order import column_order, reorder_categorical, take_columns
from fsel.utils.compat import joblib_memmap_threshold_is_set, joblib_runs_in_processes
from fsel.utils.params import check_option, seed_sequence
from fsel.utils.validation import is_sparse

#: the row resampling schemes of the functions here and of NPFS (the vocabulary page
#: says which estimator takes which)
RESAMPLING = ("bootstrap", "subsample", "kfold")

__all__ = [
    "RESAMPLING",
    "Resample",
    "bootstrap_indices",
    "check_meta_input",
    "dask_backend",
    "kfold_indices",
    "replicate_seeds",
    "resample_indices",
    "resample_plan",
    "run_replicates",
    "selection_matrix",
    "subsample_indices",
    "support_indices",
]


def replicate_seeds(random_state: Any, n_resamples: int) -> list[np.random.SeedSequence]:
    """Spawn one independent child seed per replicate.

    ``random_state`` may be None (fresh entropy), an int, a ``SeedSequence`` (copied
    first: it is never mutated, so the same object twice gives the same children) or a
    ``Generator``/``RandomState`` instance (consumed: the root seed is drawn from it,
    as scikit-learn draws from a ``RandomState``); see :func:`fsel.utils.params.seed_sequence`.

    Examples
    --------
    >>> s = np.random.SeedSequence(0)
    >>> a, b = replicate_seeds(s, 2), replicate_seeds(s, 2)
    >>> a[1].generate_state(1) == b[1].generate_state(1), s.n_children_spawned
    (array([ True]), 0)
    """
    return seed_sequence(random_state).spawn(int(n_resamples))


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
    m = max(1, round(fraction * n_samples))
    return np.sort(rng.choice(n_samples, size=m, replace=False))


def kfold_indices(n_samples: int, n_splits: int, random_state: Any = None) -> list[np.ndarray]:
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
    n_resamples: int,
    *,
    resampling: str = "bootstrap",
    random_state: Any = None,
    fraction: float = 0.5,
) -> list[np.ndarray]:
    """Row indices of ``n_resamples`` resamples.

    Parameters
    ----------
    resampling : {"bootstrap", "subsample", "kfold"}
        ``"kfold"`` returns the ``n_resamples`` training sets of a shuffled k-fold split.
    """
    if n_resamples < 1:
        raise ValueError(f"the number of replicates must be at least 1, got {n_resamples}")
    check_option(resampling, RESAMPLING, "resampling")
    if resampling == "kfold":
        return kfold_indices(n_samples, n_resamples, random_state)
    seeds = replicate_seeds(random_state, n_resamples)
    if resampling == "bootstrap":
        return [bootstrap_indices(n_samples, s) for s in seeds]
    return [subsample_indices(n_samples, s, fraction) for s in seeds]


def _mappable(value: Any) -> bool:
    return type(value) is np.ndarray and value.size > 0 and not value.dtype.hasobject


@contextlib.contextmanager
def _shared_arrays(n_jobs: int | None, values: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``values`` with every numeric NumPy array replaced by a read-only memory map of
    a copy written once to a temporary file, when the tasks run in worker processes.

    joblib's process backends pass a memory-mapped array to the workers as a file
    reference, whatever its size, so the data is written once and every task carries
    a few bytes. Nothing changes for the other backends, with one worker, when the
    active ``joblib.parallel_config`` sets ``max_nbytes`` (the caller's choice wins)
    or when the file cannot be written. The folder is removed on exit.
    """
    names = [k for k, v in values.items() if _mappable(v)]
    if not names or joblib_memmap_threshold_is_set() or not joblib_runs_in_processes(n_jobs):
        yield values
        return
    folder = tempfile.mkdtemp(prefix="fsel-data-", dir=os.environ.get("JOBLIB_TEMP_FOLDER"))
    try:
        shared = dict(values)
        try:
            for i, name in enumerate(names):
                path = os.path.join(folder, f"{i}.npy")
                np.save(path, values[name], allow_pickle=False)
                shared[name] = np.load(path, mmap_mode="r", allow_pickle=False)
        except OSError:  # pragma: no cover - e.g. a full disk: ship the arrays as they are
            shared = values
        yield shared
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _parallel(n_jobs: int | None, verbose: int) -> Parallel:
    """A :class:`joblib.Parallel` that streams results when the backend can.

    ``return_as="generator"`` where the active backend supports it, else
    ``return_as="list"`` (joblib's ``"multiprocessing"`` backend, for one, refuses
    generators; joblib checks this in the constructor, before any task runs, so no
    error of a task is caught here).
    """
    try:
        return Parallel(n_jobs=n_jobs, verbose=verbose, return_as="generator")
    except ValueError as exc:
        if "return_as" not in str(exc):
            raise
        return Parallel(n_jobs=n_jobs, verbose=verbose, return_as="list")


def run_replicates(
    func: Callable[..., Any],
    X: Any,
    y: Any,
    indices: Sequence[Any],
    *,
    n_jobs: int | None = None,
    verbose: int = 0,
    progress: Callable[[], None] | None = None,
    **kwargs: Any,
) -> list[Any]:
    """Run ``func(X, y, idx, **kwargs)`` for every entry of ``indices``, in order.

    How the data reaches the workers, by joblib backend:

    * ``"sequential"``, ``"threading"``: nothing is copied; every task sees the
      caller's objects.
    * ``"loky"`` (joblib's default) and ``"multiprocessing"`` with more than one
      worker: every numeric NumPy array among ``X``, ``y`` and the keyword arguments
      is written once to a temporary file (removed when the run ends) and passed as
      a read-only :class:`numpy.memmap`, which joblib ships to the workers as a file
      reference; each task carries a few bytes, not the data, whatever the size of
      the arrays (joblib alone pickles arrays under its ``max_nbytes``, 1 MB by
      default, into every task batch). ``func`` receives :class:`numpy.memmap`
      objects. Object arrays (e.g. mixed-type labels), pandas and polars objects
      are left to joblib: it memory-maps the NumPy arrays over ``max_nbytes``
      inside them and pickles the rest with each task batch. When the active
      ``joblib.parallel_config`` sets ``max_nbytes``, nothing is written here and
      joblib's rule applies as configured. joblib's ``max_nbytes`` itself is never
      changed, so the loky worker pool is reused across calls.
    * ``"dask"``: joblib's Dask backend scatters large arguments to the cluster once
      (see :func:`dask_backend`); ``parallel_config(backend="dask", scatter=[X, y])``
      scatters them explicitly.

    Results come back in the order of ``indices`` and are bit-identical whatever
    the backend and ``n_jobs``.

    Parameters
    ----------
    func : callable
        ``func(X, y, idx, **kwargs)``; must be picklable for a process backend.
    X, y : array-like
    indices : sequence
        One entry per replicate (row indices or a :class:`Resample`).
    n_jobs : int or None
        joblib workers (None: the active ``parallel_config``'s, else 1).
    verbose : int
        joblib verbosity.
    progress : callable, optional
        Called once per finished replicate, in order. Backends that cannot stream
        results (``"multiprocessing"``) return them all at the end of the run, and
        ``progress`` is then called for each of them at that point.
    **kwargs
        Passed to every call of ``func``.

    Returns
    -------
    list
        ``func``'s results, in the order of ``indices``.

    Examples
    --------
    >>> import numpy as np
    >>> X, y = np.arange(12.0).reshape(6, 2), np.arange(6)
    >>> idx = resample_indices(6, 3, random_state=0)
    >>> out = run_replicates(lambda X, y, i: float(y[i].sum()), X, y, idx)
    >>> out == [float(y[i].sum()) for i in idx]
    True
    """
    indices = list(indices)
    if len(indices) <= 1:  # one replicate: no worker pool, no shared copies
        out = [func(X, y, idx, **kwargs) for idx in indices]
        if progress is not None and out:
            progress()
        return out
    if n_jobs is not None:  # never more workers than replicates (nor joblib's cap)
        from joblib import effective_n_jobs

        n_jobs = max(1, min(effective_n_jobs(n_jobs), len(indices)))
    out = []
    with _shared_arrays(n_jobs, {"X": X, "y": y, **kwargs}) as shared:
        Xs, ys = shared.pop("X"), shared.pop("y")
        tasks = (delayed(func)(Xs, ys, idx, **shared) for idx in indices)
        for result in _parallel(n_jobs, verbose)(tasks):
            out.append(result)
            if progress is not None:
                progress()
    return out


# --------------------------------------------------------------------------- lazy plans
@dataclass(frozen=True)
class Resample:
    """One replicate, described by its resampling and child seed (a few bytes to ship).

    :meth:`indices` draws the rows; for the bootstrap and the subsample schemes it
    gives exactly the rows :func:`resample_indices` gives for the same seed, so a plan
    and the eager list agree.

    Attributes
    ----------
    resampling : {"bootstrap", "subsample", "kfold"}
    n_samples : int
    seed : numpy.random.SeedSequence or None
        The replicate's child seed (None for a k-fold training set).
    fraction : float
        Subsample fraction.
    rows : ndarray or None
        The explicit training rows of a k-fold replicate.
    """

    resampling: str
    n_samples: int
    seed: np.random.SeedSequence | None = None
    fraction: float = 0.5
    rows: np.ndarray | None = None

    def indices(self) -> np.ndarray:
        """The row indices of this replicate."""
        if self.rows is not None:
            return self.rows
        if self.resampling == "bootstrap":
            return bootstrap_indices(self.n_samples, self.seed)  # type: ignore[arg-type]
        return subsample_indices(self.n_samples, self.seed, self.fraction)  # type: ignore[arg-type]

    def redrawn(self, attempt: int) -> Resample:
        """This replicate drawn again (``attempt >= 1``) from a sibling of its seed:
        the draw that replaces one whose rows hold a single class of ``y``
        (:func:`rows_with_two_classes`); its :meth:`estimator_seed` is unchanged."""
        return replace(self, seed=sibling_seed(self.seed, attempt))

    def estimator_seed(self) -> int:
        """An integer seed for a randomised base estimator run on this replicate.

        Drawn from a sibling of the replicate's seed (its spawn key extended by a
        fixed word), so it is independent of the rows and never advances any state.
        """
        if self.seed is None:
            return 0
        sibling = np.random.SeedSequence(
            self.seed.entropy, spawn_key=(*self.seed.spawn_key, 0x5EED)
        )
        return int(sibling.generate_state(1, dtype=np.uint32)[0] >> 1)


def resample_plan(
    n_samples: int,
    n_resamples: int,
    *,
    resampling: str = "bootstrap",
    random_state: Any = None,
    fraction: float = 0.5,
) -> list[Resample]:
    """Lazy form of :func:`resample_indices`: one :class:`Resample` per replicate.

    The same arguments give replicates whose :meth:`Resample.indices` equal the
    arrays :func:`resample_indices` returns. For ``"kfold"`` the (few) training sets
    are held explicitly and the ``k``-fold replicates carry distinct estimator seeds.

    Examples
    --------
    >>> plan = resample_plan(5, 3, random_state=0)
    >>> eager = resample_indices(5, 3, random_state=0)
    >>> all((p.indices() == e).all() for p, e in zip(plan, eager))
    True
    """
    if n_resamples < 1:
        raise ValueError(f"the number of replicates must be at least 1, got {n_resamples}")
    if n_samples < 1:
        raise ValueError(f"n_samples must be at least 1, got {n_samples}")
    if resampling == "kfold":
        folds = kfold_indices(n_samples, n_resamples, random_state)
        seeds = replicate_seeds(random_state, n_resamples)
        return [
            Resample("kfold", n_samples, seed=s, rows=f) for s, f in zip(seeds, folds, strict=True)
        ]
    if resampling not in ("bootstrap", "subsample"):
        check_option(resampling, RESAMPLING, "resampling")
    if resampling == "subsample" and not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    return [
        Resample(resampling, n_samples, seed=s, fraction=fraction)
        for s in replicate_seeds(random_state, n_resamples)
    ]


# --------------------------------------------------------------------------- selections
def _rows(data: Any, idx: np.ndarray) -> Any:
    """Rows ``idx`` of an array, a pandas or polars object (columns and dtypes kept)."""
    if hasattr(data, "iloc"):
        return data.iloc[idx]
    if type(data).__module__.startswith("polars"):
        return data[idx]
    return data[idx]


def support_indices(selected: Any, n_features: int) -> np.ndarray:
    """Turn what a selector returned (a boolean mask or indices) into sorted indices.

    Raises ValueError for masks of the wrong length, out-of-range or repeated indices.
    """
    arr = np.asarray(selected)
    if arr.dtype == bool:
        if arr.shape != (n_features,):
            raise ValueError(
                f"the selector returned a boolean mask of shape {arr.shape}; expected "
                f"({n_features},)"
            )
        return np.flatnonzero(arr)
    arr = arr.reshape(-1)
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
            arr = arr.astype(np.intp)
        else:
            raise ValueError(
                f"the selector must return feature indices or a boolean mask, got dtype {arr.dtype}"
            )
    arr = arr.astype(np.intp)
    if arr.size and (arr.min() < 0 or arr.max() >= n_features):
        raise ValueError(
            f"the selector returned feature index {int(arr.min() if arr.min() < 0 else arr.max())}"
            f", outside [0, {n_features})"
        )
    if np.unique(arr).size != arr.size:
        raise ValueError("the selector returned the same feature twice")
    return np.sort(arr)


def _seed_estimator(est: Any, seed: int) -> None:
    """Fix every unset ``random_state`` of ``est`` (nested ones too) to ``seed``."""
    params = est.get_params(deep=True)
    fixed = {k: seed for k, v in params.items() if k.endswith("random_state") and v is None}
    if fixed:
        est.set_params(**fixed)


#: draws of one resample at most (the first and its redraws) while its rows hold a
#: single class of ``y`` (:func:`rows_with_two_classes`)
MAX_DRAWS = 100


def sibling_seed(seed: np.random.SeedSequence, attempt: int) -> np.random.SeedSequence:
    """The seed of redraw ``attempt`` of the resample drawn from ``seed``: its spawn
    key extended by a fixed word and the attempt (independent of every replicate's
    own seed and children; the same whatever the workers)."""
    return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 0xC1A55, attempt))


def _target_values(y: Any) -> np.ndarray | None:
    """``y``'s values as a 1-D numpy array (pandas and polars too), None otherwise."""
    v = y.to_numpy() if hasattr(y, "to_numpy") else np.asarray(y)
    return v if v.ndim == 1 else None


def one_class(y: Any, idx: np.ndarray | None = None) -> bool:
    """Whether ``y`` (its rows ``idx``) holds a single value and at least one row.

    Examples
    --------
    >>> y = np.array([0, 0, 1, 0])
    >>> one_class(y), one_class(y, np.array([0, 3, 2])), one_class(y, np.array([3, 1]))
    (False, False, True)
    """
    v = _target_values(y)
    if v is None:
        return False
    w = v if idx is None else v[idx]
    return bool(w.size) and bool(np.all(w == w[0]))


def rows_with_two_classes(
    draw: Callable[[int], list[np.ndarray]], y: Any, what: str
) -> list[np.ndarray]:
    """The first of ``draw(0), draw(1), ...`` whose every row set holds at least two
    values of ``y``: a resample that missed a rare class is drawn again (from a
    sibling seed, :func:`sibling_seed`), as a selector cannot be fitted on one class.
    Where ``y`` itself holds one value (or is not 1-D), ``draw(0)``. ``ValueError``
    after :data:`MAX_DRAWS` draws, naming ``what`` and the rarest class.

    Examples
    --------
    >>> y = np.array([0] * 9 + [1])
    >>> draw = lambda a: [np.array([a, 9 - 2 * a])]  # rows 0, 9 first; then 1, 7; ...
    >>> rows_with_two_classes(draw, y, "a resample")[0].tolist()
    [0, 9]
    >>> try:
    ...     rows_with_two_classes(lambda a: [np.array([a % 9, 5])], y, "a resample")
    ... except ValueError as exc:
    ...     print(str(exc)[:70])
    a resample: 100 draws in a row held a single class of y (its rarest cl
    """
    parts = draw(0)
    if not any(one_class(y, p) for p in parts) or one_class(y) or _target_values(y) is None:
        return parts
    for attempt in range(1, MAX_DRAWS):
        parts = draw(attempt)
        if not any(one_class(y, p) for p in parts):
            return parts
    _, counts = np.unique(_target_values(y), return_counts=True)
    raise ValueError(
        f"{what}: {MAX_DRAWS} draws in a row held a single class of y (its rarest class "
        f"has {int(counts.min())} of {int(counts.sum())} rows); resample fewer rows out, "
        "or use resampling='subsample' with a larger fraction"
    )


def _replicate_rows(replicate: Any, y: Any) -> np.ndarray:
    """The rows of one replicate: a :class:`Resample`'s (drawn again while they hold
    a single class of ``y``; a k-fold training set cannot be, and such a one is an
    error naming the folds), or the given indices."""
    if not isinstance(replicate, Resample):
        return np.asarray(replicate)
    if replicate.rows is not None:
        if one_class(y, replicate.rows) and not one_class(y):
            raise ValueError(
                "resampling='kfold': a training set (the rows outside one fold) holds a "
                "single class of y; use fewer folds, or resampling='bootstrap'"
            )
        return replicate.rows
    (idx,) = rows_with_two_classes(
        lambda a: [(replicate.redrawn(a) if a else replicate).indices()],
        y,
        f"resampling={replicate.resampling!r}",
    )
    return idx


def fit_on_rows(
    X: Any,
    y: Any,
    idx: np.ndarray,
    selector: Any,
    n_features: int,
    seed: int | None,
    first: bool = False,
) -> np.ndarray:
    """Fit ``selector`` (cloned; every unset ``random_state`` set to ``seed``, where
    given) or call it on the rows ``idx``; the selected feature indices.

    An fsel selector sees the columns in a random order (:func:`column_order`), but
    on the ``first`` replicate, which shows them as given: its warnings name the
    columns of an unnamed table by their true positions, and the other replicates'
    warnings, which would name shuffled positions, are left out for such a table (a
    frame's names move with its columns: its warnings always pass)."""
    Xb, yb = _rows(X, idx), _rows(y, idx)
    if hasattr(selector, "fit"):
        from sklearn.base import clone

        est = clone(selector)
        if seed is not None:
            _seed_estimator(est, seed)
        order = None if first else column_order(est, n_features, seed, idx)
        if order is not None:  # the columns in a random order: ties fall at random
            Xb = take_columns(Xb, order)
            reorder_categorical(est, order)
        with warnings.catch_warnings():
            if order is not None and not hasattr(Xb, "columns"):  # shuffled positions
                warnings.simplefilter("ignore", UserWarning)
            est.fit(Xb, yb)
        if not hasattr(est, "get_support"):
            raise TypeError(
                f"the selector {type(selector).__name__} has no get_support(); pass a "
                "feature selector (fsel selector, SelectKBest, RFE, ...) or a callable "
                "(X, y) -> indices"
            )
        out = support_indices(est.get_support(indices=True), n_features)
        if order is not None:
            out = np.sort(order[out])
    else:
        out = selector(Xb, yb)
    return support_indices(out, n_features)


def _select_on_replicate(
    X: Any, y: Any, replicate: Any, selector: Any, n_features: int
) -> np.ndarray:
    """Fit ``selector`` on one replicate's rows; return the selected feature indices."""
    idx = _replicate_rows(replicate, y)
    seed = replicate.estimator_seed() if isinstance(replicate, Resample) else None
    first = isinstance(replicate, Resample) and replicate.seed is not None
    first = first and replicate.seed.spawn_key[-1:] == (0,)  # the plan's first child
    return fit_on_rows(X, y, idx, selector, n_features, seed, first)


def selection_matrix(
    selector: Any,
    X: Any,
    y: Any,
    n_resamples: int = 100,
    *,
    resampling: str = "bootstrap",
    fraction: float = 0.5,
    n_jobs: int | None = None,
    random_state: Any = None,
    progress: Callable[[], None] | None = None,
    verbose: int = 0,
) -> np.ndarray:
    """Run a selector on ``n_resamples`` resamples of the rows: a replicates x features
    0/1 matrix.

    Entry ``[l, i]`` is True when replicate ``l`` selected feature ``i`` (the transpose
    of the matrix :math:`\\mathbf{X}` of Ditzler, Polikar & Rosen 2015; fsel keeps
    every matrix over replicates with one row per replicate).

    Parameters
    ----------
    selector : estimator or callable
        An fsel selector, any scikit-learn selector with ``get_support`` (cloned per
        replicate; an unset ``random_state`` is fixed per replicate from the child
        seed), or a callable ``(X, y) -> indices or boolean mask``.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Passed to the selector row-subset, with its columns and dtypes unchanged.
    y : array-like of shape (n_samples,)
    n_resamples : int
    resampling : {"bootstrap", "subsample", "kfold"}
    fraction : float
        Subsample fraction.
    n_jobs : int or None
        joblib workers; the active joblib backend (threads, processes, Dask) carries
        the replicates and the result does not depend on it.
    random_state : None, int, SeedSequence or Generator
    progress : callable, optional
        Called once per finished replicate.
    verbose : int
        joblib verbosity.

    Returns
    -------
    ndarray of bool, shape (n_resamples, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.feature_selection import SelectKBest, f_classif
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 4)); y = (X[:, 0] > 0).astype(int)
    >>> M = selection_matrix(SelectKBest(f_classif, k=1), X, y, 10, random_state=0)
    >>> M.shape, M.sum(axis=0).tolist()
    ((10, 4), [10, 0, 0, 0])
    """
    if is_sparse(X):  # replicates take rows: CSR, converted once (COO has no rows)
        X = X.tocsr()
    if hasattr(X, "shape") and len(X.shape) == 2:
        n_samples, n_features = int(X.shape[0]), int(X.shape[1])
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        n_samples, n_features = X.shape
    if not hasattr(y, "iloc") and not type(y).__module__.startswith("polars"):
        y = np.asarray(y)
    if not isinstance(n_resamples, numbers.Integral) or n_resamples < 1:
        raise ValueError(f"the number of replicates must be a positive int, got {n_resamples!r}")
    plan = resample_plan(
        n_samples,
        int(n_resamples),
        resampling=resampling,
        random_state=random_state,
        fraction=fraction,
    )
    chosen = run_replicates(
        _select_on_replicate,
        X,
        y,
        plan,
        n_jobs=n_jobs,
        verbose=verbose,
        progress=progress,
        selector=selector,
        n_features=n_features,
    )
    out = np.zeros((len(plan), n_features), dtype=bool)
    for j, idx in enumerate(chosen):
        out[j, idx] = True
    return out


# --------------------------------------------------------------------------- dask
@contextlib.contextmanager
def dask_backend(scheduler_address: Any = None, **client_kwargs: Any) -> Iterator[Any]:
    """Run every fsel replicate loop on a Dask cluster inside a ``with`` block.

    Connects a :class:`distributed.Client` to ``scheduler_address`` (e.g.
    ``"tcp://10.0.0.5:8786"``; None starts a local cluster; an existing ``Client``
    is used as it is and not closed) and activates
    ``joblib.parallel_config(backend="dask", n_jobs=-1)``, so NPFS, bootstrap ranking
    and the stability protocols spread their replicates over all the cluster's
    workers. The data is scattered to the cluster once per call, not once per
    replicate (joblib's Dask backend scatters large arguments once and reuses them).

    Parameters
    ----------
    scheduler_address : str, distributed.Client or None
    **client_kwargs
        Passed to :class:`distributed.Client` when it is created here.

    Yields
    ------
    distributed.Client

    Examples
    --------
    >>> from fsel import NPFS, JMI                     # doctest: +SKIP
    >>> with dask_backend("tcp://scheduler:8786"):     # doctest: +SKIP
    ...     NPFS(JMI(10), n_bootstraps=1000, random_state=0).fit(X, y)
    """
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "running on a Dask cluster needs the 'distributed' package: pip install 'fsel[dask]'"
        ) from exc
    from joblib import parallel_config

    own = not isinstance(scheduler_address, Client)
    client = Client(scheduler_address, **client_kwargs) if own else scheduler_address
    try:
        with parallel_config(backend="dask", n_jobs=-1):
            yield client
    finally:
        if own:
            client.close()


def check_meta_input(
    est: Any, X: Any, y: Any, *, min_samples: int, accept_sparse: bool = False
) -> tuple[Any, Any, int, int]:
    """Validate the input of a meta-estimator (NPFS, StabilitySelection) once.

    A DataFrame is passed on as it is (its columns and dtypes are the wrapped
    selector's business) after a check of its shape and names; a scipy.sparse matrix
    (``accept_sparse=True``) is validated without densifying and passed on as CSR rows;
    anything else is validated as a table whose missing values go through (the wrapped
    selector applies its own rule). Records ``feature_names_in_`` and
    ``n_features_in_`` on ``est`` and checks ``y`` against ``est._target_kind``.

    Returns ``(X_work, y_work, n_samples, n_features)``.

    Examples
    --------
    >>> import numpy as np
    >>> class Meta:
    ...     _target_kind = "classification"
    >>> m = Meta()
    >>> Xw, yw, n, p = check_meta_input(m, np.zeros((5, 3)), [0, 1, 0, 1, 1], min_samples=4)
    >>> (n, p, m.n_features_in_)
    (5, 3, 3)
    """
    from fsel.utils.compat import check_feature_names
    from fsel.utils.targets import check_target
    from fsel.utils.validation import check_table, check_unique_names, is_dataframe, is_sparse

    name = type(est).__name__
    if is_dataframe(X):
        check_unique_names(X, name)
        n_samples, n_features = int(X.shape[0]), int(X.shape[1])
        if n_samples < min_samples or n_features < 1:
            raise ValueError(
                f"{name}: X has {n_samples} sample(s) and {n_features} feature(s); at "
                f"least {min_samples} samples and 1 feature are required"
            )
        Xw = X
    elif accept_sparse and is_sparse(X):
        table = check_table(
            X,
            min_samples=min_samples,
            estimator_name=name,
            accept_sparse=True,
            allow_missing=True,
        )
        n_samples, n_features = table.values.shape
        del table
        Xw = X.tocsr()
    else:
        table = check_table(X, min_samples=min_samples, estimator_name=name, allow_missing=True)
        n_samples, n_features = table.values.shape
        Xw = np.asarray(X)
    check_feature_names(est, X, reset=True)
    est.n_features_in_ = n_features
    check_target(y, n_samples, kind=est._target_kind, estimator_name=name)
    yw = y if hasattr(y, "iloc") else np.asarray(y)
    if type(yw).__module__.startswith("polars"):
        yw = yw.to_numpy()
    return Xw, yw, n_samples, n_features
