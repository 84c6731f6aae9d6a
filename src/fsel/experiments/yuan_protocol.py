"""Yuan's simulation: detection rates of ranking indices with and without bootstrap.

The paper's experiment (Section IV) in one call, :func:`simulate`: for each of the six
regression models of :func:`fsel.datasets.make_yuan_regression` (``d = 10`` N(0, 1)
inputs, ``N = 200`` rows), draw ``R`` data sets, score the ``d`` features with an
index and count a *detection* when the top-``K`` features (``K = 4`` for model 1, 2
otherwise) are exactly the genuine ones. Without bootstrap, the rate over ``R`` data
sets is estimated ``M`` times (Table IV.1: mean and standard deviation of the ``M``
rates, ``R = M = 100``). With bootstrap, each data set's scores are the mean over
``B = 100`` resamples (Table IV.2: one rate over ``R = 100`` data sets; ``B = M`` keeps
the number of index evaluations equal).

Protocol choices the paper leaves open (stated, not tuned):

* slice counts follow the ``"auto"`` rules of :mod:`fsel.kernels.ranking_indices`:
  ``H = clip(N // 20, 2, 10) = 10`` slices of ``y`` for the K-S indices (about 20
  rows a slice) and ``S = T = clip(floor(sqrt(N / 5)), 2, 10) = 6`` for the
  chi-square / MI table (Cochran's five expected counts a cell); the
  ``yuan-sensitivity`` reproduction shows how the rates move with them;
* the equal-count slices follow the kernel's reversal-symmetric midpoint rule (an item
  goes to slice ``floor((p + 1/2) S / N)``; see :mod:`fsel.kernels.ranking_indices`).
  At ``N = 200`` it leaves the ``H = 10`` slices of the K-S indices as they were under
  the earlier ``floor(p S / N)`` rule, but moves one row at some of the ``S = T = 6``
  boundaries of the chi-square / MI table (slice sizes 33, 34, 33, 33, 34, 33 instead
  of 34, 33, 33, 34, 33, 33): chi2/mi rates moved by at most 0.06 against runs made
  before that change (``docs/reproductions.md`` holds the new runs); no item is shared at
  ``N = 200`` (``(2p + 1) S / (2N)`` is never a whole number there);
* data set ``(m, r)`` is drawn from its own child seed, so the bootstrap run scores
  the very data sets of the first repetition of the plain run, and both detection
  rates on the same data are reported (a paired comparison);
* ties between scores go to the lower feature index (the genuine ones) — with
  continuous data they do not occur.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from joblib import Parallel, delayed

from fsel.datasets import make_yuan_regression
from fsel.experiments.cache import timed
from fsel.kernels.ranking_indices import (
    INDEX_NAMES,
    INDICES,
    ranking_scores,
    ranking_scores_batch,
    resolve_slices,
)
from fsel.meta.bootstrap_ranking import bootstrap_scores
from fsel.meta.resampling import replicate_seeds

__all__ = [
    "MODELS",
    "N_GENUINE",
    "PAPER_TABLE1",
    "PAPER_TABLE2",
    "YuanSimulation",
    "simulate",
]

MODELS = (1, 2, 3, 4, 5, 6)
N_GENUINE = {1: 4, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}

_T1 = """
1 .44 .05 .69 .04 .74 .04 .94 .02 .81 .04 .98 .01 .97 .02 .94 .03
2 .16 .04 .17 .04 .18 .03 .26 .04 .22 .04 .30 .05 .28 .04 .25 .04
3 .33 .05 .35 .05 .41 .05 .57 .05 .42 .05 .63 .04 .45 .05 .43 .05
4 .42 .05 .59 .05 .49 .05 .50 .05 .58 .05 .55 .05 .39 .04 .36 .05
5 .90 .03 .94 .02 .94 .02 .77 .04 .36 .05 .76 .04 .98 .01 .97 .02
6 .79 .04 .92 .02 .94 .02 .16 .04 .11 .03 .13 .03 .19 .04 .15 .03
"""
_T2 = """
1 .65 .71 .79 1.0 .99 1.0 1.0 .96
2 .18 .25 .24 .42 .39 .40 .45 .39
3 .31 .32 .36 .59 .53 .65 .59 .55
4 .52 .63 .54 .62 .75 .69 .48 .48
5 .93 .94 .93 .93 .82 .93 1.0 .99
6 .90 .93 .93 .21 .20 .14 .37 .25
"""


def _parse_t1() -> dict[int, dict[str, tuple[float, float]]]:
    out = {}
    for line in _T1.strip().splitlines():
        v = line.split()
        nums = [float(a) for a in v[1:]]
        out[int(v[0])] = {nm: (nums[2 * i], nums[2 * i + 1]) for i, nm in enumerate(INDEX_NAMES)}
    return out


def _parse_t2() -> dict[int, dict[str, float]]:
    out = {}
    for line in _T2.strip().splitlines():
        v = line.split()
        out[int(v[0])] = {nm: float(a) for nm, a in zip(INDEX_NAMES, v[1:], strict=True)}
    return out


#: Yuan's Table IV.1, ``{model: {index: (mean, std)}}`` (no bootstrap, R = M = 100).
PAPER_TABLE1 = _parse_t1()
#: Yuan's Table IV.2, ``{model: {index: rate}}`` (bootstrap B = 100, R = 100).
PAPER_TABLE2 = _parse_t2()


# --------------------------------------------------------------------------- simulate


@dataclass
class YuanSimulation:
    """Detections of one simulation run.

    Attributes
    ----------
    models, indices : tuple
    detected : ndarray of bool, shape (n_models, n_indices, n_repeats, n_datasets)
        Whether the top-K set equalled the genuine set (bootstrap-mean scores when
        ``n_bootstraps > 0``).
    detected_plain : ndarray of bool or None
        For bootstrap runs, the plain index on the same data sets.
    n_bootstraps : int
        0 for the plain indices.
    params : dict
        The resolved ``n_slices``, ``n_bins_x``, ``n_bins_y`` and the sizes.
    """

    models: tuple[int, ...]
    indices: tuple[str, ...]
    detected: np.ndarray
    detected_plain: np.ndarray | None
    n_bootstraps: int
    params: dict[str, Any] = field(default_factory=dict)

    def rates(self, plain: bool = False) -> np.ndarray:
        """Detection rate of every repetition, shape (n_models, n_indices, n_repeats)."""
        det = self.detected_plain if plain else self.detected
        if det is None:
            raise ValueError("this run has no plain detections on the bootstrap data sets")
        return det.mean(axis=3)

    def mean(self, plain: bool = False) -> np.ndarray:
        """Mean detection rate, shape (n_models, n_indices)."""
        return self.rates(plain).mean(axis=2)

    def std(self, plain: bool = False) -> np.ndarray:
        """Standard deviation of the rate of ``R`` data sets, shape (n_models, n_indices).

        The spread of the ``M`` repetitions (``ddof=1``) when ``M > 1``, else the
        binomial ``sqrt(p (1 - p) / R)`` of the single rate.
        """
        r = self.rates(plain)
        if r.shape[2] > 1:
            return r.std(axis=2, ddof=1)
        p = r[:, :, 0]
        return np.sqrt(p * (1 - p) / self.detected.shape[3])

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per (model, index) for CSV output."""
        mean, std = self.mean(), self.std()
        rows = []
        for a, model in enumerate(self.models):
            for b, name in enumerate(self.indices):
                row: dict[str, Any] = {
                    "model": model,
                    "index": name,
                    "mean": round(float(mean[a, b]), 4),
                    "std": round(float(std[a, b]), 4),
                }
                if self.detected_plain is not None:
                    row["plain_same_data"] = round(float(self.mean(True)[a, b]), 4)
                rows.append(row)
        return rows


def _detect(scores: dict[str, np.ndarray], names: Sequence[str], k: int) -> np.ndarray:
    """(n_sets, n_indices) bool: the best ``k`` features are exactly ``0..k-1``."""
    out = []
    for nm in names:
        s = scores[nm]
        key = -s if INDICES[nm].higher_is_better else s
        top = np.argsort(key, axis=1, kind="stable")[:, :k]
        out.append(np.all(top < k, axis=1))
    return np.stack(out, axis=1)


def _dataset(model: int, seed: np.random.SeedSequence, n: int, d: int) -> tuple[Any, ...]:
    """Data set drawn from its own seed, and the seed of its bootstrap resamples."""
    data_seed, boot_seed = seed.spawn(2)
    X, y, _ = make_yuan_regression(model, n_samples=n, n_features=d, random_state=data_seed)
    return X, y, boot_seed


def _plain_task(
    model: int,
    seeds: Sequence[np.random.SeedSequence],
    n: int,
    d: int,
    names: tuple[str, ...],
    params: dict[str, int],
) -> np.ndarray:
    sets = [_dataset(model, s, n, d) for s in seeds]
    X = np.stack([s[0] for s in sets])
    y = np.stack([s[1] for s in sets])
    return _detect(ranking_scores_batch(X, y, names, **params), names, N_GENUINE[model])


def _bootstrap_task(
    model: int,
    seeds: Sequence[np.random.SeedSequence],
    n: int,
    d: int,
    names: tuple[str, ...],
    params: dict[str, int],
    n_bootstraps: int,
) -> tuple[np.ndarray, np.ndarray]:
    k = N_GENUINE[model]
    boot, plain = [], []
    for s in seeds:
        X, y, boot_seed = _dataset(model, s, n, d)
        b = bootstrap_scores(
            X,
            y,
            names,
            n_resamples=n_bootstraps,
            random_state=boot_seed,
            batch_size=n_bootstraps,
            **params,
        )
        boot.append(_detect({nm: v.mean(axis=0)[None] for nm, v in b.items()}, names, k)[0])
        once = ranking_scores(X, y, names, **params)
        plain.append(_detect({nm: v[None] for nm, v in once.items()}, names, k)[0])
    return np.array(boot), np.array(plain)


def _block_parts(
    model: int,
    block: Sequence[np.random.SeedSequence],
    n: int,
    d: int,
    names: tuple[str, ...],
    params: dict[str, int],
    n_bootstraps: int,
) -> dict[str, Any]:
    """Cache key of one block: everything its detections depend on, the seeds included
    (a child seed is fixed by its root entropy and spawn key)."""
    return {
        "protocol": "yuan-detection-block",
        "model": model,
        "indices": list(names),
        "params": params,
        "n_samples": n,
        "n_features": d,
        "n_bootstraps": n_bootstraps,
        "seeds": [[str(s.entropy), list(s.spawn_key)] for s in block],
    }


def simulate(
    *,
    models: Sequence[int] = MODELS,
    indices: Sequence[str] = INDEX_NAMES,
    n_datasets: int = 100,
    n_repeats: int = 100,
    n_bootstraps: int = 0,
    n_samples: int = 200,
    n_features: int = 10,
    n_slices: int | str = "auto",
    n_bins_x: int | str = "auto",
    n_bins_y: int | str = "auto",
    random_state: Any = 0,
    n_jobs: int | None = None,
    cache: Any = None,
    progress: Callable[[int], None] | None = None,
) -> YuanSimulation:
    """Run Yuan's detection-rate simulation (Section IV) for several models and indices.

    Parameters
    ----------
    models : sequence of int
        Model numbers 1..6 of :func:`fsel.datasets.make_yuan_regression`.
    indices : sequence of str
        Index names (``In, In3, In5, K1, K2, K3, chi2, mi``).
    n_datasets : int
        ``R``, data sets per detection rate (paper: 100).
    n_repeats : int
        ``M``, repetitions of the rate (paper: 100 without bootstrap, 1 with).
    n_bootstraps : int
        ``B``; 0 scores the plain index, ``B > 0`` the mean over ``B`` resamples
        (paper: 100).
    n_samples, n_features : int
        ``N = 200`` and ``d = 10`` in the paper.
    n_slices, n_bins_x, n_bins_y : int or "auto"
        Slice counts (see :mod:`fsel.kernels.ranking_indices`).
    random_state : int, SeedSequence or None
    n_jobs : int or None
        joblib workers over blocks of data sets; results do not depend on it.
    cache : ResultCache, optional
        A :class:`fsel.experiments.cache.ResultCache`: every block of data sets (250
        without bootstrap, 5 with) is looked up there first and stored as soon as it
        is done, so an interrupted run resumes with the blocks that were left.
    progress : callable, optional
        Called with the number of data sets of every finished (or cached) block.

    Returns
    -------
    YuanSimulation

    Examples
    --------
    >>> sim = simulate(models=[5], indices=["In3", "chi2"], n_datasets=20, n_repeats=2)
    >>> sim.mean().shape, bool(sim.mean()[0, 1] > 0.5)
    ((1, 2), True)
    """
    names = tuple(indices)
    for nm in names:
        if nm not in INDICES:
            raise ValueError(f"unknown index {nm!r}; choose from {', '.join(INDEX_NAMES)}")
    models = tuple(int(m) for m in models)
    for m in models:
        if m not in N_GENUINE:
            raise ValueError(f"models are 1..6, got {m}")
    if n_datasets < 1 or n_repeats < 1 or n_bootstraps < 0:
        raise ValueError("n_datasets and n_repeats must be >= 1 and n_bootstraps >= 0")
    params = {
        "n_slices": resolve_slices(n_slices, n_samples, kind="ks"),
        "n_bins_x": resolve_slices(n_bins_x, n_samples, kind="table"),
        "n_bins_y": resolve_slices(n_bins_y, n_samples, kind="table"),
    }
    total = n_datasets * n_repeats
    # blocks of data sets per task: fixed by the sizes only (never by n_jobs)
    per_task = 250 if n_bootstraps == 0 else 5
    det = np.zeros((len(models), len(names), total), dtype=bool)
    plain = np.zeros_like(det) if n_bootstraps else None
    # one root seed per model number, so a run on a subset of the models agrees
    roots = replicate_seeds(random_state, len(N_GENUINE))
    results: dict[tuple[int, int], Any] = {}
    todo = []
    for a, model in enumerate(models):
        seeds = roots[model - 1].spawn(total)
        for i in range(0, total, per_task):
            blk = seeds[i : i + per_task]
            key = _block_parts(model, blk, n_samples, n_features, names, params, n_bootstraps)
            hit = None if cache is None else cache.get(key)
            if hit is not None:
                results[(a, i)] = hit
                if progress is not None:
                    progress(len(blk))
            else:
                todo.append((a, i, model, blk, key))
    if n_bootstraps == 0:
        tasks = (
            delayed(timed)(_plain_task, model, blk, n_samples, n_features, names, params)
            for _, _, model, blk, _ in todo
        )
    else:
        tasks = (
            delayed(timed)(
                _bootstrap_task, model, blk, n_samples, n_features, names, params, n_bootstraps
            )
            for _, _, model, blk, _ in todo
        )
    # each block is stored as soon as it is done (generator), in submission order
    done = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    for (a, i, _, blk, key), (res, secs) in zip(todo, done, strict=True):
        if cache is not None:
            cache.set(key, res, seconds=secs)
        results[(a, i)] = res
        if progress is not None:
            progress(len(blk))
    for a in range(len(models)):
        parts = [results[(a, i)] for i in range(0, total, per_task)]
        if n_bootstraps == 0:
            det[a] = np.concatenate(parts).T
        else:
            det[a] = np.concatenate([p[0] for p in parts]).T
            plain[a] = np.concatenate([p[1] for p in parts]).T  # type: ignore[index]
    shape = (len(models), len(names), n_repeats, n_datasets)
    return YuanSimulation(
        models=models,
        indices=names,
        detected=det.reshape(shape),
        detected_plain=None if plain is None else plain.reshape(shape),
        n_bootstraps=int(n_bootstraps),
        params={
            **params,
            "n_samples": n_samples,
            "n_features": n_features,
            "n_datasets": n_datasets,
            "n_repeats": n_repeats,
        },
    )
