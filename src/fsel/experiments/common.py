"""The helpers every paper reproduction shares: its Markdown tables, its command line and
its number of workers. (Figures: :mod:`fsel.utils.figures`; the HTML page:
:mod:`fsel.experiments.html`.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["md_table", "reproduce_command", "reproduction_n_jobs", "with_n_jobs"]


def md_table(
    header: Sequence[str], rows: Sequence[Sequence[Any]], *, float_format: str | None = None
) -> str:
    """A Markdown pipe table; cells are written with ``str``, floats with
    ``float_format`` when given.

    Examples
    --------
    >>> print(md_table(["a", "b"], [[1, 0.5]], float_format="{:.2f}"))
    | a | b |
    |---|---|
    | 1 | 0.50 |
    """

    def cell(v: Any) -> str:
        if float_format is not None and isinstance(v, float):
            return float_format.format(v)
        return str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def reproduce_command(name: str, seed: int, quick: bool) -> str:
    """The command line that regenerates a reproduction (its number of workers is left
    out: results never depend on it).

    Examples
    --------
    >>> reproduce_command("brown-fig3", 0, True)
    'fsel reproduce brown-fig3 --random-state 0 --quick'
    """
    return f"fsel reproduce {name} --random-state {seed}" + (" --quick" if quick else "")


def reproduction_n_jobs(n_jobs: int | None) -> int:
    """The workers a reproduction's long loops use (``fsel reproduce --n-jobs``):
    joblib's rule for ``n_jobs`` (``None`` is 1 unless inside
    ``joblib.parallel_config``, ``-1`` all cores, ``-2`` all but one, ...). Results
    never depend on it.

    Examples
    --------
    >>> reproduction_n_jobs(None), reproduction_n_jobs(3)
    (1, 3)
    """
    from fsel.utils.parallel import effective_n_jobs
    from fsel.utils.params import check_n_jobs

    check_n_jobs(n_jobs)
    return effective_n_jobs(n_jobs)


def with_n_jobs(make: Callable[..., Any], n_jobs: int | None) -> Callable[..., Any]:
    """A factory of estimators whose estimators run on ``n_jobs`` workers (set when the
    estimator has an ``n_jobs`` parameter and ``n_jobs`` is given). Fingerprint the
    estimator for a cache key before: the key must not depend on the workers.

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> with_n_jobs(lambda: KNeighborsClassifier(), 2)().n_jobs
    2
    """
    if n_jobs is None:
        return make

    def build(*args: Any, **kwargs: Any) -> Any:
        est = make(*args, **kwargs)
        if "n_jobs" in est.get_params(deep=False):
            est.set_params(n_jobs=n_jobs)
        return est

    return build
