"""The classifiability estimator: :class:`fsel.selectors.classifiability._fit.Classifiability`
with scikit-learn's API in front (:mod:`fsel.selectors._core` says why), and its
documentation."""

from __future__ import annotations

from fsel.selectors._base import BaseSelector
from fsel.selectors.classifiability import _fit

__all__ = ["Classifiability"]


class Classifiability(BaseSelector, _fit.Classifiability):
    r"""Forward selection maximising Dong & Kothari's classifiability.

    Starting from the empty set ``v`` (``L(v) = sum_c prior(c)^2``), each step
    evaluates every unselected feature ``f``, adds ``argmax_f L(v + f)`` (ties: lowest
    index) while

    .. math:: L(v + f) - L(v) > \epsilon,

    and stops otherwise (or at ``n_features_to_select`` features when it is an int).
    ``L`` is defined in :func:`classifiability`: range-normalised Euclidean distance on
    numeric features, 1 per differing symbolic feature, neighbourhood radius
    ``radius_factor`` times the RMS nearest-neighbour distance (recomputed for every
    candidate subset, as the definition requires), ``L = mean_i sum_c p_i(c)^2``.

    Candidates are evaluated incrementally and exactly: the squared distances of the
    selected set are kept (``D2(v + f) = D2(v) + delta_f^2``) with every row sorted,
    so a candidate only visits the pairs close enough in ``v`` to be a nearest
    neighbour or to fall inside the radius; the result equals the from-scratch
    computation bit for bit. Work is done in row blocks under ``memory_budget``, and
    candidates are split over ``n_jobs`` threads.

    Parameters
    ----------
    n_features_to_select : "auto", int, float in (0, 1] or None, default="auto"
        ``"auto"``: the search decides how many features to keep; it stops when the
        score stops improving by more than ``epsilon``. An int (a float: that
        fraction of the features; None: half of them) is an upper bound: the search
        stops there or earlier on ``epsilon``.
    epsilon : float, default=0.0
        Smallest gain in ``L`` that still adds a feature (the paper's ``e``).
    radius_factor : float, default=3.0
        ``d = radius_factor * r`` with ``r`` the RMS nearest-neighbour distance.
    categorical : "auto", bool mask or list of column indices/names, default="auto"
        Symbolic columns (distance 1 when values differ).
        ``"auto"``: the library's one rule
        (:func:`fsel.utils.column_types.column_types`): text, pandas
        ``category``/``string``, polars ``Categorical``/``Utf8`` and boolean columns
        are categorical, numeric ones (integers included) are not; a list or a mask
        overrides it.
        Binary 0/1 columns give the same distances either way.
    n_jobs : int or None, default=None
        Threads over candidates. Results do not depend on it.
    memory_budget : int, default=256 MiB
        Bytes for distance blocks. When ``24 * N**2`` bytes fit in half of it the
        selected-set distances are cached between steps, otherwise rebuilt per block.
    missing : {"partial", "error"}, default="partial"
        Missing values in ``X``: the partial-distance rule of :func:`classifiability`
        (distances over the observed components, rescaled by ``k / c``), or
        ``"error"``. With missing values the search evaluates every pair for every
        candidate (the rescaling factor changes with the subset, so the pruning of
        the complete-data search does not apply): ``O(N^2)`` per candidate, in row
        blocks under ``memory_budget``. Without missing values both rules give the
        same result.
    verbose : int, default=0
        Above 0, a progress bar on stderr (only when it is a terminal), a step per
        feature added.

    Attributes
    ----------
    selection_order_ : ndarray of int
        Selected features in the order they were added.
    selection_scores_ : ndarray of float
        ``L`` after each addition.
    classifiability_empty_ : float
        ``L`` of the empty set, ``sum_c prior(c)^2``.
    candidate_scores_ : ndarray of shape (n_steps, n_features)
        ``L(v + f)`` of every candidate at every evaluated step (NaN for features
        already selected). The last row is the step that stopped the search, when it
        stopped on ``epsilon``.
    scores_ : ndarray of shape (n_features,)
        ``L(v + f)`` at the last step where ``f`` was evaluated: for selected features
        the ``L`` reached when they were added.
    support_, ranking_, n_features_selected_, n_features_in_, feature_names_in_
        As in every fsel selector (``ranking_``: 1 for the selected features, the
        others 2, 3, ... by decreasing ``scores_``, never evaluated ones last).
    symbolic_ : ndarray of bool
        The columns treated as symbolic.

    See Also
    --------
    classifiability : ``L`` of a given subset.

    References
    ----------
    Dong, M. & Kothari, R. (2003). Feature subset selection using a new definition of
    classifiability. Pattern Recognition Letters 24(9-10), 1215-1225.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import Classifiability
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 100)
    >>> X = rng.uniform(size=(200, 5))
    >>> X[:, 3] += 2.0 * y          # feature 3 separates the classes
    >>> sel = Classifiability().fit(X, y)
    >>> int(sel.selection_order_[0])
    3
    >>> float(sel.selection_scores_[0])
    1.0
    """
