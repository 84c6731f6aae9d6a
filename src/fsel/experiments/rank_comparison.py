"""Comparing methods by their ranks over data sets (Demsar 2006; Brown et al. 2012).

* :func:`pareto_ranks`, :func:`average_ranks`, :func:`friedman_test`,
  :func:`nemenyi_q`, :func:`nemenyi_critical_difference`, :func:`nemenyi_significance`;
* the two diagrams :func:`plot_dominance_diagram` (Brown et al.'s Fig. 9) and
  :func:`plot_critical_difference` (Demsar's critical-difference diagram).

References
----------
Brown, Pocock, Zhao & Lujan (2012), "Conditional likelihood maximisation: a unifying
framework for information theoretic feature selection", JMLR 13:27-66.
Demsar (2006), "Statistical comparisons of classifiers over multiple data sets",
JMLR 7:1-30.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats

__all__ = [
    "FriedmanResult",
    "average_ranks",
    "friedman_test",
    "nemenyi_critical_difference",
    "nemenyi_q",
    "nemenyi_significance",
    "pareto_ranks",
    "plot_critical_difference",
    "plot_dominance_diagram",
]


# --------------------------------------------------------------------------- ranks
def pareto_ranks(*objectives: Sequence[float]) -> np.ndarray:
    """Non-dominated rank of each method: 1 + the number of other methods that are
    strictly better on every objective (higher is better for all).

    This is Brown et al.'s (2012, Table 4) rank on (accuracy, stability): "the
    Pareto-optimal set is the set of criteria for which no other criterion has both a
    higher accuracy and a higher stability"; non-dominated methods get rank 1.

    Examples
    --------
    >>> pareto_ranks([0.9, 0.8, 0.7, 0.95], [0.5, 0.6, 0.4, 0.3]).tolist()
    [1, 1, 3, 1]
    """
    if not objectives:
        raise ValueError("give at least one objective")
    F = np.column_stack([np.asarray(o, dtype=np.float64) for o in objectives])
    better = np.all(F[:, None, :] > F[None, :, :], axis=2)  # better[i, j]: i dominates j
    return 1 + better.sum(axis=0)


def average_ranks(
    scores: np.ndarray, *, higher_is_better: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Rank methods within each data set (row), ties averaged; rank 1 is best.

    Returns the rank matrix and the mean rank of each method (column).

    Examples
    --------
    >>> import numpy as np
    >>> R, avg = average_ranks(np.array([[0.9, 0.8, 0.8], [0.7, 0.9, 0.6]]))
    >>> R.tolist(), avg.tolist()
    ([[1.0, 2.5, 2.5], [2.0, 1.0, 3.0]], [1.5, 1.75, 2.75])
    """
    S = np.asarray(scores, dtype=np.float64)
    if S.ndim != 2:
        raise ValueError("scores must be a 2-D (data sets x methods) array")
    R = stats.rankdata(-S if higher_is_better else S, axis=1)
    return R, R.mean(axis=0)


@dataclass
class FriedmanResult:
    """Friedman test over ``n_datasets`` rows and ``n_methods`` columns."""

    statistic: float
    pvalue: float
    iman_davenport: float
    iman_davenport_pvalue: float
    average_ranks: np.ndarray
    n_datasets: int
    n_methods: int
    ranks: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 0)))


def friedman_test(scores: np.ndarray, *, higher_is_better: bool = True) -> FriedmanResult:
    """Friedman's rank test that all methods perform alike (Demsar 2006).

    .. math:: \\chi^2_F = \\frac{12 N}{k(k+1)} \\Big[\\sum_j R_j^2 - \\frac{k(k+1)^2}{4}
              \\Big] / C, \\qquad
              F_F = \\frac{(N-1)\\chi^2_F}{N(k-1) - \\chi^2_F}

    with ``R_j`` the average rank of method ``j`` over ``N`` data sets and ``C`` the
    tie correction ``1 - sum(t^3 - t) / (N k (k^2 - 1))`` (as
    :func:`scipy.stats.friedmanchisquare`). ``chi2_F`` has ``k - 1`` degrees of
    freedom; the Iman-Davenport ``F_F`` has ``(k-1, (k-1)(N-1))``.
    """
    S = np.asarray(scores, dtype=np.float64)
    if S.ndim != 2 or S.shape[0] < 2 or S.shape[1] < 2:
        raise ValueError("the Friedman test needs at least 2 data sets (rows) and 2 methods")
    n, k = S.shape
    R, avg = average_ranks(S, higher_is_better=higher_is_better)
    ties = 0.0
    for row in R:
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts**3 - counts))
    c = 1.0 - ties / (n * k * (k * k - 1))
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(avg**2) - k * (k + 1) ** 2 / 4.0)
    chi2 = chi2 / c if c > 0 else 0.0
    p = float(stats.chi2.sf(chi2, k - 1))
    denom = n * (k - 1) - chi2
    if denom <= 0:
        ff, pf = float("inf"), 0.0
    else:
        ff = (n - 1) * chi2 / denom
        pf = float(stats.f.sf(ff, k - 1, (k - 1) * (n - 1)))
    return FriedmanResult(float(chi2), p, float(ff), pf, avg, n, k, R)


def nemenyi_q(n_methods: int, alpha: float = 0.05) -> float:
    """Critical value ``q_alpha`` of the Nemenyi test: the studentized range quantile
    at ``1 - alpha`` for ``k`` groups and infinite degrees of freedom, over sqrt(2)
    (Demsar 2006, Table 5a: 2.343 for k=3, 3.164 for k=10 at alpha=0.05)."""
    if n_methods < 2:
        raise ValueError("the Nemenyi test needs at least 2 methods")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return float(stats.studentized_range.ppf(1.0 - alpha, n_methods, np.inf) / np.sqrt(2.0))


def nemenyi_critical_difference(n_methods: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference of average ranks,
    ``CD = q_alpha sqrt(k (k + 1) / (6 N))``.

    Examples
    --------
    >>> round(nemenyi_critical_difference(4, 14, 0.05), 3)
    1.254
    """
    if n_datasets < 1:
        raise ValueError("n_datasets must be at least 1")
    k = n_methods
    return nemenyi_q(k, alpha) * float(np.sqrt(k * (k + 1) / (6.0 * n_datasets)))


def nemenyi_significance(
    avg_ranks: Sequence[float],
    n_datasets: int,
    alphas: Sequence[float] = (0.10, 0.05, 0.01),
) -> np.ndarray:
    """The highest confidence at which method ``i`` is significantly better (lower
    average rank) than method ``j``: ``L[i, j]`` is ``1 - alpha`` for the smallest
    ``alpha`` in ``alphas`` whose critical difference ``R_j - R_i`` exceeds, 0 when none.
    """
    r = np.asarray(avg_ranks, dtype=np.float64)
    k = r.size
    L = np.zeros((k, k))
    diff = r[None, :] - r[:, None]  # R_j - R_i > 0 means i better
    for alpha in sorted(alphas, reverse=True):
        cd = nemenyi_critical_difference(k, n_datasets, alpha)
        L[diff > cd] = 1.0 - alpha
    return L


# --------------------------------------------------------------------------- diagrams
def plot_critical_difference(
    names: Sequence[str],
    avg_ranks: Sequence[float],
    cd: float,
    path: str | Path,
    *,
    title: str = "",
) -> Path:
    """Demsar's critical-difference diagram: methods on an axis of average rank,
    with bars joining groups whose ranks differ by less than ``cd``."""
    from fsel.utils.figures import new_figure, save_figure

    r = np.asarray(avg_ranks, dtype=float)
    order = np.argsort(r, kind="stable")
    k = r.size
    fig, ax = new_figure(figsize=(7, 0.45 * k + 1.5))
    ax.set_xlim(0.5, k + 0.5)
    ax.set_ylim(-k - 1, 2)
    ax.axhline(0, color="black", lw=1)
    for t in range(1, k + 1):
        ax.plot([t, t], [0, 0.2], color="black", lw=1)
        ax.text(t, 0.4, str(t), ha="center", fontsize=8)
    for pos, i in enumerate(order):
        yy = -(pos + 1)
        ax.plot([r[i], r[i]], [0, yy], color="grey", lw=0.8)
        ax.text(r[i] + 0.05, yy, f"{names[i]} ({r[i]:.2f})", va="center", fontsize=8)
    # cliques of methods not significantly different
    level = 0
    for a in range(k):
        b = a
        while b + 1 < k and r[order[b + 1]] - r[order[a]] < cd:
            b += 1
        if b > a and (a == 0 or r[order[b]] - r[order[a - 1]] >= cd):
            ax.plot([r[order[a]], r[order[b]]], [1.0 + 0.25 * level] * 2, color="red", lw=3)
            level += 1
    ax.plot([1, 1 + cd], [1.7, 1.7], color="black", lw=2)
    ax.text(1 + cd / 2, 1.8, f"CD = {cd:.2f}", ha="center", fontsize=8)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=9)
    return save_figure(fig, path, dpi=110)


def plot_dominance_diagram(
    names: Sequence[str],
    avg_ranks: Sequence[float],
    significance: np.ndarray,
    path: str | Path,
    *,
    title: str = "",
) -> Path:
    """Brown et al.'s significant-dominance partial-order diagram (their Fig. 9).

    Methods are placed top to bottom by average rank; a line from ``i`` down to ``j``
    means ``i`` is significantly better at the level in ``significance[i, j]``:
    solid for 99%, dashed for 95%, dotted for 90%.
    """
    from fsel.utils.figures import new_figure, save_figure

    r = np.asarray(avg_ranks, dtype=float)
    order = np.argsort(r, kind="stable")
    k = r.size
    # one column ordered by rank; every link is an arc on the right-hand side, so it
    # never runs through the methods placed between the two it joins
    pos = {i: (0.0, -float(p)) for p, i in enumerate(order)}
    fig, ax = new_figure(figsize=(5, 0.55 * k + 1))
    styles = {0.99: "-", 0.95: "--", 0.9: ":"}
    for i in range(k):
        for j in range(k):
            lvl = round(float(significance[i, j]), 2)
            if lvl > 0:
                (_, y0), (_, y1) = pos[i], pos[j]
                ax.annotate(
                    "",
                    xy=(0.32, y1),
                    xytext=(0.32, y0),
                    arrowprops={
                        "arrowstyle": "-|>",
                        "ls": styles.get(lvl, "-"),
                        "color": "black",
                        "lw": 1.1,
                        "connectionstyle": "arc3,rad=-0.45",
                        "shrinkA": 2,
                        "shrinkB": 2,
                    },
                )
    for i in range(k):
        x, yy = pos[i]
        ax.text(
            x,
            yy,
            f"{names[i]}\n({r[i]:.2f})",
            ha="center",
            va="center",
            fontsize=8,
            bbox={"boxstyle": "round", "fc": "white", "ec": "black"},
        )
    ax.set_xlim(-0.6, 0.3 + 0.3 * k)
    ax.set_ylim(-k, 1)
    ax.axis("off")
    ax.set_title(title or "solid: 99%, dashed: 95%, dotted: 90% (Nemenyi)", fontsize=9)
    return save_figure(fig, path, dpi=110)
