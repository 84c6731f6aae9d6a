"""Defects an audit of the meta-methods and the report found: each test fails without
its fix."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import fsel
from fsel.meta._knockoff_construction import knockoff_evalues
from fsel.meta.npfs import NPFSPowerWarning, npfs_permutation_test


@pytest.mark.filterwarnings("ignore:KnockoffFilter. no feature passed:UserWarning")  # e-BH: none
def test_knockoff_evalues_are_finite_whatever_the_offset():
    # e_j = p 1{W_j >= T} / (1 + #{W_k <= -T}): no negative W beyond T divides by 1
    assert knockoff_evalues([3.0, 2.0, 1.0], 1.0).tolist() == [3.0, 3.0, 3.0]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 20))
    y = (X[:, :6] @ np.ones(6) + 0.5 * rng.normal(size=300) > 0).astype(int)
    kf = fsel.KnockoffFilter(fsel.MIM(10), fdr=0.2, offset=0, n_draws=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no 0/0 or p/0
        kf.fit(X, y)
    assert np.isfinite(kf.evalues_).all()


@pytest.mark.parametrize("given", ["array", "callable"])
def test_knockoffs_with_missing_values_are_refused(given):
    # a NaN knockoff column standardises to NaN, scores 0: every W >= 0, all "found"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 8))
    y = rng.integers(0, 2, 200)
    Xk = rng.normal(size=X.shape)
    Xk[0] = np.nan
    ko = Xk if given == "array" else (lambda X_, rng_: Xk)
    with pytest.raises(ValueError, match="NaN or inf values; knockoffs need complete data") as e:
        fsel.KnockoffFilter(fsel.MIM(4), fdr=0.1, knockoffs=ko, random_state=0).fit(X, y)
    assert "\n" not in str(e.value)


def test_permutation_null_corrections_decide_on_the_p_values():
    # feature 0 beats every pooled null count: p = 1 / (1 + 20 x 10); Bonferroni's
    # level 0.01 / 10 is below it, so it must not pass (BH at 0.01 / 10 neither)
    M = np.zeros((30, 10), dtype=bool)
    M[:, 0] = True
    M[:, 1] = np.arange(30) % 3 == 0
    null = np.random.default_rng(0).integers(0, 12, (20, 10))
    plain = npfs_permutation_test(M, null, alpha=0.01)
    assert plain.relevant.tolist() == [0] and plain.pvalues[0] == pytest.approx(1 / 201)
    for corr in ("bonferroni", "bh"):
        r = npfs_permutation_test(M, null, alpha=0.01, correction=corr)
        assert r.relevant.tolist() == [] and r.alpha_effective == pytest.approx(0.001)
        assert (r.support == (r.counts > r.threshold)).all()
    loose = npfs_permutation_test(M, null, alpha=0.5, correction="bonferroni")
    assert loose.support.tolist() == (loose.pvalues <= 0.05).tolist()
    assert (loose.support == (loose.counts > loose.threshold)).all()


def test_npfs_warns_when_the_permutations_cannot_reach_the_level():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 10))
    y = (X[:, 0] > 0).astype(int)
    npfs = fsel.NPFS(fsel.MIM(2), n_resamples=10, null="permutation", n_permutations=5)
    with pytest.warns(NPFSPowerWarning, match="use n_permutations >= 10"):
        npfs.set_params(correction="bonferroni", random_state=0).fit(X, y)


def test_bh_power_warning_only_where_bh_cannot_reject():
    # at n = 3 a feature picked every time has p = 0.2 ** 3 = 0.008 <= 0.05 x 2 / 10,
    # so BH can reject (it does for a selector that always picks 0 and 1): no
    # warning, even when this run's picks (at random) reject nothing; at n = 2 it can't
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 10))
    y = rng.integers(0, 2, 60)

    def first_two(X_, y_):
        return np.array([0, 1])

    def any_two(X_, y_):
        seed = int(abs(X_[:, 0].sum()) * 1e6) % 2**32
        return np.random.default_rng(seed).choice(10, 2, replace=False)

    with warnings.catch_warnings():
        warnings.simplefilter("error", NPFSPowerWarning)
        npfs = fsel.NPFS(first_two, n_resamples=3, alpha=0.05, correction="bh", random_state=0)
        assert npfs.fit(X, y).relevant_features_.tolist() == [0, 1]
        fsel.NPFS(any_two, n_resamples=3, alpha=0.05, correction="bh", random_state=0).fit(X, y)
    with pytest.warns(NPFSPowerWarning, match="use n_resamples >= 3"):
        fsel.NPFS(any_two, n_resamples=2, alpha=0.05, correction="bh", random_state=0).fit(X, y)


def test_report_command_and_json_keep_every_setting():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 6))
    X[:, 2] = rng.integers(0, 3, 150)
    y = (X[:, 0] + X[:, 2] > 1).astype(int)
    kw = dict(methods="jmi,mim", n_features_to_select=2, quick=True, progress=False)
    rep = fsel.report(X, y, fdr=0.2, categorical=[2], alpha=0.0123456789, **kw)
    assert "fdr=0.2" in rep.command and "categorical=[2]" in rep.command
    assert "alpha=0.0123456789" in rep.command
    assert rep.params["fdr"] == 0.2 and rep.params["categorical"] == [2]
    again = eval(rep.command.replace("random_state=", "progress=False, random_state="))
    a, b = rep.to_dict(), again.to_dict()

    def settled(d):  # everything but the timings
        if isinstance(d, dict):
            return {k: settled(v) for k, v in d.items() if k != "seconds"}
        return [settled(v) for v in d] if isinstance(d, list) else d

    assert {"npfs", "knockoffs", "stability_selection"} <= set(a)
    for part in ("npfs", "knockoffs", "stability_selection", "methods", "params"):
        assert settled(a[part]) == settled(b[part]), part


def test_report_json_keeps_small_p_values():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    y = (X[:, 0] > 0).astype(int)
    rep = fsel.report(X, y, methods="mim", n_features_to_select=1, quick=True, progress=False)
    p = np.asarray(rep.npfs.pvalues)
    assert p.min() < 1e-6 and p.min() > 0
    got = rep.to_dict()["npfs"]["pvalues"]
    assert min(got) > 0 and min(got) == pytest.approx(p.min(), rel=1e-5)


def test_cli_report_command_keeps_every_digit(tmp_path):
    from fsel.cli.main import main

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    y = (X[:, 0] > 0).astype(int)
    csv = tmp_path / "t.csv"
    rows = [",".join(map(str, [*x, t])) for x, t in zip(X.tolist(), y.tolist(), strict=True)]
    csv.write_text("a,b,c,d,label\n" + "\n".join(rows) + "\n")
    out = tmp_path / "rep"
    argv = ["report", str(csv), "--target", "label", "--methods", "mim", "-k", "1", "--quick"]
    argv += ["--alpha", "0.0123456789", "--fdr", "0.123456789", "--output", str(out), "-q"]
    assert main(argv) == 0
    command = json.loads((out / "report.json").read_text())["command"]
    assert "--alpha 0.0123456789" in command and "--fdr 0.123456789" in command
