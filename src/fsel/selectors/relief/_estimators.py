"""The Relief family's estimators: the logic classes of :mod:`fsel.selectors.relief`
with scikit-learn's API in front (:mod:`fsel.selectors._core` says why), and their
documentation."""

from __future__ import annotations

from fsel.selectors._base import BaseSelector
from fsel.selectors.relief import _base, _iterative, _nearest, _parzen
from fsel.selectors.relief._base import _PARAMS_DOC
from fsel.selectors.relief._nearest import _SAMPLE_DOC

__all__ = ["SURF", "BaseRelief", "IRelief", "MRelief", "MultiSURF", "PRelief", "Relief", "ReliefF"]


class BaseRelief(BaseSelector, _base.BaseRelief):
    """Base class of the Relief family (not used directly).

    Subclasses implement ``_mean_margin(Z, y, priors)`` returning ``mbar`` for the
    columns of the prepared matrix ``Z`` (see the module docstring).
    """


class Relief(BaseRelief, _nearest.Relief):
    __doc__ = (
        r"""Relief: margins to the nearest hit and the nearest miss.

    .. math::

        m_n = |x_n - M(x_n)| - |x_n - H(x_n)|, \qquad
        w = \frac{(\bar m)_+}{\|(\bar m)_+\|_2}, \quad \bar m = \frac1N \sum_n m_n

    with ``H`` the nearest sample of the same class and ``M`` the nearest sample of
    any other class (Kira & Rendell 1992; multiclass as in Sun 2007 and Yang & Hu
    2012), in the min-max scaled feature space. Yang & Hu (2012, TPAMI 34(5)) show
    that this greedily minimises a 1-NN estimate of the Bayes error. A sample that is
    the only member of its class has no hit; its hit term is 0.

    Parameters
    ----------"""
        + _PARAMS_DOC
        + _SAMPLE_DOC
        + r"""
    Attributes
    ----------
    feature_importances_ : ndarray of shape (n_features,)
        The weights ``w`` (non-negative, unit L2 norm unless all are 0).
    scores_ : ndarray of shape (n_features,)
        Same as ``feature_importances_``.
    margin_ : ndarray of shape (n_features,)
        The mean margin ``mbar`` before the positive part and normalisation.
    nearest_hits_, nearest_misses_ : ndarray of shape (n_samples,)
        Index of each sample's nearest hit and miss (-1 when none, and for the
        samples that are not references when ``sample_size`` is set).
    selection_order_, ranking_, support_, classes_, n_features_in_

    References
    ----------
    K. Kira and L. A. Rendell, "A practical approach to feature selection", ICML 1992.
    S.-H. Yang and B.-G. Hu, "Discriminative feature selection by nonparametric Bayes
    error minimization", IEEE TKDE 24(8), 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import Relief
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((60, 4)); y = (X[:, 2] > 0.5).astype(int)
    >>> Relief(n_features_to_select=1).fit(X, y).selection_order_.tolist()
    [2]
    """
    )


class MRelief(BaseRelief, _nearest.MRelief):
    __doc__ = (
        r"""M-Relief (MAP-Relief): Relief margins weighted by the class priors.

    .. math::

        m_n = p(y_n)\,|x_n - M(x_n)| - (1 - p(y_n))\,|x_n - H(x_n)|

    with ``p`` the class frequencies, ``H``/``M`` the nearest hit and nearest miss of
    any other class (Yang & Hu 2012, eq. 16). Weighting the miss term by the
    sample's own class prior makes the margin estimate the MAP decision rather than
    the likelihood ratio, so imbalanced and multiclass data are handled with one
    miss per sample.

    Parameters
    ----------"""
        + _PARAMS_DOC
        + _SAMPLE_DOC
        + r"""
    Attributes
    ----------
    feature_importances_, scores_, margin_, nearest_hits_, nearest_misses_,
    selection_order_, ranking_, support_, classes_, n_features_in_
        As for :class:`Relief`.

    References
    ----------
    S.-H. Yang and B.-G. Hu, "Discriminative feature selection by nonparametric Bayes
    error minimization", IEEE TKDE 24(8), 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import MRelief
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((80, 4)); y = (X[:, 1] > 0.8).astype(int)
    >>> MRelief(n_features_to_select=1).fit(X, y).selection_order_.tolist()
    [1]
    """
    )


class ReliefF(BaseRelief, _nearest.ReliefF):
    __doc__ = (
        r"""ReliefF: ``k`` nearest hits and ``k`` nearest misses of every other class.

    .. math::

        m_n = \sum_{c \ne y_n} \frac{p(c)}{1 - p(y_n)} \frac1{k_c}
              \sum_{j \in M^k_c(x_n)} |x_n - x_j|
              \;-\; \frac1{k_h} \sum_{i \in H^k(x_n)} |x_n - x_i|

    (Kononenko 1994), where ``H^k`` are the ``k`` nearest hits, ``M^k_c`` the ``k``
    nearest samples of class ``c``, and ``k_h``, ``k_c`` their actual numbers (fewer
    than ``k`` when a class is small). ``p`` are the class frequencies. Same
    definition as Weka's ReliefF and skrebate's ReliefF (up to the final
    normalisation ``w = (mbar)+/||(mbar)+||``).

    **Regression** (a continuous float target): RReliefF (Robnik-Sikonja & Kononenko
    2003). For every reference ``R_i`` and its ``k`` nearest samples ``I_j`` (any
    target value) with influence
    ``d_ij = exp(-(r_ij/s)^2) / sum_l exp(-(r_il/s)^2)`` (``r_ij`` the rank 1..k of
    ``I_j``, ``s = k/3``) and ``dtau_ij = |s(tau_i) - s(tau_j)|``, the target's
    difference scaled by the features' ``scaling`` rule ``s``: with ``"range"`` the
    paper's ``|tau_i - tau_j| / (max tau - min tau)``; with ``"robust"`` (the
    default) or ``"rank"`` a few extreme targets cannot set the scale:

    .. math::

        N_{dC} = \sum_{ij} d_{ij} \delta\tau_{ij}, \quad
        N_{dA} = \sum_{ij} d_{ij} |x_i - x_j|, \quad
        N_{dC \wedge dA} = \sum_{ij} d_{ij} \delta\tau_{ij} |x_i - x_j|, \quad
        \bar m = \frac{N_{dC \wedge dA}}{N_{dC}} - \frac{N_{dA} - N_{dC \wedge dA}}{m - N_{dC}}

    with ``m`` the number of references; ``margin_`` is that ``mbar`` and ``classes_``
    is not set.

    **Dask** (a row-chunked ``dask.array`` or ``dask.dataframe`` ``X``, with
    ``sample_size`` set): the fit runs on the workers
    (:func:`fsel.kernels.relief_dask.relieff_margin_dask`). Min/max and class counts
    come from one reduction, the references are drawn exactly as in memory, broadcast,
    and each chunk finds its ``k`` nearest rows per class; the candidate lists are
    merged into the exact global neighbours, so ``margin_`` equals the in-memory fit's
    (up to the order of the sums; tied distances follow the in-memory tie rule,
    whatever the rounding of the chunks' distances). The client holds
    ``O(m (D + C k))`` numbers. Not on Dask: missing values (a ValueError), nominal
    features, a continuous target, ``sample_size=None`` (a TypeError).

    Parameters
    ----------
    n_neighbors : int, default=10
        ``k``, neighbours per class."""
        + _PARAMS_DOC
        + _SAMPLE_DOC
        + r"""
    Attributes
    ----------
    feature_importances_, scores_, margin_, selection_order_, ranking_, support_,
    classes_, n_features_in_
        As for :class:`Relief`.

    References
    ----------
    I. Kononenko, "Estimating attributes: analysis and extensions of RELIEF",
    ECML 1994. M. Robnik-Sikonja and I. Kononenko, "Theoretical and empirical
    analysis of ReliefF and RReliefF", Machine Learning 53, 2003.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import ReliefF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((90, 5)); y = np.digitize(X[:, 3], [0.33, 0.66])
    >>> ReliefF(n_features_to_select=1, n_neighbors=5).fit(X, y).selection_order_.tolist()
    [3]
    """
    )


class SURF(BaseRelief, _nearest.SURF):
    __doc__ = (
        r"""SURF: hits and misses within the mean pairwise distance.

    .. math::

        T = \frac{1}{N(N-1)} \sum_{i \ne j} d(x_i, x_j), \qquad
        m_n = \sum_{c \ne y_n} \frac{p(c)}{1 - p(y_n)} \frac1{|M_c|}
              \sum_{j \in M_c} |x_n - x_j| - \frac1{|H|} \sum_{i \in H} |x_n - x_i|

    where ``H`` (``M_c``) are the samples of the same class (of class ``c``) with
    ``d(x_n, x_j) < T`` (Greene et al. 2009). An empty set contributes 0. The class
    weighting is ReliefF's, so binary and multiclass data are treated alike. With
    ``sample_size``, ``T`` is the mean distance of the references to all other samples
    and the margins are averaged over the references.

    Parameters
    ----------"""
        + _PARAMS_DOC
        + _SAMPLE_DOC
        + r"""
    Attributes
    ----------
    threshold_ : float
        The radius ``T``.
    feature_importances_, scores_, margin_, selection_order_, ranking_, support_,
    classes_, n_features_in_
        As for :class:`Relief`.

    References
    ----------
    C. S. Greene, N. M. Penrod, J. Kiralis and J. H. Moore, "Spatially uniform ReliefF
    (SURF) for computationally-efficient filtering of gene-gene interactions",
    BioData Mining 2:5, 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import SURF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((80, 4)); y = (X[:, 0] > 0.5).astype(int)
    >>> SURF(n_features_to_select=1).fit(X, y).selection_order_.tolist()
    [0]
    """
    )


class MultiSURF(BaseRelief, _nearest.MultiSURF):
    __doc__ = (
        r"""MultiSURF: per-sample radius ``T_n = mean_n - std_n / 2``.

    .. math::

        T_n = \bar d_n - \tfrac12 s_n, \quad
        \bar d_n = \frac{1}{N-1}\sum_{j \ne n} d(x_n, x_j), \quad
        s_n^2 = \frac{1}{N-1}\sum_{j \ne n} (d(x_n, x_j) - \bar d_n)^2

    and the margin of :class:`SURF` over the neighbours with ``d(x_n, x_j) < T_n``
    (Urbanowicz et al. 2018; the "near" neighbours only, as in skrebate's
    MultiSURF).

    Parameters
    ----------"""
        + _PARAMS_DOC
        + _SAMPLE_DOC
        + r"""
    Attributes
    ----------
    feature_importances_, scores_, margin_, selection_order_, ranking_, support_,
    classes_, n_features_in_
        As for :class:`Relief`.

    References
    ----------
    R. J. Urbanowicz, R. S. Olson, P. Schmitt, M. Meeker and J. H. Moore,
    "Benchmarking Relief-based feature selection methods for bioinformatics data
    mining", Journal of Biomedical Informatics 85, 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import MultiSURF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((80, 4)); y = (X[:, 1] > 0.5).astype(int)
    >>> MultiSURF(n_features_to_select=1).fit(X, y).selection_order_.tolist()
    [1]
    """
    )


class IRelief(BaseRelief, _iterative.IRelief):
    __doc__ = (
        r"""I-Relief (iterative Relief, Sun 2007).

    Starting from uniform weights ``w = 1/sqrt(D)``, repeat: compute the weighted
    distances ``d_w(x_n, x_i) = sum_d w_d |x_nd - x_id|`` (``metric="euclidean"``:
    ``||w * (x_n - x_i)||_2``), the kernel ``f(d) = exp(-d / sigma)``, the
    probabilities that ``x_i`` is the nearest miss (``alpha``) or nearest hit
    (``beta``) of ``x_n`` and the probability ``gamma_n`` that ``x_n`` is an outlier;
    then

    .. math::

        z = \frac1N \sum_n (1 - \gamma_n) \Big( \sum_{i \in M_n} \alpha_{i,n}
              |x_n - x_i| - \sum_{i \in H_n} \beta_{i,n} |x_n - x_i| \Big), \qquad
        w \leftarrow \frac{(z)_+}{\|(z)_+\|_2}

    until ``||w_new - w||_2 < theta`` or ``max_iter`` iterations (a
    ``ConvergenceWarning`` then). With ``missing="expected"`` a missing component
    contributes its expected difference to ``|x_n - x_i|`` and ``w_d`` times it to the
    weighted distance (the expected squared difference for the Euclidean metric).
    ``M_n`` are all samples of other classes (Sun's multiclass margin). Each
    iteration costs two passes over the ``N x N`` pairs, blocked under
    ``memory_budget``: per row block, the distances and one coefficient array of the
    same size (computed in place, with the samples sorted by class), plus ``O(N D)``
    arrays.

    Parameters
    ----------
    sigma : float, default=1.0
        Kernel width of ``f`` (in units of the weighted distance; features are scaled
        to [0, 1] and ``||w||_2 = 1``).
    theta : float, default=1e-3
        Stopping threshold on ``||w_new - w||_2``.
    max_iter : int, default=100
        Most iterations."""
        + _PARAMS_DOC
        + r"""
    Attributes
    ----------
    n_iter_ : int
        Iterations run.
    converged_ : bool
        Whether the stopping rule was met.
    feature_importances_, scores_, margin_, selection_order_, ranking_, support_,
    classes_, n_features_in_
        As for :class:`Relief` (``margin_`` is the last ``z``).

    Notes
    -----
    The fixed-point iteration need not converge. On pure interaction data, where no
    feature is informative alone, it can settle into a cycle of period two instead:
    on the benchmark's XOR data (``N = 1000``, ``D = 100``, ``y`` the XOR of the signs
    of ``x_0`` and ``x_1``, the other 98 features noise) the larger of ``w_0`` and
    ``w_1`` alternates from one iteration to the next for ``sigma`` = 0.5, 1 and 2,
    and the swing grows: after 100 iterations one of the two carries almost all the
    weight (0.88-0.99) and the other about 0, ranked around 40th among the noise
    features, which of the two depending on whether ``max_iter`` is odd or even. What
    the user sees is a ``ConvergenceWarning``, ``converged_ = False`` and
    ``n_iter_ = max_iter``; the weights are then the last iterate of the cycle, not a
    fixed point. For such data use :class:`ReliefF` or :class:`MultiSURF`, which rank
    both features of the XOR pair first.

    References
    ----------
    Y. Sun, "Iterative RELIEF for feature weighting: algorithms, theories, and
    applications", IEEE TPAMI 29(6):1035-1051, 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import IRelief
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((60, 5)); y = (X[:, 4] > 0.5).astype(int)
    >>> est = IRelief(n_features_to_select=1).fit(X, y)
    >>> est.selection_order_.tolist(), est.converged_
    ([4], True)
    """
    )


class PRelief(BaseRelief, _parzen.PRelief):
    __doc__ = (
        r"""P-Relief (Parzen-Relief): margins from 1-D Parzen windows per feature.

    .. math::

        m_n(d) = \frac{1}{|\Omega^o_n|} \sum_{i \in \Omega^o_n} k_d(x_i, x_n)
               - \frac{1}{|\Omega^e_n|} \sum_{j \in \Omega^e_n} k_d(x_j, x_n), \qquad
        k_d(a, b) = \exp\left(-\frac{(a_d - b_d)^2}{2 \sigma_d^2}\right)

    with ``Omega^o_n`` the other samples of the class of ``x_n`` and ``Omega^e_n`` the
    samples of the other classes (Yang & Hu 2012, eq. 14), on min-max scaled features;
    ``w = (mbar)+ / ||(mbar)+||``. Nominal features use the indicator kernel
    ``[a_d = b_d]``. With ``missing="expected"`` a missing value enters every kernel
    sum as the *expected* kernel value over the observed values of its class (the
    pooled observed values when the class has none): the class-pair sums become
    :func:`expected_pair_sums` of the observed ones, and Silverman's width is taken
    from the observed values.

    Computation: the sums are one-dimensional, so they are evaluated per feature by a
    1-D fast Gauss transform on the sorted distinct values
    (:func:`fsel.kernels.neighbors.gaussian_class_sums`): ``O(N)`` work per feature
    instead of ``N^2`` kernel evaluations, and every per-sample kernel mean is within
    ``1e-12`` of the direct formula (tested against it).

    Parameters
    ----------
    sigma : float, array of shape (n_features,), "silverman" or "paper", default="silverman"
        Kernel width ``sigma_d`` in scaled units (features span [0, 1]).
        ``"paper"`` is Yang & Hu's fixed ``sigma_d = 0.01``; ``"silverman"`` (the
        default) is Silverman's rule of thumb per feature,
        ``0.9 min(sd, IQR/1.34) N^(-1/5)``. The default is data-driven because a fixed
        ``0.01`` ignores the spread and the sample size of each feature: with few
        samples most windows hold only the sample itself and its duplicates. Evidence
        (``fsel reproduce yanghu-roc``, 8 binary UCI sets with 50 probes, 20 runs,
        seed 0): Silverman's width gave a probe-ROC AUC at least as high as
        ``sigma = 0.01`` on 8 of 8 sets (e.g. Pima 0.987 vs 0.900, Parkinsons 0.944 vs
        0.891) and a best 3-NN test error within 0.6 points of it on every set
        (better on 3, equal on 2, worse on 3)."""
        + _PARAMS_DOC
        + r"""
    Attributes
    ----------
    sigma_ : ndarray of shape (n_features,)
        The kernel widths used.
    feature_importances_, scores_, margin_, selection_order_, ranking_, support_,
    classes_, n_features_in_
        As for :class:`Relief`.

    Notes
    -----
    ``metric`` is accepted for a uniform interface but unused: P-Relief needs no
    distances in the full feature space. ``memory_budget`` bounds the class-pair tables:
    when ``C x C`` tables per feature (or ``N x C`` work arrays) would take more than a
    quarter of it, only their diagonals and row sums are computed
    (:func:`fsel.kernels.neighbors.gaussian_hit_total_sums`), in ``O(N)`` memory.

    References
    ----------
    S.-H. Yang and B.-G. Hu, "Discriminative feature selection by nonparametric Bayes
    error minimization", IEEE TKDE 24(8), 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import PRelief
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((80, 4)); y = (X[:, 2] > 0.5).astype(int)
    >>> PRelief(n_features_to_select=1).fit(X, y).selection_order_.tolist()
    [2]
    """
    )
