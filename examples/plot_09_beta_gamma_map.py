"""
The information criteria as one family: Brown et al.'s beta/gamma map
=====================================================================

Brown, Pocock, Zhao & Luján (2012) showed that most information-theoretic
criteria are approximations of one conditional-likelihood objective, and that many
are points of one linear family

.. math::

    J(X_k) = I(X_k;Y) - \\beta \\sum_{j \\in S} I(X_k;X_j)
             + \\gamma \\sum_{j \\in S} I(X_k;X_j \\mid Y),

the relevance minus a redundancy term plus a class-conditional redundancy term.
MIM is :math:`(\\beta, \\gamma) = (0, 0)`, MIFS :math:`(1, 0)`, CIFE :math:`(1, 1)`,
CondRed :math:`(0, 1)`; mRMR and JMI sit at :math:`\\beta = 1/|S|` with
:math:`\\gamma = 0` and :math:`\\gamma = 1/|S|`, moving towards the origin as the
selected set grows (their Fig. 2). :class:`fsel.BetaGamma` reaches every point.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer

import fsel

fig, ax = plt.subplots(figsize=(5, 4.5))
points = {"MIM": (0, 0), "MIFS": (1, 0), "CIFE": (1, 1), "CondRed": (0, 1)}
for name, (b, g) in points.items():
    ax.plot(b, g, "o", ms=9)
    ax.annotate(name, (b, g), xytext=(6, 6), textcoords="offset points")
sizes = np.arange(1, 11)
ax.plot(1 / sizes, np.zeros_like(sizes, dtype=float), "s-", ms=4, label="mRMR, |S| = 1..10")
ax.plot(1 / sizes, 1 / sizes, "d-", ms=4, label="JMI, |S| = 1..10")
ax.set_xlabel(r"$\beta$ (redundancy)")
ax.set_ylabel(r"$\gamma$ (conditional redundancy)")
ax.set_xlim(-0.15, 1.25)
ax.set_ylim(-0.15, 1.25)
ax.legend(loc="center right")
ax.set_title("Criteria in the beta/gamma space")
fig.tight_layout()

# %%
# Check: a point of the family selects as the named criterion
# -----------------------------------------------------------
# ``BetaGamma(beta=1, gamma=1)`` is CIFE and ``BetaGamma(beta=0, gamma=0)`` is
# MIM, pick for pick, on scikit-learn's breast-cancer table (30 features, 5
# equal-width bins each).

X, y = load_breast_cancer(return_X_y=True)
k = 10
for name, (b, g) in points.items():
    named = getattr(fsel, name)(k).fit(X, y).selection_order_
    family = fsel.BetaGamma(k, beta=b, gamma=g).fit(X, y).selection_order_
    same = np.array_equal(named, family)
    print(f"{name:8s} {named.tolist()}  BetaGamma({b}, {g}) identical: {same}")

# %%
# How far apart are the criteria's selections?
# --------------------------------------------
# Overlap (shared features of the 10 selected) between every pair of criteria;
# the criteria far from the origin of the map (MIFS, CIFE, ICAP, CondRed) are the
# ones that part company with the rest — the outliers of Brown et al.'s Fig. 5.

names = ["MIM", "MRMR", "JMI", "CMIM", "DISR", "ICAP", "MIFS", "CIFE", "CondRed"]
chosen = {n: set(getattr(fsel, n)(k).fit(X, y).selection_order_.tolist()) for n in names}
overlap = np.array([[len(chosen[a] & chosen[b]) for b in names] for a in names])
fig, ax = plt.subplots(figsize=(5.5, 4.5))
im = ax.imshow(overlap, cmap="viridis", vmin=0, vmax=k)
ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
ax.set_yticks(range(len(names)), names)
for i in range(len(names)):
    for j in range(len(names)):
        ax.text(
            j,
            i,
            overlap[i, j],
            ha="center",
            va="center",
            color="w" if overlap[i, j] < 6 else "k",
            fontsize=8,
        )
fig.colorbar(im, ax=ax, label="features in common (of 10)")
fig.tight_layout()
