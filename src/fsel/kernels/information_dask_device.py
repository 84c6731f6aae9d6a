"""Dask information tables on the workers' GPUs: each block's codes moved onto the GPU
of the worker holding it (:class:`fsel.kernels.gpu.information.GpuBlockCounts`, in
place of the packed CPU codes), whose counting kernels the per-step functions of
:mod:`fsel.kernels.information_dask` then call. ``device="cuda"`` needs a usable GPU on
every worker (else the in-memory fit's one-line error, naming the worker);
``device="auto"`` uses the GPU of the workers that have one and the CPU of the others.

Neither dask nor numba is imported at module level.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsel.kernels._dask import scheduler_client

__all__ = ["block_device", "check_workers_cuda", "on_device", "on_gpu", "to_devices"]


def on_gpu(packed: Any) -> bool:
    """Whether a block's third part is its codes on this worker's GPU
    (:class:`fsel.kernels.gpu.information.GpuBlockCounts`) rather than packed codes."""
    return hasattr(packed, "joint_counts")


def on_device(block: tuple, device: str, n_levels: np.ndarray, ny: int, name: str) -> tuple:
    """A block as it counts on the worker holding it: its codes on that worker's GPU
    (:class:`fsel.kernels.gpu.information.GpuBlockCounts` in place of the packed codes)
    when ``device`` is ``"cuda"`` or ``"auto"`` and a GPU is usable there; else, under
    ``"auto"``, the block as it is (the CPU). ``"cuda"`` without a usable GPU raises the
    in-memory fit's one-line error, naming the worker."""
    from fsel.kernels.gpu._device import cuda_problem

    problem = cuda_problem()
    if problem is not None:
        if device == "cuda":
            raise RuntimeError(f"{name}: device='cuda' but {problem} (on Dask worker {_where()})")
        return block
    from fsel.kernels.gpu.information import GpuBlockCounts

    C, yc, _ = block
    return C, yc, GpuBlockCounts(C, yc, n_levels, ny)


def _where() -> str:
    """This worker's address (``"local"`` outside a ``distributed`` worker)."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "local"


def block_device(block: tuple) -> tuple[str, float]:
    """Where a block counts (``"cuda"`` or ``"cpu"``) and the seconds its codes took
    to reach the GPU."""
    packed = block[2]
    return ("cuda", float(packed.transfer_seconds)) if on_gpu(packed) else ("cpu", 0.0)


def _device_problems(client: Any) -> dict[str, str | None]:
    """:func:`fsel.kernels.gpu._device.cuda_problem` on every worker of ``client``."""
    from fsel.kernels.gpu._device import cuda_problem

    return client.run(cuda_problem)


def check_workers_cuda(name: str) -> None:
    """For ``device="cuda"``: the in-memory fit's one-line ``RuntimeError`` when a
    worker of the ``distributed`` client has no usable GPU (naming the worker and
    what is missing), or, on Dask's local schedulers, when this process has none."""
    client = scheduler_client()
    if client is None:
        from fsel.kernels.gpu._device import resolve_device

        resolve_device("cuda", name)
        return
    for addr, problem in sorted(_device_problems(client).items()):
        if problem is not None:
            raise RuntimeError(f"{name}: device='cuda' but {problem} (on Dask worker {addr})")


def to_devices(
    blocks: list[Any], client: Any, placed: list[Any], how: tuple
) -> tuple[list[Any], list[tuple[str, float]]]:
    """Every block through :func:`on_device` (``how``: its arguments after the block)
    on the worker holding it, and where each then counts (:func:`block_device`)."""
    import dask

    if client is None:
        out = list(dask.persist(*[dask.delayed(on_device)(b, *how) for b in blocks]))
        return out, list(dask.compute(*[dask.delayed(block_device)(b) for b in out]))
    where = placed if len(placed) == len(blocks) else [None] * len(blocks)
    out = []
    for b, w in zip(blocks, where, strict=True):
        place = {} if w is None else {"workers": [w], "allow_other_workers": True}
        out.append(client.submit(on_device, b, *how, pure=False, **place))
    blocks.clear()  # each CPU block released once its worker holds the GPU one
    return out, client.gather(client.map(block_device, out, pure=False))
