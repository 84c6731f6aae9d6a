"""Every selection method by its short name: used by :func:`fsel.select` and the CLI.

A method's class is imported only when it is used, so listing methods stays fast. Each
method names two classes: its scikit-learn estimator (``path``) and the plain class
holding the estimator's logic (``logic``, a base of the estimator that imports no
scikit-learn, see :mod:`fsel.selectors._core`), which the ``fsel select`` command fits.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["METHODS", "Method", "get_method"]


@dataclass(frozen=True)
class Method:
    """A selection method: CLI name, estimator class path, family and one-line summary.

    ``target`` is ``"classification"`` (class labels), ``"regression"`` or ``"any"``.
    ``fixed`` holds constructor parameters the short name implies (e.g. an index name).
    ``logic`` is the path of the estimator's logic class (same parameters, same ``fit``,
    no scikit-learn API).
    """

    name: str
    path: str
    family: str
    summary: str
    target: str = "classification"
    fixed: tuple[tuple[str, Any], ...] = ()
    logic: str = ""

    def load(self) -> type:
        """The scikit-learn estimator class."""
        return _load(self.path)

    def load_logic(self) -> type:
        """The estimator's logic class (imports no scikit-learn)."""
        return _load(self.logic)

    def make(self, **params: Any) -> Any:
        cls = self.load()
        return cls(**{**dict(self.fixed), **params})  # a given parameter overrides


def _load(path: str) -> type:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


_INFO = "fsel.selectors.information"
_RELIEF = "fsel.selectors.relief"

_ALL = [
    Method(
        "mim", f"{_INFO}:MIM", "information", "Mutual information maximisation: rank by I(Xk;Y)."
    ),
    Method(
        "mifs", f"{_INFO}:MIFS", "information", "MIFS (Battiti): I(Xk;Y) - beta * sum I(Xk;Xj)."
    ),
    Method("mrmr", f"{_INFO}:MRMR", "information", "mRMR (Peng): I(Xk;Y) - mean I(Xk;Xj)."),
    Method(
        "jmi",
        f"{_INFO}:JMI",
        "information",
        "Joint mutual information (Yang & Moody): sum I(XkXj;Y).",
    ),
    Method("cmim", f"{_INFO}:CMIM", "information", "CMIM (Fleuret): min(I(Xk;Y), min I(Xk;Y|Xj))."),
    Method("disr", f"{_INFO}:DISR", "information", "DISR (Meyer): sum I(XkXj;Y) / H(Xk,Xj,Y)."),
    Method(
        "icap",
        f"{_INFO}:ICAP",
        "information",
        "ICAP (Jakulin): I(Xk;Y) - sum max(0, I(Xk;Xj) - I(Xk;Xj|Y)).",
    ),
    Method(
        "cife",
        f"{_INFO}:CIFE",
        "information",
        "CIFE (Lin & Tang): I(Xk;Y) - sum I(Xk;Xj) + sum I(Xk;Xj|Y).",
    ),
    Method("condred", f"{_INFO}:CondRed", "information", "CondRed: I(Xk;Y) + sum I(Xk;Xj|Y)."),
    Method(
        "cmi",
        f"{_INFO}:CMI",
        "information",
        "Conditional MI I(Xk;Y|S) with S the joint of the selected; stops early.",
    ),
    Method(
        "betagamma",
        f"{_INFO}:BetaGamma",
        "information",
        "Brown et al.'s beta/gamma family: I - beta sum I(Xk;Xj) + gamma sum I(Xk;Xj|Y).",
    ),
    Method("jmim", f"{_INFO}:JMIM", "information", "JMIM (Bennasar): max-min of I(XkXj;Y)."),
    Method(
        "relief",
        f"{_RELIEF}:Relief",
        "relief",
        "Relief (Kira & Rendell): nearest hit/miss margins.",
    ),
    Method(
        "relieff",
        f"{_RELIEF}:ReliefF",
        "relief",
        "ReliefF (Kononenko): k nearest hits and misses per class.",
    ),
    Method(
        "irelief",
        f"{_RELIEF}:IRelief",
        "relief",
        "I-Relief (Sun 2007): iterative probabilistic hits/misses.",
    ),
    Method(
        "prelief",
        f"{_RELIEF}:PRelief",
        "relief",
        "P-Relief (Yang & Hu): per-feature Parzen margins.",
    ),
    Method(
        "mrelief",
        f"{_RELIEF}:MRelief",
        "relief",
        "M-Relief (Yang & Hu): MAP-weighted Relief margins.",
    ),
    Method(
        "surf",
        f"{_RELIEF}:SURF",
        "relief",
        "SURF (Greene et al.): neighbours within the mean distance.",
    ),
    Method(
        "multisurf",
        f"{_RELIEF}:MultiSURF",
        "relief",
        "MultiSURF (Urbanowicz et al.): per-sample adaptive radius.",
    ),
    Method(
        "classifiability",
        "fsel.selectors.classifiability:Classifiability",
        "classifiability",
        "Dong & Kothari forward selection maximising neighbourhood classifiability.",
    ),
]
#: the information criteria with the nearest-neighbour estimator (no binning): class
#: labels or a numeric (regression) target
_KNN_SUMMARY = {
    "mim": ("MIM", "rank by I(Xk;Y)"),
    "jmi": ("JMI", "sum I(XkXj;Y)"),
    "mrmr": ("MRMR", "I(Xk;Y) - mean I(Xk;Xj)"),
    "cmim": ("CMIM", "min(I(Xk;Y), min I(Xk;Y|Xj))"),
}
for _name, (_cls, _text) in _KNN_SUMMARY.items():
    _ALL.append(
        Method(
            f"{_name}-knn",
            f"{_INFO}:{_cls}",
            "information",
            f"{_cls} with nearest-neighbour (KSG) information, no binning: {_text}.",
            target="any",
            # no bins, so no missing level: each term on its observed rows
            fixed=(("mi_estimator", "knn"), ("missing", "available")),
        )
    )
_INDEX_SUMMARY = {
    "In": "first-order difference variance of y sorted by x (lower is better)",
    "In3": "Hall-Kay-Titterington 3rd-order difference variance (lower is better)",
    "In5": "Hall-Kay-Titterington 5th-order difference variance (lower is better)",
    "K1": "slice Kolmogorov-Smirnov, mean over slices of the max deviation",
    "K2": "slice Kolmogorov-Smirnov, max over slices of the max deviation",
    "K3": "slice Kolmogorov-Smirnov, mean over slices of the mean deviation",
    "chi2": "chi-square of the equal-count S x T contingency table",
    "mi": "mutual information of the equal-count S x T contingency table",
}
for _idx, _text in _INDEX_SUMMARY.items():
    _ALL.append(
        Method(
            _idx.lower() if _idx != "mi" else "mi-index",
            "fsel.selectors.ranking:RankingIndex",
            "ranking-index",
            f"Yuan ranking index {_idx}: {_text}.",
            target="any",
            fixed=(("index", _idx),),
        )
    )

#: where each estimator's logic class lives (see :mod:`fsel.selectors._core`)
_LOGIC_MODULES = {
    _INFO: f"{_INFO}._fit",
    "fsel.selectors.classifiability": "fsel.selectors.classifiability._fit",
    "fsel.selectors.ranking": "fsel.selectors.ranking._fit",
    f"{_RELIEF}:Relief": f"{_RELIEF}._nearest",
    f"{_RELIEF}:ReliefF": f"{_RELIEF}._nearest",
    f"{_RELIEF}:MRelief": f"{_RELIEF}._nearest",
    f"{_RELIEF}:SURF": f"{_RELIEF}._nearest",
    f"{_RELIEF}:MultiSURF": f"{_RELIEF}._nearest",
    f"{_RELIEF}:IRelief": f"{_RELIEF}._iterative",
    f"{_RELIEF}:PRelief": f"{_RELIEF}._parzen",
}


def _with_logic(m: Method) -> Method:
    module, _, attr = m.path.partition(":")
    logic = _LOGIC_MODULES.get(m.path) or _LOGIC_MODULES[module]
    return replace(m, logic=f"{logic}:{attr}")


METHODS: dict[str, Method] = {m.name: _with_logic(m) for m in _ALL}


def get_method(name: str) -> Method:
    """Look a method up by its short name (case-insensitive)."""
    key = name.lower()
    if key not in METHODS:
        raise ValueError(f"unknown method {name!r}; known methods: {', '.join(METHODS)}")
    return METHODS[key]
