"""How the lane kernels share a block's shared memory among the candidates.

:func:`~fsel.kernels.gpu._cuda_information.hist_lanes` and
:func:`~fsel.kernels.gpu._cuda_information.hist_lane_words` count the greedy step's
joint histograms with one shared-memory bank per lane of a warp (no two lanes of an
atomic add share a bank). This module holds their plans (features per block, blocks
along the features, shared memory per block) and the driver opt-in above 48 KiB of
shared memory a block; :class:`~fsel.kernels.gpu.information_rows.GpuRowTable`
launches them. Plain Python: nothing here needs a GPU.
"""

from __future__ import annotations

from typing import Any

from fsel.kernels.gpu.information import _SIMULATOR as SIMULATOR

__all__ = [
    "LANE_OPT_IN_BYTES",
    "LANE_PLAIN_BYTES",
    "LANE_TILE",
    "LANE_WORDS_MAX_BYTES",
    "allow_shared",
    "lane_groups",
    "lane_word_blocks",
    "lane_word_plan",
]

#: shared memory of a multiprocessor that blocks may use (H100/H200: 227 KiB), and
#: what each block takes beyond its dynamic shared memory (the labels' lookup table,
#: 1 KiB the driver reserves)
SM_SHARED_BYTES = 227 * 1024
BLOCK_SHARED_EXTRA = 2048

#: dynamic shared memory a block of a lane kernel may take without the driver's
#: opt-in (48 KiB less the static lookup table), and with it (two blocks a
#: multiprocessor at least)
LANE_PLAIN_BYTES = 47 * 1024
LANE_OPT_IN_BYTES = 100 * 1024
#: dynamic shared memory a block of ``hist_lane_words`` may take where its histograms
#: do not fit :data:`LANE_OPT_IN_BYTES` (the relevance pass, 256 codes a feature): one
#: block a multiprocessor
LANE_WORDS_MAX_BYTES = SM_SHARED_BYTES - BLOCK_SHARED_EXTRA
#: threads of ``hist_lane_words`` a multiprocessor runs at once: its 65,536 registers
#: at 64 a thread (the kernel's ``max_registers``)
LANE_WORD_THREADS_PER_SM = 1024
#: rows whose ``Z`` a block of ``hist_lanes`` stages in shared memory at a time
LANE_TILE = 8 if SIMULATOR else 256


def _cell_words(cells: int, half: bool) -> int:
    """32-bit words of one feature's histogram (two 16-bit counts a word with
    ``half``)."""
    return (cells + 1) // 2 if half else cells


def lane_groups(n_features: int, cells: int, half: bool, budget: int) -> Any:
    """How :func:`~fsel.kernels.gpu._cuda_information.hist_lanes` splits the features:
    ``(nf, n_groups, shared_bytes)`` (features per block, blocks along the features,
    dynamic shared memory of a block), or None when 32 features' histograms (one
    column a lane) do not fit ``budget`` bytes. A block takes 128 features at most.

    A block's histograms take ``4 * 32 * cw`` bytes per 32 features (``cw = cells``,
    or ``ceil(cells / 2)`` with ``half``), plus the staged ``Z`` of its rows; the
    groups are as even as possible in whole slices of 32 features.

    Examples
    --------
    >>> lane_groups(100, 200, True, 100 * 1024)  # JMI's step: every feature in a block
    (128, 1, 52224)
    >>> lane_groups(100, 200, True, 47 * 1024)  # without the opt-in: two groups
    (64, 2, 26624)
    >>> lane_groups(100, 512, False, 47 * 1024) is None
    True
    """
    per_slice = 4 * 32 * _cell_words(cells, half)
    fit = min(4, (budget - 4 * LANE_TILE) // per_slice)  # a lane reads four bytes
    if fit < 1 or n_features < 1:
        return None
    total = -(-n_features // 32)
    n_groups = -(-total // fit)
    slices = -(-total // n_groups)
    return slices * 32, -(-total // slices), slices * per_slice + 4 * LANE_TILE


def lane_word_plan(n_features: int, cells: int, half: bool, budget: int) -> Any:
    """The plan of :func:`~fsel.kernels.gpu._cuda_information.hist_lane_words`:
    ``(n_groups, shared_bytes)`` (blocks of 128 features along the features, dynamic
    shared memory of a block), or None where a row is not whole 4-byte words
    (``n_features % 4``) or the four slices of 32 lanes' histograms do not fit
    ``budget`` bytes.

    Examples
    --------
    >>> lane_word_plan(100, 200, True, 100 * 1024)  # JMI's step: one block of features
    (1, 51200)
    >>> lane_word_plan(300, 200, True, 100 * 1024)
    (3, 51200)
    >>> lane_word_plan(100, 200, True, 47 * 1024) is None  # four slices do not fit
    True
    >>> lane_word_plan(99, 200, True, 100 * 1024) is None  # rows not whole words
    True
    """
    shared = 4 * 4 * 32 * _cell_words(cells, half)
    if n_features < 1 or n_features % 4 or shared > budget:
        return None
    return -(-n_features // 128), shared


def lane_word_blocks(shared_bytes: int) -> tuple[int, int]:
    """``(threads, resident)``: the block size of ``hist_lane_words`` and its blocks on
    one multiprocessor, for ``shared_bytes`` of dynamic shared memory a block. The
    registers allow :data:`LANE_WORD_THREADS_PER_SM` threads a multiprocessor; the
    blocks that fit its shared memory share them (256 threads a block at least).

    Examples
    --------
    >>> lane_word_blocks(51200)  # JMI's step: four blocks of 256 threads
    (256, 4)
    >>> lane_word_blocks(131072)  # the relevance pass, two classes: one of 1,024
    (1024, 1)
    """
    fit = max(1, SM_SHARED_BYTES // (shared_bytes + BLOCK_SHARED_EXTRA))
    threads = max(256, LANE_WORD_THREADS_PER_SM // fit // 32 * 32)
    return threads, max(1, min(fit, LANE_WORD_THREADS_PER_SM // threads))


#: the dynamic shared memory each kernel specialisation was allowed, by the driver
_ALLOWED: dict[tuple, int] = {}


def allow_shared(kernel: Any, args: tuple, nbytes: int) -> bool:
    """Let ``kernel``'s specialisation for ``args`` take ``nbytes`` of dynamic shared
    memory (above 48 KiB a kernel must opt in through the CUDA driver). True where it
    may; False where numba's CUDA target does not expose the call (the caller then
    plans for 48 KiB). Under the simulator there is no limit. A specialisation is
    opted in once per size (the greedy steps launch the same one again)."""
    if SIMULATOR or nbytes <= 48 * 1024:
        return True
    try:
        from numba import cuda
        from numba.cuda.cudadrv.driver import binding, driver

        types = tuple(kernel.typeof_pyval(a) for a in args)
        key = (kernel, types, id(cuda.current_context()))
        if _ALLOWED.get(key, 0) >= nbytes:
            return True
        fn = kernel.compile(types)._codelibrary.get_cufunc()
        attr = binding.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        driver.cuKernelSetAttribute(attr, int(nbytes), fn.handle, fn.device.id)
    except Exception:  # another numba-cuda: no opt-in
        return False
    _ALLOWED[key] = int(nbytes)
    return True
