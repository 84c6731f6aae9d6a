"""Figures of NPFS (Ditzler, Polikar & Rosen 2015): the selection matrix (Fig. 1) and
the number of relevant features against the number of bootstraps (Fig. 2).

matplotlib is an optional extra (``pip install 'fsel[plot]'``); it is imported only
when a figure is drawn. The functions build a :class:`matplotlib.figure.Figure`
without pyplot (no global state, safe in threads and headless), save it when a path is
given, and return it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["plot_relevant_vs_bootstraps", "plot_selection_matrix"]

_ORANGE_ON = (1.0, 0.78, 0.45)
_ORANGE_OFF = (0.80, 0.38, 0.0)


def _figure(ax: Any, figsize: tuple[float, float]) -> tuple[Any, Any]:
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "plotting needs matplotlib, an optional extra: pip install 'fsel[plot]' "
            "(or pip install matplotlib)"
        ) from exc
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=figsize, layout="constrained")
    return fig, fig.subplots()


def _save(fig: Any, path: str | Path | None) -> None:
    if path is not None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)


def plot_selection_matrix(
    npfs: Any,
    path: str | Path | None = None,
    *,
    relevant: Sequence[int] | None = None,
    ax: Any = None,
    title: str | None = None,
    feature_names: Sequence[str] | None = None,
) -> Any:
    """Draw a selection matrix as features x resamples, relevant rows highlighted.

    Black cells: feature not selected on that bootstrap; white: selected; rows the
    test found relevant are drawn in orange (dark: not selected, light: selected), as
    in Ditzler et al.'s Fig. 1.

    Parameters
    ----------
    npfs : fitted NPFS or array of shape (n_resamples, n_features)
        A fitted :class:`fsel.NPFS` (its ``selection_matrix_`` and ``support_`` are
        used) or a 0/1 matrix, one row per resample (as every fsel matrix over
        resamples); it is drawn transposed, one row per feature, as in the paper.
    path : str or Path, optional
        Where to save the figure (format from the suffix, e.g. ``.png``).
    relevant : sequence of int, optional
        Rows to highlight (default: the NPFS's relevant features; none for a matrix).
    ax : matplotlib Axes, optional
        Draw into these axes instead of a new figure.
    title : str, optional
    feature_names : sequence of str, optional
        Row labels (default: the NPFS's ``feature_names_in_`` when at most 40 rows).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> M = np.random.default_rng(0).random((20, 6)) < 0.3
    >>> fig = plot_selection_matrix(M, relevant=[0, 2])
    >>> fig.axes[0].get_ylabel()
    'feature'
    """
    if hasattr(npfs, "selection_matrix_"):
        M = np.asarray(npfs.selection_matrix_, dtype=bool).T
        if relevant is None:
            relevant = np.flatnonzero(npfs.support_)
        if feature_names is None and hasattr(npfs, "feature_names_in_"):
            feature_names = list(npfs.feature_names_in_)
        default_title = (
            f"NPFS: {int(np.asarray(npfs.support_).sum())} relevant of {M.shape[0]} "
            f"(threshold {npfs.threshold_} of {M.shape[1]})"
        )
    elif hasattr(npfs, "fit"):
        raise ValueError("the NPFS is not fitted yet; call fit(X, y) first")
    else:
        M = np.asarray(npfs)
        if M.ndim != 2:
            raise ValueError(f"the selection matrix must be 2-D, got shape {M.shape}")
        M = M.astype(bool).T
        default_title = f"selection matrix ({M.shape[0]} features x {M.shape[1]} bootstraps)"
    K, n = M.shape
    rel = np.zeros(K, dtype=bool)
    if relevant is not None and len(relevant):
        rel[np.asarray(relevant, dtype=np.intp)] = True
    img = np.zeros((K, n, 3))
    img[M] = 1.0
    img[rel[:, None] & M] = _ORANGE_ON
    img[rel[:, None] & ~M] = _ORANGE_OFF
    fig, ax = _figure(ax, (min(12.0, 3.0 + 0.04 * n), min(10.0, 2.0 + 0.18 * K)))
    ax.imshow(img, aspect="auto", interpolation="nearest")
    ax.set_xlabel("bootstrap")
    ax.set_ylabel("feature")
    ax.set_title(title if title is not None else default_title)
    if feature_names is not None and K <= 40:
        ax.set_yticks(range(K))
        ax.set_yticklabels([str(f) for f in feature_names], fontsize=7)
    elif K <= 40:
        ax.set_yticks(range(K))
        ax.set_yticklabels([str(i) for i in range(K)], fontsize=7)
    _save(fig, path)
    return fig


def plot_relevant_vs_bootstraps(
    curves: Any,
    path: str | Path | None = None,
    *,
    true_k: int | None = None,
    alpha: float | None = None,
    correction: str | None = None,
    ax: Any = None,
    title: str | None = None,
) -> Any:
    """Number of features NPFS finds relevant against the number of bootstraps (Fig. 2).

    Parameters
    ----------
    curves : mapping of label to (ns, n_relevant), or a fitted NPFS
        Several curves (e.g. one per base ``k``); a fitted NPFS gives one curve from
        its own matrix (:func:`fsel.meta.npfs.npfs_curve`), tested at the NPFS's own
        ``alpha`` and ``correction`` unless they are given here, so the curve ends at
        its ``n_relevant_``.
    path : str or Path, optional
    true_k : int, optional
        Draw the true number of relevant features as a dashed line.
    alpha : float, optional
        Level for the curve of a fitted NPFS (default: its ``alpha``). Ignored for a
        mapping of precomputed curves.
    correction : {"bonferroni", "bh", "none"}, optional
        Multiple-testing correction for the curve of a fitted NPFS (default: its
        ``correction``; ``"none"`` forces the paper's per-feature rule). Ignored for a
        mapping of precomputed curves.
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_relevant_vs_bootstraps({"k=3": ([1, 2, 3], [0, 2, 3])}, true_k=3)
    >>> fig.axes[0].get_xlabel()
    'number of bootstraps'
    """
    if hasattr(curves, "selection_matrix_"):
        from fsel.meta.npfs import npfs_curve

        level = curves.alpha if alpha is None else alpha
        corr = getattr(curves, "correction", None) if correction is None else correction
        corr = None if corr == "none" else corr
        kbar = float(np.mean(curves.n_selected_per_replicate_))
        label = f"k={kbar:g}, alpha={level:g}" + (f", {corr}" if corr else "")
        curves = {label: npfs_curve(curves.selection_matrix_, alpha=level, correction=corr)}
    elif hasattr(curves, "fit"):
        raise ValueError("the NPFS is not fitted yet; call fit(X, y) first")
    if not isinstance(curves, Mapping):
        raise TypeError("curves must be a mapping label -> (ns, n_relevant) or a fitted NPFS")
    fig, ax = _figure(ax, (6.0, 4.0))
    for label, (ns, counts) in curves.items():
        ax.plot(np.asarray(ns), np.asarray(counts), label=str(label), lw=1.4)
    if true_k is not None:
        ax.axhline(true_k, color="0.3", ls="--", lw=1, label=f"k* = {true_k}")
    ax.set_xlabel("number of bootstraps")
    ax.set_ylabel("features found relevant")
    if title is not None:
        ax.set_title(title)
    ax.legend(fontsize=8)
    _save(fig, path)
    return fig
