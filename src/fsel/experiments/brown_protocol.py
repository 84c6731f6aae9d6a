"""Brown et al. (2012)'s experimental protocol, shared by the ``brown-*`` reproductions
(:mod:`fsel.experiments.repro_brown`): the criteria and data sets, the data
preparation (5 equal-width bins), the seeds, and the bootstrap runs (one selection
per criterion, data set and bootstrap, each cached as one unit) with the stability and
information-weight tables built on them.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fsel.experiments.cache import (
    ResultCache,
    array_fingerprint,
    cache_for,
    estimator_fingerprint,
)
from fsel.experiments.common import reproduction_n_jobs
from fsel.utils.progress import Progress

#: The 9 criteria of the paper's experiments, in its legend order.
CRITERIA = ("MIM", "MIFS", "CondRed", "CIFE", "ICAP", "MRMR", "JMI", "DISR", "CMIM")
#: Criteria that balance relevancy and redundancy ("star" markers in Fig. 6).
BALANCED = ("MRMR", "JMI", "DISR", "CMIM")
#: Criteria that let redundancy grow with |S| ("circle" markers in Fig. 6).
UNBALANCED = ("MIFS", "CondRed", "CIFE", "ICAP")

#: (paper name, file in ../shared/datasets) for the paper's Table 2 sets we have.
UCI_SETS = (
    ("breast", "wdbc"),
    ("congress", "congressional_voting"),
    ("heart", "heart_statlog"),
    ("ionosphere", "ionosphere"),
    ("krvskp", "kr_vs_kp"),
    ("landsat", "satimage"),
    ("lungcancer", "lung_cancer_uci"),
    ("parkinsons", "parkinsons"),
    ("semeion", "semeion"),
    ("soybeansmall", "soybean_small"),
    ("spect", "spect"),
    ("waveform", "waveform40"),
    ("wine", "wine"),
)
_QUICK_UCI = ("heart", "wine", "spect", "ionosphere")
_MICROARRAY = (
    ("colon", "colon"),
    ("leukemia", "leukemia"),
    ("lung", "lung_discrete"),
    ("lymphoma", "lymphoma"),
    ("nci9", "nci9"),
)

N_BOOTSTRAPS = 50
K = 10


# --------------------------------------------------------------------------- data
def _make_selector(name: str, k: int, **kw: Any) -> Any:
    import fsel

    kw = {"discretize": "uniform", "n_bins": 5, **kw}  # the paper's bins, not the defaults
    return getattr(fsel, name)(n_features_to_select=k, n_jobs=1, **kw)


def _prepare(dataset: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes (samples x features, int), the 3-NN view in [0, 1], and y."""
    from fsel.kernels.discretize import discretize

    X = np.asarray(dataset.X, dtype=np.float64).copy()
    d = X.shape[1]
    cat = (
        np.zeros(d, dtype=bool)
        if dataset.categorical is None
        else np.asarray(dataset.categorical, dtype=bool)
    )
    integral = np.array([np.all(np.isnan(c) | (c == np.round(c))) for c in X.T])
    discrete = cat | (integral & (np.asarray(dataset.X).dtype.kind in "iub"))
    for j in range(d):
        miss = np.isnan(X[:, j])
        if miss.any():
            if cat[j]:
                X[miss, j] = np.nanmax(X[:, j]) + 1 if (~miss).any() else 0
            else:
                X[miss, j] = np.nanmedian(X[:, j]) if (~miss).any() else 0
    codes, n_levels, _ = discretize(X, discrete, n_bins=5, strategy="uniform")
    codes = np.ascontiguousarray(codes.T.astype(np.int64))
    scale = np.maximum(n_levels - 1, 1).astype(np.float64)
    view = codes / scale
    y = np.unique(np.asarray(dataset.y), return_inverse=True)[1].reshape(-1)
    return codes, view, y


def _load(file: str, data_path: Any) -> Any:
    from fsel.datasets import load

    return load(file, path=data_path)


def _seed_for(seed: int, name: str) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(seed), zlib.crc32(name.encode())])


def _uci(
    names: Sequence[str], data_path: Any
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    files = dict(UCI_SETS)
    return {n: _prepare(_load(files[n], data_path)) for n in names}


# --------------------------------------------------------------------------- bootstrap core
def _bootstrap_parts(
    selector: Any,
    dname: str,
    codes: np.ndarray,
    view: np.ndarray,
    y: np.ndarray,
    *,
    seed: int,
    n_bootstraps: int,
) -> dict[str, Any]:
    """Cache key of one criterion's bootstrap runs on one data set.

    It holds every array the result depends on: the codes the selector sees, the
    3-NN view it is scored on (``X_eval``) and the labels.
    """
    return {
        "protocol": "brown-uci-bootstrap-oob-3nn",
        "selector": estimator_fingerprint(selector, ignore=("n_jobs",)),
        "dataset": dname,
        "data": array_fingerprint(codes, y),
        "eval_data": array_fingerprint(view),
        "seed": seed,
        "n_bootstraps": n_bootstraps,
    }


def _bootstrap_runs(
    data: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    *,
    seed: int,
    n_bootstraps: int,
    cache: ResultCache,
    criteria: Sequence[str] = CRITERIA,
    n_jobs: int | None = None,
) -> dict[tuple[str, str], Any]:
    """50 bootstraps x 9 criteria x data sets: subsets and OOB 3-NN errors (cached)."""
    from fsel.experiments.protocols import bootstrap_oob_error

    out = {}
    total = len(data) * len(criteria) * n_bootstraps
    with Progress(total, "brown bootstraps") as bar:
        for dname, (codes, view, y) in data.items():
            for crit in criteria:
                sel = _make_selector(crit, min(K, codes.shape[1]), discretize=None)
                parts = _bootstrap_parts(
                    sel, dname, codes, view, y, seed=seed, n_bootstraps=n_bootstraps
                )

                def compute(sel=sel, codes=codes, view=view, y=y, dname=dname) -> Any:
                    run = bootstrap_oob_error(
                        sel,
                        codes,
                        y,
                        n_bootstraps=n_bootstraps,
                        X_eval=view,
                        n_neighbors=3,
                        random_state=_seed_for(seed, dname),
                        n_jobs=reproduction_n_jobs(n_jobs),
                        progress=bar.update,
                    )
                    return {"subsets": run.subsets, "oob_error": run.oob_error}

                before = bar.n
                res = cache.get_or_compute(parts, compute)
                if bar.n == before:
                    bar.update(n_bootstraps)
                out[(dname, crit)] = res
    return out


def _info_weights(
    dname: str,
    codes: np.ndarray,
    y: np.ndarray,
    runs: dict[tuple[str, str], Any],
    cache: ResultCache,
) -> Any:
    """Yu et al.'s pair weights over every feature any criterion picked (cached)."""
    from fsel.experiments.protocols import InformationWeights

    groups = [runs[(dname, c)]["subsets"] for c in CRITERIA]
    union = np.unique(np.concatenate([np.asarray(s) for g in groups for s in g]))
    parts = {
        "protocol": "yu-information-weights",
        "dataset": dname,
        "data": array_fingerprint(codes, y),
        "features": union,
    }
    return cache.get_or_compute(parts, lambda: InformationWeights(codes, union))


def _stability_table(
    data: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    runs: dict[tuple[str, str], Any],
    cache: ResultCache,
    seed: int,
    n_bootstraps: int,
) -> list[dict[str, Any]]:
    from fsel.experiments.protocols import information_stability, kuncheva_stability

    rows = []
    for dname, (codes, _view, y) in data.items():
        weights = None
        for crit in CRITERIA:
            r = runs[(dname, crit)]
            parts = {
                "protocol": "brown-stability",
                "dataset": dname,
                "criterion": crit,
                "data": array_fingerprint(codes, y),
                "seed": seed,
                "n_bootstraps": n_bootstraps,
                "subsets": r["subsets"],
            }
            s = cache.get(parts)
            if s is None:
                start = time.perf_counter()
                if weights is None:
                    weights = _info_weights(dname, codes, y, runs, cache)
                s = {
                    "kuncheva": kuncheva_stability(r["subsets"], codes.shape[1]),
                    "information": information_stability(r["subsets"], codes, weights=weights),
                }
                cache.set(parts, s, seconds=time.perf_counter() - start)
            rows.append(
                {
                    "dataset": dname,
                    "criterion": crit,
                    "kuncheva_stability": round(s["kuncheva"], 6),
                    "information_stability": round(s["information"], 6),
                    "oob_accuracy": round(1.0 - float(np.nanmean(r["oob_error"])), 6),
                }
            )
    return rows


def _uci_setup(output_dir: Path, quick: bool, seed: int, data_path: Any, n_jobs: int | None):
    names = _QUICK_UCI if quick else tuple(n for n, _ in UCI_SETS)
    n_boot = 5 if quick else N_BOOTSTRAPS
    data = _uci(names, data_path)
    cache = cache_for(output_dir)
    runs = _bootstrap_runs(data, seed=seed, n_bootstraps=n_boot, cache=cache, n_jobs=n_jobs)
    return names, n_boot, data, cache, runs


# The paper's Table 4 (average over its 15 data sets).
PAPER_TABLE4 = {
    "pareto_information": {
        "JMI": 1.6,
        "DISR": 2.3,
        "MIM": 2.4,
        "MRMR": 2.5,
        "CMIM": 3.3,
        "ICAP": 3.6,
        "CondRed": 3.7,
        "CIFE": 4.3,
        "MIFS": 4.5,
    },
    "pareto_kuncheva": {
        "JMI": 1.5,
        "DISR": 2.2,
        "MIM": 2.3,
        "MRMR": 2.5,
        "CondRed": 3.2,
        "CMIM": 3.4,
        "ICAP": 4.3,
        "CIFE": 4.8,
        "MIFS": 4.9,
    },
    "accuracy_rank": {
        "JMI": 2.6,
        "MRMR": 3.6,
        "DISR": 3.7,
        "CMIM": 4.5,
        "ICAP": 5.3,
        "MIM": 5.4,
        "CIFE": 5.9,
        "MIFS": 6.5,
        "CondRed": 7.4,
    },
}


# --------------------------------------------------------------------------- Fig. 6 unit
def _fig6_task(
    codes: np.ndarray,
    view: np.ndarray,
    y: np.ndarray,
    crit: str,
    seed_seq: Any,
    n_trials: int,
    sizes: Sequence[int],
    pool: int,
) -> np.ndarray:
    """Hold-out 3-NN errors, shape (n_trials, len(sizes)), for one criterion."""
    from fsel.experiments.protocols import fit_subset, knn_predict
    from fsel.meta.resampling import replicate_seeds

    errs = np.empty((n_trials, len(sizes)))
    n = codes.shape[0]
    for t, s in enumerate(replicate_seeds(seed_seq, n_trials)):
        perm = np.random.default_rng(s).permutation(n)
        train_pool, test = perm[:pool], perm[pool:]
        for j, m in enumerate(sizes):
            tr = train_pool[:m]
            if np.unique(y[tr]).size < 2:
                errs[t, j] = np.nan
                continue
            sub = fit_subset(
                _make_selector(crit, min(K, codes.shape[1]), discretize=None), codes[tr], y[tr]
            )
            pred = knn_predict(view[tr][:, sub], y[tr], view[test][:, sub], 3)
            errs[t, j] = float(np.mean(pred != y[test]))
    return errs
