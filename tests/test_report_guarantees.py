"""The feature report's knockoff selection and stability selection beside NPFS."""

from __future__ import annotations

import numpy as np
import pytest

import fsel
from fsel.meta.knockoffs import KnockoffFilter
from fsel.meta.stability_selection import StabilitySelection


def test_report_adds_knockoffs_and_stability_selection():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 16))
    y = (X[:, :10].sum(axis=1) + rng.normal(size=300) > 0).astype(int)
    rep = fsel.report(
        X, y, methods="mim", n_features_to_select=4, quick=True, progress=False, fdr=0.2
    )
    d = rep.to_dict()
    names = [f"x{j}" for j in range(16)]
    kf = KnockoffFilter(fsel.MIM(n_features_to_select=0.25), fdr=0.2, random_state=0).fit(X, y)
    assert d["knockoffs"]["relevant"] == [names[j] for j in kf.relevant_features_]
    ss = StabilitySelection(fsel.MIM(4), n_resamples=10, random_state=0).fit(X, y)
    np.testing.assert_allclose(d["stability_selection"]["frequencies"], ss.selection_frequencies_)
    assert d["stability_selection"]["error_bound"] == pytest.approx(16 / (0.2 * 16))
    page = rep.html()
    assert "How sure, with a guarantee" in page and "Stability selection" in page
    assert (
        "knockoffs"
        not in fsel.report(
            X, y, methods="mim", n_features_to_select=4, quick=True, progress=False, fdr=None
        ).to_dict()
    )


def test_report_skips_the_knockoffs_on_a_wide_table_and_says_why():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 200))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    with pytest.warns(UserWarning, match="knockoff filter skipped: n = 60 rows"):
        rep = fsel.report(
            X, y, methods="mim", n_features_to_select=4, quick=True, progress=False, fdr=0.2
        )
    ko = rep.to_dict()["knockoffs"]
    assert set(ko) == {"skipped"} and "n >= 2p" in ko["skipped"]
    assert "stability_selection" in rep.to_dict()  # runs either way
    assert "Knockoff filter on mim: skipped (n = 60 rows is fewer than 2" in rep.html()


def test_knockoff_skip_reason_bounds():
    from fsel.experiments.report_guarantees import (
        KNOCKOFF_MAX_FEATURES,
        KNOCKOFF_MIN_ROWS_PER_FEATURE,
        knockoff_skip_reason,
    )

    p = KNOCKOFF_MAX_FEATURES
    assert knockoff_skip_reason(KNOCKOFF_MIN_ROWS_PER_FEATURE * p, p) is None
    assert "n >= 2p" in knockoff_skip_reason(KNOCKOFF_MIN_ROWS_PER_FEATURE * p - 1, p)
    assert "O(p^3)" in knockoff_skip_reason(10**6, p + 1)
