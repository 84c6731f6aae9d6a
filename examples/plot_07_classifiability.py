"""
Classifiability: a subset and its size from one criterion
=========================================================

Dong & Kothari (2003) score a feature subset by how pure the class mixture is in
each sample's neighbourhood: :math:`L = \\frac{1}{N}\\sum_i \\sum_c p_i(c)^2`, with
:math:`p_i(c)` the fraction of class ``c`` among the samples within a radius ``d``
of sample ``i``. Forward selection adds the feature that raises ``L`` most and
*stops* when no feature raises it: the criterion chooses the subset size.

The data are their simulation group I (:func:`fsel.datasets.make_dong_kothari`):
attribute 0 separates the two classes (N(0, 1) vs N(1, 1)), attributes 1 and 2
are uniform noise. We add five more noise columns.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import fsel
from fsel.datasets import make_dong_kothari

X, y, relevant = make_dong_kothari(n_samples=300, random_state=0)
rng = np.random.default_rng(0)
X = np.hstack([X, rng.random((X.shape[0], 5))])
print("relevant:", relevant.tolist())

# %%
# The radius and its failure mode
# -------------------------------
# The paper's radius is ``d = 3 r``, ``r`` the root-mean-square distance of a
# sample to its nearest neighbour on the current subset. On one continuous column
# that radius holds only a handful of samples, and the purity of a handful is
# biased upward (for ``m`` neighbours drawn from two equal classes,
# :math:`E[\\sum_c p^2] = 1/2 + 1/(2m)`): a noise column can beat the relevant
# one. A wider radius (``radius_factor``) removes the bias at the cost of
# resolution. ``L`` of every candidate at the first step, for three radii:

radii = (3, 10, 30)
fig, axes = plt.subplots(1, len(radii), figsize=(11, 3), sharey=True)
for ax, factor in zip(axes, radii, strict=True):
    sel = fsel.Classifiability(radius_factor=factor).fit(X, y)
    ax.bar(
        range(X.shape[1]),
        sel.candidate_scores_[0],
        color=["C3" if j in relevant else "C0" for j in range(X.shape[1])],
    )
    ax.axhline(sel.classifiability_empty_, color="k", ls="--", lw=1)
    ax.set_title(f"radius_factor={factor}: selects {sel.selection_order_.tolist()}")
    ax.set_xlabel("candidate (red: relevant)")
    ax.set_ylim(0.45, 0.72)
axes[0].set_ylabel("L at step 1")
fig.tight_layout()

# %%
# With ``radius_factor=10`` the search picks attribute 0 and stops: at the second
# step no candidate raises ``L`` (the dashed line is ``L`` of the selected set).

sel = fsel.Classifiability(radius_factor=10).fit(X, y)
print("selected:", sel.selection_order_.tolist(), " L per step:", sel.selection_scores_)
fig, ax = plt.subplots(figsize=(6, 3))
last = sel.candidate_scores_[-1]
ax.bar(range(X.shape[1]), np.nan_to_num(last))
ax.axhline(sel.selection_scores_[-1], color="k", ls="--", lw=1, label="L(selected)")
ax.set_xlabel("candidate feature")
ax.set_ylabel("L(selected + candidate)")
ax.set_title("the step that stopped the search")
ax.legend()
fig.tight_layout()

# %%
# The functional form, :func:`fsel.classifiability`, scores any given subset:

for features in ([0], [0, 1], [0, 1, 2], list(range(8)), [1, 2]):
    value = fsel.classifiability(X, y, features=features, radius_factor=10)
    print(f"L{features} = {value:.3f}")
