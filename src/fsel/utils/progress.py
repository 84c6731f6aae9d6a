"""A minimal progress bar on standard error.

It draws only when standard error is a terminal (or when forced), so logs, CI runs and
pipes stay clean. No dependency: long loops in fsel call :func:`progress`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

__all__ = ["Progress", "progress"]


class Progress:
    """Count steps and redraw a one-line bar on stderr at most 10 times a second.

    Parameters
    ----------
    total : int
        Number of steps expected.
    desc : str
        Label shown before the bar.
    enabled : bool or None
        None draws only when stderr is a terminal.
    """

    def __init__(self, total: int, desc: str = "", enabled: bool | None = None) -> None:
        self.total = max(int(total), 0)
        self.desc = desc
        if enabled is None:
            enabled = bool(getattr(sys.stderr, "isatty", lambda: False)())
        self.enabled = enabled
        self.n = 0
        self._start = time.perf_counter()
        self._last = 0.0

    def update(self, n: int = 1) -> None:
        self.n += n
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < 0.1 and self.n < self.total:
            return
        self._last = now
        frac = self.n / self.total if self.total else 1.0
        width = 30
        filled = int(width * min(frac, 1.0))
        elapsed = now - self._start
        eta = elapsed / frac - elapsed if frac > 0 else float("nan")
        sys.stderr.write(
            f"\r{self.desc} |{'#' * filled}{'.' * (width - filled)}| "
            f"{self.n}/{self.total} [{elapsed:5.1f}s<{eta:5.1f}s]"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress(
    iterable: Iterable[T], total: int | None = None, desc: str = "", enabled: bool | None = None
) -> Iterator[T]:
    """Wrap an iterable with a :class:`Progress` bar."""
    if total is None:
        total = len(iterable)  # type: ignore[arg-type]
    with Progress(total, desc, enabled) as bar:
        for item in iterable:
            yield item
            bar.update()
