"""The CUDA kernel of :mod:`fsel.kernels.gpu.sums` (numba's CUDA target): the sums of
``c log2 c`` over joint histograms already on the GPU, in the CPU's order.

Imported only by that module, inside functions, once a GPU (or numba's simulator) is
known to be usable. ``cache=True``: a second process loads the compiled kernel from
numba's cache.
"""

from __future__ import annotations

from numba import cuda


@cuda.jit(cache=True)
def nlogn_rows(hist, group, table, s_full, s_coarse, m_full, m_coarse, beyond):
    """Row ``k`` of ``hist`` (one candidate's histogram, cells ``x * nz + z``), one
    thread a row: ``s_full[k] = sum table[c]`` over its non-empty cells ``c`` in cell
    order, ``m_full[k]`` their number, and the same over the coarse cells (``group``
    consecutive cells added: ``z // group``) in ``s_coarse``, ``m_coarse``.

    ``table[c]`` is the host's ``c log2 c``: each sum is a chain of float64 adds in
    the order of the CPU's compiled sums (:func:`fsel.kernels._numba_counting._dense_sums`),
    so the numbers are the CPU's bit for bit. A count the table does not reach sets
    ``beyond[k]`` (the caller sums that row on the host).
    """
    k = cuda.grid(1)
    if k >= hist.shape[0]:
        return
    size = table.shape[0]
    sf = 0.0
    sc = 0.0
    mf = 0
    mc = 0
    over = 0
    for q in range(hist.shape[1] // group):
        cc = 0
        for g in range(group):
            c = hist[k, q * group + g]
            if c:
                mf += 1
                cc += c
                if c < size:
                    sf += table[c]
                else:
                    over = 1
        if cc:
            mc += 1
            if cc < size:
                sc += table[cc]
            else:
                over = 1
    s_full[k] = sf
    s_coarse[k] = sc
    m_full[k] = mf
    m_coarse[k] = mc
    beyond[k] = over
