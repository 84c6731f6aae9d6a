"""The private names of scikit-learn and joblib that fsel relies on, in one place.

scikit-learn and joblib may rename or move a private name in any release. Every other
fsel module imports such a name from here, so a new release breaks at most this file,
and the fix (a fallback, a version check) is written once.

What each name is for:

* :func:`get_output_config` -- scikit-learn's ``set_output`` configuration of an
  estimator (``sklearn.utils._set_output._get_output_config``): a selector keeps a
  sparse input sparse only when no pandas/polars output was asked for.
* :func:`check_feature_names`, :func:`check_n_features` -- record (``reset=True``) or
  check (``reset=False``) ``feature_names_in_`` and ``n_features_in_`` exactly as
  scikit-learn's own estimators do (``sklearn.utils.validation._check_feature_names``
  and ``_check_n_features``).
* :func:`joblib_runs_in_processes` -- whether the active joblib backend runs tasks in
  worker processes (``joblib._parallel_backends``, ``joblib.parallel``).
* :func:`joblib_memmap_threshold_is_set` -- whether the active
  ``joblib.parallel_config`` sets ``max_nbytes`` itself (``joblib.parallel``'s
  private state).

Each function imports what it wraps when called, so the scikit-learn-free logic
classes can use the joblib helpers without importing scikit-learn, and ``import fsel``
stays light.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "check_feature_names",
    "check_n_features",
    "get_output_config",
    "joblib_memmap_threshold_is_set",
    "joblib_runs_in_processes",
]


def get_output_config(method: str, estimator: Any = None) -> dict[str, Any]:
    """scikit-learn's output configuration of ``estimator`` for ``method`` (a dict whose
    ``"dense"`` is ``"default"``, ``"pandas"`` or ``"polars"``)."""
    from sklearn.utils._set_output import _get_output_config

    return _get_output_config(method, estimator=estimator)


def check_feature_names(estimator: Any, X: Any, *, reset: bool) -> None:
    """Set (``reset=True``) or check (``reset=False``) ``estimator.feature_names_in_``
    from the column names of ``X``, as scikit-learn's estimators do."""
    from sklearn.utils.validation import _check_feature_names

    _check_feature_names(estimator, X, reset=reset)


def check_n_features(estimator: Any, X: Any, *, reset: bool) -> None:
    """Set (``reset=True``) or check (``reset=False``) ``estimator.n_features_in_``, as
    scikit-learn's estimators do."""
    from sklearn.utils.validation import _check_n_features

    _check_n_features(estimator, X, reset=reset)


def joblib_memmap_threshold_is_set() -> bool:
    """Whether the active ``joblib.parallel_config`` sets ``max_nbytes`` itself (True
    when joblib's private layout is not the one known here: then fsel leaves joblib's
    own memory-mapping alone).

    Examples
    --------
    >>> from joblib import parallel_config
    >>> joblib_memmap_threshold_is_set()
    False
    >>> with parallel_config(max_nbytes="1M"):
    ...     joblib_memmap_threshold_is_set()
    True
    """
    try:
        from joblib import parallel as jp

        default = jp.default_parallel_config["max_nbytes"]
        config = getattr(jp._backend, "config", None)
    except (ImportError, AttributeError, KeyError):  # pragma: no cover - other joblib
        return True
    return isinstance(config, dict) and config.get("max_nbytes", default) is not default


def joblib_runs_in_processes(n_jobs: int | None) -> bool:
    """Whether the active joblib backend runs tasks in more than one worker process of
    this machine (``"loky"`` or ``"multiprocessing"``) for ``n_jobs``.

    Examples
    --------
    >>> from joblib import parallel_config
    >>> joblib_runs_in_processes(2), joblib_runs_in_processes(1)
    (True, False)
    >>> with parallel_config(backend="threading"):
    ...     joblib_runs_in_processes(2)
    False
    """
    try:
        from joblib import effective_n_jobs
        from joblib._parallel_backends import LokyBackend, MultiprocessingBackend
        from joblib.parallel import get_active_backend
    except ImportError:  # pragma: no cover - other joblib
        return False
    backend, _ = get_active_backend()
    return isinstance(backend, (LokyBackend, MultiprocessingBackend)) and (
        effective_n_jobs(n_jobs) > 1
    )
