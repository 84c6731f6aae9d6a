"""Yuan's simulation function and its reproductions (quick mode)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fsel.datasets import make_yuan_regression
from fsel.experiments import repro_yuan, yuan_protocol
from fsel.experiments.repro_yuan import REPRODUCTIONS
from fsel.experiments.yuan_protocol import PAPER_TABLE1, PAPER_TABLE2, simulate
from fsel.kernels.ranking_indices import INDEX_NAMES, ranking_scores


def test_paper_tables_parsed():
    assert PAPER_TABLE1[1]["In"] == (0.44, 0.05)
    assert PAPER_TABLE1[6]["mi"] == (0.15, 0.03)
    assert PAPER_TABLE1[4]["K2"] == (0.58, 0.05)
    assert PAPER_TABLE2[1]["K1"] == 1.0 and PAPER_TABLE2[6]["chi2"] == 0.37
    assert all(set(PAPER_TABLE1[m]) == set(INDEX_NAMES) for m in range(1, 7))


def test_simulation_matches_a_direct_loop():
    sim = simulate(
        models=[2], indices=["In", "K3", "mi"], n_datasets=4, n_repeats=2, random_state=5
    )
    assert sim.detected.shape == (1, 3, 2, 4)
    root = yuan_protocol.replicate_seeds(5, 6)[1]
    for i, seed in enumerate(root.spawn(8)):
        data_seed, _ = seed.spawn(2)
        X, y, _ = make_yuan_regression(2, n_samples=200, random_state=data_seed)
        s = ranking_scores(X, y, ["In", "K3", "mi"], n_slices=10, n_bins_x=6, n_bins_y=6)
        top = {
            "In": np.argsort(s["In"], kind="stable")[:2],
            "K3": np.argsort(-s["K3"], kind="stable")[:2],
            "mi": np.argsort(-s["mi"], kind="stable")[:2],
        }
        for b, name in enumerate(["In", "K3", "mi"]):
            assert sim.detected[0, b, i // 4, i % 4] == (sorted(top[name]) == [0, 1])


def test_simulation_independent_of_n_jobs_and_model_subset():
    kw = {"indices": ["In3", "K1", "chi2"], "n_datasets": 5, "n_repeats": 2, "random_state": 1}
    a = simulate(models=[3, 6], **kw)
    b = simulate(models=[6], n_jobs=2, **kw)
    np.testing.assert_array_equal(a.detected[1], b.detected[0])


def test_bootstrap_run_uses_the_plain_runs_first_data_sets():
    kw = {"models": [5], "indices": ["K3", "chi2"], "n_datasets": 6, "random_state": 2}
    plain = simulate(n_repeats=3, **kw)
    boot = simulate(n_repeats=1, n_bootstraps=4, **kw)
    np.testing.assert_array_equal(boot.detected_plain[:, :, 0], plain.detected[:, :, 0])
    assert boot.rates().shape == (1, 2, 1)
    p = boot.mean()
    np.testing.assert_allclose(boot.std(), np.sqrt(p * (1 - p) / 6))
    rows = boot.rows()
    assert len(rows) == 2 and "plain_same_data" in rows[0]


def test_plain_simulation_rates_are_sensible():
    sim = simulate(models=[1, 5], indices=["In3", "K3", "chi2"], n_datasets=40, n_repeats=1)
    mean = sim.mean()
    assert mean[0, 1] > 0.85  # model 1, K3 (paper .98)
    assert mean[1, 2] > 0.85  # model 5, chi2 (paper .98)
    assert mean[1, 0] > 0.8  # model 5, In3 (paper .94)
    with pytest.raises(ValueError, match="unknown index"):
        simulate(indices=["K4"])
    with pytest.raises(ValueError, match=r"models are 1\.\.6"):
        simulate(models=[7])


def test_chance_level():
    assert repro_yuan._CHANCE[1] == pytest.approx(1 / math.comb(10, 4))
    assert repro_yuan._CHANCE[6] == pytest.approx(1 / 45)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REPRODUCTIONS))
def test_quick_reproductions_write_their_outputs(name, tmp_path):
    rep = REPRODUCTIONS[name](tmp_path, quick=True, seed=0)
    assert rep.name == name and rep.quick
    assert rep.command.startswith(f"fsel reproduce {name}") and "--quick" in rep.command
    for path in rep.tables.values():
        assert path.exists() and path.stat().st_size > 0
    for path in rep.figures:
        assert path.exists() and path.suffix == ".png"
    assert "|" in rep.ours and rep.agreement and rep.paper


@pytest.mark.slow
def test_ks_and_table_rates_near_the_papers_table_iv1():
    """Statistical: the rank indices reproduce Yuan's Table IV.1 within a few points."""
    names = ["K1", "K2", "K3", "chi2", "mi"]
    sim = simulate(indices=names, n_datasets=100, n_repeats=5, random_state=11)
    paper = np.array([[PAPER_TABLE1[m][nm][0] for nm in names] for m in range(1, 7)])
    gap = np.abs(sim.mean() - paper)
    assert gap[:, :3].mean() < 0.06 and gap[:, 3:].mean() < 0.08
    assert gap.max() < 0.2


def test_difference_index_cannot_see_x2_when_its_conditional_mean_is_flat():
    """Why our In-family rates on models 3, 4, 6 sit far below the paper's: E[In] of x2
    equals that of a noise feature there (E[y | x2] is constant)."""
    sets = [make_yuan_regression(6, random_state=s) for s in range(200)]
    X = np.stack([s[0] for s in sets])
    y = np.stack([s[1] for s in sets])
    from fsel.kernels.ranking_indices import ranking_scores_batch

    s = ranking_scores_batch(X, y, "In")["In"]
    noise = s[:, 2:].mean()
    se = s[:, 2:].std() / np.sqrt(200)
    assert abs(s[:, 0].mean() - noise) < 5 * se and abs(s[:, 1].mean() - noise) < 5 * se
