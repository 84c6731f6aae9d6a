"""Every ``fsel reproduce`` target runs in --quick mode; registry, CLI, cache, reports.

A whole reproduction, even a quick one, takes seconds to minutes: those tests are
marked ``slow`` (``pytest -m slow``), except one cheap smoke run (``SMOKE``, synthetic
data, a few seconds) that keeps the default suite running a reproduction end to end.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import joblib
import numpy as np
import pytest

from fsel.datasets.loaders import DatasetNotFoundError
from fsel.experiments import registry as R
from fsel.experiments.cache import ResultCache
from fsel.experiments.report import Reproduction

REGISTRY = R.discover()
SHARED_DATASETS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets"
NAMES = REGISTRY.names()
BROWN = [
    "brown-fig3",
    "brown-fig5",
    "brown-fig6",
    "brown-fig7",
    "brown-fig9",
    "brown-nips-arcene",
    "brown-table4",
]
#: the targets of the modules owned here (every unit of work cached, every output
#: registered); repro_yang_hu is checked only for running.
OWNED = [n for n in NAMES if n.startswith(("brown-", "ditzler-", "dongkothari-", "yuan-"))]
#: the one reproduction the default suite runs (synthetic data, a few seconds)
SMOKE = "dongkothari-group1"


def _csv_rows(path: Path) -> list[list[str]]:
    with Path(path).open(newline="") as fh:
        return list(csv.reader(fh))


def _outputs(out: Path) -> dict[str, bytes]:
    """Every CSV and PNG a run wrote, by file name."""
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.suffix in (".csv", ".png")}


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """One cache for the module, so the Brown bootstrap targets share their runs."""
    return tmp_path_factory.mktemp("repro-cache")


def test_registry_discovers_the_brown_targets_and_loads_every_module():
    assert set(BROWN) <= set(NAMES)
    assert REGISTRY.errors == {}, REGISTRY.errors
    for name in NAMES:
        assert callable(REGISTRY.functions[name])
        assert REGISTRY.modules[name].startswith("fsel.experiments.repro_")
    with pytest.raises(ValueError, match="known reproductions"):
        R.get_reproduction("no-such-thing", REGISTRY)


@pytest.mark.parametrize(
    "name", [n if n == SMOKE else pytest.param(n, marks=pytest.mark.slow) for n in NAMES]
)
def test_every_reproduction_runs_quick(name, tmp_path, shared_cache):
    out = tmp_path / name
    try:
        rep = R.run_reproduction(
            name, out, quick=True, seed=0, cache_dir=shared_cache, registry=REGISTRY
        )
    except DatasetNotFoundError as exc:
        # only a data set missing from this machine skips; with ../shared/datasets
        # present, or for any other missing file, a broken fsel fails
        if SHARED_DATASETS.is_dir():
            raise
        pytest.skip(f"missing data: {exc}")
    assert isinstance(rep, Reproduction)
    assert rep.name == name and rep.quick and rep.seed == 0
    assert name in rep.command and "--random-state 0" in rep.command
    for text in (rep.title, rep.paper, rep.ours, rep.agreement):
        assert isinstance(text, str) and text.strip()
    for path in rep.tables.values():
        assert Path(path).exists()
        if Path(path).suffix == ".csv":
            header, *body = _csv_rows(path)
            # a named header, and every row as wide as it with at least one value
            assert header and all(h.strip() for h in header), (path, header)
            for row in body:
                assert len(row) == len(header) and any(c.strip() for c in row), (path, row)
    for path in rep.figures:
        data = Path(path).read_bytes()
        assert data[:4] == b"\x89PNG" or Path(path).suffix == ".html"
    summary = json.loads((out / "reproduction.json").read_text())
    assert summary["name"] == name and summary["agreement"] == rep.agreement
    assert (out / "summary.md").read_text().startswith("## ")
    cache = summary["cache"]
    assert cache["computed_units"] + cache["cached_units"] == (
        rep.cache["computed_units"] + rep.cache["cached_units"]
    )
    if name not in OWNED:
        return
    # every CSV and PNG written is registered (so "wrote:" and the HTML show it)
    registered = {Path(p).resolve() for p in [*rep.tables.values(), *rep.figures]}
    written = {p.resolve() for p in out.iterdir() if p.suffix in (".csv", ".png")}
    assert written <= registered, written - registered
    # a second run into the same folder computes nothing: every unit comes from the
    # cache, and the results are the same
    first = _outputs(out)
    n_units = cache["computed_units"] + cache["cached_units"]
    assert n_units > 0

    def no_store(*a, **k):
        raise AssertionError("a finished unit of work was computed again")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ResultCache, "set", no_store)
        again = R.run_reproduction(
            name, out, quick=True, seed=0, cache_dir=shared_cache, registry=REGISTRY
        )
    # (units needed only to compute others, e.g. Brown's information weights, are not
    # even loaded once those others are cached)
    assert again.cache["computed_units"] == 0 and 0 < again.cache["cached_units"] <= n_units
    assert again.ours == rep.ours and again.agreement == rep.agreement
    assert {k: v for k, v in _outputs(out).items() if k.endswith(".csv")} == {
        k: v for k, v in first.items() if k.endswith(".csv")
    }


# ------------------------------------------------------------------ CLI
def test_cli_list_and_errors(capsys):
    from fsel.cli.reproduce import run

    ns = argparse.Namespace(list=True, names=[])
    assert run(ns) == 0
    listed = capsys.readouterr().out
    for name in BROWN:
        assert name in listed
    assert run(argparse.Namespace(list=False, names=["nope"])) == 2
    assert "unknown reproduction" in capsys.readouterr().err
    assert run(argparse.Namespace(list=False, names=[])) == 2


@pytest.mark.slow
def test_cli_main_runs_one_with_html(tmp_path, capsys, shared_datasets):
    from fsel.cli.main import main

    out = tmp_path / "out"
    rc = main(
        [
            "reproduce",
            "brown-fig7",
            "--quick",
            "--random-state",
            "3",
            "--output",
            str(out),
            "--html",
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "agreement:" in text and "brown-fig7" in text
    page = (out / "brown-fig7" / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "data:image/png;base64," in page
    assert (out / "brown-fig7" / "fig7_loo.csv").exists() and (out / ".cache").is_dir()
    wrote = next(line for line in text.splitlines() if line.startswith("wrote:"))
    assert str(out / "brown-fig7" / "report.html") in wrote
    assert str(out / "brown-fig7" / "reproduction.json") in wrote


@pytest.mark.slow
def test_cli_targets_run_one_at_a_time_keep_their_own_summaries(tmp_path, capsys):
    """Two targets run one after the other into the same --output: each keeps its
    summary.md, reproduction.json and report.html, in DIR/NAME."""
    from fsel.cli.main import main

    out = tmp_path / "out"
    for name in ("dongkothari-group1", "yuan-table1"):
        assert main(["reproduce", name, "--quick", "--output", str(out), "--html"]) == 0
    text = capsys.readouterr().out
    for name in ("dongkothari-group1", "yuan-table1"):
        folder = out / name
        assert json.loads((folder / "reproduction.json").read_text())["name"] == name
        assert f"`{name}`" in (folder / "summary.md").read_text()
        assert f"fsel reproduce {name}" in (folder / "report.html").read_text()
        assert f"wrote:     {folder}" in text
    assert not (out / "summary.md").exists() and not (out / "reproduction.json").exists()
    # both use the one cache of the output root
    assert (out / ".cache").is_dir() and not (out / "yuan-table1" / ".cache").exists()


def test_cli_help_documents_the_layout(capsys):
    from fsel.cli.main import main

    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "DIR/NAME" in text and "summary.md" in text and "report.html" in text
    assert "DIR/.cache" in text


@pytest.mark.slow
def test_yuan_rerun_computes_nothing_and_no_cache_recomputes(tmp_path, monkeypatch, capsys):
    """An interrupted or repeated run resumes from the per-block cache; --no-cache
    bypasses it."""
    from fsel.cli.main import main
    from fsel.experiments import yuan_protocol

    calls = []
    real = yuan_protocol._plain_task

    def counting(*a, **k):
        calls.append(a[0])
        return real(*a, **k)

    monkeypatch.setattr(yuan_protocol, "_plain_task", counting)
    out = tmp_path / "out"
    table = out / "yuan-table1" / "table_iv1_detection.csv"
    assert main(["reproduce", "yuan-table1", "--quick", "--output", str(out)]) == 0
    first = table.read_text()
    n_blocks = len(calls)
    assert sorted(set(calls)) == [1, 2, 3, 4, 5, 6] and n_blocks >= 6
    n_files = len(list((out / ".cache").glob("*.joblib")))
    assert n_files == n_blocks
    # interrupted run: one block lost; the re-run computes that block only
    victim = sorted((out / ".cache").glob("*.joblib"))[0]
    victim.unlink()
    calls.clear()
    assert main(["reproduce", "yuan-table1", "--quick", "--output", str(out)]) == 0
    assert len(calls) == 1 and table.read_text() == first
    # complete cache: nothing is computed, the table is the same
    calls.clear()
    assert main(["reproduce", "yuan-table1", "--quick", "--output", str(out)]) == 0
    assert calls == [] and table.read_text() == first
    assert len(list((out / ".cache").glob("*.joblib"))) == n_files
    # --no-cache: everything is computed again and nothing is stored
    calls.clear()
    fresh = tmp_path / "fresh"
    assert main(["reproduce", "yuan-table1", "--quick", "--no-cache", "--output", str(fresh)]) == 0
    assert len(calls) == n_blocks and not (fresh / ".cache").exists()
    assert (fresh / "yuan-table1" / "table_iv1_detection.csv").read_text() == first
    capsys.readouterr()


@pytest.mark.slow
def test_rerun_uses_the_cache_after_an_interruption(tmp_path, monkeypatch, shared_datasets):
    from fsel.experiments import protocols

    out = tmp_path / "fig7"
    first = R.run_reproduction("brown-fig7", out, quick=True, registry=REGISTRY)
    table = (out / "fig7_loo.csv").read_text()

    def boom(*a, **k):
        raise AssertionError("finished work was recomputed")

    # every unit of work is cached: a re-run needs no leave-one-out computation at all
    monkeypatch.setattr(protocols, "loo_knn_mistakes", boom)
    second = R.run_reproduction("brown-fig7", out, quick=True, registry=REGISTRY)
    assert second.ours == first.ours and (out / "fig7_loo.csv").read_text() == table
    # without a cache the work is done again
    with pytest.raises(AssertionError, match="recomputed"):
        R.run_reproduction(
            "brown-fig7", tmp_path / "x", quick=True, cache_dir=None, registry=REGISTRY
        )


@pytest.mark.slow
def test_results_do_not_depend_on_jobs(tmp_path, shared_datasets):
    a = R.run_reproduction(
        "brown-fig6", tmp_path / "a", quick=True, cache_dir=None, registry=REGISTRY
    )
    with joblib.parallel_config(backend="threading"):
        b = R.run_reproduction(
            "brown-fig6", tmp_path / "b", quick=True, cache_dir=None, registry=REGISTRY, n_jobs=2
        )
    assert a.ours == b.ours
    assert (tmp_path / "a" / "fig6_ranks.csv").read_text() == (
        tmp_path / "b" / "fig6_ranks.csv"
    ).read_text()


# ------------------------------------------------------------------ reports
def _fake(tmp_path: Path) -> Reproduction:
    from fsel.utils.figures import new_figure, save_figure

    fig, ax = new_figure()
    ax.plot([0, 1], [0, 1])
    png = save_figure(fig, tmp_path / "fig.png", bbox_inches=None)
    table = tmp_path / "t.csv"
    table.write_text("a,b\n1,2\n")
    return Reproduction(
        name="demo",
        title="Demo & <test>",
        command="fsel reproduce demo --random-state 0",
        seed=0,
        paper="Paper says **1**.",
        ours="| x | y |\n|---|---|\n| 1 | 2 |",
        agreement="Agrees.",
        tables={"t": table},
        figures=[png],
    )


def test_html_report_is_self_contained(tmp_path):
    from fsel.experiments.html import write_html
    from fsel.utils.html import markdown_to_html

    rep = _fake(tmp_path)
    page = write_html([rep, rep], tmp_path / "r.html").read_text()
    assert page.count("data:image/png;base64,") == 2
    assert "Demo &amp; &lt;test&gt;" in page and "<b>1</b>" in page
    assert "<td>1</td><td>2</td>" in page
    assert 'src="fig.png"' not in page  # nothing links to a file
    md = markdown_to_html("* one\n* two\n\nplain `code`")
    assert md == "<ul><li>one</li><li>two</li></ul>\n<p>plain <code>code</code></p>"


def test_summary_roundtrip(tmp_path):
    rep = _fake(tmp_path)
    R.write_summary(rep, tmp_path, seconds=1.5)
    back = R.load_reproduction(tmp_path / "reproduction.json")
    assert back.name == rep.name and back.ours == rep.ours
    assert [Path(f).resolve() for f in back.figures] == [Path(f).resolve() for f in rep.figures]
    assert json.loads((tmp_path / "reproduction.json").read_text())["figures"] == ["fig.png"]


def test_make_docs_builds_the_page(tmp_path, monkeypatch):
    from fsel.experiments import make_docs

    outputs = tmp_path / "out"
    rep = _fake(tmp_path)
    rep.name = "brown-fig7"
    # a cache-warm run: 2 s wall, but its 40 cached units took 330 s to compute
    stats = {"computed_units": 0, "cached_units": 40, "computed_seconds": 0.0}
    R.write_summary(
        rep, outputs / "brown-fig7", seconds=2.0, cache_stats={**stats, "cached_seconds": 330.0}
    )
    (outputs / "brown-fig7" / "fig.png").write_bytes(Path(rep.figures[0]).read_bytes())
    page_path = tmp_path / "docs" / "reproductions.md"
    assert make_docs.main(["--outputs", str(outputs), "--out", str(page_path)]) == 0
    page = page_path.read_text()
    assert page.startswith("# Paper reproductions")
    assert "**Paper.** Paper says **1**." in page and "**Agreement.** Agrees." in page
    assert "![fig](reproductions/brown-fig7/fig.png)" in page
    assert (tmp_path / "docs" / "reproductions" / "brown-fig7" / "fig.png").exists()
    assert "Not run yet: `fsel reproduce brown-fig3 --random-state 0`" in page
    row = next(line for line in page.splitlines() if line.startswith("| [brown-fig7]"))
    assert "332 s cold (cached run: 2 s, 40 of 40 units cached)" in row


@pytest.mark.slow
def test_run_reproduction_records_the_cold_compute_time(tmp_path):
    out = tmp_path / "g1"
    cold = R.run_reproduction("dongkothari-group1", out, quick=True, registry=REGISTRY)
    assert cold.cache["cached_units"] == 0 and cold.cache["computed_units"] == 4
    warm = R.run_reproduction("dongkothari-group1", out, quick=True, registry=REGISTRY)
    meta = json.loads((out / "reproduction.json").read_text())
    assert meta["cache"]["cached_units"] == 4 and meta["cache"]["computed_units"] == 0
    # the cached units carry the seconds they took on the cold run
    assert meta["compute_seconds"] == pytest.approx(cold.cache["computed_seconds"], abs=0.02)
    assert meta["cold_seconds"] == pytest.approx(
        meta["seconds"] + meta["compute_seconds"], abs=0.02
    )
    assert warm.cold_seconds >= warm.seconds


# ------------------------------------------------------------------ Brown outputs and keys
def test_brown_cache_key_holds_the_evaluation_data():
    """The 3-NN is scored on X_eval (the view), so it is part of the bootstrap key."""
    from fsel.experiments.brown_protocol import _bootstrap_parts, _make_selector

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(30, 5))
    view = codes / 2.0
    y = rng.integers(0, 2, 30)
    sel = _make_selector("JMI", 3)

    def key(c, v, t, **kw):
        kw = {"seed": 0, "n_bootstraps": 5, **kw}
        return ResultCache.key(_bootstrap_parts(sel, "d", c, v, t, **kw))

    base = key(codes, view, y)
    assert key(codes.copy(), view.copy(), y.copy()) == base
    other_view = view.copy()
    other_view[0, 0] += 0.25
    assert key(codes, other_view, y) != base
    assert key(codes, view[:, ::-1], y) != base
    assert key(codes, view, 1 - y) != base
    assert key(codes[:, ::-1], view, y) != base
    assert key(codes, view, y, seed=1) != base


@pytest.mark.slow
def test_brown_fig9_writes_real_tables(tmp_path, shared_datasets, shared_cache):
    rep = R.run_reproduction(
        "brown-fig9", tmp_path, quick=True, cache_dir=shared_cache, registry=REGISTRY
    )
    header, *pairs = _csv_rows(rep.tables["nemenyi_pairs"])
    assert header == ["better", "worse", "confidence", "rank_better", "rank_worse"]
    for better, worse, conf, rank_b, rank_w in pairs:  # no placeholder row
        assert better != worse and better and worse
        assert float(conf) in (0.9, 0.95, 0.99) and float(rank_b) < float(rank_w)
    # the same pairs as the Markdown table of the report
    assert len(pairs) == sum(line.endswith("% |") for line in rep.ours.splitlines())
    fr_header, fr = _csv_rows(rep.tables["friedman"])
    fr = dict(zip(fr_header, fr, strict=True))
    assert 0.0 <= float(fr["pvalue"]) <= 1.0 and int(fr["n_methods"]) == 9
    assert float(fr["cd_90"]) < float(fr["cd_95"]) < float(fr["cd_99"])


def test_brown_nemenyi_csv_is_header_only_without_significant_pairs(tmp_path, monkeypatch):
    """No significant pair: the CSV holds the header and nothing else."""
    from fsel.experiments import brown_protocol, rank_comparison, repro_brown

    names = brown_protocol._QUICK_UCI
    acc = np.tile(np.linspace(0.8, 0.9, len(repro_brown.CRITERIA)), (len(names), 1))
    fake = (names, 5, [], acc, acc, acc, np.zeros((len(names), 5, 9)))
    monkeypatch.setattr(repro_brown, "_accuracy_and_stability", lambda *a: fake)
    monkeypatch.setattr(
        rank_comparison, "nemenyi_significance", lambda r, n: np.zeros((len(r), len(r)))
    )
    rep = repro_brown.fig9_significance(tmp_path, quick=True)
    text = Path(rep.tables["nemenyi_pairs"]).read_text()
    assert text.splitlines() == ["better,worse,confidence,rank_better,rank_worse"]


@pytest.mark.slow
def test_brown_table4_registers_per_dataset(tmp_path, shared_datasets, shared_cache):
    rep = R.run_reproduction(
        "brown-table4", tmp_path, quick=True, cache_dir=shared_cache, registry=REGISTRY
    )
    header, *rows = _csv_rows(rep.tables["per_dataset"])
    assert header[:2] == ["dataset", "criterion"] and len(rows) == 4 * 9
    from fsel.experiments.html import write_html

    page = write_html(rep, tmp_path / "r.html").read_text()
    assert "<code>per_dataset</code>" in page and "<code>table4</code>" in page


# ------------------------------------------------------------------ Brown data preparation
def test_brown_prepare_handles_missing_values_and_bins():
    from fsel.datasets import Dataset
    from fsel.experiments.brown_protocol import _prepare

    X = np.array(
        [
            [0.0, 1.0, 1.0],
            [np.nan, 2.0, 2.0],
            [1.0, np.nan, 3.0],
            [1.0, 3.0, 10.0],
            [0.0, 1.0, 5.0],
            [1.0, 2.0, 7.0],
            [0.0, 3.0, 4.0],
        ]
    )
    X0 = X.copy()
    ds = Dataset(
        "t", X, np.array([0, 1, 0, 1, 0, 1, 0]), categorical=np.array([True, False, False])
    )
    codes, view, y = _prepare(ds)
    np.testing.assert_array_equal(X, X0)  # the caller's data is untouched
    assert codes[:, 0].tolist() == [0, 2, 1, 1, 0, 1, 0]  # missing category -> own code
    assert codes[2, 1] == 1  # missing numeric value -> the median (2.0)
    assert codes[:, 2].max() == 4 and codes[:, 2].min() == 0  # 5 equal-width bins
    assert view.min() == 0.0 and view.max() == 1.0
    assert y.tolist() == [0, 1, 0, 1, 0, 1, 0]


def test_ditzler_uci_npfs_steps_equal_the_npfs_estimator(shared_datasets):
    """The UCI table runs NPFS as its two steps (to report progress per bootstrap);
    that gives NPFS's own relevant features."""
    from fsel.datasets import load
    from fsel.experiments import repro_ditzler as D

    ds = load("wine", shared_datasets)
    X, y = np.asarray(ds.X, dtype=np.float64)[:120], np.asarray(ds.y)[:120]
    ticks = []
    got = D._npfs_relevant(X, y, 10, 25, 3, None, progress=lambda: ticks.append(1))
    want = D._fit_quiet(D._npfs(10, 25, 3, None), X, y).relevant_features_
    assert got.tolist() == want.tolist() and len(ticks) == 25


def test_missing_data_is_a_dataset_not_found_error(tmp_path):
    """Only this error (a missing data set) may skip a reproduction test."""
    from fsel.datasets import load

    with pytest.raises(DatasetNotFoundError, match="no data set 'no-such-set'"):
        load("no-such-set", path=tmp_path.parent)
    with pytest.raises(DatasetNotFoundError, match="does not exist"):
        load("sonar", path=tmp_path / "absent")


# ------------------------------------------------------------------ workers
def test_every_reproduction_takes_n_jobs():
    import inspect

    for name in NAMES:
        params = inspect.signature(REGISTRY.functions[name]).parameters
        assert "n_jobs" in params and params["n_jobs"].default is None, name


@pytest.mark.parametrize("flag", ["--n-jobs", "-j"])
def test_cli_n_jobs_reaches_the_reproduction(flag, monkeypatch, tmp_path, capsys):
    from fsel.cli.main import main

    seen = {}

    def fake(name, folder, **kwargs):
        seen.update(kwargs)
        raise FileNotFoundError("stopped here")

    monkeypatch.setattr(R, "run_reproduction", fake)
    rc = main(["reproduce", "yuan-table1", "--quick", flag, "3", "--output", str(tmp_path)])
    assert rc == 2 and seen["n_jobs"] == 3
    capsys.readouterr()


def test_n_jobs_reaches_the_yuan_simulation(monkeypatch, tmp_path):
    from fsel.experiments import repro_yuan

    class Stop(Exception):
        pass

    def fake(**kwargs):
        raise Stop(kwargs["n_jobs"])

    monkeypatch.setattr(repro_yuan, "simulate", fake)
    with pytest.raises(Stop) as info:
        repro_yuan.yuan_table1(tmp_path, quick=True, n_jobs=2)
    assert info.value.args == (2,)


def test_reproduction_n_jobs_follows_joblib():
    from fsel.experiments.common import reproduction_n_jobs

    assert reproduction_n_jobs(None) == 1 and reproduction_n_jobs(2) == 2
    assert reproduction_n_jobs(-1) == joblib.cpu_count()
    with joblib.parallel_config(n_jobs=3):
        assert reproduction_n_jobs(None) == 3
    with pytest.raises(ValueError, match="n_jobs == 0"):
        reproduction_n_jobs(0)
    with pytest.raises(TypeError, match="n_jobs must be None or an int"):
        reproduction_n_jobs(1.5)
