"""Run a test worker script under numba's CUDA simulator, in a subprocess.

The simulator must be chosen (``NUMBA_ENABLE_CUDASIM=1``) before ``numba.cuda`` is
first imported, so each GPU test module runs its worker script in a fresh process and
reads the JSON it prints. One helper for every such module.

The simulator runs one Python thread per GPU thread, and its block manager polls
those threads in a loop on the launching thread: with Python's default switch
interval (5 ms) that loop holds the interpreter lock for most of each launch. The
worker scripts therefore call :func:`fast_switching` first, which makes them about
three times faster and changes nothing they compute, and :func:`locked_shared_arrays`,
which mends a race of the simulator's static shared arrays."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: seconds between the interpreter's thread switches in a simulator worker
SWITCH_INTERVAL = 2e-4


def fast_switching() -> None:
    """Switch threads every :data:`SWITCH_INTERVAL` seconds in this process."""
    sys.setswitchinterval(SWITCH_INTERVAL)


def locked_shared_arrays() -> None:
    """Make the simulator's static shared arrays under a lock.

    The simulator gives the threads of a block one array per ``cuda.shared.array``
    line, made by the first thread that reaches the line: it looks the line up in a
    dict and, if absent, makes the array and stores it, without a lock. Two threads
    that reach the line together can therefore each make their own array, and one of
    them then writes where the others never read: a tile of ``transpose_codes`` or the
    label table of ``hist_lanes`` partly lost, counts and scores wrong. It happened in
    about one fit in a few hundred under load (the short switch interval above makes
    thread switches frequent); a real GPU has one shared array per block. The same
    lookup, made under a lock (the key: the calling line, as the simulator's)."""
    import threading

    import numpy as np
    from numba.core import types
    from numba.cuda.simulator import kernelapi
    from numba.np import numpy_support

    lock = threading.Lock()

    def array(self, shape, dtype):  # the simulator's signature
        if isinstance(dtype, types.Type):
            dtype = numpy_support.as_dtype(dtype)
        if shape == 0:  # dynamic shared memory: one buffer per block already
            count = self._dynshared_size // dtype.itemsize
            return np.frombuffer(self._dynshared.data, dtype=dtype, count=count)
        caller = sys._getframe(1)
        key = (caller.f_code.co_filename, caller.f_lineno)
        with lock:
            found = self._allocations.get(key)
            if found is None:
                found = self._allocations[key] = np.empty(shape, dtype)
        return found

    kernelapi.FakeCUDAShared.array = array


def run_simulated(script: str, *args: str, timeout: float = 600) -> dict:
    """The JSON printed by ``tests/<script> <args>`` run under the simulator, with
    this checkout's ``src`` first on ``PYTHONPATH``; a failing run fails with its
    stderr."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    run = subprocess.run(
        [sys.executable, str(ROOT / "tests" / script), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def assert_same_fit(r: dict) -> None:
    """A case's GPU fit (``r["gpu"]``) is its CPU fit: the same device attributes
    apart, the same picks, and its scores to rounding."""
    import numpy as np

    assert r["gpu"]["device_"] == "cuda"
    assert r["cpu"]["device_"] == "cpu"
    assert r["gpu"]["order"] == r["cpu"]["order"]
    np.testing.assert_allclose(r["gpu"]["scores"], r["cpu"]["scores"], rtol=0, atol=1e-12)
    for attr in ("selection_scores_", "relevance_", "margin_"):
        if attr in r["cpu"]:
            np.testing.assert_allclose(r["gpu"][attr], r["cpu"][attr], rtol=0, atol=1e-12)
