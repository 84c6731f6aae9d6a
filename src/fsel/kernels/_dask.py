"""Small Dask helpers shared by the kernels that run on Dask (imported lazily)."""

from __future__ import annotations

from collections import deque
from functools import partial
from typing import Any

import numpy as np

__all__ = [
    "IN_FLIGHT_BYTES",
    "BlockActor",
    "actor_sum",
    "add_arrays",
    "add_counts",
    "block_actors",
    "client_futures",
    "map_futures",
    "merge_per_worker",
    "narrow_counts",
    "reduce_futures",
    "scheduler_client",
    "tree_reduce",
    "worker_groups",
]

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


# ------------------------------------------------- persisted blocks on a distributed client


def client_futures(blocks: list[Any]) -> tuple[Any, list[Any]] | None:
    """The ``distributed`` client and futures behind persisted delayed ``blocks`` (one
    future each), or None when they were persisted by another scheduler (then they hold
    their values and the delayed path is used)."""
    try:
        from distributed import futures_of
    except ImportError:  # pragma: no cover - distributed not installed
        return None
    futures = []
    for b in blocks:
        fs = futures_of(b)
        if len(fs) != 1 or fs[0].key != b.key:
            return None
        futures.append(fs[0])
    if not futures:
        return None
    return futures[0].client, futures


def scheduler_client() -> Any:
    """The ``distributed`` client Dask's ``compute``/``persist`` would use now, or None
    (a local scheduler)."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - distributed not installed
        return None
    from dask.base import get_scheduler

    owner = getattr(get_scheduler(), "__self__", None)
    return owner if isinstance(owner, Client) else None


def _apply(fn: Any, args: tuple, *blocks: Any) -> Any:
    return fn(*blocks, *args)


def map_futures(client: Any, fn: Any, seqs: list[list[Any]], args: tuple) -> list[Any]:
    """``[fn(*blocks_i, *args) for each i]`` as futures: one task per block, submitted
    straight to the scheduler (no graph to build or optimise)."""
    return client.map(partial(_apply, fn, args), *seqs, pure=False)


def reduce_futures(client: Any, parts: list[Any], combine: Any) -> Any:
    """``combine`` of the results of futures ``parts``, computed: a tree (fan-in
    ``FAN_IN``) on the workers down to at most ``FAN_IN`` results, which the client
    gathers and combines (so it holds at most ``FAN_IN`` of them at once)."""
    while len(parts) > FAN_IN:
        parts = [
            client.submit(combine, *parts[i : i + FAN_IN], pure=False)
            for i in range(0, len(parts), FAN_IN)
        ]
    values = client.gather(parts, direct=True)  # from the workers, not via the scheduler
    return values[0] if len(values) == 1 else combine(*values)


def merge_per_worker(
    client: Any,
    futures: list[Any],
    concat: Any,
    block_bytes: float,
    max_bytes: int = 256 << 20,
    payload: list[Any] | None = None,
    placed: list[Any] | None = None,
) -> list[Any]:
    """Fewer, larger blocks: ``concat(*group)`` of the blocks each worker holds, in
    groups of at most ``max_bytes`` (one task per group, on that worker; a block larger
    than that is a group alone), ``block_bytes`` the (mean) size of a block. Fewer tasks
    per later reduction, the data never moves. ``payload`` (default ``futures``): what
    ``concat`` receives for each block (e.g. a tuple of futures, the block and its
    labels), grouped by where ``futures`` are. Both lists are emptied, so that each
    block can be released as soon as its group is merged. ``placed``, when given,
    receives the address of the worker each merged block was sent to (None: anywhere),
    for :func:`block_actors`."""
    from distributed import wait

    wait(futures)
    who = client.who_has(futures)
    items = futures if payload is None else payload
    holders = [sorted(who.get(f.key) or [None])[0] for f in futures]
    groups = worker_groups(holders, items, [block_bytes] * len(items), max_bytes)
    futures.clear()
    items.clear()
    out: list[Any] = []
    for worker, g in groups:
        place = {} if worker is None else {"workers": [worker], "allow_other_workers": True}
        out.append(client.submit(concat, *g, pure=False, **place))
        if placed is not None:
            placed.append(worker)
    groups.clear()
    return out


def worker_groups(
    holders: list[Any], items: list[Any], sizes: list[float], max_bytes: int = 256 << 20
) -> list[tuple[Any, list[Any]]]:
    """``items`` grouped by the worker holding them (``holders``: an address each, or
    None), worker after worker, in groups of at most ``max_bytes`` (``sizes``: the bytes
    of each item; an item larger than that is a group alone): ``(worker, group)`` pairs,
    the blocks :func:`merge_per_worker` merges."""
    by_worker: dict[Any, list[tuple[Any, float]]] = {}
    for w, item, nb in zip(holders, items, sizes, strict=True):
        by_worker.setdefault(w, []).append((item, nb))
    out: list[tuple[Any, list[Any]]] = []
    for worker, entries in by_worker.items():
        group: list[Any] = []
        size = 0.0
        for item, nb in entries:
            if group and size + nb > max_bytes:
                out.append((worker, group))
                group, size = [], 0.0
            group.append(item)
            size += nb
        out.append((worker, group))
    return out


# ------------------------------------------- per-step reductions without the scheduler


class BlockActor:
    """The blocks one worker holds, as a ``distributed`` actor: a reduction over them
    is one direct call from the client to the worker (no task for the scheduler to
    track), which answers with the sum of its blocks' tables. Made by
    :func:`block_actors`."""

    def __init__(self, *blocks: Any) -> None:
        self.blocks = blocks

    def sum_map(self, fn: Any, args: tuple) -> Any:
        """``sum(fn(block, *args) for each block)`` (``fn`` returns a fresh array), as
        int32 when an int64 sum fits (:func:`narrow_counts`)."""
        out = fn(self.blocks[0], *args)
        for b in self.blocks[1:]:
            out += fn(b, *args)
        return narrow_counts(out)


def narrow_counts(a: np.ndarray) -> np.ndarray:
    """An int64 table as int32 when its values fit (half the bytes to send), else
    itself."""
    if a.dtype == np.int64 and a.size and a.min() >= -(2**31) and a.max() < 2**31:
        return a.astype(np.int32)
    return a


def add_counts(out: np.ndarray | None, a: np.ndarray) -> np.ndarray:
    """``out + a`` for tables of :func:`narrow_counts`, in place where it can (``out``
    None: a writable copy of ``a``): int32 while the sum surely fits, else int64."""
    if out is None:
        return a.copy() if not a.flags.writeable else a
    if out.dtype == np.int32 and (a.dtype != np.int32 or int(out.max()) + int(a.max()) >= 2**31):
        out = out.astype(np.int64)
    out += a
    return out


def block_actors(client: Any, futures: list[Any], placed: list[Any]) -> list[Any] | None:
    """One :class:`BlockActor` per worker over the blocks ``futures`` it holds
    (``placed``: the worker of each block, as :func:`merge_per_worker` reports it), as
    futures of the actors, submitted without waiting; None when some block has no known
    worker (then reductions run as futures, a tree on the workers). However many workers
    there are: :func:`actor_sum` bounds the tables the client holds at once."""
    if not futures or any(w is None for w in placed):
        return None
    by_worker: dict[Any, list[Any]] = {}
    for f, w in zip(futures, placed, strict=True):
        by_worker.setdefault(w, []).append(f)
    return [
        client.submit(
            BlockActor, *fs, actor=True, pure=False, workers=[w], allow_other_workers=True
        )
        for w, fs in by_worker.items()
    ]


#: bytes of per-worker tables an actor reduction may have in flight to the client at
#: once (at least one call is always in flight)
IN_FLIGHT_BYTES = 64 << 20


def actor_sum(actors: list[Any], fn: Any, args: tuple, table_bytes: int = 0) -> Any:
    """``sum over all blocks of fn(block, *args)`` through the actors of
    :func:`block_actors` (the actor handles, ``client.gather`` of its futures): one
    call per worker, all in flight at once while their tables (``table_bytes`` each,
    as int32) fit :data:`IN_FLIGHT_BYTES` (else that many at a time, the next sent as
    one is added), the per-worker sums added on the client in worker order."""
    in_flight = len(actors)
    if table_bytes > 0:
        in_flight = max(1, min(in_flight, IN_FLIGHT_BYTES // table_bytes))
    calls = deque(a.sum_map(fn, args) for a in actors[:in_flight])
    rest = iter(actors[in_flight:])
    out = None
    while calls:  # added one at a time: the client holds in_flight + 1 tables at most
        out = add_counts(out, calls.popleft().result())
        nxt = next(rest, None)
        if nxt is not None:
            calls.append(nxt.sum_map(fn, args))
    return out
