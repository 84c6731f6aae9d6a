"""The order in which a resampling replicate shows a selector the columns.

A selector breaks a tie by column index, the same columns on every replicate. The
resampling meta-methods (NPFS, stability selection) count picks across replicates, so
they show each replicate an fsel selector's columns in a random order: a tie then
falls on a random one of the tied columns (:func:`column_order`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsel.utils.validation import is_sparse

__all__ = ["column_order", "reorder_categorical", "take_columns"]


def column_order(est: Any, n_features: int, seed: int | None, rows: Any) -> np.ndarray | None:
    """The order in which a replicate shows ``est`` the columns: a random permutation
    (seeded by the replicate: ``seed``, or its ``rows`` where there is none) for an fsel
    selector, whose picks do not depend on the columns' order except where scores tie
    and the lowest column index wins; None (as given) for any other selector.

    A selector breaks a tie by column index, the same columns on every replicate: a
    constant column among zero-weight ones for a Relief selector asked for more
    features than have a weight, the first of several columns that add nothing for
    JMI. Counted as choices, those would look selected far more often than chance
    (NPFS's null) and be declared relevant. Shown in a random order, the tie falls on
    a random one of the tied columns in each replicate.

    Examples
    --------
    >>> from fsel import MIM
    >>> column_order(MIM(), 4, 7, None).tolist() == column_order(MIM(), 4, 7, None).tolist()
    True
    >>> sorted(column_order(MIM(), 4, 7, None).tolist()), column_order(object(), 4, 7, None)
    ([0, 1, 2, 3], None)
    """
    if not getattr(est, "_column_order_free", False):
        return None
    source = [int(seed), 0xC015] if seed is not None else [*np.asarray(rows).tolist(), 0xC015]
    return np.random.default_rng(source).permutation(n_features)


def take_columns(data: Any, order: np.ndarray) -> Any:
    """Columns ``order`` of a table (an array, sparse rows, a pandas or polars frame)."""
    if hasattr(data, "iloc"):
        return data.iloc[:, order]
    if type(data).__module__.startswith("polars"):
        return data.select([data.columns[i] for i in order.tolist()])
    if is_sparse(data):
        return data.tocsc()[:, order]
    return np.asarray(data)[:, order]


def reorder_categorical(est: Any, order: np.ndarray) -> None:
    """Point ``est``'s ``categorical`` at the same columns after reordering them by
    ``order``: a mask is reordered, column indices renumbered; names and ``"auto"``
    stay as they are (names move with their columns)."""
    cat = est.get_params(deep=False).get("categorical")
    if cat is None or isinstance(cat, str):
        return
    arr = np.asarray(cat)
    if arr.dtype == bool and arr.shape == order.shape:
        est.set_params(categorical=arr[order])
        return
    position = np.argsort(order)
    new = [c if isinstance(c, str) else int(position[int(c)]) for c in list(cat)]
    est.set_params(categorical=new)
