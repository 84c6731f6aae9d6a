"""
Feature selection inside a Pipeline, with GridSearchCV over k
=============================================================

Every fsel selector is a scikit-learn transformer: put it in a
:class:`~sklearn.pipeline.Pipeline` so that the selection is learned on the
training folds only (selecting on all the data before cross-validation leaks the
test folds into the choice of features), and tune the number of features like any
other hyper-parameter.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline

import fsel

X, y = load_breast_cancer(return_X_y=True)
pipe = Pipeline([("select", fsel.JMI()), ("clf", GaussianNB())])
grid = GridSearchCV(
    pipe,
    {
        "select": [fsel.JMI(), fsel.MRMR()],
        "select__n_features_to_select": [1, 2, 3, 5, 8, 12, 20, 30],
    },
    cv=StratifiedKFold(5, shuffle=True, random_state=0),
)
grid.fit(X, y)
print("best:", grid.best_params_, f"accuracy {grid.best_score_:.3f}")

# %%
# The cross-validated accuracy against ``k`` for both criteria.

res = grid.cv_results_
fig, ax = plt.subplots(figsize=(6, 4))
for name in ("JMI", "MRMR"):
    rows = [i for i, p in enumerate(res["params"]) if type(p["select"]).__name__ == name]
    ks = np.array([res["params"][i]["select__n_features_to_select"] for i in rows])
    mean = res["mean_test_score"][rows]
    std = res["std_test_score"][rows]
    ax.errorbar(ks, mean, yerr=std, marker="o", capsize=3, label=name)
ax.set_xlabel("features selected (k)")
ax.set_ylabel("5-fold CV accuracy, naive Bayes")
ax.legend()
fig.tight_layout()

# %%
# The fitted selector inside the best pipeline keeps the selection order and the
# score of each step, and maps back to the feature names.

best = grid.best_estimator_.named_steps["select"]
names = load_breast_cancer().feature_names
for step, (j, s) in enumerate(zip(best.selection_order_, best.selection_scores_, strict=True), 1):
    print(f"{step:2d}. {names[j]:25s} {s:.3f} bits")
