"""Public names of a package imported on first use (PEP 562).

The selector families keep their scikit-learn estimators out of the package import, so
that their logic classes (:mod:`fsel.selectors._core`) can be imported alone.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(
    package: str, where: Mapping[str, str], public: Iterable[str] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__``: ``name`` comes from module
    ``where[name]`` (attribute of the same name), imported when first asked for and then
    kept in the package; ``__dir__`` lists ``where`` and the eager ``public`` names.

    Examples
    --------
    >>> getattr_, dir_ = lazy_attributes("json", {"JSONDecoder": "json.decoder"})
    >>> getattr_("JSONDecoder").__name__
    'JSONDecoder'
    >>> getattr_("nothing")
    Traceback (most recent call last):
    ...
    AttributeError: module 'json' has no attribute 'nothing'
    """
    names = sorted({*where, *public})

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return list(names)

    return __getattr__, __dir__
