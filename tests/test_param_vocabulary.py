"""One rule and one message per kind of parameter (the API audit's findings F1-F10).

Every bad parameter gives a one-line ``TypeError`` (wrong type) or ``ValueError`` (wrong
value) that opens with the estimator's name and names the parameter; the kinds live in
:data:`fsel.utils.params.PARAMETER_KINDS` (docs/development.rst, "Vocabulary").
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import fsel
from fsel.selectors.relief import _nearest

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _data(n: int = 80, d: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, d))
    X[:, 0] += 2 * y
    X[:, 1] -= 1.5 * y
    return X, y


@pytest.fixture(scope="module")
def data():
    return _data()


def _raises(est, X, y, error, message):
    """``est.fit`` raises ``error`` whose whole (one-line) message is ``message``."""
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        est.fit(X, y)


# ------------------------------------------------------------------ F1: CMI's tol
@pytest.mark.parametrize(
    ("tol", "error", "message"),
    [
        (float("nan"), ValueError, "CMI: tol must be a finite number, got nan"),
        (float("inf"), ValueError, "CMI: tol must be a finite number, got inf"),
        (True, TypeError, "CMI: tol must be a real number, got True"),
        ("bogus", TypeError, "CMI: tol must be a real number, got 'bogus'"),
    ],
)
def test_cmi_tol_is_validated(data, tol, error, message):
    _raises(fsel.CMI(4, tol=tol), *data, error, message)


def test_cmi_tol_zero_and_default_are_accepted(data):
    a = fsel.CMI(4, tol=0.0).fit(*data)
    b = fsel.CMI(4).fit(*data)
    assert a.selection_order_.tolist() == b.selection_order_.tolist()


def test_cmi_negative_tol_takes_every_feature_asked_for(data):
    """A negative ``tol`` never stops early (the GPU/CPU parity tests use it to take
    all ``k`` steps)."""
    assert len(fsel.CMI(4, tol=-1.0).fit(*data).selection_order_) == 4


# ------------------------------------------------------------------ F2: n_neighbors
@pytest.mark.parametrize(
    "make",
    [
        lambda k: fsel.MIM(2, mi_estimator="knn", n_neighbors=k),
        lambda k: fsel.MIM(2, n_neighbors=k),  # checked even where only "knn" reads it
        lambda k: fsel.JMI(2, n_neighbors=k),
        lambda k: fsel.ReliefF(2, n_neighbors=k),
    ],
    ids=["MIM-knn", "MIM-plugin", "JMI", "ReliefF"],
)
@pytest.mark.parametrize(
    ("k", "error", "text"),
    [
        (2.0, TypeError, "n_neighbors must be an int, got 2.0"),
        ("bogus", TypeError, "n_neighbors must be an int, got 'bogus'"),
        (True, TypeError, "n_neighbors must be an int, got True"),
        (0, ValueError, "n_neighbors must be at least 1, got 0"),
    ],
)
def test_n_neighbors_one_rule(data, make, k, error, text):
    est = make(k)
    _raises(est, *data, error, f"{type(est).__name__}: {text}")


def test_knn_estimator_still_refuses_more_neighbours_than_rows(data):
    with pytest.raises(ValueError, match=r"^MIM: mi_estimator='knn' needs more than"):
        fsel.MIM(2, mi_estimator="knn", n_neighbors=500).fit(*data)


def test_relieff_huge_n_neighbors_is_clipped_before_the_search(data, monkeypatch):
    X, y = data
    seen = []
    knn = _nearest.ReliefF._knn

    def spy(self, Z, y_, k, *args, **kwargs):
        seen.append(k)
        return knn(self, Z, y_, k, *args, **kwargs)

    monkeypatch.setattr(_nearest.ReliefF, "_knn", spy)
    ref = fsel.ReliefF(n_neighbors=X.shape[0] - 1).fit(X, y)
    huge = fsel.ReliefF(n_neighbors=10**9).fit(X, y)  # was sized by k: never finished
    assert max(seen) <= X.shape[0] - 1
    np.testing.assert_array_equal(huge.scores_, ref.scores_)
    # a continuous target (RReliefF) too
    t = X[:, 0] + 0.1 * X[:, 1]
    r1 = fsel.ReliefF(n_neighbors=X.shape[0] - 1).fit(X, t)
    r2 = fsel.ReliefF(n_neighbors=10**9).fit(X, t)
    np.testing.assert_array_equal(r1.scores_, r2.scores_)
    assert max(seen) <= X.shape[0] - 1


# ------------------------------------------------------------------ F3: meta parameters
_SEL = fsel.MIM(2)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (
            lambda: fsel.StabilitySelection(_SEL, n_resamples=2.0),
            TypeError,
            "StabilitySelection: n_resamples must be an int, got 2.0",
        ),
        (
            lambda: fsel.StabilitySelection(_SEL, n_resamples=0),
            ValueError,
            "StabilitySelection: n_resamples must be at least 1, got 0",
        ),
        (
            lambda: fsel.NPFS(_SEL, n_resamples=2.0),
            TypeError,
            "NPFS: n_resamples must be an int, got 2.0",
        ),
        (
            lambda: fsel.BootstrapRanking(n_resamples=2.0),
            TypeError,
            "BootstrapRanking: n_resamples must be an int, got 2.0",
        ),
        (
            lambda: fsel.StabilitySelection(_SEL, threshold="bogus"),
            TypeError,
            "StabilitySelection: threshold must be a real number, got 'bogus'",
        ),
        (
            lambda: fsel.StabilitySelection(_SEL, threshold=1.5),
            ValueError,
            "StabilitySelection: threshold must be a number in (0, 1], got 1.5",
        ),
        (
            lambda: fsel.KnockoffFilter(n_draws=1.5),
            TypeError,
            "KnockoffFilter: n_draws must be an int, got 1.5",
        ),
        (
            lambda: fsel.KnockoffFilter(n_draws=0),
            ValueError,
            "KnockoffFilter: n_draws must be at least 1, got 0",
        ),
        (
            lambda: fsel.KnockoffFilter(fdr=True),
            TypeError,
            "KnockoffFilter: fdr must be a real number, got True",
        ),
        (
            lambda: fsel.KnockoffFilter(fdr=1.5),
            ValueError,
            "KnockoffFilter: fdr must be a number in (0, 1), got 1.5",
        ),
        (
            lambda: fsel.KnockoffFilter(offset="bogus"),
            ValueError,
            "KnockoffFilter: offset must be one of (1, 0), got 'bogus'",
        ),
        (
            lambda: fsel.KnockoffFilter(offset=True),
            ValueError,
            "KnockoffFilter: offset must be one of (1, 0), got True",
        ),
        (
            lambda: fsel.NPFS(_SEL, alpha="bogus"),
            TypeError,
            "NPFS: alpha must be a real number, got 'bogus'",
        ),
        (
            lambda: fsel.NPFS(_SEL, alpha=1.0),
            ValueError,
            "NPFS: alpha must be a number in (0, 1), got 1.0",
        ),
        (
            lambda: fsel.NPFS(_SEL, null="bogus"),
            ValueError,
            "NPFS: null must be one of ('binomial', 'permutation'), got 'bogus'",
        ),
        (
            lambda: fsel.NPFS(_SEL, n_permutations=1.5),
            TypeError,
            "NPFS: n_permutations must be an int, got 1.5",
        ),
        (
            lambda: fsel.IRelief(sigma="bogus"),
            TypeError,
            "IRelief: sigma must be a real number, got 'bogus'",
        ),
        (
            lambda: fsel.IRelief(sigma=float("inf")),
            ValueError,
            "IRelief: sigma must be a finite number above 0, got inf",
        ),
        (
            lambda: fsel.IRelief(theta=0),
            ValueError,
            "IRelief: theta must be a finite number above 0, got 0",
        ),
        (
            lambda: fsel.IRelief(max_iter=1.5),
            TypeError,
            "IRelief: max_iter must be an int, got 1.5",
        ),
        (
            lambda: fsel.PRelief(sigma=True),
            TypeError,
            "PRelief: sigma must be a positive number, an array or one of "
            "('silverman', 'paper'), got True",
        ),
    ],
)
def test_meta_and_relief_parameters_share_the_kinds(data, make, error, message):
    _raises(make(), *data, error, message)


def test_knockoffs_and_stability_selection_declare_their_kinds():
    ko = fsel.KnockoffFilter._param_kinds
    ss = fsel.StabilitySelection._param_kinds
    assert ko["n_draws"] == "positive_int" and ko["categorical"] == "categorical"
    assert ss["n_resamples"] == "n_resamples" and ss["threshold"] == "fraction"


# ------------------------------------------------------------------ F4: resampling
@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: fsel.NPFS(_SEL, resampling="complementary_pairs"),
            "NPFS: resampling must be one of ('bootstrap', 'subsample', 'kfold'), "
            "got 'complementary_pairs'",
        ),
        (
            lambda: fsel.StabilitySelection(_SEL, resampling="kfold"),
            "StabilitySelection: resampling must be one of ('complementary_pairs', "
            "'subsample', 'bootstrap'), got 'kfold'",
        ),
    ],
)
def test_resampling_one_message_format(data, make, message):
    _raises(make(), *data, ValueError, message)


@pytest.mark.parametrize("name", ["resample_indices", "resample_plan"])
def test_resampling_functions_share_the_message(name):
    from fsel.meta import resampling

    with pytest.raises(
        ValueError,
        match=r"^resampling must be one of \('bootstrap', 'subsample', 'kfold'\), got 'bogus'$",
    ):
        getattr(resampling, name)(10, 3, resampling="bogus")


# ------------------------------------------------------------------ F5: categorical
@pytest.mark.parametrize("value", ["f1", "bogus"])
def test_knockoffs_refuse_a_bare_string_categorical(data, value):
    _raises(
        fsel.KnockoffFilter(categorical=value),
        *data,
        ValueError,
        "KnockoffFilter: categorical must be 'auto', a boolean mask or a list of columns, "
        f"got {value!r}",
    )


# ------------------------------------------------------------------ F6: slice counts
@pytest.mark.parametrize("cls", [fsel.RankingIndex, fsel.BootstrapRanking])
@pytest.mark.parametrize("param", ["n_slices", "n_bins_x", "n_bins_y"])
@pytest.mark.parametrize(
    ("value", "error", "text"),
    [
        (1.5, TypeError, "must be an int or 'auto', got 1.5"),
        (0, ValueError, "must be an int of at least 2 or 'auto', got 0"),
        ("many", ValueError, "must be an int of at least 2 or 'auto', got 'many'"),
    ],
)
def test_ranking_slice_counts_name_the_parameter(data, cls, param, value, error, text):
    kw = {"n_resamples": 3} if cls is fsel.BootstrapRanking else {}
    _raises(cls(**kw, **{param: value}), *data, error, f"{cls.__name__}: {param} {text}")


# ------------------------------------------------------------------ F7: verbose
@pytest.mark.parametrize(
    "make",
    [
        lambda v: fsel.MIM(2, verbose=v),
        lambda v: fsel.Classifiability(2, verbose=v),
        lambda v: fsel.NPFS(_SEL, n_resamples=3, verbose=v),
    ],
    ids=["MIM", "Classifiability", "NPFS"],
)
@pytest.mark.parametrize(
    ("value", "error"),
    [("bogus", TypeError), (float("inf"), TypeError), ([1], TypeError), (-1, ValueError)],
)
def test_verbose_kind(data, make, value, error):
    est = make(value)
    _raises(
        est,
        *data,
        error,
        f"{type(est).__name__}: verbose must be a bool or an int >= 0, got {value!r}",
    )


def test_verbose_bool_and_numpy_int_accepted(data):
    fsel.MIM(2, verbose=False).fit(*data)
    fsel.NPFS(_SEL, n_resamples=3, verbose=np.int64(0), random_state=0).fit(*data)


def test_report_categorical_defaults_to_auto(data):
    assert inspect.signature(fsel.report).parameters["categorical"].default == "auto"
    with pytest.raises(
        ValueError,
        match=r"^fsel\.report: categorical must be 'auto', a boolean mask or a list of "
        r"columns, got 'x1'$",
    ):
        fsel.report(*data, methods="mim", categorical="x1", quick=True, progress=False)


# ------------------------------------------------------------------ F8: keep_knockoffs
@pytest.mark.parametrize("value", ["no", float("nan"), [0], 1])
def test_keep_knockoffs_must_be_a_bool(data, value):
    _raises(
        fsel.KnockoffFilter(fdr=0.5, keep_knockoffs=value),
        *data,
        TypeError,
        f"KnockoffFilter: keep_knockoffs must be True or False, got {value!r}",
    )


def test_keep_knockoffs_numpy_bool(data):
    kf = fsel.KnockoffFilter(fdr=0.5, keep_knockoffs=np.True_, random_state=0).fit(*data)
    assert kf.knockoffs_.shape == data[0].shape


# ------------------------------------------------------------------ F9: a huge n_jobs
@pytest.mark.parametrize(
    "make",
    [
        lambda j: fsel.PRelief(2, n_jobs=j),
        lambda j: fsel.KnockoffFilter(fdr=0.5, n_jobs=j, random_state=0),
    ],
    ids=["PRelief", "KnockoffFilter"],
)
def test_huge_n_jobs_is_capped(data, make):
    a = make(10**6).fit(*data)
    b = make(1).fit(*data)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(a.support_, b.support_)


# ------------------------------------------------------------------ F10: CMI "auto"
def test_cmi_auto_is_its_stopping_rule(data):
    X, y = data
    auto = fsel.CMI(n_features_to_select="auto").fit(X, y)
    every = fsel.CMI(n_features_to_select=X.shape[1]).fit(X, y)
    assert auto.selection_order_.tolist() == every.selection_order_.tolist()
    np.testing.assert_array_equal(auto.scores_, every.scores_)
    # the default is unchanged: half of the features, a cap on the stopping rule
    default = fsel.CMI().fit(X, y)
    assert default.selection_order_.tolist() == every.selection_order_[: X.shape[1] // 2].tolist()


def test_cmi_auto_only_where_the_method_decides(data):
    with pytest.raises(ValueError, match=r"^JMI: n_features_to_select must be None"):
        fsel.JMI(n_features_to_select="auto").fit(*data)
