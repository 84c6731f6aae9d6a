"""Figures without pyplot: the one way the reproductions and the report draw and save a
figure.

A figure is a :class:`matplotlib.figure.Figure` object with its own canvas: no global
state, no ``matplotlib.use`` (the caller's backend is never changed), safe in threads
and on a headless machine. matplotlib is an optional extra (``pip install
'fsel[plot]'``), imported only when a figure is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["new_figure", "save_figure"]


def new_figure(
    nrows: int = 1,
    ncols: int = 1,
    *,
    figsize: tuple[float, float] = (6.4, 4.8),
    squeeze: bool = True,
    layout: str | None = None,
    **subplot_kw: Any,
) -> tuple[Any, Any]:
    """A new figure and its axes, as ``pyplot.subplots`` returns them but without pyplot.

    Parameters
    ----------
    nrows, ncols : int
        The grid of axes.
    figsize : (float, float)
        Width and height in inches.
    squeeze : bool
        As in ``pyplot.subplots``: a single axes object for a 1 x 1 grid, a 1-d array
        for one row or column.
    layout : str or None
        matplotlib's layout engine (``"constrained"``, ``"tight"`` or None).
    **subplot_kw
        Passed to :meth:`matplotlib.figure.Figure.subplots` (``sharex``,
        ``gridspec_kw``, ...).

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : Axes or array of Axes

    Examples
    --------
    >>> fig, axes = new_figure(1, 2, figsize=(4, 2))
    >>> len(axes)
    2
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "figures need matplotlib, an optional extra: pip install 'fsel[plot]' "
            "(or pip install matplotlib)"
        ) from exc
    fig = Figure(figsize=figsize, layout=layout)
    axes = fig.subplots(nrows, ncols, squeeze=squeeze, **subplot_kw)
    return fig, axes


def save_figure(
    fig: Any, path: str | Path, *, dpi: int = 110, bbox_inches: str | None = "tight"
) -> Path:
    """Write a figure to ``path`` (the folder is created; the format follows the suffix)
    and return the path. The figure holds no global state, so nothing is closed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, bbox_inches=bbox_inches)
    return path
