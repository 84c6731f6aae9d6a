"""The layers import only downwards, ``import fsel`` stays light, and pairwise distances
are computed in one place, ``fsel.kernels.distances``."""

from __future__ import annotations

import ast
import re
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


# ----------------------------------------------------------- one distance kernel
DISTANCES = SRC / "kernels" / "distances.py"
#: The distance kernel: the metric distances, their compiled kernels, and the expected
#: differences of missing values (Relief's rule, next to the Relief margins).
DISTANCE_FILES = {
    DISTANCES,
    SRC / "kernels" / "_numba_distances.py",
    SRC / "kernels" / "relief_margins.py",
    SRC / "kernels" / "_numba_relief_margins.py",
}
#: Names of functions that compute distances; only the distance kernel defines them.
DISTANCE_NAME = re.compile(r"distance|delta|manhattan|euclid", re.IGNORECASE)
#: What the distance users must take from kernels/distances.py (and use).
DISTANCE_USERS = {
    "kernels/neighbors.py": {"map_distance_rows"},
    "selectors/relief/_nearest.py": {"map_distance_rows", "full_distance_matrix"},
    "kernels/classifiability.py": {"sq_delta", "mixed_sq_distances"},
}


def _defined_functions(tree: ast.AST) -> list[str]:
    """Every function defined in a module, nested ones (the numba kernels) included."""
    return [
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


#: The GPU's twin of the distance kernels: a numba CUDA kernel lives in a module that
#: imports numba's CUDA target, imported only when device="cuda" is asked for.
GPU_DISTANCES = SRC / "kernels" / "gpu" / "_cuda_relief.py"


def test_only_kernels_distances_defines_distance_functions():
    bad = []
    for path in SRC.rglob("*.py"):
        if path in DISTANCE_FILES or path == GPU_DISTANCES:
            continue
        for name in _defined_functions(ast.parse(path.read_text())):
            if DISTANCE_NAME.search(name):
                bad.append(f"{path.relative_to(SRC)} defines {name}()")
    assert not bad, f"pairwise distances belong in kernels/distances.py: {bad}"
    # and the kernel does hold them
    names = set(_defined_functions(ast.parse(DISTANCES.read_text())))
    assert {"sq_delta", "mixed_sq_distances", "distance_block"} <= names


def test_compiled_scans_take_the_distance_primitive_from_the_distance_kernel():
    """classifiability's compiled scans fuse the one distance update, never their own."""
    text = (SRC / "kernels" / "_numba_classifiability.py").read_text()
    assert "from fsel.kernels._numba_distances import sq_delta_add" in text


@pytest.mark.parametrize("module", sorted(DISTANCE_USERS))
def test_distance_users_take_their_distances_from_kernels_distances(module):
    tree = ast.parse((SRC / module).read_text())
    imported = {
        a.asname or a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "fsel.kernels.distances"
        for a in node.names
    }
    missing = DISTANCE_USERS[module] - imported
    assert not missing, f"{module} does not import {missing} from fsel.kernels.distances"
    # imported to be used (or re-exported), not merely named
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    unused = {name for name in DISTANCE_USERS[module] if name not in used}
    exported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            exported = set(ast.literal_eval(node.value))
    assert unused <= exported, f"{module} imports {unused - exported} without using them"
