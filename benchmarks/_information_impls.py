"""The implementations that benchmarks/bench_information.py runs side by side: the
criteria, one :class:`Impl` a library (how to run it, what it is known to do differently)
and, for each, the factory of its call ``call(X, y, k) -> (order, scores)``.

Imported by benchmarks/bench_information.py (its worker subprocesses and its
interleaved mode make the calls) and by benchmarks/_information_report.py (labels,
notes). Each library is imported only inside its factory, when its call is made.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

CRITERIA = ("JMI", "mRMR", "CMIM", "DISR", "CIFE", "CMI")

FSEL_CLASS = {
    "JMI": "JMI",
    "mRMR": "MRMR",
    "CMIM": "CMIM",
    "DISR": "DISR",
    "CIFE": "CIFE",
    "CMI": "CMI",
}


@dataclass(frozen=True)
class Impl:
    """One implementation under test: how to run it and what it is known to do."""

    key: str
    label: str
    criteria: tuple[str, ...]
    n_jobs: int = 1
    env: tuple[tuple[str, str], ...] = ()
    warmup: bool = False
    peer: bool = False  # slow Python peers: predicted-time skipping, shorter timeout
    d_exponent: float = 1.0  # how run time grows with the number of features
    notes: tuple[str, ...] = field(default=())


IMPLS = [
    Impl(
        "fstoolbox",
        "fstoolbox (FEAST C)",
        CRITERIA,
        notes=(
            "CIFE = BetaGamma(beta=1, gamma=1); CMI = CondMI.",
            "CondMI stops (fills the rest with -1, i.e. 4294967295 as uint) once no candidate "
            "scores > 0; its greedy loop still scans all candidates for the remaining k.",
            "The Python wrapper copies the data to uint32 Fortran order inside the timed call.",
            "Ties go to the lowest index (strict '>' scan from index 0).",
        ),
    ),
    Impl("fsel-numba-1", "fsel numba n_jobs=1", CRITERIA, warmup=True),
    Impl("fsel-numba-2", "fsel numba n_jobs=2", CRITERIA, n_jobs=2, warmup=True),
    Impl("fsel-numpy-1", "fsel numpy n_jobs=1", CRITERIA, env=(("FSEL_DISABLE_NUMBA", "1"),)),
    Impl(
        "fast-select",
        "fast-select 0.3 mRMR",
        ("mRMR",),
        warmup=True,
        peer=True,
        d_exponent=2.0,
        notes=(
            "Only mRMR exists in fast-select 0.3.0 (no JMI/CMIM estimator).",
            "Computes the full D x D pairwise MI matrix up front, O(N D^2) whatever k.",
            "Near-ties (|diff| <= 1e-12) go to the lowest mean redundancy, not the lowest "
            "index; numba fastmath.",
        ),
    ),
    Impl(
        "itmo-fs",
        "ITMO_FS 0.3.3",
        ("JMI", "mRMR", "CMIM", "CIFE"),
        peer=True,
        notes=(
            "CMIM scores min_j I(Xk;Y|Xj), without Fleuret's I(Xk;Y) term.",
            "JMI is Brown's rewrite I(Xk;Y) - 1/|S| sum[I(Xk;Xj) - I(Xk;Xj|Y)] (same argmax "
            "up to rounding); natural logarithm.",
            "Recomputes every score from scratch at each step in pure Python (O(k^2 D) MI "
            "evaluations).",
            "No greedy DISR (DISRWithMassive is a different, graph-based algorithm) and no CMI.",
        ),
    ),
    Impl(
        "skfeature",
        "scikit-feature (chappers 1.2.1)",
        ("JMI", "mRMR", "CMIM", "DISR", "CIFE"),
        peer=True,
        notes=(
            "jmi(), mrmr() and cife() with mode='index' return reverse_argsort ranks of the "
            "pick list (rankdata of the index values), not the indices in pick order.",
            "jmi() and mrmr() call lcsi() without beta/gamma, so they run LCSI with its "
            "defaults beta=0.8, gamma=0.5 (jmi) and beta=0.8, gamma=0 (mrmr): neither is "
            "JMI nor mRMR.",
            "cmim() scores min_j I(Xk;Y|Xj), without the I(Xk;Y) term.",
            "disr() divides the DISR sum by sum_j (1 + I(Xk;Xj)) (an extra normalisation).",
            "No CMI.",
        ),
    ),
]
IMPL_BY_KEY = {impl.key: impl for impl in IMPLS}


def _fsel_call(criterion: str, n_jobs: int):
    import fsel

    cls = getattr(fsel, FSEL_CLASS[criterion])

    def call(X, y, k):
        est = cls(n_features_to_select=k, discretize=None, n_jobs=n_jobs).fit(X, y)
        return est.selection_order_, getattr(est, "selection_scores_", None)

    return call


def _fstoolbox_call(criterion: str, n_jobs: int):
    import logging

    logging.getLogger().setLevel(logging.ERROR)  # it logs a harmless library-path warning
    import fstoolbox as F

    fn = {"JMI": F.JMI, "mRMR": F.mRMR_D, "CMIM": F.CMIM, "DISR": F.DISR, "CMI": F.CondMI}

    def call(X, y, k):
        if criterion == "CIFE":
            order, scores = F.BetaGamma(X, y, k, 1.0, 1.0)
        else:
            order, scores = fn[criterion](X, y, k)
        order = [int(f) for f in order]
        n_valid = next((i for i, f in enumerate(order) if f >= X.shape[1]), len(order))
        return order[:n_valid], list(scores)[:n_valid]

    return call


def _fast_select_call(criterion: str, n_jobs: int):
    from fast_select import mRMR

    def call(X, y, k):
        est = mRMR(n_features_to_select=k, method="MID", backend="cpu").fit(X, y)
        return est.top_features_, None

    return call


def _itmo_call(criterion: str, n_jobs: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from ITMO_FS.filters.multivariate import MultivariateFilter
    name = {"JMI": "JMI", "mRMR": "MRMR", "CMIM": "CMIM", "CIFE": "CIFE"}[criterion]

    def call(X, y, k):
        est = MultivariateFilter(name, k)
        est.fit(X, y)
        return est.selected_features, None

    return call


def _skfeature_call(criterion: str, n_jobs: int):
    from skfeature.function.information_theoretical_based import CIFE, CMIM, DISR, JMI, MRMR

    fn = {
        "JMI": JMI.jmi,
        "mRMR": MRMR.mrmr,
        "CMIM": CMIM.cmim,
        "DISR": DISR.disr,
        "CIFE": CIFE.cife,
    }[criterion]

    def call(X, y, k):
        return fn(X, y, mode="index", n_selected_features=k), None

    return call


_CALLS = {
    "fstoolbox": _fstoolbox_call,
    "fsel-numba-1": _fsel_call,
    "fsel-numba-2": _fsel_call,
    "fsel-numpy-1": _fsel_call,
    "fast-select": _fast_select_call,
    "itmo-fs": _itmo_call,
    "skfeature": _skfeature_call,
}
