"""Run fsel's benchmarks: one area or all of them.

Usage::

    python benchmarks/run.py [information|relief|npfs|ranking|classifiability|sparse|all] [--quick]
    python benchmarks/run.py --list

Every ``benchmarks/bench_<area>.py`` module with a ``main(argv=None)`` function is an
area. Arguments after the area (``--quick`` and any others) are passed to each area's
``main``. A benchmark that fails is reported and the others still run; the exit status
is non-zero if any failed.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import traceback
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def discover() -> dict[str, Path]:
    """Map each area name to its ``bench_<area>.py`` file, in alphabetical order."""
    return {p.stem[len("bench_") :]: p for p in sorted(HERE.glob("bench_*.py"))}


def load(path: Path) -> ModuleType:
    """Import a benchmark module from its file (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"fsel_benchmarks.{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    areas = discover()
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        print("available areas:", ", ".join(areas) or "(none)")
        return 0
    if argv[0] == "--list":
        for name, path in areas.items():
            print(f"{name:20s} {path.relative_to(HERE.parent)}")
        return 0
    target, rest = (argv[0], argv[1:]) if not argv[0].startswith("-") else ("all", argv)
    if target == "all":
        chosen = list(areas)
    elif target in areas:
        chosen = [target]
    else:
        print(
            f"unknown benchmark area {target!r}; available: {', '.join(areas)} or all",
            file=sys.stderr,
        )
        return 2
    failed: list[str] = []
    for name in chosen:
        print(f"\n######## benchmark: {name} {' '.join(rest)}", flush=True)
        started = time.perf_counter()
        try:
            module = load(areas[name])
            if not callable(getattr(module, "main", None)):
                raise AttributeError(f"{areas[name].name} has no main(argv=None)")
            status = module.main(list(rest))
        except SystemExit as exc:  # argparse errors and explicit exits
            status = exc.code
        except Exception:
            traceback.print_exc()
            status = 1
        took = time.perf_counter() - started
        if status not in (0, None):
            failed.append(name)
            print(f"######## {name}: FAILED (status {status}) after {took:.0f} s", flush=True)
        else:
            print(f"######## {name}: done in {took:.0f} s", flush=True)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
