"""Every ``fsel reproduce`` target runs in --quick mode; registry, CLI, cache, reports."""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import joblib
import numpy as np
import pytest

from fsel.experiments import registry as R
from fsel.experiments.report import Reproduction

REGISTRY = R.discover()
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


@pytest.mark.parametrize("name", NAMES)
def test_every_reproduction_runs_quick(name, tmp_path, shared_cache):
    out = tmp_path / name
    try:
        rep = R.run_reproduction(
            name, out, quick=True, seed=0, cache_dir=shared_cache, registry=REGISTRY
        )
    except FileNotFoundError as exc:  # data set not available on this machine
        pytest.skip(f"missing data: {exc}")
    assert isinstance(rep, Reproduction)
    assert rep.name == name and rep.quick and rep.seed == 0
    assert name in rep.command and "--seed 0" in rep.command
    for text in (rep.title, rep.paper, rep.ours, rep.agreement):
        assert isinstance(text, str) and text.strip()
    for path in rep.tables.values():
        assert Path(path).exists()
        if Path(path).suffix == ".csv":
            with Path(path).open() as fh:
                assert len(list(csv.reader(fh))) >= 2  # header + at least one row
    for path in rep.figures:
        data = Path(path).read_bytes()
        assert data[:4] == b"\x89PNG" or Path(path).suffix == ".html"
    summary = json.loads((out / "reproduction.json").read_text())
    assert summary["name"] == name and summary["agreement"] == rep.agreement
    assert (out / "summary.md").read_text().startswith("## ")


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


def test_cli_main_runs_one_with_html(tmp_path, capsys, shared_datasets):
    from fsel.cli.main import main

    out = tmp_path / "fig7"
    rc = main(["reproduce", "brown-fig7", "--quick", "--seed", "3", "--output", str(out), "--html"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "agreement:" in text and "brown-fig7" in text
    page = (out / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "data:image/png;base64," in page
    assert (out / "fig7_loo.csv").exists() and (out / ".cache").is_dir()


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


def test_results_do_not_depend_on_jobs(tmp_path, monkeypatch, shared_datasets):
    a = R.run_reproduction(
        "brown-fig6", tmp_path / "a", quick=True, cache_dir=None, registry=REGISTRY
    )
    monkeypatch.setenv("FSEL_N_JOBS", "2")
    with joblib.parallel_config(backend="threading"):
        b = R.run_reproduction(
            "brown-fig6", tmp_path / "b", quick=True, cache_dir=None, registry=REGISTRY
        )
    assert a.ours == b.ours
    assert (tmp_path / "a" / "fig6_ranks.csv").read_text() == (
        tmp_path / "b" / "fig6_ranks.csv"
    ).read_text()


# ------------------------------------------------------------------ reports
def _fake(tmp_path: Path) -> Reproduction:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    png = tmp_path / "fig.png"
    fig.savefig(png)
    plt.close(fig)
    table = tmp_path / "t.csv"
    table.write_text("a,b\n1,2\n")
    return Reproduction(
        name="demo",
        title="Demo & <test>",
        command="fsel reproduce demo --seed 0",
        seed=0,
        paper="Paper says **1**.",
        ours="| x | y |\n|---|---|\n| 1 | 2 |",
        agreement="Agrees.",
        tables={"t": table},
        figures=[png],
    )


def test_html_report_is_self_contained(tmp_path):
    from fsel.experiments.html import markdown_to_html, write_html

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
    R.write_summary(rep, outputs / "brown-fig7")
    (outputs / "brown-fig7" / "fig.png").write_bytes(Path(rep.figures[0]).read_bytes())
    page_path = tmp_path / "docs" / "reproductions.md"
    assert make_docs.main(["--outputs", str(outputs), "--out", str(page_path)]) == 0
    page = page_path.read_text()
    assert page.startswith("# Paper reproductions")
    assert "**Paper.** Paper says **1**." in page and "**Agreement.** Agrees." in page
    assert "![fig](reproductions/brown-fig7/fig.png)" in page
    assert (tmp_path / "docs" / "reproductions" / "brown-fig7" / "fig.png").exists()
    assert "Not run yet: `fsel reproduce brown-fig3 --seed 0`" in page


# ------------------------------------------------------------------ Brown data preparation
def test_brown_prepare_handles_missing_values_and_bins():
    from fsel.datasets import Dataset
    from fsel.experiments.repro_brown import _prepare

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
