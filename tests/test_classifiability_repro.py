"""The Dong & Kothari (2003) reproductions run (quick mode) and report honestly."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from fsel.experiments import repro_dong_kothari as R
from fsel.experiments.report import Reproduction


def _read(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_registry_names():
    assert set(R.REPRODUCTIONS) == {
        "dongkothari-group1",
        "dongkothari-group2",
        "dongkothari-group3",
        "dongkothari-group4",
    }


@pytest.mark.slow
def test_group1_quick(tmp_path):
    rep = R.group1_table1(tmp_path, quick=True, seed=0)
    assert isinstance(rep, Reproduction)
    assert rep.name == "dongkothari-group1" and rep.quick
    assert rep.command == "fsel reproduce dongkothari-group1 --random-state 0 --quick"
    rows = _read(rep.tables["table1"])
    assert {int(r["n_attributes"]) for r in rows} == {1, 2, 3}
    for r in rows:
        assert 0.5 <= float(r["L_mean"]) <= 1.0  # two balanced classes: L >= 1/2
        assert float(r["C_mean"]) == pytest.approx(2 * float(r["L_mean"]) - 1)
    trials = _read(rep.tables["trials"])
    assert len(trials) == 2 * 2 * 3
    assert "0.6081" in rep.paper
    assert rep.agreement
    # the same seed gives the same numbers
    again = R.group1_table1(tmp_path / "again", quick=True, seed=0)
    assert _read(again.tables["table1"]) == rows


@pytest.mark.datasets
@pytest.mark.slow
def test_group2_quick(tmp_path, shared_datasets):
    rep = R.group2_tables2_3(tmp_path, quick=True, seed=0, data_path=shared_datasets)
    rows = {r["data_set"]: r for r in _read(rep.tables["group2"])}
    assert set(rows) == {"corral", "monk-1", "pima"}
    # MONK-1: a5, a1, a2 as in the paper's Table 2 (0-based 4, 0, 1)
    assert rows["monk-1"]["subset"] == "4 0 1" == rows["monk-1"]["paper_subset"]
    assert rows["monk-1"]["ID3_subset"].startswith("100.00")
    assert set(rows["corral"]["subset"].split()) >= {"0", "1", "2", "3"}
    for r in rows.values():
        assert float(r["NB_wrapper_cpu_s"]) >= 0
    assert "| pima |" in rep.ours


@pytest.mark.datasets
@pytest.mark.slow
def test_group3_quick(tmp_path, shared_datasets):
    rep = R.group3_tables4_5(tmp_path, quick=True, seed=0, data_path=shared_datasets)
    (row,) = _read(rep.tables["group3"])
    assert row["data_set"] == "sonar -> ionosphere"
    assert int(row["n_features"]) == 34
    assert 1 <= len(row["subset"].split()) <= 34
    assert "Ionosphere" in rep.agreement
    assert "4807" in rep.paper


@pytest.mark.datasets
@pytest.mark.slow
def test_group4_quick(tmp_path, shared_datasets):
    rep = R.group4_table6(tmp_path, quick=True, seed=0, data_path=shared_datasets)
    rows = _read(rep.tables["group4"])
    assert [int(r["radius_factor"]) for r in rows] == [2, 3, 5, 8]
    # plas (0-based 1) is picked first at every radius, as in the paper's Table 6
    assert all(r["subset"].split()[0] == "1" for r in rows)
    assert all(np.isfinite(float(r["L_final"])) for r in rows)
