"""The estimator names of the information-theoretic criteria (MIM included), shared by
the tests that run every one of them (one list, not a copy per test module)."""

INFORMATION_CRITERIA = [
    "MIM",
    "MIFS",
    "MRMR",
    "JMI",
    "CMIM",
    "DISR",
    "ICAP",
    "CIFE",
    "CondRed",
    "CMI",
    "BetaGamma",
    "JMIM",
]
