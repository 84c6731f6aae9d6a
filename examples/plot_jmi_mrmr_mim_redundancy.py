"""
JMI vs mRMR vs MIM on redundant features
========================================

A test.
"""

import matplotlib.pyplot as plt
import numpy as np

import fsel

rng = np.random.default_rng(0)
X = rng.integers(0, 3, size=(300, 6))
y = (X[:, 0] + X[:, 1] > 2).astype(int)
sel = fsel.JMI(3).fit(X, y)
plt.bar(range(6), sel.scores_)
