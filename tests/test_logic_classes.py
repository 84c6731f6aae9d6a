"""Every estimator is its logic class with scikit-learn's API in front
(:mod:`fsel.selectors._core`): the two fit the same way, the logic side never imports
scikit-learn, and the small ``fsel select`` job that uses it starts without it."""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.utils import check_random_state as sk_check_random_state
from sklearn.utils.multiclass import type_of_target

from fsel._registry import METHODS
from fsel.utils.targets import is_continuous_target
from fsel.utils.validation import check_random_state

SRC = Path(__file__).resolve().parents[1] / "src" / "fsel"

#: modules that hold selector logic or what it needs: none may import scikit-learn at
#: module level (a function may, for a rare branch such as a ConvergenceWarning)
LOGIC_MODULES = [
    *sorted((SRC / "kernels").glob("*.py")),
    *sorted((SRC / "utils").glob("*.py")),
    SRC / "selectors" / "_core.py",
    SRC / "selectors" / "information" / "_fit.py",
    SRC / "selectors" / "information" / "_engine.py",
    SRC / "selectors" / "information" / "_criteria.py",
    SRC / "selectors" / "relief" / "_base.py",
    SRC / "selectors" / "relief" / "_nearest.py",
    SRC / "selectors" / "relief" / "_iterative.py",
    SRC / "selectors" / "relief" / "_parzen.py",
    SRC / "selectors" / "classifiability" / "_fit.py",
    SRC / "selectors" / "ranking" / "_fit.py",
    *sorted((SRC / "selectors").rglob("__init__.py")),
    SRC / "_registry.py",
    SRC / "api.py",
    SRC / "cli" / "main.py",
    SRC / "cli" / "io.py",
]


@pytest.mark.parametrize("path", LOGIC_MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_logic_modules_do_not_import_sklearn_at_module_level(path):
    tree = ast.parse(path.read_text())
    bad = []
    for node in tree.body:  # module level only
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name.split(".")[0] == "sklearn"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sklearn":
            bad.append(node.module)
    assert not bad, f"{path.relative_to(SRC)} imports {bad}"


@pytest.mark.parametrize("name", sorted(METHODS))
def test_logic_class_is_the_estimators_base_with_the_same_parameters(name):
    m = METHODS[name]
    est, logic = m.load(), m.load_logic()
    assert logic in est.__mro__
    assert logic is not est
    # scikit-learn's parameter list and the plain one agree
    assert est._param_names() == logic._param_names()
    assert sorted(est().get_params(deep=False)) == logic._param_names()
    inst = logic(**dict(m.fixed))
    assert inst._constructor_params() == est(**dict(m.fixed)).get_params(deep=False)


def _data(name: str, seed: int, n: int, d: int):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, min(2, d - 1)] + 0.3 * rng.normal(size=n) > 0).astype(int)
    if METHODS[name].family == "ranking-index":
        y = X[:, 0] + X[:, 1] ** 2 + 0.2 * rng.normal(size=n)
    X[rng.random((n, d)) < 0.05] = np.nan  # each family's own missing-value rule
    return X, y


def _fitted(obj) -> dict:
    return {k: v for k, v in vars(obj).items() if k.endswith("_") and not k.startswith("_")}


@pytest.mark.parametrize("name", sorted(METHODS))
@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(seed=st.integers(0, 2**16), n=st.integers(30, 60), d=st.integers(3, 6))
def test_logic_class_fits_exactly_like_the_estimator(name, seed, n, d):
    m = METHODS[name]
    X, y = _data(name, seed, n, d)
    params = dict(m.fixed, n_features_to_select=2)
    if "random_state" in m.load_logic()._param_names():
        params["random_state"] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. I-Relief's ConvergenceWarning, both sides
        a = m.load()(**params).fit(X, y)
        b = m.load_logic()(**params).fit(X, y)
    fa, fb = _fitted(a), _fitted(b)
    assert set(fa) == set(fb)
    assert "selection_order_" in fa and "scores_" in fa
    for key in fa:
        va, vb = fa[key], fb[key]
        if isinstance(va, np.ndarray):
            assert np.array_equal(va, vb, equal_nan=va.dtype.kind == "f"), key
        elif isinstance(va, list):
            assert len(va) == len(vb), key
            for ea, eb in zip(va, vb, strict=True):
                assert (ea is None and eb is None) or np.array_equal(ea, eb), key
        else:
            assert va == vb, key


_CLI_CHECK = """
import sys
import numpy as np
rng = np.random.default_rng(0)
X = rng.normal(size=(120, 8)); y = (X[:, 3] > 0).astype(int)
np.savez(sys.argv[1], X=X, y=y)
from fsel.cli.main import main
rc = main(["select", sys.argv[1], "--method", sys.argv[2], "-k", "2", "-q"])
print("RESULT", rc, "sklearn" in sys.modules)
"""


@pytest.mark.parametrize("method", ["jmi", "relieff", "classifiability", "k3"])
def test_a_small_cli_selection_never_imports_sklearn(method, tmp_path):
    # the scikit-learn import is most of a small job's start-up (issue 17 item 15)
    out = subprocess.run(
        [sys.executable, "-c", _CLI_CHECK, str(tmp_path / "d.npz"), method],
        capture_output=True,
        text=True,
        check=True,
    )
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT")][-1]
    assert line == "RESULT 0 False", out.stdout + out.stderr
    assert " 3 " in out.stdout.split("name")[1]  # the relevant feature is listed


def test_npfs_on_the_cli_still_uses_the_estimator(tmp_path, capsys):
    from fsel.cli.main import main

    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 5))
    y = (X[:, 1] > 0).astype(int)
    np.savez(tmp_path / "d.npz", X=X, y=y)
    rc = main(["select", str(tmp_path / "d.npz"), "--npfs", "--n-resamples", "20", "-k", "1"])
    assert rc == 0
    assert "relevant" in capsys.readouterr().out


@given(
    seed=st.one_of(st.none(), st.integers(0, 2**32 - 1)),
)
@settings(max_examples=25, deadline=None)
def test_check_random_state_follows_sklearns_rule(seed):
    a, b = check_random_state(seed), sk_check_random_state(seed)
    if seed is None:
        assert a is b  # numpy's global instance
    else:
        assert a.randint(0, 2**31, size=5).tolist() == b.randint(0, 2**31, size=5).tolist()
    rs = np.random.RandomState(3)
    assert check_random_state(rs) is rs
    with pytest.raises(ValueError, match="cannot be used to seed"):
        check_random_state("seed")


@given(
    values=st.one_of(
        st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=20),
        st.lists(st.integers(-50, 50).map(float), min_size=1, max_size=20),
        st.lists(st.integers(-50, 50), min_size=1, max_size=20),
        st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=20),
        st.lists(st.booleans(), min_size=1, max_size=20),
    )
)
@settings(max_examples=150, deadline=None)
def test_is_continuous_target_matches_sklearns_type_of_target(values):
    y = np.asarray(values)
    assert is_continuous_target(y) == (type_of_target(y) == "continuous")
