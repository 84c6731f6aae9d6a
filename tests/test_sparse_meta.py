"""Sparse input through NPFS, fsel.select and the CLI (issue 13)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

import fsel
from fsel.cli.io import CliError, read_data
from fsel.cli.main import main as cli_main
from fsel.meta.resampling import selection_matrix


def _data(n: int = 240, d: int = 60, seed: int = 0):
    """Binary sparse 'terms'; term 7 copies the class on half the rows, term 31 the
    other class on half the rows."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    dense = (rng.random((n, d)) < 0.04).astype(np.int8)
    dense[:, 7] = (y == 1) & (rng.random(n) < 0.6)
    dense[:, 31] = (y == 0) & (rng.random(n) < 0.6)
    return sp.csr_matrix(dense), dense, y


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_npfs_on_sparse_equals_dense_and_keeps_input(fmt):
    X, dense, y = _data()
    X = X.asformat(fmt)
    before = X.toarray().copy()
    a = fsel.NPFS(fsel.JMI(3), n_resamples=15, random_state=0).fit(X, y)
    b = fsel.NPFS(fsel.JMI(3), n_resamples=15, random_state=0).fit(dense, y)
    np.testing.assert_array_equal(a.selection_matrix_, b.selection_matrix_)
    assert {7, 31} <= set(a.relevant_features_.tolist())
    np.testing.assert_array_equal(X.toarray(), before)
    assert X.format == fmt


def test_replicates_receive_sparse_rows():
    X, _, y = _data()
    seen = []

    def selector(Xb, yb):
        seen.append(sp.issparse(Xb) and Xb.format == "csr")
        return [0]

    selection_matrix(selector, X.tocoo(), y, 4, random_state=0)
    assert seen == [True] * 4


def test_select_api_on_sparse():
    X, dense, y = _data()
    a = fsel.select(X, y, method="jmi", n_features_to_select=4)
    b = fsel.select(dense, y, method="jmi", n_features_to_select=4)
    np.testing.assert_array_equal(a.features, b.features)


@pytest.fixture
def sparse_files(tmp_path):
    X, dense, y = _data()
    sp.save_npz(tmp_path / "X.npz", X)
    np.save(tmp_path / "y.npy", y)
    (tmp_path / "y.txt").write_text("\n".join(str(v) for v in y) + "\n")
    (tmp_path / "vocab.txt").write_text("\n".join(f"term{i}" for i in range(X.shape[1])))
    return tmp_path, dense, y


def test_cli_reads_save_npz_with_target_file(sparse_files, capsys):
    tmp, dense, y = sparse_files
    out = tmp / "res.json"
    rc = cli_main(
        [
            "select",
            str(tmp / "X.npz"),
            "--target-file",
            str(tmp / "y.txt"),
            "--feature-names",
            str(tmp / "vocab.txt"),
            "-k",
            "2",
            "-q",
            "-o",
            str(out),
        ]
    )
    assert rc == 0
    res = json.loads(out.read_text())
    assert {r["name"] for r in res["features"]} == {"term7", "term31"}
    ref = fsel.JMI(2).fit(dense, y).selection_order_.tolist()
    assert [r["index"] for r in res["features"]] == ref


def test_read_data_keeps_the_matrix_sparse(sparse_files):
    tmp, dense, y = sparse_files
    data = read_data(str(tmp / "X.npz"), None, target_file=str(tmp / "y.npy"))
    assert sp.issparse(data.X)
    np.testing.assert_array_equal(data.X.toarray(), dense)
    np.testing.assert_array_equal(data.y, y)


def test_cli_sparse_npz_without_labels_is_one_clear_error(sparse_files):
    tmp, _, _ = sparse_files
    with pytest.raises(CliError, match="--target-file"):
        read_data(str(tmp / "X.npz"), None)
    with pytest.raises(CliError, match="labels for 240 rows"):
        (tmp / "short.txt").write_text("0\n1\n")
        read_data(str(tmp / "X.npz"), None, target_file=str(tmp / "short.txt"))
    with pytest.raises(CliError, match="names for 60 feature columns"):
        read_data(
            str(tmp / "X.npz"),
            None,
            target_file=str(tmp / "y.npy"),
            names_file=str(tmp / "short.txt"),
        )


def test_sparse_dataset_layout(tmp_path):
    X, dense, y = _data()
    np.savez(
        tmp_path / "d.npz",
        X_data=X.data,
        X_indices=X.indices,
        X_indptr=X.indptr,
        X_shape=np.array(X.shape),
        y=y,
    )
    data = read_data(str(tmp_path / "d.npz"), None)
    assert sp.issparse(data.X)
    np.testing.assert_array_equal(data.X.toarray(), dense)


def test_dataset_train_layout_dorothea(shared_datasets, capsys):
    data = read_data(str(shared_datasets / "dorothea_train_only.npz"), None)
    assert data.X.shape == (800, 100000)
    assert data.y.shape == (800,)


def test_readme_text_example_selects_topic_terms():
    from sklearn.feature_extraction.text import CountVectorizer

    docs = [
        "the gpu driver crashed after the kernel update",
        "new gpu drivers improve the frame rate",
        "kernel panic when the driver loads",
        "the recipe needs butter sugar and flour",
        "bake the cake with sugar and butter",
        "flour and eggs make the dough",
    ] * 20
    y = np.tile(["tech"] * 3 + ["cooking"] * 3, 20)
    vec = CountVectorizer(stop_words="english")
    X = vec.fit_transform(docs)
    sel = fsel.JMI(n_features_to_select=3).fit(X, y)
    terms = vec.get_feature_names_out()[sel.selection_order_].tolist()
    assert terms == ["butter", "dough", "flour"]  # as the user guide shows
    # butter or flour is in every cooking document and in no tech one
    cooking = {"butter", "flour"}
    assert all(
        bool(cooking & set(d.split())) == (lab == "cooking") for d, lab in zip(docs, y, strict=True)
    )
    assert sp.issparse(sel.transform(X)) and sel.transform(X).shape == (120, 3)


def test_loader_reads_sparse_and_train_layouts(tmp_path, shared_datasets):
    from fsel.datasets import list_datasets, load

    X, dense, y = _data()
    np.savez(
        tmp_path / "terms.npz",
        X_data=X.data,
        X_indices=X.indices,
        X_indptr=X.indptr,
        X_shape=np.array(X.shape),
        y=y,
    )
    ds = load("terms", tmp_path)
    assert sp.issparse(ds.X)
    np.testing.assert_array_equal(ds.X.toarray(), dense)
    assert list_datasets(tmp_path) == {"terms": (240, 60)}
    dor = load("dorothea_train_only", shared_datasets)
    assert dor.X.shape == (800, 100000) and dor.y.shape == (800,)
