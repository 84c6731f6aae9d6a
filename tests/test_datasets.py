"""The papers' synthetic generators (SPEC section 8) and the shared-data loader."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from fsel import datasets as D


# ------------------------------------------------------------------ generators
def test_npfs_uniform_rule_and_seed():
    X, y, rel = D.make_npfs_uniform(300, 12, 4, random_state=1)
    X2, y2, _ = D.make_npfs_uniform(300, 12, 4, random_state=1)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert X.shape == (300, 12) and X.min() >= 0 and X.max() <= 10
    assert rel.tolist() == [0, 1, 2, 3]
    for i in range(300):
        assert y[i] == int(sum(X[i, :4]) <= 20)
    assert 0.3 < y.mean() < 0.7  # the threshold is the mean of the sum
    with pytest.raises(ValueError):
        D.make_npfs_uniform(10, 3, 4)


_YUAN_F = {
    1: lambda x: x[0] + x[1] + x[2] + x[3],
    2: lambda x: 0.8 * x[0] + 0.2 * x[1],
    3: lambda x: x[0] * (x[0] + x[1] + 1),
    4: lambda x: x[0] / (0.5 + (x[1] + 1.5) ** 2),
    5: lambda x: x[0] ** 2 + x[1] ** 2,
    6: lambda x: x[0] * x[1],
}


@pytest.mark.parametrize("model", range(1, 7))
def test_yuan_models_have_unit_normal_noise(model):
    X, y, rel = D.make_yuan_regression(model, 4000, 10, random_state=model)
    assert X.shape == (4000, 10) and y.shape == (4000,)
    f = np.array([_YUAN_F[model](row) for row in X])
    e = y - f
    assert abs(e.mean()) < 0.08 and abs(e.std() - 1) < 0.05
    assert abs(X.mean()) < 0.05 and abs(X.std() - 1) < 0.05
    assert rel.tolist() == list(range(4 if model == 1 else 2))


def test_yuan_validates():
    with pytest.raises(ValueError, match="model"):
        D.make_yuan_regression(7)
    with pytest.raises(ValueError):
        D.make_yuan_regression(1, n_features=3)


def test_dong_kothari_group_one():
    X, y, rel = D.make_dong_kothari(4000, random_state=0)
    assert X.shape == (4000, 3) and rel.tolist() == [0]
    assert np.bincount(y).tolist() == [2000, 2000]
    assert abs(X[y == 1, 0].mean() - X[y == 0, 0].mean() - 1.0) < 0.1
    assert abs(X[y == 0, 0].std() - 1) < 0.05
    assert X[:, 1:].min() >= 0 and X[:, 1:].max() <= 1


@pytest.mark.parametrize("problem", [1, 2, 3])
def test_monk_full_domain_against_the_rules(problem):
    X, y, rel = D.make_monk(problem)
    assert X.shape == (432, 6)
    levels = [3, 3, 2, 3, 4, 2]
    for j, m in enumerate(levels):
        assert sorted(set(X[:, j].tolist())) == list(range(1, m + 1))
    assert len({tuple(r) for r in X.tolist()}) == 432
    for row, label in zip(X.tolist(), y.tolist(), strict=True):
        a1, a2, _a3, a4, a5, _a6 = row
        if problem == 1:
            want = a1 == a2 or a5 == 1
        elif problem == 2:
            want = sum(v == 1 for v in row) == 2
        else:
            want = (a5 == 3 and a4 == 1) or (a5 != 4 and a2 != 3)
        assert label == int(want)
    # irrelevant attributes do not change the label
    irrelevant = [j for j in range(6) if j not in rel.tolist()]
    if irrelevant:
        key = {}
        for row, label in zip(X.tolist(), y.tolist(), strict=True):
            k = tuple(row[j] for j in rel.tolist())
            assert key.setdefault(k, label) == label
    with pytest.raises(ValueError):
        D.make_monk(4)


def test_monk1_class_balance():
    _, y, _ = D.make_monk(1)
    assert int(y.sum()) == 216  # half of the domain, as in the UCI monks-1 test set


def test_corral():
    X, y, rel = D.make_corral(4000, random_state=0)
    assert X.shape == (4000, 6) and set(np.unique(X)) <= {0, 1}
    np.testing.assert_array_equal(y, (X[:, 0] & X[:, 1]) | (X[:, 2] & X[:, 3]))
    assert abs(np.mean(X[:, 5] == y) - 0.75) < 0.03
    assert rel.tolist() == [0, 1, 2, 3]


def test_m_of_n():
    X, y, rel = D.make_m_of_n()
    assert X.shape == (1024, 10) and rel.tolist() == list(range(2, 9))
    for row, label in zip(X.tolist(), y.tolist(), strict=True):
        assert label == int(sum(row[2:9]) >= 3)
    assert len({tuple(r) for r in X.tolist()}) == 1024
    with pytest.raises(ValueError):
        D.make_m_of_n(3, 9, 10)


def test_add_probes_appends_noise_and_keeps_input():
    X = np.arange(12.0).reshape(4, 3)
    X0 = X.copy()
    Z = D.add_probes(X, 5, random_state=0)
    assert Z.shape == (4, 8)
    np.testing.assert_array_equal(Z[:, :3], X)
    np.testing.assert_array_equal(X, X0)
    big = D.add_probes(np.zeros((20000, 1)), 2, variance=20.0, random_state=1)
    assert abs(big[:, 1:].var() - 20.0) < 0.6 and abs(big[:, 1:].mean()) < 0.1


def test_noisy_ocr():
    from sklearn.datasets import load_digits

    X, y, rel = D.make_noisy_ocr(random_state=0)
    digits = load_digits()
    assert X.shape == (1797, 256) and rel.size == 64
    imgs = X.reshape(-1, 16, 16)
    np.testing.assert_array_equal(imgs[:, 4:12, 4:12], digits.images.astype(int))
    np.testing.assert_array_equal(y, digits.target)
    noise = np.delete(X, rel, axis=1)
    assert noise.min() == 1 and noise.max() == 16
    np.testing.assert_array_equal(X[:, rel].reshape(-1, 8, 8), digits.images.astype(int))
    # each noise value is (roughly) uniform on 1..16
    counts = np.bincount(noise.ravel(), minlength=17)[1:]
    assert counts.min() > 0.9 * counts.mean()


def test_generators_are_reproducible_with_a_generator():
    rng_a = np.random.default_rng(5)
    rng_b = np.random.default_rng(5)
    a = D.make_corral(50, random_state=rng_a)[0]
    b = D.make_corral(50, random_state=rng_b)[0]
    np.testing.assert_array_equal(a, b)


def test_monk_rows_are_the_full_product():
    X, _, _ = D.make_monk(1)
    full = list(
        itertools.product(
            range(1, 4), range(1, 4), range(1, 3), range(1, 4), range(1, 5), range(1, 3)
        )
    )
    assert [tuple(r) for r in X.tolist()] == full


# ------------------------------------------------------------------ loader
@pytest.mark.datasets
def test_list_and_load_shared_datasets(shared_datasets):
    avail = D.list_datasets(shared_datasets)
    assert avail["wine"] == (178, 13)
    assert avail["colon"] == (62, 2000)
    ds = D.load("wine", path=shared_datasets)
    assert ds.X.shape == (178, 13) and ds.y.shape == (178,)
    assert ds.feature_names is not None and ds.categorical is not None
    assert set(np.unique(ds.y)) == {0, 1, 2}
    arc = D.load("arcene", path=shared_datasets)
    assert arc.extra["X_train"].shape == (100, 10000)
    assert arc.extra["X_valid"].shape == (100, 10000)


@pytest.mark.datasets
def test_load_errors_list_what_exists(shared_datasets, tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match=r"available: .*wine"):
        D.load("sonar", path=shared_datasets)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        D.load("wine", path=tmp_path / "nowhere")
    monkeypatch.setenv("FSEL_DATA", str(shared_datasets))
    assert D.data_dir() is not None
    assert D.load("wine").X.shape == (178, 13)


def test_list_datasets_of_an_empty_folder(tmp_path):
    assert D.list_datasets(tmp_path) == {}
    np.savez(tmp_path / "tiny.npz", X=np.zeros((3, 2)), y=np.array([0, 1, 0]))
    assert D.list_datasets(tmp_path) == {"tiny": (3, 2)}
    ds = D.load("tiny", path=tmp_path)
    assert ds.feature_names is None and ds.extra == {}
