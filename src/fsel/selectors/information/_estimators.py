"""scikit-learn estimators for the information-theoretic criteria.

References
----------
G. Brown, A. Pocock, M.-J. Zhao and M. Lujan. Conditional likelihood maximisation: a
unifying framework for information theoretic feature selection. JMLR 13:27-66, 2012.
"""

from __future__ import annotations

from fsel.selectors._base import BaseSelector
from fsel.selectors.information import _fit

__all__ = [
    "CIFE",
    "CMI",
    "CMIM",
    "DISR",
    "ICAP",
    "JMI",
    "JMIM",
    "MIFS",
    "MIM",
    "MRMR",
    "BetaGamma",
    "CondRed",
    "InformationSelector",
]

_PARAMS_DOC = """
    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number of features to select; a float in (0, 1] is a fraction of the features;
        None selects half of them (rounded down, at least one), as scikit-learn's
        ``RFE`` does. ``scores_`` and ``ranking_`` still cover every feature.
    discretize : {"uniform", "quantile"} or None, default="quantile"
        How float columns are binned: equal-frequency (the default: the rule that
        recovered the relevant columns best in ``fsel reproduce robust-defaults``, on
        heavy-tailed, outlier-contaminated and ordinary data alike), equal-width (the
        papers' UCI protocol, ``discretize="uniform", n_bins=5``; one extreme value
        squeezes the other rows into one bin), or None to take every column as
        integer codes. Boolean and categorical columns, and integer columns with no
        more distinct values than bins, are taken as codes; an integer column with
        more distinct values than bins (ages, counts) is binned like a float column
        (list it in ``categorical`` to keep each of its values). ``fit`` warns (once,
        naming the columns) when a
        column's bins put more than 95% of its rows in one bin although those rows
        hold many distinct values.
    n_bins : int or "auto", default="auto"
        Bins per numeric column (a column with no more distinct values is kept as
        codes); ``"auto"``: ``max(2, min(64, round(N ** (1/3) / 2)))`` for ``N``
        rows (6 bins for 2,000 rows, 2 for 100, 50 for a million), so the joint table
        of two features and the target keeps rows in every cell as ``N`` grows. Bin
        edges are learned in ``fit`` (``bin_edges_``).
    categorical : "auto", list of column names/indices or bool mask, default="auto"
        Which columns are categorical (taken as codes, never binned). ``"auto"``:
        string, object, pandas ``category``/``string``, polars ``Categorical``/``Utf8``
        and boolean columns are; a list or a mask overrides the rule
        (:func:`fsel.utils.column_types.column_types`). Integer columns are taken as
        codes either way; datetime columns become seconds since the epoch (binned).
    mi_estimator : {"plugin", "miller_madow", "knn"}, default="plugin"
        Entropy estimator (plug-in maximum likelihood, or with the Miller-Madow bias
        correction), or ``"knn"``: the nearest-neighbour estimator
        (:mod:`fsel.kernels.knn_mi`; Kraskov-Stoegbauer-Grassberger, Ross for class
        labels, Gao et al.'s rule for ties), which bins nothing: ``discretize`` and
        ``n_bins`` are ignored, a float target with non-integer values is a
        regression target, missing values need ``missing="available"``, DISR,
        sparse and Dask input are refused.
    n_neighbors : int, default=3
        The nearest-neighbour estimator's ``k`` (scikit-learn's default); used with
        ``mi_estimator="knn"`` only.
    missing : {"level", "available", "error"}, default="level"
        What a missing value (NaN, None, ``pd.NA``, a polars null) in ``X`` means
        (docs/user_guide/missing_sparse.rst):

        * ``"level"``: one more level of its column, "is missing", after binning the
          observed values (the bin edges are learned on them alone). Every term is
          counted on all rows from one joint distribution, so the usual identities
          (chain rule, ...) hold. It assumes missingness may be informative: when it
          is, ``I(Xk;Y)`` sees it; when values are missing completely at random it
          costs a little information, and a column with many holes can gain a small
          spurious relevance (more levels, more plug-in bias).
        * ``"available"``: pairwise deletion. Each term uses the rows where its own
          variables are observed, with its own sample size: ``I(Xk;Y)`` the rows
          where ``Xk`` is; ``I(Xk;Xj)``, ``I(Xk;Xj|Y)``, ``I(XkXj;Y)``,
          ``H(Xk,Xj,Y)`` and ``I(Xk;Y|Xj)`` the rows where ``Xk`` and ``Xj`` both
          are; CMI's ``I(Xk;Y|S)`` the rows where ``Xk`` and all of ``S`` are. It
          assumes values are missing at random and wastes no observed value, but the
          terms do not come from one joint distribution (scores need not satisfy the
          chain rule) and terms on few rows are noisy.
        * ``"error"``: refuse missing values with a ``ValueError``.

        Without missing values the three rules give identical results.
    n_jobs : int or None, default=None
        Threads for the counting pass (effective with the numba back-end).
    verbose : int, default=0
        Above 0, a progress bar on stderr (only when it is a terminal).
    device : {"cpu", "cuda", "auto"}, default="cpu"
        Where the counting passes run: ``"cuda"`` on a GPU through numba's CUDA target
        (``pip install 'fsel[cuda]'``; the same selection and scores as the CPU, a
        ``RuntimeError`` naming what is missing when there is no usable GPU), ``"auto"``
        on the GPU when one is usable, else the CPU (``device_`` says which). With
        ``"cuda"``, ``X`` may be integer codes already on the GPU (an array with
        ``__cuda_array_interface__``, values 0..255 taken as codes). On Dask input each
        worker counts its blocks on its own GPU (``"cuda"``: every worker needs one;
        ``"auto"``: the workers without one use their CPU, and ``device_`` is
        ``"cuda+cpu"`` when only some had one). Sparse ``X`` and ``missing="available"``
        with missing values run on the CPU only.
"""

_ATTRS_DOC = """
    Attributes
    ----------
    selection_order_ : ndarray of int
        Selected feature indices (0-based) in the order picked.
    selection_scores_ : ndarray of float
        The criterion value (bits) of each pick at its step.
    support_ : ndarray of bool
        Mask of the selected features.
    ranking_ : ndarray of int
        scikit-learn's ``RFE`` convention: 1 for every selected feature, the others
        2, 3, ... by decreasing ``scores_`` (ties by column index; for ``CMIM`` see
        ``scores_``).
    scores_ : ndarray of float
        Per feature: the criterion value at the step it was picked; for features
        left unselected, their score at the last step. Exception: ``CMIM`` on an
        in-memory dense table with numba uses Fleuret's lazy search, which stops
        refining a candidate once it can no longer win a step, so an unselected
        feature's value there is an upper bound of its last-step score (the minimum
        over the picks it was compared with); sparse, Dask and GPU fits, and fits
        without numba, give the exact last-step score. The picks and their
        ``selection_scores_`` are the same on every path.
    relevance_ : ndarray of float
        ``I(Xk;Y)`` of every feature, in bits.
    n_levels_ : ndarray of int
        Number of distinct codes of every feature after discretisation; for a column
        with missing values this includes the missing level, which is its last code
        (``n_levels_ - 1``), under both ``"level"`` and ``"available"``. Not set with
        ``mi_estimator="knn"`` (nothing is binned).
    bin_edges_ : list
        Inner bin edges per column (None for columns taken as codes), learned on the
        observed values only; a missing value falls in no bin but in the missing level.
        All None with ``mi_estimator="knn"``.
    y_bin_edges_ : ndarray or None
        Inner bin edges of a continuous target (float values that are not all
        integers), binned like a float feature with ``n_bins`` and ``discretize``
        (a ``UserWarning`` says so); None for class labels, and always None with
        ``mi_estimator="knn"``, which takes such a target as it is (regression).
    device_ : str
        Where the fit ran: ``"cpu"`` or ``"cuda"`` (on Dask input with ``device="auto"``
        also ``"cuda+cpu"``: some workers counted on their GPU, the others on the CPU).
    timings_ : dict
        With ``device_ == "cuda"`` only: ``transfer_s``, the seconds spent moving the
        codes to the GPU, ``count_s``, the seconds of the counting passes,
        ``setup_s`` (validation, codes, relevance) and ``select_s`` (the greedy
        steps); for codes already on the GPU also ``labels_s`` (counting and coding
        ``y``), ``layout_s`` (the codes' range check and copy on the GPU: none for a
        C-order ``uint8`` matrix, which is read in place), ``table_s`` (the table,
        relevance included) and ``relevance_s`` (its counting pass, which also finds
        the numbers of levels).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When fitted on a DataFrame with string column names.
"""


class InformationSelector(BaseSelector, _fit.InformationSelector):
    """Greedy forward selection with a conditional-likelihood criterion (base class).

    Subclasses set ``_criterion``; see :mod:`fsel.selectors.information._criteria`.
    """


def _doc(summary: str, formula: str, extra_params: str = "", example: str = "JMI") -> str:
    return f"""{summary}

    .. math::

        {formula}

    Greedy forward selection (docs/user_guide/information.rst): the first pick maximises
    ``I(Xk;Y)``;
    ties go to the lowest index; a feature is never picked twice.
{_PARAMS_DOC}{extra_params}{_ATTRS_DOC}
    References
    ----------
    Brown, Pocock, Zhao & Lujan. Conditional likelihood maximisation: a unifying
    framework for information theoretic feature selection. JMLR 13, 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from fsel import {example}
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(200, 6))
    >>> y = (X[:, 2] + X[:, 4] > 2).astype(int)
    >>> sel = {example}(n_features_to_select=2).fit(X, y)
    >>> sorted(sel.selection_order_.tolist())
    [2, 4]
    >>> sel.transform(X).shape
    (200, 2)
    """


class MIM(InformationSelector, _fit.MIM):
    __doc__ = _doc(
        "Mutual information maximisation (univariate ranking by relevance).",
        r"J(X_k) = I(X_k;Y)",
        example="MIM",
    )


class JMI(InformationSelector, _fit.JMI):
    __doc__ = _doc(
        "Joint mutual information (Yang & Moody 1999).",
        r"J(X_k) = \sum_{j \in S} I(X_k X_j; Y)",
        example="JMI",
    )


class MRMR(InformationSelector, _fit.MRMR):
    __doc__ = _doc(
        "Minimum redundancy maximum relevance (Peng, Long & Ding 2005).",
        r"J(X_k) = I(X_k;Y) - \frac{1}{|S|}\sum_{j \in S} I(X_k;X_j)",
        example="MRMR",
    )


class CMIM(InformationSelector, _fit.CMIM):
    __doc__ = _doc(
        "Conditional mutual information maximisation (Fleuret 2004), with the "
        "relevance term as in FEAST.",
        r"J(X_k) = \min\left(I(X_k;Y), \min_{j \in S} I(X_k;Y|X_j)\right)",
        example="CMIM",
    )


class ICAP(InformationSelector, _fit.ICAP):
    __doc__ = _doc(
        "Interaction capping (Jakulin 2005).",
        r"J(X_k) = I(X_k;Y) - \sum_{j \in S} \max(0, I(X_k;X_j) - I(X_k;X_j|Y))",
        example="ICAP",
    )


class CIFE(InformationSelector, _fit.CIFE):
    __doc__ = _doc(
        "Conditional infomax feature extraction (Lin & Tang 2006).",
        r"J(X_k) = I(X_k;Y) - \sum_{j} I(X_k;X_j) + \sum_{j} I(X_k;X_j|Y)",
        example="CIFE",
    )


class DISR(InformationSelector, _fit.DISR):
    __doc__ = _doc(
        "Double input symmetrical relevance (Meyer & Bontempi 2006).",
        r"J(X_k) = \sum_{j \in S} \frac{I(X_k X_j;Y)}{H(X_k,X_j,Y)}",
        example="DISR",
    )


class CondRed(InformationSelector, _fit.CondRed):
    __doc__ = _doc(
        "Conditional redundancy (Brown et al. 2012, beta=0, gamma=1).",
        r"J(X_k) = I(X_k;Y) + \sum_{j \in S} I(X_k;X_j|Y)",
        example="CondRed",
    )


class JMIM(InformationSelector, _fit.JMIM):
    __doc__ = _doc(
        "Joint mutual information maximisation (Bennasar, Hicks & Setchi 2015).",
        r"J(X_k) = \min_{j \in S} I(X_k X_j; Y)",
        example="JMIM",
    )


_BETA_DOC = """
    beta : float, default=1.0
        Weight of the redundancy term ``sum_j I(Xk;Xj)``.
"""
_GAMMA_DOC = """
    gamma : float, default=1.0
        Weight of the conditional redundancy term ``sum_j I(Xk;Xj|Y)``.
"""


class MIFS(InformationSelector, _fit.MIFS):
    __doc__ = _doc(
        "Mutual information feature selection (Battiti 1994).",
        r"J(X_k) = I(X_k;Y) - \beta \sum_{j \in S} I(X_k;X_j)",
        _BETA_DOC,
        example="MIFS",
    )


class BetaGamma(InformationSelector, _fit.BetaGamma):
    __doc__ = _doc(
        "Brown et al.'s beta/gamma family: MIFS (gamma=0), CIFE (beta=gamma=1), "
        "CondRed (beta=0, gamma=1) are settings of it.",
        r"J(X_k) = I(X_k;Y) - \beta \sum_j I(X_k;X_j) + \gamma \sum_j I(X_k;X_j|Y)",
        _BETA_DOC + _GAMMA_DOC,
        example="BetaGamma",
    )


class CMI(InformationSelector, _fit.CMI):
    __doc__ = _doc(
        "Conditional mutual information with the joint of all selected features; stops "
        "early when no candidate adds information (best score not above ``tol``), so it "
        'may select fewer than ``n_features_to_select``. ``n_features_to_select="auto"`` '
        "sets no cap: that rule alone decides the count (the default, None, caps it at "
        "half of the features).",
        r"J(X_k) = I(X_k;Y|X_S)",
        """
    tol : float, default=1e-10
        Stop when the best ``I(Xk;Y|S)`` is not above this many bits (a finite
        number; a negative one never stops early: all ``n_features_to_select`` are
        taken).
""",
        example="CMI",
    )
