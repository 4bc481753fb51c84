"""The numbers of the paper (Zhu & Shoaran, NeurIPS 2021), as printed, for comparison with ours.

Accuracies are percentages; ``None`` where the paper prints no standard deviation. Split counts
("#S") are as printed (``1.1k`` is 1100).
"""

from __future__ import annotations

__all__ = ["C_RANGE", "DATA_SHAPE", "TABLE1", "TABLE2"]

#: Table 1 of the paper: TnT and CART at the split count chosen by cross-validation, mean test
#: accuracy (± std over 5 trials) and that split count. ``{data: {model: (accuracy, std, splits)}}``.
TABLE1 = {
    "mnist": {"TnT": (90.87, 0.31, 600), "CART": (88.59, 0.14, 1100)},
    "connect_4": {"TnT": (78.85, 0.46, 864), "CART": (77.23, 0.01, 931)},
    "letter": {"TnT": (86.62, 0.02, 1200), "CART": (86.26, 0.15, 1300)},
    "optdigits": {"TnT": (86.32, 0.24, 174), "CART": (85.56, 0.46, 193)},
    "pendigits": {"TnT": (92.61, 0.53, 125), "CART": (91.74, 0.13, 166)},
    "usps": {"TnT": (88.76, 1.36, 31), "CART": (87.35, 0.15, 109)},
}

#: Table 2 of the paper: ensembles of 5, 10 and 20 base estimators, mean train and test accuracy
#: (± std over 5 trials). ``{data: {(ensemble, estimators): (total splits, train, train std, test, test std)}}``.
TABLE2 = {
    "mnist": {
        ("TnT-bagging", 5): (4800, 97.46, 0.16, 93.65, 0.24),
        ("Random Forest", 5): (4800, 96.55, 0.36, 92.31, 0.57),
        ("TnT-AdaBoost", 5): (640, 90.26, None, 88.38, None),
        ("AdaBoost", 5): (640, 89.75, None, 88.61, None),
        ("TnT-bagging", 10): (9600, 98.28, 0.06, 94.92, 0.20),
        ("Random Forest", 10): (9600, 97.44, 0.18, 93.64, 0.38),
        ("TnT-AdaBoost", 10): (1400, 95.09, 0.09, 92.36, 0.13),
        ("AdaBoost", 10): (1400, 94.28, None, 91.49, None),
        ("TnT-bagging", 20): (19200, 98.64, 0.06, 95.57, 0.14),
        ("Random Forest", 20): (19200, 97.90, 0.12, 94.36, 0.19),
        ("TnT-AdaBoost", 20): (2900, 98.03, 0.11, 94.49, 0.21),
        ("AdaBoost", 20): (2900, 97.70, None, 94.04, None),
    },
    "connect_4": {
        ("TnT-bagging", 5): (4600, 84.42, 0.19, 80.61, 0.18),
        ("Random Forest", 5): (4600, 83.60, 0.12, 79.21, 0.19),
        ("TnT-AdaBoost", 5): (450, 77.75, 0.16, 77.39, 0.19),
        ("AdaBoost", 5): (450, 77.28, None, 76.74, None),
        ("TnT-bagging", 10): (9200, 85.11, 0.05, 81.44, 0.14),
        ("Random Forest", 10): (9200, 84.21, 0.12, 79.85, 0.20),
        ("TnT-AdaBoost", 10): (940, 80.10, 0.23, 78.94, 0.29),
        ("AdaBoost", 10): (940, 79.69, None, 78.37, None),
        ("TnT-bagging", 20): (18300, 85.66, 0.12, 81.93, 0.13),
        ("Random Forest", 20): (18300, 84.57, 0.08, 80.39, 0.09),
        ("TnT-AdaBoost", 20): (1800, 82.46, 0.41, 80.53, 0.50),
        ("AdaBoost", 20): (1800, 82.77, None, 81.14, None),
    },
}

#: Table B.1 of the paper: the range of C of each data set's curve in Fig. 4 (30 values, log scale).
C_RANGE = {
    "mnist": (1e-4, 5e-2),
    "connect_4": (6e-5, 1e-2),
    "letter": (5e-5, 2e-2),
    "optdigits": (3e-4, 6e-2),
    "pendigits": (5e-4, 1e-1),
    "usps": (8e-4, 3e-2),
}

#: The data sets as Fig. 4 describes them: (train, test, features, classes).
DATA_SHAPE = {
    "mnist": (60000, 10000, 784, 10),
    "connect_4": (45300, 22300, 126, 3),
    "letter": (13400, 6600, 16, 26),
    "optdigits": (3800, 1800, 64, 10),
    "pendigits": (7500, 3500, 16, 10),
    "usps": (7300, 2000, 256, 2),
}
