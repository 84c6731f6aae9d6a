"""Run a test worker script under numba's CUDA simulator, in a subprocess.

The simulator must be chosen (``NUMBA_ENABLE_CUDASIM=1``) before ``numba.cuda`` is
first imported, so each GPU test module runs its worker script in a fresh process and
reads the JSON it prints. One helper for every such module."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_simulated(script: str, timeout: float = 600) -> dict:
    """The JSON printed by ``tests/<script>`` run under the simulator, with this
    checkout's ``src`` first on ``PYTHONPATH``; a failing run fails with its stderr."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    run = subprocess.run(
        [sys.executable, str(ROOT / "tests" / script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)
