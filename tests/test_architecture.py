"""The layers import only downwards, and ``import fsel`` stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "fsel"

# layer -> packages it must never import
FORBIDDEN = {
    "utils": ["fsel.kernels", "fsel.selectors", "fsel.meta", "fsel.experiments", "fsel.cli"],
    "kernels": ["fsel.selectors", "fsel.meta", "fsel.experiments", "fsel.cli", "fsel.api"],
    "selectors": ["fsel.meta", "fsel.experiments", "fsel.cli", "fsel.api"],
    "meta": ["fsel.experiments", "fsel.cli", "fsel.api"],
    "datasets": ["fsel.selectors", "fsel.meta", "fsel.experiments", "fsel.cli"],
    "experiments": ["fsel.cli"],
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_lower_layers_never_import_upper_ones(layer):
    bad = []
    for path in (SRC / layer).rglob("*.py"):
        for mod in _imports(path):
            if any(mod == f or mod.startswith(f + ".") for f in FORBIDDEN[layer]):
                bad.append(f"{path.relative_to(SRC)} imports {mod}")
    assert not bad, bad


def test_import_is_light():
    code = (
        "import sys, fsel; heavy = [m for m in ('sklearn', 'scipy', 'numba', 'pandas', "
        "'polars', 'matplotlib', 'dask') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
