"""Generators of the synthetic data sets the five papers use (docs/reproductions.md).

Every generator returns ``(X, y, relevant)`` where ``relevant`` holds the 0-based
indices of the truly relevant features, and takes a ``random_state`` (None, int or
``numpy.random.Generator``) where it draws anything.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

__all__ = [
    "add_probes",
    "make_corral",
    "make_dong_kothari",
    "make_m_of_n",
    "make_monk",
    "make_noisy_ocr",
    "make_npfs_uniform",
    "make_yuan_regression",
]


def _rng(random_state: Any) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(random_state)


def make_npfs_uniform(
    n_samples: int = 1000,
    n_features: int = 25,
    n_relevant: int = 5,
    random_state: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ditzler et al. (2015) synthetic data: features iid U[0, 10];
    ``y = 1`` iff the sum of the first ``n_relevant`` features is ``<= 5 * n_relevant``.

    Examples
    --------
    >>> X, y, rel = make_npfs_uniform(100, 25, 5, random_state=0)
    >>> X.shape, rel.tolist()
    ((100, 25), [0, 1, 2, 3, 4])
    """
    if not 1 <= n_relevant <= n_features:
        raise ValueError("n_relevant must be in [1, n_features]")
    X = _rng(random_state).uniform(0.0, 10.0, size=(n_samples, n_features))
    y = (X[:, :n_relevant].sum(axis=1) <= 5.0 * n_relevant).astype(np.int64)
    return X, y, np.arange(n_relevant)


_YUAN_GENUINE = {1: 4, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}


def make_yuan_regression(
    model: int,
    n_samples: int = 200,
    n_features: int = 10,
    random_state: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Yuan's six regression models on N(0, 1) inputs with N(0, 1) noise.

    ====== =====================================================
    model  y
    ====== =====================================================
    1      x1 + x2 + x3 + x4 + e
    2      0.8 x1 + 0.2 x2 + e
    3      x1 (x1 + x2 + 1) + e
    4      x1 / (0.5 + (x2 + 1.5)^2) + e
    5      x1^2 + x2^2 + e
    6      x1 x2 + e
    ====== =====================================================
    """
    if model not in _YUAN_GENUINE:
        raise ValueError(f"model must be 1..6, got {model!r}")
    k = _YUAN_GENUINE[model]
    if n_features < k:
        raise ValueError(f"model {model} needs at least {k} features")
    rng = _rng(random_state)
    X = rng.standard_normal((n_samples, n_features))
    e = rng.standard_normal(n_samples)
    x1, x2 = X[:, 0], X[:, 1]
    if model == 1:
        f = X[:, :4].sum(axis=1)
    elif model == 2:
        f = 0.8 * x1 + 0.2 * x2
    elif model == 3:
        f = x1 * (x1 + x2 + 1.0)
    elif model == 4:
        f = x1 / (0.5 + (x2 + 1.5) ** 2)
    elif model == 5:
        f = x1**2 + x2**2
    else:
        f = x1 * x2
    return X, f + e, np.arange(k)


def make_dong_kothari(
    n_samples: int = 200, random_state: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dong & Kothari (2003) group I: two equal classes; attribute 1 is N(0, 1) in
    class 0 and N(1, 1) in class 1; attributes 2 and 3 are U[0, 1] noise."""
    rng = _rng(random_state)
    y = np.repeat([0, 1], [n_samples - n_samples // 2, n_samples // 2])
    X = np.column_stack(
        [
            rng.standard_normal(n_samples) + y,
            rng.uniform(size=n_samples),
            rng.uniform(size=n_samples),
        ]
    )
    return X, y, np.array([0])


_MONK_LEVELS = (3, 3, 2, 3, 4, 2)


def make_monk(problem: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The full 432-instance MONK domain labelled by problem 1, 2 or 3's rule
    (no label noise). Attribute values are coded from 1 as in the UCI files.

    * MONK-1: ``a1 == a2 or a5 == 1`` (relevant a1, a2, a5)
    * MONK-2: exactly two of the six attributes take their first value (all relevant)
    * MONK-3: ``(a5 == 3 and a4 == 1) or (a5 != 4 and a2 != 3)`` (relevant a2, a4, a5)
    """
    X = np.array(list(itertools.product(*[range(1, m + 1) for m in _MONK_LEVELS])))
    a = [X[:, i] for i in range(6)]
    if problem == 1:
        y = (a[0] == a[1]) | (a[4] == 1)
        rel = [0, 1, 4]
    elif problem == 2:
        y = (X == 1).sum(axis=1) == 2
        rel = [0, 1, 2, 3, 4, 5]
    elif problem == 3:
        y = ((a[4] == 3) & (a[3] == 1)) | ((a[4] != 4) & (a[1] != 3))
        rel = [1, 3, 4]
    else:
        raise ValueError(f"problem must be 1, 2 or 3, got {problem!r}")
    return X, y.astype(np.int64), np.array(rel)


def make_corral(
    n_samples: int = 128, random_state: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """John, Kohavi & Pfleger's Corral: six binary features A0, A1, B0, B1, an
    irrelevant one and one that agrees with the class 75% of the time;
    ``y = (A0 and A1) or (B0 and B1)``. The five first features of each of the
    ``n_samples`` rows are drawn uniformly from {0, 1}; the last one equals ``y`` with
    probability 0.75 and ``1 - y`` otherwise.

    Examples
    --------
    >>> X, y, rel = make_corral(8, random_state=0)
    >>> X.shape, rel.tolist()
    ((8, 6), [0, 1, 2, 3])
    """
    rng = _rng(random_state)
    base = rng.integers(0, 2, size=(n_samples, 5))
    y = ((base[:, 0] & base[:, 1]) | (base[:, 2] & base[:, 3])).astype(np.int64)
    agree = rng.uniform(size=n_samples) < 0.75
    corr = np.where(agree, y, 1 - y)
    X = np.column_stack([base, corr])
    return X, y, np.array([0, 1, 2, 3])


def make_m_of_n(
    m: int = 3, n: int = 7, n_features: int = 10
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """M-of-N-3-7-10: the full domain of ``n_features`` binary features (1024 rows);
    ``y = 1`` iff at least ``m`` of features 2..(n+1) (0-based 2..8) are 1."""
    if n + 2 > n_features:
        raise ValueError("need n + 2 <= n_features")
    X = np.array(list(itertools.product([0, 1], repeat=n_features)))
    rel = np.arange(2, 2 + n)
    y = (X[:, rel].sum(axis=1) >= m).astype(np.int64)
    return X, y, rel


def add_probes(
    X: np.ndarray, n_probes: int = 50, variance: float = 20.0, random_state: Any = None
) -> np.ndarray:
    """Append ``n_probes`` irrelevant features drawn iid from N(0, ``variance``)
    (Yang & Hu's probes: N(0, 20), read as variance 20). The probes are the last
    ``n_probes`` columns."""
    X = np.asarray(X, dtype=np.float64)
    P = _rng(random_state).normal(0.0, np.sqrt(variance), size=(X.shape[0], n_probes))
    return np.hstack([X, P])


def make_noisy_ocr(random_state: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ditzler et al.'s noisy OCR: scikit-learn's 8x8 digits (values 0..16) placed in
    the centre of a 16x16 field whose other pixels are uniform on {1, ..., 16}.

    Returns ``X`` of shape (1797, 256), the digit labels, and the 64 indices of the
    pixels that carry the digit.
    """
    from sklearn.datasets import load_digits

    digits = load_digits()
    imgs = digits.images.astype(np.int64)
    n = imgs.shape[0]
    field = _rng(random_state).integers(1, 17, size=(n, 16, 16))
    field[:, 4:12, 4:12] = imgs
    mask = np.zeros((16, 16), dtype=bool)
    mask[4:12, 4:12] = True
    return field.reshape(n, 256), digits.target.astype(np.int64), np.flatnonzero(mask.ravel())
