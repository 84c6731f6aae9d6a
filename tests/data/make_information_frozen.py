"""Regenerate ``information_frozen.json``: the information criteria's results on
complete (NaN-free) random tables, computed by fsel at commit f3493ae, before the
missing-value rules were added. ``tests/test_information_missing.py`` checks that
every result (order, scores, relevance) is still bit-identical.

Run from the repository root with the old sources first on the path, once per
back-end::

    PYTHONPATH=/path/to/f3493ae/src python tests/data/make_information_frozen.py
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    import fsel

    spec = importlib.util.spec_from_file_location(
        "_frozen_cases", HERE.parent / "test_information_missing.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    backend = "numpy" if os.environ.get("FSEL_DISABLE_NUMBA") else "numba"
    path = HERE / "information_frozen.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[backend] = {key: mod.frozen_record(fsel, *case) for key, case in mod.frozen_cases()}
    data["source"] = "fsel at commit f3493ae (before the missing-value rules)"
    path.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
