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
_ABOVE_META = ["fsel.experiments", "fsel.reporting", "fsel.cli", "fsel.api"]
FORBIDDEN = {
    "utils": ["fsel.kernels", "fsel.selectors", "fsel.meta", *_ABOVE_META],
    "kernels": ["fsel.selectors", "fsel.meta", *_ABOVE_META],
    "selectors": ["fsel.meta", *_ABOVE_META],
    "meta": _ABOVE_META,
    "datasets": ["fsel.selectors", "fsel.meta", "fsel.experiments", "fsel.reporting", "fsel.cli"],
    # the paper reproductions and the user report are separate rooms: the report may use
    # the reproductions' protocols and cache, never the other way round
    "experiments": ["fsel.reporting", "fsel.cli"],
    "reporting": ["fsel.cli"],
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


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the fsel modules it imports, at module level or inside a function (a
    lazy import is still a dependency). ``from pkg import name`` points at the
    submodule ``pkg.name`` when there is one, else at ``pkg``; relative imports are
    resolved."""
    paths = {_module_name(p): p for p in SRC.rglob("*.py")}

    def known(name: str) -> str:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for mod, path in paths.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                out.update(known(a.name) for a in node.names if a.name.startswith("fsel"))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                if base == "fsel" or base.startswith("fsel."):
                    for a in node.names:
                        sub = f"{base}.{a.name}"
                        out.add(sub if sub in paths else known(base))
        out.discard(mod)
        out.discard("")
        graph[mod] = out
    return graph


def import_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph (``[a, b, ..., a]``), or None when it is acyclic."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def test_cycle_finder_finds_a_cycle_and_accepts_a_dag():
    assert import_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert import_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_no_import_circle_in_fsel():
    graph = import_graph()
    # the graph sees the modules this test is about
    assert "fsel.reporting.page" in graph["fsel.reporting.analysis"]
    assert "fsel.cli.io" in graph["fsel.cli.report"]
    assert import_cycle(graph) is None, " -> ".join(import_cycle(graph) or [])


def test_no_module_sets_the_global_matplotlib_backend():
    bad = [
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if re.search(
            r"matplotlib\.use\(|import matplotlib\.pyplot|from matplotlib import pyplot",
            p.read_text(),
        )
    ]
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


# ------------------------------------------------- private names of dependencies
def _private_dependency_imports(path: Path) -> list[str]:
    """The scikit-learn/joblib private names a module imports (a module or a name
    starting with ``_``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            root = node.module.split(".")[0]
            if root in ("sklearn", "joblib"):
                private_module = any(p.startswith("_") for p in node.module.split("."))
                out += [
                    f"{node.module}.{a.name}"
                    for a in node.names
                    if private_module or a.name.startswith("_")
                ]
        elif isinstance(node, ast.Import):
            out += [
                a.name
                for a in node.names
                if a.name.split(".")[0] in ("sklearn", "joblib")
                and any(p.startswith("_") for p in a.name.split("."))
            ]
    return out


def test_private_dependency_names_live_in_utils_compat():
    compat = SRC / "utils" / "compat.py"
    assert _private_dependency_imports(compat)  # the check sees what compat imports
    bad = {
        str(p.relative_to(SRC)): names
        for p in SRC.rglob("*.py")
        if p != compat and (names := _private_dependency_imports(p))
    }
    assert not bad, bad
