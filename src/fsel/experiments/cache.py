"""A small on-disk result cache, so an interrupted experiment resumes where it stopped.

Every expensive unit of work of a reproduction (one selector on one data set with one
seed under one protocol) is stored as a ``joblib`` file whose name is a hash of those
four things. Re-running a reproduction after an interruption, or running a second
reproduction that needs the same unit (e.g. ``brown-fig3`` and ``brown-table4`` share
their bootstrap runs), loads the stored result instead of recomputing it.

The cache lives in ``<output>/.cache`` by default; :func:`use_cache_dir` points every
reproduction run inside it at another folder (``fsel reproduce --cache-dir``) or turns
caching off (``None``).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import joblib
import numpy as np

__all__ = [
    "ResultCache",
    "array_fingerprint",
    "cache_for",
    "estimator_fingerprint",
    "use_cache_dir",
]

_UNSET = object()
_CACHE_DIR: contextvars.ContextVar[Any] = contextvars.ContextVar("fsel_cache_dir", default=_UNSET)


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


def estimator_fingerprint(estimator: Any) -> dict[str, Any]:
    """The class path and (shallow) parameters of an estimator, JSON-ready."""
    cls = type(estimator)
    params = estimator.get_params(deep=False) if hasattr(estimator, "get_params") else {}
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "params": _jsonable(params)}


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
        """Hash of the JSON form of ``parts`` (order of the keys does not matter)."""
        text = json.dumps(_jsonable(parts), sort_keys=True, default=repr)
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / f"{key}.joblib"

    def get(self, parts: dict[str, Any], default: Any = None) -> Any:
        if not self.enabled:
            return default
        path = self._path(self.key(parts))
        if not path.exists():
            return default
        try:
            return joblib.load(path)
        except Exception:  # a truncated file from an interrupted write: recompute
            return default

    def set(self, parts: dict[str, Any], value: Any) -> None:
        if not self.enabled:
            return
        assert self.directory is not None
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self._path(self.key(parts))
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        os.close(fd)
        try:
            joblib.dump(value, tmp)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)

    def get_or_compute(self, parts: dict[str, Any], compute: Callable[[], Any]) -> Any:
        """The stored value for ``parts``, or ``compute()`` (then stored)."""
        sentinel = object()
        value = self.get(parts, sentinel)
        if value is not sentinel:
            self.hits += 1
            return value
        self.misses += 1
        value = compute()
        self.set(parts, value)
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
