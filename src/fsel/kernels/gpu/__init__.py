"""GPU kernels (numba's CUDA target), imported only when ``device="cuda"`` is asked.

* :mod:`fsel.kernels.gpu._device`: is a GPU usable, and if not, what is missing;
* :mod:`fsel.kernels.gpu.information`: the greedy step's joint histograms
  (:class:`~fsel.kernels.gpu.information.GpuInformationTable`);
* :mod:`fsel.kernels.gpu.information_rows`: the same over row-major codes read in place
  (:class:`~fsel.kernels.gpu.information_rows.GpuRowTable`), and
  :mod:`fsel.kernels.gpu.lanes`, how its lane kernels share a block's shared memory;
* :mod:`fsel.kernels.gpu.conditional`: CMI's conditioning joint kept on the GPU, and
  its histograms counted over the rows sorted by ``Z``;
* :mod:`fsel.kernels.gpu.relief`: the Relief family's per-class nearest neighbours.

The kernels count on the GPU; every entropy, mutual information and margin is then
computed on the host by the same functions as on the CPU, so a GPU fit selects the
same features with the same scores. ``NUMBA_ENABLE_CUDASIM=1`` runs them on the CPU
(numba's simulator), which is how the test suite checks them without a GPU.
"""
