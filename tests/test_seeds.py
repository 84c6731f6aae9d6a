"""A seed behaves as a seed in every estimator that takes ``random_state``.

An int, or the same :class:`numpy.random.SeedSequence` object passed twice, gives
identical fitted results; the ``SeedSequence`` is never mutated; a ``Generator`` or
``RandomState`` instance is consumed (it advances, as scikit-learn consumes one).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from fsel._registry import METHODS
from fsel.meta import resampling
from fsel.utils.params import copy_seed_sequence, seed_sequence


def _data(regression: bool = False):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y = X[:, 0] + 0.3 * rng.normal(size=60) if regression else (X[:, 0] > 0).astype(int)
    return X, y


def _seeded_estimators():
    """Every estimator with a ``random_state``, with settings that make it random."""
    out = []
    for m in METHODS.values():
        cls = m.load()
        if "random_state" not in inspect.signature(cls.__init__).parameters:
            continue
        extra = {"sample_size": 20} if "sample_size" in inspect.signature(cls).parameters else {}
        out.append(
            pytest.param(m.name, lambda m=m, extra=extra, **kw: m.make(**extra, **kw), id=m.name)
        )
    from sklearn.feature_selection import SelectKBest, f_classif

    from fsel import NPFS, BootstrapRanking

    out.append(
        pytest.param(
            "npfs",
            lambda **kw: NPFS(SelectKBest(f_classif, k=2), n_resamples=8, **kw),
            id="NPFS",
        )
    )
    out.append(
        pytest.param(
            "bootstrap-ranking",
            lambda **kw: BootstrapRanking(index="K3", n_resamples=8, **kw),
            id="BootstrapRanking",
        )
    )
    return out


def _fitted(est, X, y):
    est.fit(X, y)
    out = {}
    for name, value in vars(est).items():
        if name.endswith("_") and not name.startswith("_") and isinstance(value, np.ndarray):
            out[name] = value
    return out


def _same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def _differs(a, b):
    return any(not np.array_equal(a[k], b[k], equal_nan=True) for k in a)


@pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning")  # tiny tables
@pytest.mark.parametrize(("name", "make"), _seeded_estimators())
def test_int_and_seed_sequence_repeat(name, make):
    X, y = _data(regression=name == "bootstrap-ranking")
    _same(_fitted(make(random_state=3), X, y), _fitted(make(random_state=3), X, y))
    seq = np.random.SeedSequence(11)
    before = (seq.entropy, seq.spawn_key, seq.n_children_spawned)
    first = _fitted(make(random_state=seq), X, y)
    second = _fitted(make(random_state=seq), X, y)
    _same(first, second)
    assert (seq.entropy, seq.spawn_key, seq.n_children_spawned) == before


@pytest.mark.filterwarnings("ignore:.*features have a positive weight:UserWarning")  # tiny tables
@pytest.mark.parametrize(("name", "make"), _seeded_estimators())
def test_generator_is_consumed(name, make):
    X, y = _data(regression=name == "bootstrap-ranking")
    for rng in (np.random.default_rng(5), np.random.RandomState(5)):
        state = str(rng.bit_generator.state if hasattr(rng, "bit_generator") else rng.get_state())
        make(random_state=rng).fit(X, y)
        after = str(rng.bit_generator.state if hasattr(rng, "bit_generator") else rng.get_state())
        assert after != state, "the instance was not drawn from"


def test_replicate_seeds_copy_rule():
    seq = np.random.SeedSequence(2)
    a = [s.generate_state(2).tolist() for s in resampling.replicate_seeds(seq, 4)]
    b = [s.generate_state(2).tolist() for s in resampling.replicate_seeds(seq, 4)]
    assert a == b and seq.n_children_spawned == 0
    # the children are those the caller's object would have spawned itself
    own = [s.generate_state(2).tolist() for s in copy_seed_sequence(seq).spawn(4)]
    assert a == own
    # an int is the SeedSequence of that int
    c = [s.generate_state(2).tolist() for s in resampling.replicate_seeds(2, 4)]
    assert c == a
    # a partly spawned sequence continues where it stands, still unmutated
    seq.spawn(1)
    d = [s.generate_state(2).tolist() for s in resampling.replicate_seeds(seq, 3)]
    assert d == a[1:] and seq.n_children_spawned == 1


def test_seed_sequence_rejects_junk():
    with pytest.raises(TypeError, match="random_state"):
        seed_sequence("7")
    with pytest.raises(TypeError, match="random_state"):
        seed_sequence(True)
