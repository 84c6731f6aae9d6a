"""Is a CUDA GPU usable from numba, and if not, which piece is missing.

``device="cuda"`` needs numba, numba's CUDA target (the ``numba-cuda`` package; with
numpy 2.5 its release 0.30 does not import), a CUDA driver and a device.
:func:`cuda_problem` names the first missing piece in one line; :func:`resolve_device`
turns a ``device`` parameter into ``"cpu"`` or ``"cuda"``.
"""

from __future__ import annotations

import os

__all__ = ["DEVICES", "cuda_problem", "resolve_device"]

DEVICES = ("cpu", "cuda", "auto")

_HINT = "install the GPU extra: pip install 'fsel[cuda]'"


def cuda_problem() -> str | None:
    """None when numba can run CUDA kernels here, else a one-line reason.

    Under ``NUMBA_ENABLE_CUDASIM=1`` numba's simulator counts as a usable device (the
    kernels then run, slowly, on the CPU).

    Examples
    --------
    >>> problem = cuda_problem()
    >>> problem is None or isinstance(problem, str)
    True
    """
    try:
        import numba  # noqa: F401
    except ImportError:
        return f"numba is not installed ({_HINT})"
    try:
        from numba import cuda
    except Exception as exc:  # numba-cuda missing or incompatible (e.g. with numpy 2.5)
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return (
            f"numba's CUDA target (numba-cuda) cannot be imported: {first} (numba-cuda "
            f"0.30 needs numpy < 2.5; {_HINT})"
        )
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        return None
    try:
        if cuda.is_available():
            return None
    except Exception:  # diagnosed below
        pass
    try:  # why not: no driver, or a driver without a device
        from numba.cuda.cudadrv.driver import driver

        count = driver.get_device_count()
    except Exception as exc:
        text = " ".join(str(exc).split())
        if "driver" in text.lower() and ("not be found" in text or "cannot" in text):
            return "no CUDA driver found (libcuda is not installed or not on the library path)"
        return f"the CUDA driver could not be initialised: {text[:200]}"
    if count < 1:
        return "no CUDA device found (the driver is installed but sees no GPU)"
    return "numba's CUDA target reports no usable GPU"


def resolve_device(device: object, estimator_name: str) -> str:
    """``"cpu"`` or ``"cuda"`` for a ``device`` parameter.

    ``"cuda"`` without a usable GPU raises a RuntimeError naming what is missing (no
    silent fall-back); ``"auto"`` gives ``"cuda"`` when usable, else ``"cpu"``.

    Examples
    --------
    >>> resolve_device("cpu", "JMI")
    'cpu'
    >>> resolve_device("auto", "JMI") in ("cpu", "cuda")
    True
    """
    if not isinstance(device, str) or device not in DEVICES:
        raise ValueError(f"{estimator_name}: device must be one of {DEVICES}, got {device!r}")
    if device == "cpu":
        return "cpu"
    problem = cuda_problem()
    if problem is None:
        return "cuda"
    if device == "auto":
        return "cpu"
    raise RuntimeError(f"{estimator_name}: device='cuda' but {problem}")
