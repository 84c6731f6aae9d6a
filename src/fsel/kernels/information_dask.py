"""The information table on Dask: codes on the workers, count tables to the client.

:class:`DaskInformationTable` implements the protocol the one greedy engine
(:mod:`fsel.selectors.information._engine`) uses — ``relevance``, ``pair_terms(j)``,
``joint_codes``/``conditional_relevance`` (CMI), ``lazy_cmim`` (None here),
``n_features``, ``n_levels`` — on a table split into row chunks that stay on the Dask
workers:

1. one pass over the raw chunks gathers per-column minima/maxima, the distinct values
   of code columns (and of float columns with few values), the class labels and the
   row counts, reduced in a tree: equal-width edges are then **exact** (the same as in
   memory); ``discretize="quantile"`` edges are exact too (the order statistics found
   by a few counting passes, :func:`fsel.kernels.binning.dask_quantiles`), and
   ``n_bins="auto"`` is resolved from the row count of this pass;
2. the chunks are encoded once, feature-major ``uint8`` codes (``uint16`` above 256
   levels) plus the class codes, and persisted on the workers;
3. every later quantity is one tree reduction of per-chunk joint count tables
   (:func:`fsel.kernels._counting.joint_histograms`, the numba/numpy counting kernel of
   the in-memory path): ``(Xk, Y)`` for the relevance, ``(Xk, Xj, Y)`` per greedy step,
   ``(Xk, S, Y)`` for CMI (the joint code of ``S`` is kept per chunk on the workers;
   only its set of occupied states travels). The client receives
   ``O(K * levels^2 * classes)`` numbers per step and turns them into entropies with
   :func:`fsel.kernels._counting.nlogn`; it never holds ``O(N)``.

With features of at most 16 levels, each chunk also keeps its codes two features per
byte (:func:`fsel.kernels._counting.pack_pairs`) and counts two features per pass over
its rows, as in memory. On a ``distributed`` client the per-step overhead is kept small:
the chunks each worker holds become blocks of up to 256 MiB there (usually one per
worker). Data already persisted on the client is read as futures: one task per worker
group (:func:`fsel.kernels._dask.worker_groups`) prepares its chunks and one returns
their stats; small integer codes (every column a code column, at most 2 bytes) are
transposed once into the group's feature-major block, their levels taken as the run
``min..max`` when it spans fewer than 16 values (a superset of the values present: no
pass for the distinct values), and encoded from that block (in place, or the block
itself when the values already are the codes). Other data is encoded straight into
merged blocks, and delayed chunks are encoded, then concatenated. Each worker's blocks
then sit behind one :class:`fsel.kernels._dask.BlockActor`, so a greedy step is one
direct call per worker, answered with the sum of its blocks' tables, and the few
per-worker tables are summed on the client (no task for the scheduler to track). Above
:data:`fsel.kernels._dask.FAN_IN` workers, and for CMI's joint codes, a step is one task
per block submitted straight as futures (a tree on the workers above ``FAN_IN``
blocks, so the client holds at most that many tables). Without a client (Dask's local
schedulers) a step is one delayed tree reduction.

Uncompacted bin indices are used as codes on the workers (an empty bin is an empty row
of the count table, which changes no entropy), so the selection equals the in-memory
one on the same data: exactly for uniform bins and integer codes, to rounding for the
scores.

Missing values (docs/user_guide/missing_sparse.rst): a NaN is one more level of its column, its
last code,
after binning the observed values (``missing="level"``, as in memory); pairwise deletion
(``missing="available"``) is not supported here. A continuous float target is binned
like a float feature, as in memory.

Dask is imported lazily; it is an optional dependency (``pip install 'fsel[dask]'``).
"""

from __future__ import annotations

from functools import partial
from itertools import pairwise
from typing import Any

import numpy as np

from fsel.kernels._counting import (
    _PAIRED_MAX_CELLS,
    joint_histograms,
    nlogn,
    pack_pairs,
)
from fsel.kernels._dask import (
    actor_sum,
    block_actors,
    client_futures,
    map_futures,
    merge_per_worker,
    reduce_futures,
    scheduler_client,
    worker_groups,
)
from fsel.kernels._dask import add_arrays as _add
from fsel.kernels._dask import tree_reduce as _tree
from fsel.kernels.binning import (
    AUTO_MAX_BINS,
    auto_n_bins,
    check_n_bins,
    dask_edges,
)
from fsel.kernels.discretize import smallest_code_dtype, uniform_edges
from fsel.kernels.information import _ESTIMATORS, InformationTable, PairTerms, miller_madow_per_cell
from fsel.kernels.information_dask_device import check_workers_cuda, to_devices
from fsel.kernels.information_dask_device import on_gpu as _gpu
from fsel.utils.parallel import numba_available, thread_map

__all__ = ["DaskInformationTable", "dask_information_table"]


from fsel.kernels.information_dask_codes import (
    MAX_CODE_LEVELS,
    _chunk_stats,
    _code_columns,
    _code_like,
    _encode_chunk,
    _group_stats,
    _integer_distinct,  # noqa: F401 (a tested helper, read from here)
    _merge_stats,
    _prepare_group,
    _target_codes,
)


def _target_column(y: Any) -> np.ndarray:
    """One chunk of a continuous target as a float column ``(n_i, 1)``."""
    return np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y, dtype=np.float64)[:, None]


# ------------------------------------------------------------------- per-step kernels


def _packed_block(block: tuple[np.ndarray, np.ndarray]) -> tuple:
    """An encoded chunk as it stays on its worker: ``(codes, class codes, packed)``,
    ``packed`` the codes two features per byte (:func:`pack_pairs`, for the paired
    counting kernel) or None (no numba, or more than 16 levels)."""
    C, yc = block
    return C, yc, pack_pairs(C) if numba_available() else None


def _encode_packed(*args: Any, pack: bool = True) -> tuple:
    """:func:`_encode_chunk`, then :func:`_packed_block` (``pack``; else the packed codes
    are None, left to :func:`_concat_blocks`): one task per chunk."""
    C, yc = _encode_chunk(*args)
    return _packed_block((C, yc)) if pack else (C, yc, None)


def _concat_blocks(*blocks: tuple) -> tuple:
    """Encoded chunks of one worker as one block, packed (:func:`_packed_block`)."""
    if len(blocks) == 1:
        return _packed_block(blocks[0][:2])
    C = np.concatenate([b[0] for b in blocks], axis=1)
    yc = np.concatenate([b[1] for b in blocks])
    return _packed_block((C, yc))


def _encode_group(args: tuple, *pairs: tuple) -> tuple:
    """Raw chunks ``(x, y)`` of one worker encoded (:func:`_encode_chunk` with ``args``)
    one after the other straight into one block, then packed (:func:`_packed_block`):
    beyond the block, only one chunk's codes at a time."""
    n = sum(int(np.shape(x)[0]) for x, _ in pairs)
    C = yc = None
    at = 0
    for x, y in pairs:
        c, c_y = _encode_chunk(x, y, *args)
        if C is None:
            C = np.empty((c.shape[0], n), dtype=c.dtype)
            yc = np.empty(n, dtype=c_y.dtype)
        C[:, at : at + c.shape[1]] = c
        yc[at : at + c.shape[1]] = c_y
        at += c.shape[1]
    return _packed_block((C, yc))


def _raw_futures(blocks: list[Any], y_blocks: list[Any]) -> tuple | None:
    """``(client, X futures, y futures, holders)`` when both ``blocks`` and
    ``y_blocks`` are persisted on the ``distributed`` client Dask would use now (
    ``holders``: a worker holding each X block), else None."""
    client = scheduler_client()
    if client is None:
        return None
    xs, ys = _held_futures(client, blocks), _held_futures(client, y_blocks)
    if xs is None or ys is None:
        return None
    return client, xs[0], ys[0], xs[1]


def _held_futures(client: Any, blocks: list[Any]) -> tuple[list[Any], list[Any]] | None:
    """Futures of delayed ``blocks`` that stand for data already in the cluster's
    memory (``X.to_delayed()`` of a persisted array: an empty graph, the key held by
    the array's futures) and a worker holding each, or None when any is not."""
    from distributed import Future

    if not blocks or not all(hasattr(b, "dask") and hasattr(b, "key") for b in blocks):
        return None  # e.g. an in-memory y split into arrays
    if any(len(b.dask) for b in blocks):
        return None
    futures = [Future(b.key, client) for b in blocks]
    who = client.who_has(futures)
    if not all(who.get(f.key) for f in futures):
        return None
    return futures, [sorted(who[f.key])[0] for f in futures]


def _encode_persisted(
    blocks: list[Any], y_blocks: list[Any], args: tuple, code_cells: int, placed: list[Any]
) -> tuple[list[Any], Any]:
    """The encoded chunks persisted (one task per chunk) and, on a ``distributed``
    client, merged per worker: the blocks of the table and the client (or None);
    ``placed`` receives the worker of each merged block (:func:`merge_per_worker`)."""
    import dask

    merge = scheduler_client() is not None  # chunks merged per worker, packed then
    encoded = [
        dask.delayed(_encode_packed)(x, y, *args, pack=not merge)
        for x, y in zip(blocks, y_blocks, strict=True)
    ]
    encoded = list(dask.persist(*encoded))
    found = client_futures(encoded)
    if found is not None:  # a distributed client: futures, fewer and larger blocks
        client, futures = found
        del found
        encoded.clear()  # each chunk released once merged
        per_block = code_cells * np.dtype(args[3]).itemsize / len(futures)
        merged = merge_per_worker(client, futures, _concat_blocks, per_block, placed=placed)
        return merged, client
    if merge:  # not merged after all: pack them here
        encoded = list(dask.persist(*[dask.delayed(_packed_block)(b[:2]) for b in encoded]))
    return encoded, None


def _encode_prepared(args: tuple, prepared: tuple | None, *pairs: tuple) -> tuple:
    """One worker's encoded block: from the transposed block of :func:`_prepare_group`
    (code columns only; coded in place when the code dtype is the values' dtype, the
    block itself when its values already are the codes), else
    :func:`_encode_group` of its raw chunks ``pairs``."""
    if prepared is None:
        return _encode_group(args, *pairs)
    _, levels, classes, dtype, y_edges = args
    xt, y = prepared
    kept = list(range(xt.shape[0]))  # every column is a code column
    codes = xt if xt.dtype == np.dtype(dtype) else np.empty(xt.shape, dtype=dtype)
    C = _code_columns(xt, kept, levels, codes)
    return _packed_block((C, _target_codes(y, classes, y_edges)))


def _worker_threads() -> int:
    """The threads of the ``distributed`` worker running this call (1 elsewhere)."""
    try:
        from distributed import get_worker

        return max(1, int(get_worker().state.nthreads))
    except (ImportError, ValueError, AttributeError):
        return 1


#: rows of one pass over the packed pairs: its slice of ``z`` (one byte a row) stays in
#: a core's cache while every pair is counted over those rows
_ROW_BLOCK = 1 << 16
#: bytes of the int32 pair tables counted at once (more pairs: counted group by group)
_PAIR_TABLE_BYTES = 64 << 20


def _joint_code(x: np.ndarray, yc: np.ndarray, ny: int, nz: int) -> np.ndarray:
    """``x * ny + yc`` (``nz`` levels) as ``uint8`` when it fits, else ``int64``: one
    byte a row for the counting kernels to read."""
    dt = np.uint8 if nz <= 256 else np.int64
    z = x.astype(dt)
    if ny < 256 or dt is np.int64:  # else nz <= 256 = ny: x is all 0, and so is x * ny
        z *= dt(ny)
    z += yc
    return z


def _counts(C: np.ndarray, z: np.ndarray, nz: int, width: int, packed: Any) -> np.ndarray:
    """:func:`joint_histograms` of a block (``out[k, a, b]``: rows with ``C[k] == a``
    and ``z == b``), counted in the worker's threads (:func:`_worker_threads`).

    With packed pairs and numba: each thread takes a range of the pairs and counts
    them block of :data:`_ROW_BLOCK` rows by block
    (:func:`fsel.kernels._numba_counting.pair_counts_rows`), so ``z`` is read from
    memory once per row block, not once per pair; both features' tables are then
    summed out of each pair's. Otherwise each thread counts a range of the features.
    Integer counts: the same table whatever the split."""
    K, n = C.shape
    threads = max(1, min(_worker_threads(), K // 2))
    z = np.ascontiguousarray(z) if z.dtype.kind in "iu" else z.astype(np.int64)
    if (
        packed is not None
        and numba_available()
        and packed[1] ** 2 * nz <= _PAIRED_MAX_CELLS
        and n < 2**31
    ):
        from fsel.kernels import _numba_counting as kernels

        P, a = packed
        Q = P.shape[0]
        cells = a * a * nz
        out = np.zeros((K, width, nz), dtype=np.int64)
        group = max(1, _PAIR_TABLE_BYTES // (4 * cells))  # pairs whose tables fit

        def pairs(q0: int, q1: int, H: np.ndarray) -> None:
            for r0 in range(0, n, _ROW_BLOCK):
                r1 = min(n, r0 + _ROW_BLOCK)
                kernels.pair_counts_rows(P, z, nz, q0, q1, r0, r1, H)

        for g0 in range(0, Q, group):
            g1 = min(Q, g0 + group)
            H = np.zeros((g1 - g0, cells), dtype=np.int32)  # n < 2**31: no overflow
            cuts = [g0 + (g1 - g0) * i // threads for i in range(threads + 1)]
            spans_ = [(q0, q1, H[q0 - g0 : q1 - g0]) for q0, q1 in pairwise(cuts)]
            thread_map(pairs, [sp for sp in spans_ if sp[1] > sp[0]], threads)
            H4 = H.reshape(g1 - g0, a, a, nz)
            out[2 * g0 : 2 * g1 : 2, :a] = H4.sum(axis=2)  # feature 2q: x2 summed out
            out[2 * g0 + 1 : 2 * g1 : 2, :a] = H4.sum(axis=1)  # feature 2q + 1: x1 out
        if K % 2:  # the odd last feature, alone
            out[K - 1 :] = joint_histograms(C[K - 1 :], z, nz, width)
        return out
    if threads <= 1:
        return joint_histograms(C, z, nz, width, packed)
    z = z.astype(np.int64)  # once, not per thread
    pairs_ = K // 2
    kcuts = [2 * (pairs_ * i // threads) for i in range(threads)] + [K]
    out = np.empty((K, width, nz), dtype=np.int64)

    def features(i: int) -> None:
        k0, k1 = kcuts[i], kcuts[i + 1]
        part = None if packed is None else (packed[0][k0 // 2 : k1 // 2], packed[1])
        out[k0:k1] = joint_histograms(C[k0:k1], z, nz, width, part)

    thread_map(features, [(i,) for i in range(threads)], threads)
    return out


def _hist_target(block: tuple, width: int, ny: int) -> np.ndarray:
    C, yc, packed = block
    if _gpu(packed):
        return packed.joint_counts(ny)
    return _counts(C, yc, ny, width, packed)


def _hist_pair(block: tuple, j: int, aj: int, width: int, ny: int) -> np.ndarray:
    C, yc, packed = block
    if _gpu(packed):  # Z = Xj * ny + Y made on the GPU
        return packed.joint_counts(aj * ny, row=(j, ny, True))
    return _counts(C, _joint_code(C[j], yc, ny, aj * ny), aj * ny, width, packed)


def _hist_feature(block: tuple, j: int, aj: int, width: int) -> np.ndarray:
    C, _, packed = block
    if _gpu(packed):
        return packed.joint_counts(aj, row=(j, 1, False))
    return _counts(C, C[j], aj, width, packed)


def _hist_cond(block: tuple, s: np.ndarray, ns: int, width: int, ny: int) -> np.ndarray:
    C, yc, packed = block
    z = _joint_code(s, yc, ny, ns * ny)
    if _gpu(packed):
        return packed.joint_counts(ns * ny, z=z)
    return _counts(C, z, ns * ny, width, packed)


def _merged_states(block: tuple, s: np.ndarray | None, j: int, aj: int) -> np.ndarray:
    C = block[0]
    cj = C[j].astype(np.int64)
    return cj if s is None else s.astype(np.int64) * aj + cj


def _chunk_states(block: tuple, s: np.ndarray | None, j: int, aj: int) -> np.ndarray:
    return np.unique(_merged_states(block, s, j, aj))


def _union(*parts: np.ndarray) -> np.ndarray:
    return np.unique(np.concatenate(parts))


def _relabel(block: tuple, s: np.ndarray | None, j: int, aj: int, states: np.ndarray) -> Any:
    out = np.searchsorted(states, _merged_states(block, s, j, aj))
    return out.astype(smallest_code_dtype(states.size))


# ----------------------------------------------------------------------------- the table


class DaskJointCodes:
    """The joint code of a conditioning set ``S``, one persisted block per chunk."""

    def __init__(self, blocks: list[Any], n_states: int) -> None:
        self.blocks = blocks
        self.n_states = n_states


class DaskInformationTable:
    """Discrete features and a target on Dask workers, scored by tree reductions.

    Built by :func:`dask_information_table`. Same attributes and methods as
    :class:`fsel.kernels.information.InformationTable` (except ``codes``, which stay on
    the workers), so the greedy engine runs on it unchanged.

    Attributes
    ----------
    relevance : ndarray of shape (n_features,)
        ``I(Xk;Y)`` in bits.
    feature_entropy : ndarray of shape (n_features,)
    target_entropy : float
    n_levels : ndarray of shape (n_features,)
        Code widths on the workers (bins, or distinct values of a code column).
    observed_levels : ndarray of shape (n_features,)
        Number of non-empty levels (the in-memory ``n_levels`` after compaction).
    n_samples, n_classes : int
    class_counts : ndarray of shape (n_classes,)
        Rows per class code.
    y_bin_edges : ndarray or None
        Inner bin edges of a continuous target binned like a feature.
    missing_codes : None
        No pairwise deletion on Dask (a hole is one more level of its column).
    device : str
        Where the blocks count: ``"cpu"``, ``"cuda"`` (every block on its worker's GPU)
        or ``"cuda+cpu"`` (``device="auto"`` on a cluster where only some workers have
        a usable GPU).
    transfer_seconds : float
        Seconds the blocks' codes took to reach their GPUs (summed over blocks).
    count_seconds : float
        Seconds of the reductions, as the client waited for them.
    """

    missing_codes: np.ndarray | None = None
    y_bin_edges: np.ndarray | None = None
    device: str = "cpu"
    transfer_seconds: float = 0.0

    def __init__(
        self,
        blocks: list[Any],
        n_levels: np.ndarray,
        n_classes: int,
        n_samples: int,
        *,
        estimator: str = "plugin",
        client: Any = None,
        actors: list[Any] | None = None,
    ) -> None:
        if estimator not in _ESTIMATORS:
            raise ValueError(f"estimator must be one of {_ESTIMATORS}, got {estimator!r}")
        self.blocks = blocks
        self._client = client
        self._actor_futures = actors
        self._actors: list[Any] | None = None
        self.count_seconds = 0.0
        self.n_levels = np.asarray(n_levels, dtype=np.int64)
        self.width = int(self.n_levels.max())
        self.n_classes = int(n_classes)
        self.n_samples = int(n_samples)
        self.estimator = estimator
        self._log2n = float(np.log2(self.n_samples))
        self._mm = miller_madow_per_cell(estimator, self.n_samples)
        ny = self.n_classes
        H = self._reduce(_hist_target, self.width, ny, cells=self.width * ny)  # (K, width, ny)
        ycounts = H[0].sum(axis=0)
        self.class_counts = ycounts
        self._s_y = float(nlogn(ycounts).sum())
        self._m_y = int(np.count_nonzero(ycounts))
        self._s_ky, self._s_k, self._m_ky, self._m_k = self._sums(H, ny)
        self.observed_levels = np.count_nonzero(H.sum(axis=2), axis=1).astype(np.int64)
        self.feature_entropy = self._h(self._s_k, self._m_k)
        self.target_entropy = float(self._h(np.array(self._s_y), np.array(self._m_y)))
        self.relevance = np.maximum(
            0.0, self.feature_entropy + self.target_entropy - self._h(self._s_ky, self._m_ky)
        )

    @property
    def n_features(self) -> int:
        return int(self.n_levels.size)

    def _reduce(
        self, fn: Any, *args: Any, extra: list[Any] | None = None, cells: int = 0
    ) -> np.ndarray:
        """``sum_chunks fn(block, [extra_block,] *args)``: one reduction, computed, timed
        into ``count_seconds``; ``cells``: the cells of one feature's table (bounds the
        tables in flight to the client). See :meth:`_reduce_now`."""
        import time

        t0 = time.perf_counter()
        try:
            return self._reduce_now(fn, args, extra, cells)
        finally:
            self.count_seconds += time.perf_counter() - t0

    def _reduce_now(self, fn: Any, args: tuple, extra: list[Any] | None, cells: int) -> Any:
        """On a ``distributed`` client: one call per worker to the actor holding its
        blocks (:func:`fsel.kernels._dask.actor_sum`: no task for the scheduler, the
        per-step latency of a greedy step), or, with ``extra`` blocks or without
        actors, one task per block submitted as futures, the few per-block tables
        gathered and summed on the client (a tree on the workers above ``FAN_IN``
        blocks). An actor holds its worker's blocks only while that worker lives: when a
        call fails (a worker lost), this and every later reduction take the futures path,
        on which the scheduler recomputes the lost blocks from their graph (an error of
        ``fn`` itself is then raised there). Without a client: one delayed tree."""
        import dask

        if self._actor_futures is not None and extra is None:
            try:
                if self._actors is None:  # the handles, fetched once
                    self._actors = self._client.gather(self._actor_futures)
                return actor_sum(self._actors, fn, args, 4 * self.n_features * cells)
            except Exception:  # any failure (a worker lost): the futures path decides
                self._actor_futures = self._actors = None
        if self._client is not None:
            seqs = [self.blocks] if extra is None else [self.blocks, extra]
            parts = map_futures(self._client, fn, seqs, args)
            return reduce_futures(self._client, parts, _add)
        if extra is None:
            parts = [dask.delayed(fn)(b, *args) for b in self.blocks]
        else:
            parts = [dask.delayed(fn)(b, e, *args) for b, e in zip(self.blocks, extra, strict=True)]
        return _tree(parts, _add).compute()

    @staticmethod
    def _sums(H: np.ndarray, group: int) -> tuple[np.ndarray, ...]:
        """The four outputs of :func:`grouped_nlogn` from a summed count table."""
        K = H.shape[0]
        s_full, s_coarse = np.zeros(K), np.zeros(K)
        m_full, m_coarse = np.zeros(K, dtype=np.int64), np.zeros(K, dtype=np.int64)
        for k in range(K):  # one feature at a time: temporaries of one table row
            full = H[k].reshape(1, -1)
            coarse = H[k].reshape(1, H.shape[1], -1, group).sum(axis=3).reshape(1, -1)
            s_full[k] = nlogn(full).sum(axis=1)[0]
            s_coarse[k] = nlogn(coarse).sum(axis=1)[0]
            m_full[k] = np.count_nonzero(full)
            m_coarse[k] = np.count_nonzero(coarse)
        return s_full, s_coarse, m_full, m_coarse

    # entropies and pair terms from sums of c log2 c: the same numbers as in memory
    _h = InformationTable._h
    _terms_from_sums = InformationTable._terms_from_sums

    def pair_terms(self, j: int) -> PairTerms:
        """All pairwise terms of every candidate against feature ``j``: one reduction."""
        ny = self.n_classes
        aj = int(self.n_levels[j])
        H = self._reduce(_hist_pair, int(j), aj, self.width, ny, cells=self.width * aj * ny)
        return self._terms_from_sums(j, *self._sums(H, ny))

    def pair_mi(self, j: int) -> np.ndarray:
        """``I(Xk;Xj)`` of every candidate alone (MIFS, mRMR): one reduction of the
        ``(Xk, Xj)`` tables, ``ny`` times smaller than :meth:`pair_terms`'; the same
        values as ``pair_terms(j).mi``, bit for bit (the same integer counts)."""
        aj = int(self.n_levels[j])
        H = self._reduce(_hist_feature, int(j), aj, self.width, cells=self.width * aj)
        s_kj, _, m_kj, _ = self._sums(H, 1)
        h_k = self.feature_entropy
        return np.maximum(0.0, h_k + h_k[j] - self._h(s_kj, m_kj))

    def lazy_cmim(self, k: int, tol: float) -> None:
        """No lazy CMIM on Dask (each partial score would be a round trip): None."""
        return None

    def joint_codes(self, s: DaskJointCodes | None, j: int) -> DaskJointCodes:
        """The joint code of ``S`` and feature ``j``, relabelled ``0..ns-1`` and
        persisted per chunk; the client holds only the sorted set of occupied states."""
        import dask

        aj = int(self.n_levels[j])
        prev = [None] * len(self.blocks) if s is None else s.blocks
        if self._client is not None:
            client, seqs = self._client, [self.blocks, prev]
            states = reduce_futures(
                client, map_futures(client, _chunk_states, seqs, (int(j), aj)), _union
            )
            new = map_futures(client, _relabel, seqs, (int(j), aj, states))
            return DaskJointCodes(new, int(states.size))
        parts = [
            dask.delayed(_chunk_states)(b, p, int(j), aj)
            for b, p in zip(self.blocks, prev, strict=True)
        ]
        states = _tree(parts, _union).compute()
        new = [
            dask.delayed(_relabel)(b, p, int(j), aj, states)
            for b, p in zip(self.blocks, prev, strict=True)
        ]
        return DaskJointCodes(list(dask.persist(*new)), int(states.size))

    def conditional_relevance(self, s: DaskJointCodes) -> np.ndarray:
        """``I(Xk;Y|S)`` for every candidate: one reduction of ``(Xk, S, Y)`` tables."""
        ny = self.n_classes
        H = self._reduce(_hist_cond, s.n_states, self.width, ny, extra=s.blocks)
        s_ksy, s_ks, m_ksy, m_ks = self._sums(H, ny)
        zc = H[0].sum(axis=0)  # (ns * ny,): counts of (S, Y)
        sc = zc.reshape(-1, ny).sum(axis=1)
        h_sy = float(self._h(nlogn(zc).sum(), np.count_nonzero(zc)))
        h_s = float(self._h(nlogn(sc).sum(), np.count_nonzero(sc)))
        return np.maximum(0.0, self._h(s_ks, m_ks) + h_sy - self._h(s_ksy, m_ksy) - h_s)


def dask_information_table(
    blocks: list[Any],
    y_blocks: list[Any],
    discrete: np.ndarray,
    *,
    n_bins: int = 5,
    strategy: str | None = "uniform",
    estimator: str = "plugin",
    estimator_name: str = "estimator",
    missing: str = "level",
    device: str = "cpu",
) -> tuple[DaskInformationTable, list[np.ndarray | None], np.ndarray]:
    """Discretise a Dask table on its workers and build its information table.

    Parameters
    ----------
    blocks, y_blocks : lists of dask.delayed.Delayed
        Matching row chunks of the features ``(n_i, n_features)`` and of the labels
        (see :func:`fsel.utils.dask_table.check_dask_table`).
    discrete : bool ndarray of shape (n_features,)
        Columns taken as codes.
    n_bins, strategy
        As for :func:`fsel.kernels.discretize.discretize`.
    estimator : {"plugin", "miller_madow"}
    missing : {"level", "available", "error"}
        A NaN in ``X``: one more level of its column, the last code, after binning the
        observed values (``"level"``, as :func:`fsel.kernels.discretize.discretize`
        does in memory); ``"error"`` refuses it; ``"available"`` (pairwise deletion) is
        not supported on Dask and raises when ``X`` has a NaN.
    device : {"cpu", "cuda", "auto"}
        Where each worker counts its blocks: ``"cuda"`` on its GPU (a worker without a
        usable one: the in-memory fit's one-line ``RuntimeError``, naming the worker;
        checked on every worker before any pass), ``"auto"`` on its GPU where usable,
        else on its CPU (``table.device`` says which).

    Returns
    -------
    table : DaskInformationTable
    edges : list
        Inner bin edges per column (None for code columns).
    classes : ndarray
        The sorted class labels (a binned continuous target: ``0..levels-1``, its bin
        edges in ``table.y_bin_edges``, else None there).
    """
    import dask

    if strategy not in ("uniform", "quantile", None):
        raise ValueError(f"strategy must be 'uniform', 'quantile' or None, got {strategy!r}")
    auto = isinstance(n_bins, str) and n_bins == "auto"
    if strategy is not None:
        check_n_bins(n_bins, 1)  # validates; "auto" is resolved once N is known
    if auto:  # distinct values gathered up to the most bins "auto" can give
        n_bins = AUTO_MAX_BINS
    code_cols = np.asarray(discrete, dtype=bool)
    d = code_cols.size
    if device == "cuda":  # every worker must have a GPU: said before any pass
        check_workers_cuda(estimator_name)

    def merge(*ps: dict[str, Any]) -> dict[str, Any]:
        return _merge_stats(*ps, code_cols=_code_like(code_cols, strategy), n_bins=n_bins)

    # persisted on a distributed client: tasks submitted straight on the futures, one
    # per worker (in groups of at most 256 MiB): its chunks prepared, then its stats
    raw = _raw_futures(blocks, y_blocks)
    if raw is not None:
        client, x_futs, y_futs, holders = raw
        sizes = client.nbytes([f.key for f in x_futs], summary=False)
        groups = worker_groups(
            holders,
            list(zip(x_futs, y_futs, strict=True)),
            [float(sizes.get(f.key, 0)) for f in x_futs],
        )
        all_codes = bool(np.all(code_cols))
        prepared = []
        parts = []
        for w, g in groups:
            place = {"workers": [w], "allow_other_workers": True, "pure": False}
            prepared.append(client.submit(_prepare_group, all_codes, *g, **place))
            parts.append(
                client.submit(_group_stats, prepared[-1], code_cols, n_bins, strategy, *g, **place)
            )
        st = reduce_futures(client, parts, merge)
        del parts
    else:
        parts = [
            dask.delayed(_chunk_stats)(x, y, code_cols, n_bins, strategy)
            for x, y in zip(blocks, y_blocks, strict=True)
        ]
        st = _tree(parts, merge).compute()
    if st.get("y_nan"):
        raise ValueError(f"{estimator_name}: y has missing values (NaN); drop those rows first")
    if st["inf"] is not None:
        raise ValueError(
            f"{estimator_name}: X contains inf in column '{st['inf']}'; infinite values "
            "are not allowed"
        )
    holes = np.asarray(st["nan"], dtype=bool)
    if holes.any() and missing != "level":
        col = int(np.flatnonzero(holes)[0])
        if missing == "available":
            raise ValueError(
                f"{estimator_name}: X has missing values (NaN) in column '{col}'; "
                "missing='available' (pairwise deletion) is not supported on Dask input: "
                "use missing='level' (a missing value is one more level), or compute X"
            )
        raise ValueError(
            f"{estimator_name}: X has missing values (NaN) in column '{col}' and "
            "missing='error'; use the estimator's default missing-value rule or impute them "
            "first"
        )
    if st["n"] == 0:
        raise ValueError(f"{estimator_name}: X has no rows")
    if auto and strategy is not None:  # the rule of binning.auto_n_bins, on all N rows
        n_bins = auto_n_bins(st["n"])
        st["distinct"] = [
            u if u is None or code_cols[j] or u.size <= n_bins else None
            for j, u in enumerate(st["distinct"])
        ]
    classes = st["classes"]
    y_edges = None
    if st.get("y_nonint") and (classes is None or classes.size > n_bins):
        # continuous target (non-integer floats): binned like a float feature, as in
        # memory (uniform: the same edges; quantile: exact quantiles)
        if strategy is None:
            raise ValueError(
                f"{estimator_name}: y is continuous (non-integer float values) and "
                "discretize=None takes it as codes; bin it (discretize='uniform' or "
                "'quantile') or pass class labels"
            )
        if strategy == "uniform":
            y_edges = uniform_edges(np.array([st["y_lo"]]), np.array([st["y_hi"]]), n_bins)[0]
        else:
            yb = [dask.delayed(_target_column)(y) for y in y_blocks]  # exact quantiles
            y_edges = dask_edges(yb, np.array([0]), n_bins)[0]
    elif classes is None:
        raise ValueError(
            f"{estimator_name}: y has more than {MAX_CODE_LEVELS} distinct labels on Dask input"
        )
    if y_edges is None and classes.size < 2:
        raise ValueError(
            f"{estimator_name}: y has a single class, only one class ({classes[0]!r}); at "
            "least two classes are needed to select features"
        )
    if strategy is None and st["nonint"] is not None:
        raise ValueError(
            f"discretize=None takes every column as codes, but column {st['nonint']} "
            "has non-integer values; bin it (discretize='uniform') or encode it"
        )
    distinct = st["distinct"]
    levels: list[np.ndarray | None] = [None] * d
    edges: list[np.ndarray | None] = [None] * d
    width = np.zeros(d, dtype=np.int64)
    for j in range(d):
        if distinct[j] is not None:
            levels[j] = distinct[j]
            width[j] = distinct[j].size
        elif code_cols[j] or strategy is None:
            raise ValueError(
                f"{estimator_name}: column {j} has more than {MAX_CODE_LEVELS} distinct "
                "values on Dask input; bin it or encode it with fewer codes"
            )
    binned = np.flatnonzero([lev is None for lev in levels])
    if binned.size and strategy == "uniform":
        inner = uniform_edges(st["lo"][binned], st["hi"][binned], n_bins)
        for i, j in enumerate(binned.tolist()):
            edges[j] = inner[i]
    elif binned.size:
        # exact quantiles of the observed values, as in memory
        inner = dask_edges(blocks, binned, n_bins)
        for i, j in enumerate(binned.tolist()):
            edges[j] = inner[i]
    for j in binned.tolist():
        width[j] = edges[j].size + 1
    width += holes  # the missing level of a column with holes: its last code
    dtype = smallest_code_dtype(int(width.max()))
    placed: list[Any] = []  # the worker of each merged block
    args = (edges, levels, classes, dtype, y_edges)
    if raw is not None and st["prepared"]:  # one block per group, from its prepared block
        encoded = []
        for (w, g), prep in zip(groups, prepared, strict=True):
            place = {"workers": [w], "allow_other_workers": True, "pure": False}
            encoded.append(client.submit(_encode_prepared, args, prep, *g, **place))
            placed.append(w)
        del raw, groups, prepared
    elif raw is not None:  # encoded in groups per worker, straight into merged blocks
        client, x_futs, y_futs, _ = raw
        del raw, groups, prepared
        per_block = st["n"] * d * np.dtype(dtype).itemsize / len(x_futs)  # codes
        encode = partial(_encode_group, args)
        pairs = list(zip(x_futs, y_futs, strict=True))
        encoded = merge_per_worker(
            client, list(x_futs), encode, per_block, payload=pairs, placed=placed
        )
    else:
        encoded, client = _encode_persisted(blocks, y_blocks, args, st["n"] * d, placed)
    ny = int(classes.size) if y_edges is None else int(y_edges.size) + 1
    devices: list[tuple[str, float]] = []
    if device != "cpu":  # each block's codes onto its worker's GPU
        encoded, devices = to_devices(encoded, client, placed, (device, width, ny, estimator_name))
    # one actor per worker over its blocks, created while they are encoded
    actors = None if client is None else block_actors(client, encoded, placed)
    table = DaskInformationTable(
        encoded, width, ny, int(st["n"]), estimator=estimator, client=client, actors=actors
    )
    used = {dev for dev, _ in devices} or {"cpu"}
    table.device = "cuda+cpu" if len(used) > 1 else used.pop()
    table.transfer_seconds = float(sum(t for _, t in devices))
    table.y_bin_edges = y_edges
    if y_edges is not None:  # the non-empty bins, numbered as in memory (compacted)
        classes = np.arange(int(np.count_nonzero(table.class_counts)))
    return table, edges, classes
