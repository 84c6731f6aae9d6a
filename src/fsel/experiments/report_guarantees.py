"""The feature report's "with a guarantee" section: the knockoff selection at a target
false discovery rate and stability selection with its bound, beside NPFS.

:func:`guarantees` computes both for the report's first method (its pick order is the
knockoff statistic, with a quarter of the ``2p`` columns picked; it is the stability
selector as it is); :func:`guarantees_section` draws the HTML. A method that cannot run
(e.g. knockoffs on categorical columns or missing values) is reported with its one-line
error instead.

The Gaussian knockoffs are sound only with ``n`` comfortably above ``p`` (the covariance
they copy is estimated from the rows), and their construction costs :math:`O(p^3)` time
and about ten ``p x p`` matrices. The report therefore runs the knockoff filter only
where :func:`knockoff_skip_reason` finds nothing against it: at least
:data:`KNOCKOFF_MIN_ROWS_PER_FEATURE` rows per feature and at most
:data:`KNOCKOFF_MAX_FEATURES` features. Otherwise the knockoff entry is
``{"skipped": reason}``, the page says why, and a warning is issued; stability
selection runs either way.
"""

from __future__ import annotations

import html
import math
import warnings
from typing import Any

import numpy as np

__all__ = [
    "KNOCKOFF_MAX_FEATURES",
    "KNOCKOFF_MIN_ROWS_PER_FEATURE",
    "guarantees",
    "guarantees_section",
    "knockoff_skip_reason",
]

#: The report's knockoff filter needs at least this many rows per feature (``n >= 2p``):
#: below it the estimated covariance, hence the knockoffs, are too rough for the false
#: discovery rate to mean much.
KNOCKOFF_MIN_ROWS_PER_FEATURE = 2

#: The report runs the knockoff filter on at most this many features: the construction
#: is :math:`O(p^3)` with about ten ``p x p`` float64 matrices (20 s and 0.6 GB at
#: ``p = 2000`` on one core; ``p = 20000`` would need about 32 GB).
KNOCKOFF_MAX_FEATURES = 2000


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def knockoff_skip_reason(n_samples: int, n_features: int) -> str | None:
    """Why the report skips the knockoff filter on an ``n_samples x n_features`` table.

    Returns None when the filter runs (``n >= 2p`` and ``p`` at most
    :data:`KNOCKOFF_MAX_FEATURES`), else a one-line reason.

    Examples
    --------
    >>> knockoff_skip_reason(300, 16) is None
    True
    >>> knockoff_skip_reason(60, 200)
    'n = 60 rows is fewer than 2 per feature (p = 200); Gaussian knockoffs need n >= 2p'
    """
    if n_features > KNOCKOFF_MAX_FEATURES:
        return (
            f"p = {n_features} features is more than {KNOCKOFF_MAX_FEATURES}; the Gaussian "
            "knockoff construction costs O(p^3) time and about ten p x p matrices"
        )
    if n_samples < KNOCKOFF_MIN_ROWS_PER_FEATURE * n_features:
        return (
            f"n = {n_samples} rows is fewer than {KNOCKOFF_MIN_ROWS_PER_FEATURE} per feature "
            f"(p = {n_features}); Gaussian knockoffs need n >= "
            f"{KNOCKOFF_MIN_ROWS_PER_FEATURE}p"
        )
    return None


def guarantees(
    selector: Any,
    X: Any,
    y: Any,
    names: list[str],
    *,
    fdr: float = 0.1,
    n_pairs: int = 25,
    threshold: float = 0.6,
    random_state: int = 0,
    n_jobs: int | None = None,
) -> dict[str, Any]:
    """The knockoff selection at ``fdr`` and stability selection of ``selector``.

    Returns a JSON-ready dictionary with ``"knockoffs"`` and ``"stability_selection"``
    entries (each either the result or ``{"error": message}``). The knockoff entry is
    ``{"skipped": reason}``, with a warning, where :func:`knockoff_skip_reason` gives
    one (too few rows per feature, or too many features).

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import MIM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 8)); y = (X[:, 0] > 0).astype(int)
    >>> g = guarantees(MIM(2), X, y, [f"x{j}" for j in range(8)], n_pairs=5)
    >>> ss = g["stability_selection"]
    >>> ss["relevant"][0], round(ss["error_bound"], 6)   # 2 ** 2 / ((2 * 0.6 - 1) * 8)
    ('x0', 2.5)
    """
    from fsel.meta.stability_selection import StabilitySelection

    out: dict[str, Any] = {}
    n_samples, n_features = np.shape(X)[:2]
    skip = knockoff_skip_reason(n_samples, n_features)
    if skip is not None:
        warnings.warn(f"fsel.report: knockoff filter skipped: {skip}", UserWarning, stacklevel=2)
        out["knockoffs"] = {"skipped": skip}
    else:
        out["knockoffs"] = _knockoffs(selector, X, y, names, fdr, random_state, n_jobs)
    try:
        ss = StabilitySelection(
            selector,
            threshold=threshold,
            n_resamples=n_pairs,
            random_state=random_state,
            n_jobs=n_jobs,
        ).fit(X, y)
        out["stability_selection"] = {
            "threshold": threshold,
            "n_resamples": n_pairs,
            "relevant": [names[j] for j in ss.relevant_features_],
            "frequencies": [float(f) for f in ss.selection_frequencies_],
            "average_selected": float(ss.average_selected_),
            "error_bound": _finite(ss.error_bound_),
        }
    except (ValueError, TypeError) as exc:
        out["stability_selection"] = {"error": str(exc).splitlines()[0]}
    return out


def _knockoffs(
    selector: Any,
    X: Any,
    y: Any,
    names: list[str],
    fdr: float,
    random_state: int,
    n_jobs: int | None,
) -> dict[str, Any]:
    """The knockoff filter's entry: its selection, or ``{"error": message}``."""
    from sklearn.base import clone

    from fsel.meta.knockoffs import KnockoffFilter

    try:
        stat = clone(selector)
        if "n_features_to_select" in stat.get_params():
            stat.set_params(n_features_to_select=0.25)
        with warnings.catch_warnings():  # an empty selection is shown in the report
            warnings.filterwarnings("ignore", message="KnockoffFilter: no feature passed")
            kf = KnockoffFilter(stat, fdr=fdr, random_state=random_state, n_jobs=n_jobs)
            kf.fit(X, y)
        return {
            "fdr": fdr,
            "threshold": _finite(kf.threshold_),
            "relevant": [names[j] for j in kf.relevant_features_],
            "W": [float(w) for w in kf.W_],
        }
    except (ValueError, TypeError) as exc:
        return {"error": str(exc).splitlines()[0]}


def guarantees_section(g: dict[str, Any] | None, method: str, names: list[str]) -> str:
    """The HTML section of :func:`guarantees`' result (empty when there is none).

    Examples
    --------
    >>> g = {"knockoffs": {"error": "no"}, "stability_selection": {"error": "no"}}
    >>> "How sure, with a guarantee" in guarantees_section(g, "jmi", ["a"])
    True
    """
    if not g:
        return ""
    m = html.escape(method)
    parts = ["<h2>How sure, with a guarantee: knockoffs and stability selection</h2>"]
    ko = g.get("knockoffs", {})
    if "skipped" in ko:
        parts.append(f"<p>Knockoff filter on {m}: skipped ({html.escape(ko['skipped'])}).</p>")
    elif "error" in ko:
        parts.append(f"<p>Knockoff filter on {m}: not run ({html.escape(ko['error'])}).</p>")
    else:
        kept = ko["relevant"]
        parts.append(
            f"<p>The <b>knockoff filter</b> (model-X knockoffs, knockoff+ threshold) with "
            f"{m}'s pick order as the statistic keeps <b>{len(kept)}</b> features at a "
            f"target false discovery rate of <b>{ko['fdr']:g}</b>: on average at most "
            f"{ko['fdr']:.0%} of the kept features are noise when the knockoffs are valid "
            "(Gaussian features; here their covariance is estimated). Knockoff+ needs about "
            f"{math.ceil(1 / ko['fdr'])} strong features to keep any."
            + (f" Kept: {html.escape(', '.join(kept))}." if kept else "")
            + "</p>"
        )
    ss = g.get("stability_selection", {})
    if "error" in ss:
        parts.append(f"<p>Stability selection on {m}: not run ({html.escape(ss['error'])}).</p>")
    else:
        bound = ss["error_bound"]
        btxt = "no bound (threshold <= 1/2)" if bound is None else f"at most {bound:.3g}"
        freq = np.asarray(ss["frequencies"])
        order = np.argsort(-freq, kind="stable")[:10]
        rows = "".join(
            f"<tr><td>{html.escape(names[j])}</td><td>{freq[j]:.2f}</td></tr>" for j in order
        )
        parts.append(
            f"<p><b>Stability selection</b> runs {m} on {ss['n_resamples']} complementary "
            f"pairs of half-samples and keeps the features selected in at least "
            f"{ss['threshold']:.0%} of them: <b>{len(ss['relevant'])}</b> features. The "
            f"expected number of falsely kept features is {btxt} (Meinshausen &amp; "
            f"Bühlmann's bound, q = {ss['average_selected']:.3g} per half-sample).</p>"
            "<table><tr><th>feature</th><th>selection frequency</th></tr>" + rows + "</table>"
        )
    return "".join(parts)
