"""The conditional-likelihood criteria as scoring rules for the one greedy engine.

Each criterion keeps running sums over the selected set ``S`` and updates them with the
terms of the newest selected feature only (:class:`fsel.kernels.information.PairTerms`),
so a step costs ``O(N K)`` (Brown, Pocock, Zhao & Lujan 2012, Table 1 /
docs/user_guide/information.rst):

=========  ===============================================================
MIM        ``I(Xk;Y)``
MIFS       ``I(Xk;Y) - beta sum_j I(Xk;Xj)``
mRMR       ``I(Xk;Y) - (1/|S|) sum_j I(Xk;Xj)``
JMI        ``sum_j I(XkXj;Y)``
CMIM       ``min(I(Xk;Y), min_j I(Xk;Y|Xj))``
ICAP       ``I(Xk;Y) - sum_j max(0, I(Xk;Xj) - I(Xk;Xj|Y))``
CIFE       ``I(Xk;Y) - sum_j I(Xk;Xj) + sum_j I(Xk;Xj|Y)``
DISR       ``sum_j I(XkXj;Y) / H(Xk,Xj,Y)``
CondRed    ``I(Xk;Y) + sum_j I(Xk;Xj|Y)``
BetaGamma  ``I(Xk;Y) - beta sum_j I(Xk;Xj) + gamma sum_j I(Xk;Xj|Y)``
JMIM       ``min_j I(XkXj;Y)`` (Bennasar, Hicks & Setchi 2015)
=========  ===============================================================

CMI, ``I(Xk;Y|S)`` with ``S`` the joint of all selected features, is not a sum of pair
terms; the engine handles it with :meth:`InformationTable.conditional_relevance`.
"""

from __future__ import annotations

import numpy as np

from fsel.kernels.information import PairTerms

__all__ = ["CRITERIA", "Criterion"]


class Criterion:
    """A scoring rule: ``start`` with the relevance, ``update`` with each new pick's
    terms, ``score`` the candidates. ``terms`` names the :class:`PairTerms` fields it
    reads: one that needs only ``("mi",)`` gets the cheaper ``I(Xk;Xj)``-only count."""

    name = "criterion"
    terms: tuple[str, ...] = ("mi", "cmi_given_y", "joint_mi", "joint_entropy", "cmi_given_j")

    def __init__(self, **params: float) -> None:
        self.params = params

    def start(self, relevance: np.ndarray) -> None:
        self.rel = relevance
        self.n_selected = 1
        self.acc = np.zeros_like(relevance)

    def update(self, t: PairTerms) -> None:
        """Add the terms of the newest pick (arrays over all candidates)."""
        self.begin_step()
        self.update_block(t, slice(None))

    def begin_step(self) -> None:
        """A new pick: its terms follow, in one or several :meth:`update_block` calls."""
        self.n_selected += 1

    def update_block(self, t: PairTerms, sl: slice) -> None:
        """Add the newest pick's terms of the candidates ``sl`` (arrays over those)."""

    def score(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


class _MIM(Criterion):
    name = "mim"

    def score(self) -> np.ndarray:
        return self.rel


class _BetaGamma(Criterion):
    """``I(Xk;Y) - beta sum I(Xk;Xj) + gamma sum I(Xk;Xj|Y)``; MIFS, CIFE, CondRed are
    settings of it."""

    name = "betagamma"

    def start(self, relevance: np.ndarray) -> None:
        super().start(relevance)
        self.acc2 = np.zeros_like(relevance)

    @property
    def terms(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("mi",) if not self.params.get("gamma", 1.0) else ("mi", "cmi_given_y")

    def update_block(self, t: PairTerms, sl: slice) -> None:
        self.acc[sl] += t.mi
        if self.params.get("gamma", 1.0):  # gamma = 0 (MIFS): the sum is never used
            self.acc2[sl] += t.cmi_given_y

    def score(self) -> np.ndarray:
        beta = self.params.get("beta", 1.0)
        gamma = self.params.get("gamma", 1.0)
        out = self.rel.copy()
        if beta:
            out -= beta * self.acc
        if gamma:
            out += gamma * self.acc2
        return out


class _MRMR(Criterion):
    name = "mrmr"
    terms = ("mi",)

    def update_block(self, t: PairTerms, sl: slice) -> None:
        self.acc[sl] += t.mi

    def score(self) -> np.ndarray:
        return self.rel - self.acc / (self.n_selected - 1)


class _JMI(Criterion):
    name = "jmi"
    terms = ("joint_mi",)

    def update_block(self, t: PairTerms, sl: slice) -> None:
        self.acc[sl] += t.joint_mi

    def score(self) -> np.ndarray:
        return self.acc


class _CMIM(Criterion):
    name = "cmim"
    terms = ("cmi_given_j",)

    def start(self, relevance: np.ndarray) -> None:
        super().start(relevance)
        self.acc = relevance.copy()

    def update_block(self, t: PairTerms, sl: slice) -> None:
        acc = self.acc[sl]
        np.minimum(acc, t.cmi_given_j, out=acc)

    def score(self) -> np.ndarray:
        return self.acc


class _ICAP(Criterion):
    name = "icap"
    terms = ("mi", "cmi_given_y")

    def update_block(self, t: PairTerms, sl: slice) -> None:
        self.acc[sl] += np.maximum(0.0, t.mi - t.cmi_given_y)

    def score(self) -> np.ndarray:
        return self.rel - self.acc


class _DISR(Criterion):
    name = "disr"
    terms = ("joint_mi", "joint_entropy")

    def update_block(self, t: PairTerms, sl: slice) -> None:
        h = t.joint_entropy
        ratio = np.divide(t.joint_mi, h, out=np.zeros_like(h), where=h > 0)
        self.acc[sl] += ratio

    def score(self) -> np.ndarray:
        return self.acc


class _JMIM(Criterion):
    name = "jmim"
    terms = ("joint_mi",)

    def start(self, relevance: np.ndarray) -> None:
        super().start(relevance)
        self.acc = np.full_like(relevance, np.inf)

    def update_block(self, t: PairTerms, sl: slice) -> None:
        acc = self.acc[sl]
        np.minimum(acc, t.joint_mi, out=acc)

    def score(self) -> np.ndarray:
        return self.acc


CRITERIA: dict[str, type[Criterion]] = {
    "mim": _MIM,
    "mifs": _BetaGamma,  # beta given, gamma = 0
    "mrmr": _MRMR,
    "jmi": _JMI,
    "cmim": _CMIM,
    "icap": _ICAP,
    "cife": _BetaGamma,  # beta = gamma = 1
    "disr": _DISR,
    "condred": _BetaGamma,  # beta = 0, gamma = 1
    "betagamma": _BetaGamma,
    "jmim": _JMIM,
}
