"""Small Dask helpers shared by the kernels that run on Dask (imported lazily)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["add_arrays", "tree_reduce"]

FAN_IN = 8  # tree-reduction width


def tree_reduce(parts: list[Any], combine: Any) -> Any:
    """One delayed tree reduction (fan-in ``FAN_IN``) of delayed parts."""
    import dask

    level = list(parts)
    while len(level) > 1:
        level = [
            dask.delayed(combine)(*level[i : i + FAN_IN]) for i in range(0, len(level), FAN_IN)
        ]
    return level[0]


def add_arrays(*arrays: np.ndarray) -> np.ndarray:
    """The sum of equally shaped arrays (a combine step of :func:`tree_reduce`)."""
    out = arrays[0].copy()
    for a in arrays[1:]:
        out += a
    return out
