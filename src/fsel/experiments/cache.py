"""A small on-disk result cache, so an interrupted experiment resumes where it stopped.

Every expensive unit of work of a reproduction (one selector on one data set with one
seed under one protocol) is stored as a ``joblib`` file whose name is a hash of those
four things. Re-running a reproduction after an interruption, or running a second
reproduction that needs the same unit (e.g. ``brown-fig3`` and ``brown-table4`` share
their bootstrap runs), loads the stored result instead of recomputing it.

The cache lives in ``<output>/.cache`` by default; :func:`use_cache_dir` points every
reproduction run inside it at another folder (``fsel reproduce --cache-dir``) or turns
caching off (``None``).

Every key also holds ``fsel.__version__`` and the cache format, so results of another
library version are never reused; the callers put a fingerprint of every array that
affects a result (training data, evaluation data, ...) into its key. Each stored unit
keeps the seconds its computation took, and :func:`track_cache` sums them over a run,
so a run served from the cache can still report its cold compute time.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import joblib
import numpy as np

__all__ = [
    "CacheStats",
    "ResultCache",
    "array_fingerprint",
    "cache_for",
    "estimator_fingerprint",
    "timed",
    "track_cache",
    "use_cache_dir",
]

_UNSET = object()
_CACHE_DIR: contextvars.ContextVar[Any] = contextvars.ContextVar("fsel_cache_dir", default=_UNSET)
_STATS: contextvars.ContextVar[CacheStats | None] = contextvars.ContextVar(
    "fsel_cache_stats", default=None
)
#: Bumped when the stored layout changes; part of every key.
CACHE_FORMAT = 2


def array_fingerprint(*arrays: Any) -> str:
    """A short SHA-256 of the shapes, dtypes and bytes of some arrays."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a))
        h.update(f"{a.shape}|{a.dtype.str}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return {"__array__": array_fingerprint(value)}
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "get_params"):
        return estimator_fingerprint(value)
    return repr(value)


def estimator_fingerprint(estimator: Any, *, ignore: tuple[str, ...] = ()) -> dict[str, Any]:
    """The class path and (shallow) parameters of an estimator, JSON-ready.

    ``ignore`` names parameters that do not change the result (``n_jobs``,
    ``verbose``), so that they do not change a cache key either.
    """
    cls = type(estimator)
    params = estimator.get_params(deep=False) if hasattr(estimator, "get_params") else {}
    params = {k: v for k, v in params.items() if k not in ignore}
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "params": _jsonable(params)}


def timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """``(fn(*args, **kwargs), seconds it took)``; picklable, for joblib tasks."""
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - start


class CacheStats:
    """Units of work a run computed or took from the cache, and their compute seconds.

    Attributes
    ----------
    computed, cached : int
        Units computed in this run / loaded from the cache.
    computed_seconds : float
        Seconds spent computing the units of this run.
    cached_seconds : float
        Seconds the cached units took when they were computed (units stored without
        a time count 0).
    """

    def __init__(self) -> None:
        self.computed = 0
        self.cached = 0
        self.computed_seconds = 0.0
        self.cached_seconds = 0.0

    @property
    def compute_seconds(self) -> float:
        """Compute time of every unit the run used, cached or not."""
        return self.computed_seconds + self.cached_seconds

    def as_dict(self) -> dict[str, Any]:
        return {
            "computed_units": self.computed,
            "cached_units": self.cached,
            "computed_seconds": round(self.computed_seconds, 2),
            "cached_seconds": round(self.cached_seconds, 2),
        }


@contextlib.contextmanager
def track_cache() -> Iterator[CacheStats]:
    """Within the block, every :class:`ResultCache` adds its hits and stores here.

    Examples
    --------
    >>> import tempfile
    >>> cache = ResultCache(tempfile.mkdtemp())
    >>> with track_cache() as stats:
    ...     _ = cache.get_or_compute({"demo": 1}, lambda: 1)
    ...     _ = cache.get_or_compute({"demo": 1}, lambda: 1)
    >>> stats.computed, stats.cached
    (1, 1)
    """
    stats = CacheStats()
    token = _STATS.set(stats)
    try:
        yield stats
    finally:
        _STATS.reset(token)


class ResultCache:
    """Store and fetch results by a key made of their inputs.

    Parameters
    ----------
    directory : path or None
        Where the files go; ``None`` disables the cache (every lookup misses and
        nothing is written).

    Examples
    --------
    >>> import tempfile
    >>> cache = ResultCache(tempfile.mkdtemp())
    >>> calls = []
    >>> def work():
    ...     calls.append(1)
    ...     return {"answer": 42}
    >>> cache.get_or_compute({"protocol": "demo", "seed": 0}, work)
    {'answer': 42}
    >>> cache.get_or_compute({"protocol": "demo", "seed": 0}, work)
    {'answer': 42}
    >>> len(calls)
    1
    """

    def __init__(self, directory: str | os.PathLike | None) -> None:
        self.directory = None if directory is None else Path(directory)
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        return self.directory is not None

    @staticmethod
    def key(parts: dict[str, Any]) -> str:
        """Hash of the JSON form of ``parts`` (order of the keys does not matter), the
        fsel version and the cache format."""
        import fsel

        full = {"parts": parts, "fsel_version": fsel.__version__, "format": CACHE_FORMAT}
        text = json.dumps(_jsonable(full), sort_keys=True, default=repr)
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / f"{key}.joblib"

    def get(self, parts: dict[str, Any], default: Any = None) -> Any:
        """The stored value for ``parts``, or ``default`` (a miss)."""
        if not self.enabled:
            return default
        path = self._path(self.key(parts))
        if not path.exists():
            return default
        try:
            stored = joblib.load(path)
        except Exception:  # a truncated file from an interrupted write: recompute
            return default
        if not (isinstance(stored, dict) and stored.get("__fsel_cache__") == CACHE_FORMAT):
            return default
        stats = _STATS.get()
        if stats is not None:
            stats.cached += 1
            stats.cached_seconds += float(stored.get("seconds") or 0.0)
        return stored["value"]

    def set(self, parts: dict[str, Any], value: Any, *, seconds: float | None = None) -> None:
        """Store ``value`` for ``parts``; ``seconds``: how long computing it took."""
        stats = _STATS.get()
        if stats is not None:
            stats.computed += 1
            stats.computed_seconds += float(seconds or 0.0)
        if not self.enabled:
            return
        assert self.directory is not None
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self._path(self.key(parts))
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        os.close(fd)
        stored = {"__fsel_cache__": CACHE_FORMAT, "value": value, "seconds": seconds}
        try:
            joblib.dump(stored, tmp)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)

    def get_or_compute(self, parts: dict[str, Any], compute: Callable[[], Any]) -> Any:
        """The stored value for ``parts``, or ``compute()`` (then stored with its time)."""
        sentinel = object()
        value = self.get(parts, sentinel)
        if value is not sentinel:
            self.hits += 1
            return value
        self.misses += 1
        value, seconds = timed(compute)
        self.set(parts, value, seconds=seconds)
        return value


@contextlib.contextmanager
def use_cache_dir(directory: str | os.PathLike | None) -> Iterator[None]:
    """Within the block, reproductions cache into ``directory`` (None: no cache)."""
    token = _CACHE_DIR.set(None if directory is None else Path(directory))
    try:
        yield
    finally:
        _CACHE_DIR.reset(token)


def cache_for(output_dir: str | os.PathLike) -> ResultCache:
    """The cache a reproduction writing into ``output_dir`` should use."""
    override = _CACHE_DIR.get()
    if override is _UNSET:
        return ResultCache(Path(output_dir) / ".cache")
    return ResultCache(override)
