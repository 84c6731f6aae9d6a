"""Discovery and running of paper reproductions.

Every module ``fsel/experiments/repro_*.py`` exposes ``REPRODUCTIONS = {"name": fn}``
with ``fn(output_dir, *, quick=False, seed=0, data_path=None, n_jobs=None) ->
Reproduction``.
:func:`discover` imports them all (a module that fails to import is reported, not
fatal); :func:`run_reproduction` runs one, writes its summary files next to its
outputs (``summary.md``, ``reproduction.json`` and, on request, ``report.html``) and
returns the :class:`~fsel.experiments.report.Reproduction`.

Each reproduction owns its output folder: ``fsel reproduce`` and
:mod:`fsel.experiments.make_docs` use ``<root>/<name>/`` for every target (with the
cache shared in ``<root>/.cache``), so targets run one at a time into the same root
never overwrite each other's summary files.

``reproduction.json`` records the wall-clock ``seconds`` of the run and, under
``cache``, how many units of work were computed or loaded from the cache with their
compute seconds; ``compute_seconds`` is the sum over every unit the run used, i.e.
what a run with an empty cache would spend on them (``cold_seconds`` estimates that
cold run's wall-clock time).
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsel.experiments.cache import track_cache, use_cache_dir
from fsel.experiments.report import Reproduction

__all__ = [
    "Registry",
    "discover",
    "get_reproduction",
    "load_reproduction",
    "reproduction_to_dict",
    "run_reproduction",
    "write_summary",
]

_UNSET = object()


@dataclass
class Registry:
    """Reproductions by name, the module each comes from, and import failures."""

    functions: dict[str, Callable[..., Reproduction]] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def names(self) -> list[str]:
        return sorted(self.functions)

    def describe(self, name: str) -> str:
        """First line of the reproduction function's docstring."""
        doc = (self.functions[name].__doc__ or "").strip()
        return " ".join(doc.split("\n\n")[0].split())


def discover() -> Registry:
    """Import every ``fsel.experiments.repro_*`` module and collect its REPRODUCTIONS."""
    import fsel.experiments as pkg

    reg = Registry()
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if not info.name.startswith("repro_"):
            continue
        modname = f"fsel.experiments.{info.name}"
        try:
            mod = importlib.import_module(modname)
            table = mod.REPRODUCTIONS
            if not isinstance(table, dict):
                raise TypeError("REPRODUCTIONS is not a dict")
        except Exception as exc:
            reg.errors[modname] = f"{type(exc).__name__}: {exc}"
            continue
        for name, fn in table.items():
            if name in reg.functions:
                reg.errors[modname] = (
                    f"reproduction {name!r} is also defined in {reg.modules[name]}; kept that one"
                )
                continue
            reg.functions[name] = fn
            reg.modules[name] = modname
    return reg


def get_reproduction(name: str, registry: Registry | None = None) -> Callable[..., Reproduction]:
    """The function of one reproduction; a clear error lists the known names."""
    reg = registry or discover()
    if name not in reg.functions:
        known = ", ".join(reg.names()) or "(none)"
        raise ValueError(f"unknown reproduction {name!r}; known reproductions: {known}")
    return reg.functions[name]


def reproduction_to_dict(rep: Reproduction, base: Path | None = None) -> dict[str, Any]:
    """A JSON-ready dictionary (paths relative to ``base`` when given)."""

    def rel(p: Path) -> str:
        p = Path(p)
        if base is not None:
            try:
                return str(p.resolve().relative_to(Path(base).resolve()))
            except ValueError:
                pass
        return str(p)

    return {
        "name": rep.name,
        "title": rep.title,
        "command": rep.command,
        "seed": rep.seed,
        "quick": rep.quick,
        "paper": rep.paper,
        "ours": rep.ours,
        "agreement": rep.agreement,
        "tables": {k: rel(v) for k, v in rep.tables.items()},
        "figures": [rel(f) for f in rep.figures],
    }


def load_reproduction(path: str | os.PathLike) -> Reproduction:
    """Read a ``reproduction.json`` back (paths resolved against its folder)."""
    path = Path(path)
    d = json.loads(path.read_text())
    base = path.parent
    extra = {k: d[k] for k in ("seconds", "compute_seconds", "cold_seconds", "cache") if k in d}
    rep = Reproduction(
        name=d["name"],
        title=d["title"],
        command=d["command"],
        seed=d["seed"],
        paper=d["paper"],
        ours=d["ours"],
        agreement=d["agreement"],
        tables={k: base / v for k, v in d.get("tables", {}).items()},
        figures=[base / f for f in d.get("figures", [])],
        quick=d.get("quick", False),
    )
    rep.__dict__.update(extra)
    return rep


def summary_markdown(rep: Reproduction, *, base: Path | None = None) -> str:
    """The Markdown block of one reproduction (used by summary.md and the docs page)."""
    d = reproduction_to_dict(rep, base)
    lines = [
        f"## {rep.title}",
        "",
        f"* name: `{rep.name}`",
        f"* command: `{rep.command}`" + (" (reduced --quick run)" if rep.quick else ""),
        f"* seed: {rep.seed}",
        "",
        "**Paper.** " + rep.paper,
        "",
        "**Ours.**",
        "",
        rep.ours,
        "",
        "**Agreement.** " + rep.agreement,
        "",
    ]
    for f in d["figures"]:
        lines += [f"![{Path(f).stem}]({f})", ""]
    if d["tables"]:
        lines.append("Tables: " + ", ".join(f"[{k}]({v})" for k, v in d["tables"].items()))
        lines.append("")
    return "\n".join(lines)


def write_summary(
    rep: Reproduction,
    output_dir: Path,
    *,
    seconds: float | None = None,
    html: bool = False,
    cache_stats: dict[str, Any] | None = None,
) -> dict[str, Path]:
    """Write ``summary.md``, ``reproduction.json`` (and ``report.html``) into output_dir,
    the reproduction's own folder.

    ``cache_stats``: :meth:`fsel.experiments.cache.CacheStats.as_dict` of the run; with
    ``seconds`` it gives the cold compute time (see the module docstring).
    """
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    d = reproduction_to_dict(rep, output_dir)
    if seconds is not None:
        d["seconds"] = round(seconds, 2)
    if cache_stats is not None:
        d["cache"] = dict(cache_stats)
        computed = float(cache_stats.get("computed_seconds", 0.0))
        cached = float(cache_stats.get("cached_seconds", 0.0))
        d["compute_seconds"] = round(computed + cached, 2)
        if seconds is not None:
            d["cold_seconds"] = round(seconds + cached, 2)
    out = {
        "json": output_dir / "reproduction.json",
        "markdown": output_dir / "summary.md",
    }
    out["json"].write_text(json.dumps(d, indent=2) + "\n")
    out["markdown"].write_text(summary_markdown(rep, base=output_dir))
    if html:
        from fsel.experiments.html import write_html

        out["html"] = write_html(rep, output_dir / "report.html")
    return out


def _takes_n_jobs(fn: Callable[..., Any]) -> bool:
    import inspect

    try:
        return "n_jobs" in inspect.signature(fn).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin or C function
        return True


def run_reproduction(
    name: str,
    output_dir: str | os.PathLike,
    *,
    quick: bool = False,
    seed: int = 0,
    data_path: Any = None,
    html: bool = False,
    cache_dir: Any = _UNSET,
    registry: Registry | None = None,
    n_jobs: int | None = None,
) -> Reproduction:
    """Run one reproduction into ``output_dir`` (its own folder) and write its summary
    files.

    ``cache_dir``: leave unset for ``<output_dir>/.cache``, a folder to share a cache
    between reproductions, or None for no cache. ``n_jobs``: workers for the
    reproduction's long loops (joblib's rule; results never depend on it).
    """
    fn = get_reproduction(name, registry)
    kwargs: dict[str, Any] = {"quick": quick, "seed": seed, "data_path": data_path}
    if n_jobs is not None or _takes_n_jobs(fn):
        kwargs["n_jobs"] = n_jobs  # every reproduction takes it (tests/test_reproduce.py)
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with track_cache() as stats:
        if cache_dir is _UNSET:
            rep = fn(output_dir, **kwargs)
        else:
            with use_cache_dir(cache_dir):
                rep = fn(output_dir, **kwargs)
    seconds = time.perf_counter() - start
    if not isinstance(rep, Reproduction):
        raise TypeError(f"reproduction {name!r} returned {type(rep).__name__}, not Reproduction")
    write_summary(rep, output_dir, seconds=seconds, html=html, cache_stats=stats.as_dict())
    rep.__dict__["seconds"] = seconds
    rep.__dict__["cache"] = stats.as_dict()
    rep.__dict__["compute_seconds"] = stats.compute_seconds
    rep.__dict__["cold_seconds"] = seconds + stats.cached_seconds
    return rep
