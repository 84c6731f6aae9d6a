"""``fsel report`` / ``fsel.report``: the numbers on the page against direct
computations, recovery of known relevant features, resume from the cache, the CLI,
and the page as a person sees it in a headless browser."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

import fsel
from fsel.experiments.cache import track_cache
from fsel.meta.resampling import resample_indices

pytest.importorskip("matplotlib")

RELEVANT = [2, 5]


def _classification(n: int = 160, d: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 2] + X[:, 5] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.fixture(scope="module")
def small_report():
    X, y = _classification()
    X0, y0 = X.copy(), y.copy()
    rep = fsel.report(
        X,
        y,
        methods="mim,k3,relieff",
        n_features_to_select=3,
        n_resamples=20,
        n_folds=3,
        progress=False,
    )
    assert np.array_equal(X, X0) and np.array_equal(y, y0)  # inputs untouched
    return X, y, rep


# ---------------------------------------------------------------- the numbers
def test_selections_match_the_methods_run_directly(small_report):
    X, y, rep = small_report
    for m in ("mim", "k3", "relieff"):
        direct = fsel.select(X, y, method=m, n_features_to_select=3)
        assert rep.selections[m].features.tolist() == direct.features.tolist()
        np.testing.assert_allclose(rep.selections[m].scores, direct.scores)
    # the known relevant features are found by every method
    assert set(RELEVANT) <= set(rep.consensus.tolist())


def test_agreement_matrices_are_kuncheva_and_jaccard_of_the_selected_sets(small_report):
    _, _, rep = small_report
    d, k = rep.summary.n_features, rep.k
    ok = rep.ok_methods
    for i, a in enumerate(ok):
        for j, b in enumerate(ok):
            A = set(rep.selections[a].features.tolist())
            B = set(rep.selections[b].features.tolist())
            r = len(A & B)
            assert rep.kuncheva[i, j] == pytest.approx((r * d - k * k) / (k * (d - k)))
            assert rep.jaccard[i, j] == pytest.approx(r / len(A | B))
    # the rank matrix lists each selected feature at its position in each selection
    feats, R = rep.rank_matrix()
    for j, m in enumerate(ok):
        sel = rep.selections[m].features.tolist()
        for f, row in zip(feats.tolist(), R, strict=True):
            expect = sel.index(f) + 1 if f in sel else None
            assert (np.isnan(row[j]) and expect is None) or row[j] == expect


def test_frequencies_stability_and_npfs_against_a_direct_bootstrap_loop(small_report):
    X, y, rep = small_report
    B, d, alpha = rep.params["n_bootstraps"], rep.summary.n_features, rep.params["alpha"]
    for m in ("mim", "k3"):  # deterministic methods: refit on the same bootstrap rows
        Z = np.zeros((B, d))
        for b, idx in enumerate(resample_indices(X.shape[0], B, random_state=0)):
            Z[b, fsel.select(X[idx], y[idx], method=m, n_features_to_select=3).features] = 1
        p = Z.mean(axis=0)
        np.testing.assert_allclose(rep.frequencies[m], p)
        kbar = p.sum()
        phi = 1 - (B / (B - 1)) * np.mean(p * (1 - p)) / ((kbar / d) * (1 - kbar / d))
        assert rep.stability[m].stability == pytest.approx(phi)
        assert rep.stability[m].lower <= phi <= rep.stability[m].upper
    # NPFS of the first method: binomial quantile threshold, relevant = count > threshold
    counts = np.rint(rep.frequencies["mim"] * B).astype(int)
    zeta = int(binom.ppf(1 - alpha, B, 3 / d))
    assert rep.npfs.threshold == zeta
    assert sorted(rep.npfs.relevant.tolist()) == sorted(np.flatnonzero(counts > zeta).tolist())
    np.testing.assert_allclose(rep.npfs.pvalues, binom.sf(counts - 1, B, 3 / d))
    assert set(RELEVANT) <= set(rep.npfs.relevant.tolist())


def test_curves_against_a_direct_cross_validation(small_report):
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y, rep = small_report
    n, folds, k = X.shape[0], rep.params["n_folds"], rep.k
    acc = np.zeros((folds, k))
    ber = np.zeros((folds, k))
    base = np.zeros(folds)
    for f, train in enumerate(resample_indices(n, folds, resampling="kfold", random_state=0)):
        test = np.setdiff1d(np.arange(n), train)
        order = fsel.select(X[train], y[train], method="k3", n_features_to_select=k).features
        for m in range(1, k + 1):
            model = make_pipeline(StandardScaler(), KNeighborsClassifier(5))
            pred = model.fit(X[np.ix_(train, order[:m])], y[train]).predict(
                X[np.ix_(test, order[:m])]
            )
            acc[f, m - 1] = np.mean(pred == y[test])
            per_class = [np.mean(pred[y[test] == c] != c) for c in np.unique(y[test])]
            ber[f, m - 1] = np.mean(per_class)
        model = make_pipeline(StandardScaler(), KNeighborsClassifier(5))
        base[f] = np.mean(model.fit(X[train], y[train]).predict(X[test]) == y[test])
    cur = rep.curves["k3"]
    assert cur.n_kept.tolist() == list(range(1, k + 1))
    np.testing.assert_allclose(cur.mean, acc.mean(axis=0))
    np.testing.assert_allclose(cur.std, acc.std(axis=0))
    np.testing.assert_allclose(cur.ber_mean, ber.mean(axis=0))
    assert rep.baseline.mean[0] == pytest.approx(base.mean())
    # with the two relevant features kept, the model beats the all-features baseline
    assert cur.mean[1] > rep.baseline.mean[0]


def test_summary_text_and_dict(small_report):
    _, _, rep = small_report
    text = rep.summary_text()
    assert "160 rows × 10 features" in text and "2 classes" in text
    assert "selected by every method" in text and "x2" in text and "x5" in text
    d = json.loads(json.dumps(rep.to_dict()))
    assert d["methods"]["mim"]["features"][0]["name"] in ("x2", "x5")
    assert d["npfs"]["threshold"] == rep.npfs.threshold
    assert d["params"]["k"] == 3 and d["fsel_version"] == fsel.__version__


# ---------------------------------------------------------------- kinds of input
def test_regression_target_gets_ranking_indices_and_r2():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(200, 8))
    y = np.sin(3 * X[:, 1]) + X[:, 6] ** 2 + 0.05 * rng.normal(size=200)
    rep = fsel.report(X, y, n_features_to_select=2, quick=True, progress=False)
    assert rep.summary.task == "regression"
    assert rep.methods == ["k3", "in", "chi2", "mi-index"]
    assert rep.summary.target_range[0] == pytest.approx(y.min())
    assert set(rep.selections["in"].features.tolist()) == {1, 6}
    assert np.isnan(rep.curves["in"].ber).all() and rep.curves["in"].mean[-1] > 0.5
    assert "R²" in rep.html()
    with pytest.raises(ValueError, match="needs class labels"):
        fsel.report(X, y, methods="jmi", quick=True, progress=False)


def test_missing_values_are_counted_and_do_not_break_the_page(tmp_path):
    X, y = _classification(120, 6)
    X[[0, 3, 7], 1] = np.nan
    X[10, 4] = np.nan
    rep = fsel.report(X, y, methods="mim,k3", n_features_to_select=2, quick=True, progress=False)
    assert rep.summary.missing.tolist() == [0, 3, 0, 0, 1, 0]
    assert "4 missing values" in rep.summary_text()
    # each method either ran or is reported with its one-line error
    assert set(rep.selections) | set(rep.errors) == {"mim", "k3"}
    assert all("\n" not in e for e in rep.errors.values())
    page = rep.save(tmp_path).read_text()
    assert "4 in 2 features" in page


def test_dataframe_names_and_categorical_types():
    pd = pytest.importorskip("pandas")
    X, y = _classification(120, 6)
    names = ["age", "dose", "weight", "height", "bmi", "pulse"]
    df = pd.DataFrame(X, columns=names)
    df["site"] = pd.Categorical(np.where(X[:, 0] > 0, "north", "south"))
    rep = fsel.report(df, y, methods="mim", n_features_to_select=2, quick=True, progress=False)
    assert rep.summary.feature_names == [*names, "site"]
    assert rep.summary.feature_types == ["numeric"] * 6 + ["categorical"]
    assert {rep.name(f) for f in rep.selections["mim"].features} == {"weight", "pulse"}


def test_bad_input_gives_one_line_errors():
    X, y = _classification(60, 6)
    for kwargs, msg in [
        ({"methods": "nope"}, "unknown method"),
        ({"n_features_to_select": 7}, "larger than the number of features"),
        ({"alpha": 1.5}, "alpha"),
        ({"n_resamples": 1}, "n_resamples"),
        ({"task": "clustering"}, "task"),
    ]:
        with pytest.raises(ValueError, match=msg):
            fsel.report(X, y, progress=False, **kwargs)
    with pytest.raises(ValueError, match="single class"):
        fsel.report(X, np.zeros(60), progress=False)


def test_fixed_seed_same_report_and_cache_resumes(tmp_path):
    X, y = _classification(100, 6)
    kw = {"n_features_to_select": 2, "quick": True, "progress": False, "cache_dir": tmp_path / "c"}
    with track_cache() as first:
        a = fsel.report(X, y, methods="mim", **kw)
    assert first.computed > 0 and first.cached == 0
    # an interrupted report resumes: the units of mim are reused, relieff is computed
    with track_cache() as second:
        b = fsel.report(X, y, methods="mim,relieff", **kw)
    assert second.cached == first.computed and second.computed > 0
    np.testing.assert_array_equal(a.bootstrap_matrices["mim"], b.bootstrap_matrices["mim"])
    np.testing.assert_array_equal(a.curves["mim"].scores, b.curves["mim"].scores)
    c = fsel.report(X, y, methods="mim,relieff", n_features_to_select=2, quick=True, progress=False)
    for m in ("mim", "relieff"):
        np.testing.assert_array_equal(b.frequencies[m], c.frequencies[m])
        assert b.selections[m].features.tolist() == c.selections[m].features.tolist()
        np.testing.assert_array_equal(b.curves[m].scores, c.curves[m].scores)


# ---------------------------------------------------------------- output and CLI
def test_save_and_repr_html(small_report, tmp_path):
    _, _, rep = small_report
    page = rep.save(tmp_path / "out")
    files = {p.name for p in (tmp_path / "out").iterdir()}
    assert {"report.html", "report.json", "selections.csv", "curves.png", "npfs.png"} <= files
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "http://" not in text and "https://" not in text
    assert text.count("data:image/png;base64,") == len([f for f in files if f.endswith(".png")])
    frag = rep._repr_html_()
    assert frag.startswith('<div class="fsel-report">') and "<html" not in frag
    rows = (tmp_path / "out" / "selections.csv").read_text().splitlines()
    assert rows[0].startswith("method,rank,index,name,score") and len(rows) == 1 + 3 * 3


def test_cli_report_writes_the_page_and_resumes(tmp_path, capsys):
    from fsel.cli.main import main

    X, y = _classification(100, 6)
    csv = tmp_path / "t.csv"
    header = ",".join([f"g{j}" for j in range(6)] + ["label"])
    rows = [",".join(map(str, [*x, t])) for x, t in zip(X.tolist(), y.tolist(), strict=True)]
    csv.write_text(header + "\n" + "\n".join(rows) + "\n")
    out = tmp_path / "rep"
    argv = ["report", str(csv), "--target", "label", "--methods", "mim,k3", "-k", "2"]
    argv += ["--quick", "--output", str(out), "-q"]
    assert main(argv) == 0
    printed = capsys.readouterr()
    assert "selected by every method" in printed.out and "report.html" in printed.err
    page = (out / "report.html").read_text()
    assert "fsel report " in page and "--methods mim,k3 -k 2 --n-resamples 20" in page
    assert "g2" in page and (out / ".cache").is_dir()
    with track_cache() as stats:
        assert main(argv) == 0
    assert stats.computed == 0 and stats.cached > 0
    assert main(["report", str(csv), "--target", "label", "--methods", "nope", "-q"]) == 2
    assert "unknown method" in capsys.readouterr().err


# ---------------------------------------------------------------- in a browser
def _browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install playwright)")
    exe = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(exe).exists():
        pytest.skip("no chromium browser installed (apt-get install chromium)")
    return sync_playwright, exe


def test_page_renders_in_headless_chromium(small_report, tmp_path):
    sync_playwright, exe = _browser()
    _, _, rep = small_report
    page_path = rep.save(tmp_path / "page")
    args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    errors: list[str] = []
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            tempfile.mkdtemp(dir=tmp_path),
            executable_path=exe,
            headless=True,
            args=args,
            viewport={"width": 1100, "height": 900},
        )
        try:
            page = ctx.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
            page.goto(page_path.as_uri())
            page.wait_for_load_state("load")
            images = page.evaluate(
                "Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth])"
            )
            text = page.inner_text("body")
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            ctx.close()
    assert errors == []
    assert len(images) >= 6
    assert all(done and width > 0 for _, done, width in images), images
    for key in (
        "fsel report",
        "selected by every method",
        "The data",
        "Agreement between methods",
        "How stable",
        "How sure: NPFS",
        "Is it worth it",
        "Run time",
        "Reproduce",
        fsel.__version__,
    ):
        assert key in text, key
    assert (tmp_path / "report.png").read_bytes()[:4] == b"\x89PNG"


# ---------------------------------------------------------------- properties and edges
@given(
    st.integers(2, 30).flatmap(
        lambda d: st.tuples(
            st.just(d),
            st.sets(st.integers(0, d - 1)),
            st.sets(st.integers(0, d - 1)),
        )
    )
)
@settings(max_examples=60, deadline=None)
def test_jaccard_index_is_the_set_ratio(args):
    from fsel.meta.stability import jaccard_index

    d, a, b = args
    expect = 1.0 if not (a | b) else len(a & b) / len(a | b)
    assert jaccard_index(sorted(a), sorted(b), d) == pytest.approx(expect)
    assert jaccard_index(sorted(b), sorted(a), d) == jaccard_index(sorted(a), sorted(b), d)


def test_k_equal_to_the_number_of_features_and_string_labels():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 3))
    y = np.where(X[:, 0] > 0, "yes", "no")
    rep = fsel.report(
        X, y, methods="mim,relieff", n_features_to_select=3, quick=True, progress=False
    )
    # every method keeps every feature: NPFS and Kuncheva are undefined, Jaccard is 1
    assert rep.npfs is None and np.isnan(rep.kuncheva).all()
    np.testing.assert_array_equal(rep.jaccard, np.ones((2, 2)))
    assert rep.summary.classes == [("no", int(np.sum(y == "no"))), ("yes", int(np.sum(y == "yes")))]
    page = rep.html()
    assert "NPFS needs fewer selected features than features" in page
    one = fsel.report(X[:, :1], y, methods="mim", quick=True, progress=False)
    assert one.k == 1 and "1 feature," in one.summary_text()


def test_integer_codes_reach_the_selectors_as_codes():
    # integer columns are codes for the selectors, exactly as in fsel.select (not re-binned)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 8, size=(300, 8))
    y = ((X[:, 1] > 3) ^ (X[:, 6] > 5)).astype(int)
    rep = fsel.report(X, y, methods="jmi", n_features_to_select=2, quick=True, progress=False)
    direct = fsel.select(X, y, method="jmi", n_features_to_select=2)
    assert rep.selections["jmi"].features.tolist() == direct.features.tolist()
    assert sorted(direct.features.tolist()) == [1, 6]
    assert rep.summary.feature_types == ["integer"] * 8


def test_progress_bar_on_stderr_and_jobs_do_not_change_the_result(capsys):
    X, y = _classification(80, 6)
    a = fsel.report(X, y, methods="mim", n_features_to_select=2, quick=True, progress=True)
    err = capsys.readouterr().err
    assert "fsel report" in err and "|" in err
    from joblib import parallel_config

    with parallel_config(backend="threading"):
        b = fsel.report(
            X, y, methods="mim", n_features_to_select=2, quick=True, progress=False, n_jobs=2
        )
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(a.bootstrap_matrices["mim"], b.bootstrap_matrices["mim"])


# Glass's Ba and Fe columns are zero-inflated: 3 "auto" quantile bins on 214 rows put
# their zeros and their positive values in one bin, and fit rightly warns
@pytest.mark.filterwarnings("ignore:.*put more than 95% of their rows:UserWarning")
def test_cli_report_shows_the_class_names_of_a_shared_data_set(tmp_path, shared_datasets):
    from fsel.cli.main import main

    out = tmp_path / "glass"
    argv = ["report", str(shared_datasets / "glass.npz"), "--methods", "mim", "-k", "3"]
    assert main([*argv, "--quick", "--output", str(out), "-q"]) == 0
    data = json.loads((out / "report.json").read_text())["data"]
    z = np.load(shared_datasets / "glass.npz")
    expect = {str(z["class_names"][c]): int(np.sum(z["y"] == c)) for c in np.unique(z["y"])}
    assert data["classes"] == expect
    assert "headlamps" in (out / "report.html").read_text()
