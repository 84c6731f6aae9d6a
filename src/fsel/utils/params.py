"""The parameters every fsel estimator shares, validated from one table.

This module imports neither scikit-learn nor anything heavy. Each estimator declares
its parameters' *kinds* in ``_param_kinds`` (a mapping from parameter name to a kind
below, or a tuple of allowed strings for an enum-like option); :func:`validate_params`
checks them all at the start of ``fit`` with one validator per kind, so a parameter
gets the same rule and the same message in every estimator, in :func:`fsel.select`, in
the report and on the command line.

Seeds
-----
``random_state`` may be None, an int, a :class:`numpy.random.SeedSequence` or a
``numpy.random.Generator``/``RandomState`` instance. :func:`seed_sequence` turns it into
the root :class:`~numpy.random.SeedSequence` a fit spawns its child seeds from:

* an int gives the same root on every call, so every fit is identical;
* a ``SeedSequence`` is *copied* before anything is spawned from it, so it is never
  mutated and the same object passed twice gives identical results;
* a ``Generator`` or ``RandomState`` instance is consumed as scikit-learn consumes a
  ``RandomState``: each fit draws its root seed from it, so two fits differ and the
  instance advances;
* None draws fresh entropy from the operating system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from numbers import Integral, Real
from typing import Any

import numpy as np

__all__ = [
    "PARAMETER_KINDS",
    "check_bool",
    "check_categorical",
    "check_finite_real",
    "check_fraction",
    "check_memory_budget",
    "check_n_features_to_select_param",
    "check_n_jobs",
    "check_n_resamples",
    "check_option",
    "check_positive_int",
    "check_positive_real",
    "check_random_state_param",
    "check_slice_count",
    "check_verbose",
    "copy_seed_sequence",
    "default_n_features",
    "seed_sequence",
    "validate_params",
]


def copy_seed_sequence(seq: np.random.SeedSequence) -> np.random.SeedSequence:
    """An independent copy of ``seq``: same entropy, spawn key, pool size and number
    of children already spawned, so spawning from the copy gives the children ``seq``
    would give next, and ``seq`` itself is left untouched.

    Examples
    --------
    >>> s = np.random.SeedSequence(0)
    >>> c = copy_seed_sequence(s)
    >>> _ = c.spawn(3)
    >>> s.n_children_spawned, c.n_children_spawned
    (0, 3)
    """
    return np.random.SeedSequence(
        seq.entropy,
        spawn_key=seq.spawn_key,
        pool_size=seq.pool_size,
        n_children_spawned=seq.n_children_spawned,
    )


def seed_sequence(random_state: Any) -> np.random.SeedSequence:
    """The root seed of one fit, from ``random_state`` (see the module's rules).

    Examples
    --------
    >>> s = np.random.SeedSequence(7)
    >>> a = seed_sequence(s).spawn(2)[1].generate_state(1)
    >>> b = seed_sequence(s).spawn(2)[1].generate_state(1)
    >>> bool((a == b).all()), s.n_children_spawned
    (True, 0)
    >>> seed_sequence(3).entropy
    3
    """
    check_random_state_param(random_state)
    if isinstance(random_state, np.random.SeedSequence):
        return copy_seed_sequence(random_state)
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(
            random_state.integers(0, 2**32, size=4, dtype=np.uint64).tolist()
        )
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(int(random_state.randint(0, 2**31 - 1)))
    return np.random.SeedSequence(None if random_state is None else int(random_state))


# ---------------------------------------------------------------------- validators


def check_random_state_param(value: Any, name: str = "random_state", owner: str = "") -> Any:
    """``random_state``: None, an int >= 0, a SeedSequence, a Generator or a RandomState."""
    ok = (
        value is None
        or isinstance(value, (np.random.SeedSequence, np.random.Generator, np.random.RandomState))
        or (isinstance(value, Integral) and not isinstance(value, (bool, np.bool_)))
    )
    if not ok:
        raise TypeError(
            f"{_who(owner)}{name} must be None, an int, a numpy SeedSequence, Generator or "
            f"RandomState, got {type(value).__name__}"
        )
    if isinstance(value, Integral) and value < 0:
        raise ValueError(f"{_who(owner)}{name} must be a non-negative int, got {value}")
    return value


def check_n_jobs(value: Any, name: str = "n_jobs", owner: str = "") -> Any:
    """``n_jobs``: None or a non-zero int, joblib's rule (None: 1 unless inside a
    ``joblib.parallel_config`` context; -1 all cores, -2 all but one, ...).

    Examples
    --------
    >>> check_n_jobs(-1), check_n_jobs(None)
    (-1, None)
    >>> check_n_jobs(0)
    Traceback (most recent call last):
    ...
    ValueError: n_jobs == 0 has no meaning; use None, a positive int or -1
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        raise TypeError(f"{_who(owner)}{name} must be None or an int, got {value!r}")
    if value == 0:
        raise ValueError(f"{_who(owner)}{name} == 0 has no meaning; use None, a positive int or -1")
    return int(value)


def check_memory_budget(value: Any, name: str = "memory_budget", owner: str = "") -> Any:
    """``memory_budget``: None or a positive int of bytes; a non-int is a ``TypeError``,
    a non-positive int a ``ValueError``.

    Examples
    --------
    >>> check_memory_budget(2**20)
    1048576
    >>> check_memory_budget(0)
    Traceback (most recent call last):
    ...
    ValueError: memory_budget must be a positive number of bytes, got 0
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        raise TypeError(
            f"{_who(owner)}{name} must be None or an int (bytes), got {type(value).__name__}"
        )
    if value <= 0:
        raise ValueError(f"{_who(owner)}{name} must be a positive number of bytes, got {value}")
    return int(value)


def check_n_features_to_select_param(
    value: Any, name: str = "n_features_to_select", owner: str = "", allow_auto: bool = False
) -> Any:
    """``n_features_to_select``: None, an int >= 1, a float in (0, 1], or ``"auto"``
    where the method decides the count (``allow_auto``). The upper bound (the number of
    features) is checked against the data by
    :func:`fsel.utils.validation.check_n_features_to_select`."""
    if value is None:
        return None
    if isinstance(value, str):
        if allow_auto and value == "auto":
            return value
        raise ValueError(
            f"{_who(owner)}{name} must be None, an int or a float in (0, 1]"
            + (" or 'auto'" if allow_auto else "")
            + f", got {value!r}"
        )
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, Real)):
        raise TypeError(f"{_who(owner)}{name} must be an int, a float or None, got {value!r}")
    if isinstance(value, Integral):
        if value < 1:
            raise ValueError(f"{_who(owner)}{name} must be at least 1, got {value}")
        return int(value)
    if not 0 < float(value) <= 1:
        raise ValueError(
            f"{_who(owner)}{name} as a float must be a fraction in (0, 1], got {value}"
        )
    return float(value)


def check_positive_int(value: Any, name: str = "value", owner: str = "") -> int:
    """A count that must be at least 1: ``n_neighbors``, ``n_resamples``, ``n_draws``,
    ``n_permutations``, ``max_iter``. A non-int (a float such as 2.0, a bool, a string)
    is a ``TypeError``, an int below 1 a ``ValueError``. The upper bound, where there is
    one, depends on the data and on what the count means (the rule of each use is on
    the vocabulary page: ``n_neighbors`` is clipped to the rows the Relief family has,
    refused above them by the nearest-neighbour information estimator).

    Examples
    --------
    >>> check_positive_int(3, "n_neighbors")
    3
    >>> check_positive_int(2.0, "n_neighbors", "ReliefF")
    Traceback (most recent call last):
    ...
    TypeError: ReliefF: n_neighbors must be an int, got 2.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        raise TypeError(f"{_who(owner)}{name} must be an int, got {value!r}")
    if value < 1:
        raise ValueError(f"{_who(owner)}{name} must be at least 1, got {value}")
    return int(value)


def check_n_resamples(value: Any, name: str = "n_resamples", owner: str = "") -> int:
    """``n_resamples``: a positive int (the number of resamples a meta-method draws);
    :func:`check_positive_int`'s rule and messages.

    Examples
    --------
    >>> check_n_resamples(0)
    Traceback (most recent call last):
    ...
    ValueError: n_resamples must be at least 1, got 0
    """
    return check_positive_int(value, name, owner)


def _check_real(value: Any, name: str, owner: str) -> float:
    """A real number (not a bool): its float, else a ``TypeError``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"{_who(owner)}{name} must be a real number, got {value!r}")
    return float(value)


def check_positive_real(value: Any, name: str = "value", owner: str = "") -> float:
    """A finite real number above 0 (a kernel width such as IRelief's ``sigma``, a
    convergence threshold such as its ``theta``).

    Examples
    --------
    >>> check_positive_real(0, "sigma", "IRelief")
    Traceback (most recent call last):
    ...
    ValueError: IRelief: sigma must be a finite number above 0, got 0
    """
    v = _check_real(value, name, owner)
    if not (np.isfinite(v) and v > 0):
        raise ValueError(f"{_who(owner)}{name} must be a finite number above 0, got {value!r}")
    return v


def check_fraction(
    value: Any, name: str = "value", owner: str = "", *, include_one: bool = False
) -> float:
    """A level or a share: a real number in (0, 1), or (0, 1] with ``include_one``
    (NPFS's ``alpha``, the knockoff filter's ``fdr``: open; stability selection's
    ``threshold``: 1 included).

    Examples
    --------
    >>> check_fraction(0.1, "fdr")
    0.1
    >>> check_fraction(1.0, "fdr", "KnockoffFilter")
    Traceback (most recent call last):
    ...
    ValueError: KnockoffFilter: fdr must be a number in (0, 1), got 1.0
    """
    v = _check_real(value, name, owner)
    if not (0 < v < 1 or (include_one and v == 1)):
        span = "(0, 1]" if include_one else "(0, 1)"
        raise ValueError(f"{_who(owner)}{name} must be a number in {span}, got {value!r}")
    return v


def check_bool(value: Any, name: str = "value", owner: str = "") -> bool:
    """A flag: ``True`` or ``False`` (a numpy bool too); anything else, even a value
    with a truth value such as ``"no"`` or ``[0]``, is a ``TypeError``.

    Examples
    --------
    >>> check_bool("no", "keep_knockoffs", "KnockoffFilter")
    Traceback (most recent call last):
    ...
    TypeError: KnockoffFilter: keep_knockoffs must be True or False, got 'no'
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{_who(owner)}{name} must be True or False, got {value!r}")
    return bool(value)


def check_verbose(value: Any, name: str = "verbose", owner: str = "") -> int:
    """``verbose``: a bool or an int >= 0 (0 or False: quiet). A float, a string or a
    list is a ``TypeError``, a negative int a ``ValueError``.

    Examples
    --------
    >>> check_verbose(True), check_verbose(2)
    (1, 2)
    >>> check_verbose("bogus", owner="NPFS")
    Traceback (most recent call last):
    ...
    TypeError: NPFS: verbose must be a bool or an int >= 0, got 'bogus'
    """
    if not isinstance(value, (bool, np.bool_, Integral)):
        raise TypeError(f"{_who(owner)}{name} must be a bool or an int >= 0, got {value!r}")
    if value < 0:
        raise ValueError(f"{_who(owner)}{name} must be a bool or an int >= 0, got {value!r}")
    return int(value)


def check_slice_count(value: Any, name: str = "n_slices", owner: str = "") -> Any:
    """A ranking index's number of slices or bins (``n_slices``, ``n_bins_x``,
    ``n_bins_y``): an int >= 2 (one slice compares nothing), or ``"auto"``.

    Examples
    --------
    >>> check_slice_count("auto"), check_slice_count(4)
    ('auto', 4)
    >>> check_slice_count(1, "n_bins_x", "RankingIndex")
    Traceback (most recent call last):
    ...
    ValueError: RankingIndex: n_bins_x must be an int of at least 2 or 'auto', got 1
    """
    if isinstance(value, str):
        if value == "auto":
            return value
        raise ValueError(
            f"{_who(owner)}{name} must be an int of at least 2 or 'auto', got {value!r}"
        )
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        raise TypeError(f"{_who(owner)}{name} must be an int or 'auto', got {value!r}")
    if value < 2:
        raise ValueError(f"{_who(owner)}{name} must be an int of at least 2 or 'auto', got {value}")
    return int(value)


def check_finite_real(value: Any, name: str = "value", owner: str = "") -> float:
    """A weight such as MIFS's ``beta``: a real number that is finite (NaN or an
    infinity would turn every score into NaN or an infinity and the picks into noise).

    Examples
    --------
    >>> check_finite_real(0.5, "beta")
    0.5
    >>> check_finite_real(float("nan"), "beta")
    Traceback (most recent call last):
    ...
    ValueError: beta must be a finite number, got nan
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"{_who(owner)}{name} must be a real number, got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{_who(owner)}{name} must be a finite number, got {value!r}")
    return float(value)


def check_categorical(value: Any, name: str = "categorical", owner: str = "") -> Any:
    """``categorical``: ``"auto"``, None (the same as ``"auto"``), a boolean mask or a
    list of column names/indices (checked against the data by the input validation)."""
    if value is None or (isinstance(value, str) and value == "auto"):
        return value
    if isinstance(value, str):
        raise ValueError(
            f"{_who(owner)}{name} must be 'auto', a boolean mask or a list of columns, "
            f"got {value!r}"
        )
    return value


def check_option(value: Any, allowed: tuple[Any, ...], name: str, owner: str = "") -> Any:
    """An enum-like option: one of ``allowed``.

    Examples
    --------
    >>> check_option("error", ("level", "error"), "missing", "JMI")
    'error'
    >>> check_option("drop", ("level", "error"), "missing", "JMI")
    Traceback (most recent call last):
    ...
    ValueError: JMI: missing must be one of ('level', 'error'), got 'drop'
    """
    try:
        ok = value in allowed
    except TypeError:
        ok = False
    if not ok or (
        isinstance(value, (bool, np.bool_)) and not any(isinstance(a, bool) for a in allowed)
    ):
        raise ValueError(f"{_who(owner)}{name} must be one of {allowed}, got {value!r}")
    return value


def default_n_features(n_features: int) -> int:
    """The default number of features to keep: half of them, rounded down, at least
    one (scikit-learn's ``RFE`` and ``SequentialFeatureSelector`` rule).

    Examples
    --------
    >>> [default_n_features(d) for d in (1, 2, 5, 10)]
    [1, 1, 2, 5]
    """
    return max(1, int(n_features) // 2)


def _who(owner: str) -> str:
    return f"{owner}: " if owner else ""


#: None, or a list that :func:`validate_params` appends ``(owner name, parameter
#: names)`` to (set by the test that checks every fit uses the table).
fit_trace: list[tuple[str, tuple[str, ...]]] | None = None

#: One validator per kind of parameter.
PARAMETER_KINDS: dict[str, Callable[..., Any]] = {
    "random_state": check_random_state_param,
    "n_jobs": check_n_jobs,
    "memory_budget": check_memory_budget,
    "n_features_to_select": check_n_features_to_select_param,
    "n_features_to_select_or_auto": lambda v, name, owner: check_n_features_to_select_param(
        v, name, owner, allow_auto=True
    ),
    "categorical": check_categorical,
    "n_resamples": check_n_resamples,
    "positive_int": check_positive_int,
    "finite_real": check_finite_real,
    "positive_real": check_positive_real,
    "fraction_open": check_fraction,
    "fraction": lambda v, name, owner: check_fraction(v, name, owner, include_one=True),
    "flag": check_bool,
    "verbose": check_verbose,
    "slice_count": check_slice_count,
}


def validate_params(
    owner: Any, kinds: Mapping[str, Any], name: str | None = None
) -> dict[str, Any]:
    """Validate ``owner``'s parameters listed in ``kinds`` and return their checked values.

    ``kinds`` maps a parameter name to a kind of :data:`PARAMETER_KINDS` or to a tuple
    of allowed values (an enum-like option). The names of the kinds used are recorded
    in :data:`fit_trace` while it is a list (a test checks that every fit goes through
    here).

    Examples
    --------
    >>> class Sel:
    ...     n_jobs, missing = -1, "level"
    >>> validate_params(Sel(), {"n_jobs": "n_jobs", "missing": ("level", "error")})
    {'n_jobs': -1, 'missing': 'level'}
    """
    label = name if name is not None else type(owner).__name__
    out: dict[str, Any] = {}
    for param, kind in kinds.items():
        value = getattr(owner, param)
        if isinstance(kind, tuple):
            out[param] = check_option(value, kind, param, label)
        else:
            out[param] = PARAMETER_KINDS[kind](value, param, label)
    if fit_trace is not None:
        fit_trace.append((label, tuple(kinds)))
    return out
