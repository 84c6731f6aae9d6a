"""
Selecting terms of a sparse text matrix
=======================================

Bag-of-words and TF-IDF matrices are sparse: most documents use few of the terms.
fsel's information criteria take a ``scipy.sparse`` matrix as it is and count from its
non-zeros, so one greedy step costs ``O(nnz)``, not ``O(N K)``, and the matrix is never
densified (docs/user_guide/missing_sparse.rst). Here a small corpus is generated from two topics,
turned
into counts by scikit-learn's ``CountVectorizer``, and JMI picks the terms that tell
the topics apart; the result is the same as on the dense copy.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

import fsel

rng = np.random.default_rng(0)
common = [f"word{i}" for i in range(300)]  # shared vocabulary, Zipf-like use
sports = ["match", "goal", "team", "league", "coach", "score"]
finance = ["market", "stock", "bank", "rate", "profit", "bond"]
weights = 1.0 / np.arange(1, len(common) + 1)
weights /= weights.sum()
docs, labels = [], []
for i in range(600):
    topic = i % 2
    words = list(rng.choice(common, size=40, p=weights))
    words += list(rng.choice(sports if topic == 0 else finance, size=rng.integers(1, 4)))
    docs.append(" ".join(words))
    labels.append("sports" if topic == 0 else "finance")

vec = CountVectorizer()
X = vec.fit_transform(docs)  # scipy.sparse CSR counts
terms = vec.get_feature_names_out()
print(f"{X.shape[0]} documents x {X.shape[1]} terms, {X.nnz / np.prod(X.shape):.1%} non-zero")

sel = fsel.JMI(8).fit(X, labels)
picked = terms[sel.selection_order_]
print("selected terms:", ", ".join(picked))
dense = fsel.JMI(8).fit(X.toarray(), labels)
print("same as on the dense copy:", np.array_equal(sel.selection_order_, dense.selection_order_))

# %%
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.barh(picked[::-1], sel.selection_scores_[::-1])
ax.set_xlabel("JMI score at the step the term was picked (bits)")
ax.set_title("Terms that tell sports from finance")
fig.tight_layout()

# %%
# The topic words come first; the common words, used alike by both topics, carry
# no information about the label. ``fsel select counts.npz --target-file y.npy``
# does the same from the command line for a matrix saved by
# ``scipy.sparse.save_npz``.
