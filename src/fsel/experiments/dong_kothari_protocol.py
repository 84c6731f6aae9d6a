"""Dong & Kothari (2003)'s experimental protocol, shared by the ``dongkothari-*``
reproductions (:mod:`fsel.experiments.repro_dong_kothari`, whose docstring lists the
choices the paper leaves open): the paper's numbers, the data sets, the classifiers and
their cross-validated accuracies, our selection (timed in CPU seconds after a warm-up
fit) and the wrapper it is compared with, each unit of work cached.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fsel.experiments.cache import ResultCache, array_fingerprint, estimator_fingerprint
from fsel.experiments.common import reproduce_command
from fsel.experiments.protocols import cv_error
from fsel.experiments.report import Reproduction

# ----------------------------------------------------------------- the paper's numbers
PAPER_TABLE1 = {  # N -> (L 1 attr, L 2 attrs, L 3 attrs), each (mean, std)
    200: ((0.6081, 0.0253), (0.5109, 0.0260), (0.3722, 0.0187)),
    400: ((0.5556, 0.0710), (0.4960, 0.0340), (0.3858, 0.0358)),
    800: ((0.5628, 0.0510), (0.5214, 0.0354), (0.4411, 0.0403)),
    1600: ((0.5378, 0.0163), (0.5043, 0.0094), (0.4302, 0.0144)),
}
#: Table 2 subsets (1-based, in selection order) and the wrapper's feature counts
#: (ID3, naive Bayes) from the text.
PAPER_TABLE2 = {
    "cleve": ([10, 13, 12, 3, 9], (2.6, 3.1)),
    "corral": ([6, 1, 2, 3, 4], (1, 1)),
    "crx": ([8, 9, 13, 10], (2.9, 1.6)),
    "m-of-n-3-7-10": ([4, 9, 5, 8, 3, 6, 7], (0, 0)),
    "monk-1": ([5, 1, 2], (1, 1)),
    "monk-2": ([3, 6, 1, 2, 4, 5], (0, 0)),
    "monk-3": ([2, 5, 4, 1], (2, 2)),
    "pima": ([2, 8, 1], (1, 3.8)),
}
#: Table 3: (full ID3, full NB, subset ID3, subset NB), each "mean +- std".
PAPER_TABLE3 = {
    "cleve": ("73.31±4.26", "83.51±1.38", "76.23±2.25", "84.17±1.82"),
    "corral": ("96.92±2.05", "80.83±8.79", "96.92±2.05", "86.03±3.75"),
    "crx": ("81.16±1.04", "77.68±1.56", "85.65±1.3", "84.06±1.33"),
    "m-of-n-3-7-10": ("83.67±2.19", "87.33±1.63", "84.33±1.22", "89.33±1.56"),
    "monk-1": ("95.12±1.36", "74.97±1.95", "100.00±0.00", "74.97±1.95"),
    "monk-2": ("46.05±3.02", "66.22±2.80", "46.05±3.02", "66.22±2.80"),
    "monk-3": ("100.00±0.00", "97.22±0.47", "100.00±0.00", "97.22±0.47"),
    "pima": ("70.56±1.66", "75.90±1.88", "71.73±1.38", "73.43±1.57"),
}
#: Tables 4-5 (the extracted text of Table 4 is garbled; these are the readable parts).
PAPER_TABLE4 = {
    "digit": {
        "subset": [362, 48, 475, 133, 358, 582, 86, 638, 645, 359],
        "cpu": 2150,
        "wrapper_size": 11,
        "wrapper_cpu": 4807,
    },
    "sonar": {"subset": [12, 16], "cpu": None, "wrapper_size": None, "wrapper_cpu": None},
}
PAPER_TABLE5 = {  # full ID3, full NB, ours ID3, ours NB, wrapper ID3, wrapper NB
    "digit": ("98.50±0.87", "98.50±1.54", "96.25±2.35", "98.50±0.54", "93.40±1.32", "94.50±0.58"),
    "sonar": ("72.60±1.05", "68.75±0.36", "76.44±1.32", "71.15±0.25", "76.92±1.98", "68.75±0.31"),
}
PAPER_TABLE6 = {  # data set -> {radius factor: 1-based subset}
    "crx": {2: [8, 9, 13, 10], 3: [8, 9, 13, 10], 5: [8, 9, 13, 10], 8: [8, 9, 13, 10, 6, 12]},
    "pima": {2: [2, 8, 1, 4], 3: [2, 8, 1], 5: [2, 8, 1], 8: [2, 8]},
}

_CLEVE_SYMBOLIC = (1, 2, 5, 6, 8, 10, 12)


# ----------------------------------------------------------------- helpers
def _pm(values: Sequence[float], scale: float = 100.0, digits: int = 2) -> str:
    a = np.asarray(values, dtype=float) * scale
    if np.isnan(a).all():
        return "skipped"
    return f"{a.mean():.{digits}f}±{a.std(ddof=1) if a.size > 1 else 0.0:.{digits}f}"


def _zero_based(paper: Sequence[int]) -> list[int]:
    return [int(i) - 1 for i in paper]


def _load_table(name: str, data_path: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A shared data set with rows holding missing values dropped, and its symbolic mask."""
    from fsel.datasets import load

    ds = load(name, data_path)
    X = np.asarray(ds.X, dtype=np.float64)
    keep = ~np.isnan(X).any(axis=1)
    if name == "cleve":
        symbolic = np.isin(np.arange(X.shape[1]), _CLEVE_SYMBOLIC)
    elif ds.categorical is not None:
        symbolic = np.asarray(ds.categorical, dtype=bool)
    else:
        symbolic = np.zeros(X.shape[1], dtype=bool)
    return X[keep], np.asarray(ds.y)[keep], symbolic


def _group2_data(name: str, seed: int, data_path: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from fsel.datasets import make_corral, make_m_of_n, make_monk

    if name.startswith("monk-"):
        X, y, _ = make_monk(int(name[-1]))
    elif name == "corral":
        X, y, _ = make_corral(128, random_state=seed)
    elif name == "m-of-n-3-7-10":
        X, y, _ = make_m_of_n(3, 7, 10)
    else:
        file = {"cleve": "cleve", "crx": "crx", "pima": "pima_diabetes"}[name]
        return _load_table(file, data_path)
    return X.astype(np.float64), y, np.ones(X.shape[1], dtype=bool)


def _classifiers(all_symbolic: bool, X: np.ndarray) -> dict[str, Any]:
    from sklearn.naive_bayes import CategoricalNB, GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    tree = DecisionTreeClassifier(criterion="entropy", random_state=0)
    if all_symbolic:
        # codes 0..a-1 per column; min_categories covers levels absent from a fold (one
        # int for all columns, so that the wrapper can fit any subset)
        Xc = X - X.min(axis=0)
        nb: Any = CategoricalNB(min_categories=int(Xc.max()) + 1)
    else:
        nb = GaussianNB()
    return {"ID3": tree, "NB": nb}


def _prepare_nb_input(X: np.ndarray, all_symbolic: bool) -> np.ndarray:
    return X - X.min(axis=0) if all_symbolic else X


def _cv_accuracy(
    X: np.ndarray, y: np.ndarray, clf: Any, features: Sequence[int] | None, trials: int, seed: int
) -> list[float]:
    if features is not None and len(features) == 0:
        # no feature: predict the majority class of the training folds
        from sklearn.dummy import DummyClassifier

        clf, X, features = DummyClassifier(), np.zeros((X.shape[0], 1)), None
    with np.errstate(divide="ignore", invalid="ignore"):  # GaussianNB on a constant column
        return [
            1.0
            - cv_error(X, y, classifier=clf, features=features, n_splits=10, random_state=seed + t)[
                0
            ]
            for t in range(trials)
        ]


def _ours(
    X: np.ndarray,
    y: np.ndarray,
    symbolic: np.ndarray,
    radius_factor: float = 3.0,
    max_features: Any = None,
) -> tuple[list[int], list[float], float]:
    from fsel.selectors.classifiability import Classifiability

    sel = Classifiability(
        radius_factor=radius_factor,
        categorical=symbolic,
        n_features_to_select="auto" if max_features is None else max_features,
    )
    t0 = time.process_time()
    sel.fit(X, y)
    cpu = time.process_time() - t0
    return sel.selection_order_.tolist(), sel.selection_scores_.tolist(), cpu


_WARM = False


def _warm_up() -> None:
    """One tiny fit (once a process), so that numba compilation is not counted in CPU
    times."""
    global _WARM
    if _WARM:
        return
    rng = np.random.default_rng(0)
    _ours(rng.normal(size=(20, 3)), np.repeat([0, 1], 10), np.zeros(3, dtype=bool), 3.0, 2)
    _WARM = True


def _data_key(X: np.ndarray, y: np.ndarray, symbolic: np.ndarray) -> str:
    return array_fingerprint(X, y, symbolic)


def _cached_ours(
    cache: ResultCache,
    X: np.ndarray,
    y: np.ndarray,
    symbolic: np.ndarray,
    radius_factor: float = 3.0,
) -> tuple[list[int], list[float], float]:
    """:func:`_ours` (selection order, L steps, CPU s), cached by data and radius."""
    parts = {
        "protocol": "dongkothari-selection",
        "data": _data_key(X, y, symbolic),
        "radius_factor": float(radius_factor),
    }

    def compute() -> tuple[list[int], list[float], float]:
        _warm_up()
        return _ours(X, y, symbolic, radius_factor)

    return cache.get_or_compute(parts, compute)


def _classifier_unit(
    cache: ResultCache,
    X: np.ndarray,
    y: np.ndarray,
    symbolic: np.ndarray,
    clf: Any,
    order: Sequence[int],
    trials: int,
    seed: int,
    wrapper: bool = True,
) -> dict[str, Any]:
    """CV accuracies of one classifier with all features, ``order`` and the wrapper's
    subset (skipped when ``wrapper`` is False), cached as one unit."""
    parts = {
        "protocol": "dongkothari-cv-accuracy",
        "data": array_fingerprint(X, y),
        "symbolic": array_fingerprint(symbolic),
        "classifier": estimator_fingerprint(clf),
        "subset": [int(i) for i in order],
        "trials": trials,
        "seed": seed,
        "wrapper": wrapper,
    }

    def compute() -> dict[str, Any]:
        full = _cv_accuracy(X, y, clf, None, trials, seed)
        sub = _cv_accuracy(X, y, clf, order, trials, seed)
        if wrapper:
            w_subset, w_cpu = _wrapper(X, y, clf)
            wrap = _cv_accuracy(X, y, clf, w_subset, trials, seed)
        else:
            w_subset, w_cpu, wrap = [], float("nan"), [float("nan")]
        return {"full": full, "sub": sub, "wrap": wrap, "w_subset": w_subset, "w_cpu": w_cpu}

    return cache.get_or_compute(parts, compute)


def _wrapper(X: np.ndarray, y: np.ndarray, clf: Any) -> tuple[list[int], float]:
    """scikit-learn's forward wrapper; returns the subset (in selection order) and CPU s."""
    from sklearn.feature_selection import SequentialFeatureSelector

    sfs = SequentialFeatureSelector(
        clf, n_features_to_select="auto", tol=1e-9, direction="forward", cv=5
    )
    t0 = time.process_time()
    with np.errstate(divide="ignore", invalid="ignore"):  # GaussianNB on a constant column
        sfs.fit(X, y)
    cpu = time.process_time() - t0
    return np.flatnonzero(sfs.get_support()).tolist(), cpu


def _figure(output_dir: Path, name: str, draw: Any) -> list[Path]:
    try:
        import matplotlib  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        return []
    from fsel.utils.figures import new_figure, save_figure

    return [save_figure(draw(new_figure), output_dir / name, dpi=110)]


def _result(
    name: str,
    title: str,
    quick: bool,
    seed: int,
    paper: str,
    ours: str,
    agreement: str,
    tables: dict[str, Path],
    figures: Sequence[Path] = (),
) -> Reproduction:
    command = reproduce_command(name, seed, quick)
    return Reproduction(
        name=name,
        title=title,
        command=command,
        seed=seed,
        paper=paper,
        ours=ours,
        agreement=agreement,
        tables=tables,
        figures=list(figures),
        quick=quick,
    )
