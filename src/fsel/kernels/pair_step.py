"""A greedy step's count: every packed feature pair against one selected feature and
the target, split by rows among the threads, with nothing serial but the hand-off.

At each step of the information criteria the table counts, for every candidate
``Xk``, the joint histogram of ``(Xk, Xj, Y)`` (``Xj`` the newest pick). With the codes
packed two features per byte (:func:`fsel.kernels._counting.pack_pairs`), one
increment per row counts two candidates. Here:

* the rows are cut into a few spans per thread (:data:`_SPANS_PER_THREAD`), which the
  threads take in turn (one slowed by other work on its core takes fewer); each span
  builds ``z = Xj * ny + Y`` chunk by chunk from
  the packed byte of ``Xj`` through a 256-entry lookup table (``z`` is never written
  whole, and each chunk of it stays in the core's cache while every pair's segment is
  counted against it: one byte of memory traffic per pair and row), and writes its
  own int32 histograms (no cache line shared between threads; an odd last feature is
  counted in the same sweep);
* the threads' histograms are added and turned into the sums ``sum n log2 n`` in
  parallel, each thread taking a block of pairs
  (:func:`fsel.kernels._numba_counting.stacked_pair_sums`);
* the per-thread histograms are allocated once per table and reused at every step, and
  the threads come from :func:`fsel.utils.parallel.thread_map`'s pool, which lives as
  long as the process, so a step starts no thread.

The counts are integers, so the sums are the same bit for bit for every number of
threads, and the same as :func:`fsel.kernels._counting.paired_nlogn`'s.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from fsel.kernels._counting import PairCodes
from fsel.kernels.discretize import smallest_code_dtype
from fsel.utils.parallel import spans, thread_map

__all__ = ["PairStep"]

#: Rows a counting thread takes at least (fewer: not worth a thread).
_MIN_ROWS_PER_THREAD = 1 << 16
#: Row spans per counting thread: the threads take the spans in turn, so a thread
#: slowed by other work on its core counts fewer of them (each span has its own
#: histograms; the counts are integers, summed in span order: the same numbers).
_SPANS_PER_THREAD = 4
#: Bytes that all threads' pair histograms together may take.
_MAX_HISTOGRAM_BYTES = 1 << 26


def _kernels() -> Any:
    from fsel.kernels import _numba_counting

    return _numba_counting


class PairStep:
    """The per-step counter of one table's packed codes (numba back-end).

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples) or PairCodes
        The table's codes (for an odd last feature and a plain matrix's rows).
    packed : ndarray of shape (n_features // 2, n_samples), uint8
        The packed pairs ``C[2q] * a + C[2q+1]``.
    a : int
        The packing base (the largest code + 1).
    n_jobs : int
        Threads.
    """

    def __init__(self, codes: Any, packed: np.ndarray, a: int, n_jobs: int) -> None:
        self.P = packed
        self.a = int(a)
        k, n = codes.shape
        self.n_features, self.n_samples = int(k), int(n)
        self.last = self._last_row(codes) if k % 2 else np.zeros(0, np.uint8)
        self.n_jobs = max(1, int(n_jobs))
        #: seconds spent so far in the threads' counting and in the sums (and calls)
        self.seconds = {"count_s": 0.0, "sums_s": 0.0, "calls": 0}
        self._buffer = np.zeros(0, np.int32)
        self._last_buffer = np.zeros(0, np.int32)

    @staticmethod
    def _last_row(codes: Any) -> np.ndarray:
        if isinstance(codes, PairCodes):
            row = codes.last
        else:
            row = codes[codes.shape[0] - 1]
        return np.ascontiguousarray(row, dtype=np.uint8)

    def _span_bytes(self, cells: int) -> int:
        """Bytes of one row span's histograms: every pair's ``cells`` int32 counts and
        the odd last feature's."""
        return 4 * (self.P.shape[0] * cells + self.a * cells)

    def _threads(self, cells: int) -> int | None:
        """Threads for histograms of ``cells`` cells per pair; None when even one
        thread's would exceed the memory cap."""
        per_thread = self._span_bytes(cells)
        if per_thread > _MAX_HISTOGRAM_BYTES:
            return None
        t = min(self.n_jobs, max(1, self.n_samples // _MIN_ROWS_PER_THREAD))
        return max(1, min(t, _MAX_HISTOGRAM_BYTES // per_thread))

    def source(self, j: int, ny: int) -> tuple[np.ndarray, np.ndarray]:
        """The row that holds feature ``j``'s codes (its packed pair, or the odd last
        row) and the lookup table ``zlut[byte] = code_j(byte) * ny`` in the smallest
        dtype that holds ``a * ny - 1``.

        Examples
        --------
        >>> C = np.array([[0, 1, 2], [2, 2, 0], [1, 0, 1]], dtype=np.uint8)
        >>> P = C[0:1] * 3 + C[1:2]
        >>> step = PairStep(C, P, 3, 1)
        >>> src, lut = step.source(1, 2)
        >>> (lut[src] // 2).tolist(), step.source(2, 1)[0].tolist()
        ([2, 2, 0], [1, 0, 1])
        """
        a = self.a
        dtype = smallest_code_dtype(a * ny)
        lut = np.zeros(256, dtype=dtype)
        if self.last.size and j == self.n_features - 1:
            lut[:a] = np.arange(a) * ny
            return self.last, lut
        q, r = divmod(int(j), 2)
        byte = np.arange(a * a)
        lut[: a * a] = (byte % a if r else byte // a) * ny
        return self.P[q], lut

    def count(
        self,
        j: int | None,
        y: np.ndarray | None,
        ny: int,
        aj: int,
        group: int,
        table: np.ndarray,
    ) -> tuple[np.ndarray, ...] | None:
        """:func:`fsel.kernels._counting.grouped_nlogn`'s four arrays for every feature
        against ``z = Xj * ny + Y`` (``y`` None: ``z = Xj``, ``ny = 1``; ``j`` None:
        ``z = Y``, ``aj = 1``, the relevance pass), ``aj`` the levels of ``Xj``; None
        when the histograms would not fit the memory cap."""
        nz = aj * ny
        cells = self.a * self.a * nz
        threads = self._threads(cells)
        if threads is None:
            return None
        kernels = _kernels()
        Q = self.P.shape[0]
        lcells = self.a * nz if self.last.size else 0
        per_span = self._span_bytes(cells)
        chunks = max(1, min(_SPANS_PER_THREAD, _MAX_HISTOGRAM_BYTES // (threads * per_span)))
        if self.n_samples // (threads * chunks) < _MIN_ROWS_PER_THREAD // 4:
            chunks = 1  # spans too short to be worth their histograms
        parts = spans(self.n_samples, threads * chunks)
        T = len(parts)
        if self._buffer.size < T * Q * cells:
            self._buffer = np.empty(T * Q * cells, np.int32)
        if self._last_buffer.size < T * lcells:
            self._last_buffer = np.empty(T * lcells, np.int32)
        Hs = self._buffer[: T * Q * cells].reshape(T, Q, cells)
        Hl = self._last_buffer[: T * lcells].reshape(T, lcells)
        if j is None:  # the labels themselves: z = Y through the identity
            src, zlut, yv = y, np.arange(256, dtype=smallest_code_dtype(nz)), np.zeros(0, np.uint8)
        else:
            src, zlut = self.source(j, ny)
            yv = np.zeros(0, np.uint8) if y is None else y
        P, last = self.P, self.last

        def run(t: int, i0: int, i1: int) -> None:
            kernels.pair_counts_z(P, src, zlut, yv, nz, last, i0, i1, Hs[t], Hl[t])

        t0 = time.perf_counter()
        thread_map(run, [(t, i0, i1) for t, (i0, i1) in enumerate(parts)], threads)
        t1 = time.perf_counter()
        k = self.n_features
        outs = (np.empty(k), np.empty(k), np.empty(k, np.int64), np.empty(k, np.int64))
        args = (Hs, nz, group, self.a, table, *outs)
        blocks = spans(Q, self.n_jobs if Q >= 2 * self.n_jobs else 1)
        thread_map(lambda q0, q1: kernels.stacked_pair_sums(*args, q0, q1), blocks, len(blocks))
        if lcells:
            F = Hl.sum(axis=0, dtype=np.int64)
            coarse = np.zeros(self.a * nz // group, np.int64)
            res = kernels._dense_sums(F, nz, group, self.a, table, coarse)
            for o, v in zip(outs, res, strict=True):
                o[k - 1] = v
        self.seconds["count_s"] += t1 - t0
        self.seconds["sums_s"] += time.perf_counter() - t1
        self.seconds["calls"] += 1
        return outs
