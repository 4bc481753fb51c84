"""The fitted graphs of fixed fits, hashed: a change to the learner that changes any bit of a fitted
graph (a split, a threshold, a node's statistics) fails here.

The classification digests were recorded at commit b391316, before the classification and
regression learners were unified (issue 34), and the unified learner keeps every one of them. Three
regression digests ("california", "california weighted", "friedman") were recorded again when
regression micro trees moved to the classifier's learner: its sums are added in another order
(histograms, their subtraction), which breaks ties between splits equally good up to rounding
otherwise. The fits on data with missing values (NaN in every other column, their digests
including where missing values go) with every internal refit taken (", every refit") were recorded
at commit 37a81fe, before the two passes over a sorted run were made one, when every refit was the
default; the same fits with today's default (``internal_refit="auto"``, the refit guard on where
values are missing) were recorded when it became the default. The fits with categorical features
("categorical ...", their digests including each split's subset) were recorded at commit eed36ad,
before a categorical feature's histograms were kept for a node's larger child (issue 52). A change that means to alter fitted graphs records new digests and says why in its commit. Every
fit sets ``ccp_alpha=0.0``, the size ``C`` alone: the default before ``ccp_alpha="auto"`` became it
(issue 53), which this setting restores bit for bit.

Run ``python tests/test_learner_fingerprints.py`` to print the current digests.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_digits, make_friedman1

import tnt.learn.growth as growth
from tnt import TnTClassifier, TnTRegressor
from tnt.learn import wave_routing

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "tnt" / "data" / "bundled"


GRAPH_ARRAYS = ("children_left", "children_right", "feature", "threshold", "value", "n_node_samples")


def graph_digest(graph, with_missing: bool = False) -> str:
    """SHA-256 of a fitted graph's arrays: structure, thresholds and node statistics, where missing
    values go when ``with_missing`` (the fits on data with NaN) and the subsets of categorical
    splits when it has them."""
    digest = hashlib.sha256()
    subsets = ("category_left",) if graph.category_left is not None else ()
    for name in GRAPH_ARRAYS + (("missing_go_to_left",) if with_missing else ()) + subsets:
        array = np.ascontiguousarray(getattr(graph, name))
        digest.update(name.encode() + str(array.dtype).encode() + str(array.shape).encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def _weights(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.1, 3.0, n)


def _pendigits():
    with np.load(BUNDLED / "pendigits.npz", allow_pickle=False) as d:
        return d["X_train"], d["y_train"]


def _continuous(n: int = 6000):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(n, 6)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n) > 0).astype(int) + (X[:, 3] > 1)
    return X, y


def _with_missing(load, share: float = 0.2):
    """``load``'s data with ``share`` of the values of every other column replaced by NaN (seeded)."""

    def load_with_missing():
        X, y = load()
        X = np.array(X, dtype=np.float64)
        hit = np.random.default_rng(11).random(X.shape) < share
        hit[:, 1::2] = False
        X[hit] = np.nan
        return X, y

    return load_with_missing


def _categorical():
    """Two categorical columns (7 and 30 categories, codes; a tenth and a twentieth missing), a number
    and a column of three categories; three classes."""
    rng = np.random.default_rng(5)
    n = 1500
    X = np.column_stack(
        [rng.integers(0, 7, n), rng.integers(0, 30, n), rng.normal(size=n), rng.integers(0, 3, n)]
    ).astype(np.float64)
    y = (X[:, 2] + (X[:, 0] % 3) + rng.normal(size=n) > 1).astype(int) + (rng.random(n) < 0.2)
    X[rng.random(n) < 0.1, 0] = np.nan
    X[rng.random(n) < 0.05, 1] = np.nan
    return X, y


def _categorical_regression():
    """:func:`_categorical`'s table, a target in eighths: unweighted, its sums are exact in any order,
    so categorical histograms are kept for larger children (not with the uniform weights)."""
    X, y = _categorical()
    target = X[:, 2] * 2 + np.nan_to_num(X[:, 1]) % 5 + np.random.default_rng(6).normal(size=y.size)
    return X, np.round(target * 8) / 8


def _california():
    from tnt.data.csv_loader import read_csv_table

    return read_csv_table(BUNDLED / "california_housing_sample.csv", target="median_house_value", task="regression")


def _friedman():
    return make_friedman1(n_samples=2000, n_features=8, noise=1.0, random_state=3)


#: The categorical columns of :func:`_categorical` and the seed of its fits.
_CATEGORICAL = {"categorical_features": [0, 1, 3], "random_state": 0}

# name -> (estimator, data, whether to weigh the samples)
FITS = {
    "pendigits": (lambda: TnTClassifier(ccp_alpha=0.0, C=1e-3, random_state=0), _pendigits, False),
    "digits": (
        lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, N1=3, random_state=1),
        lambda: load_digits(return_X_y=True),
        False,
    ),
    "digits weighted": (
        lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, random_state=2),
        lambda: load_digits(return_X_y=True),
        True,
    ),
    "continuous": (lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, random_state=0), _continuous, False),
    "continuous weighted": (lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, random_state=0), _continuous, True),
    "continuous binned": (
        lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, max_bins=64, random_state=0),
        _continuous,
        False,
    ),
    "pendigits weighted two threads": (
        lambda: TnTClassifier(ccp_alpha=0.0, C=1e-3, random_state=3, n_jobs=2),
        _pendigits,
        True,
    ),
    "digits fine-tuned": (
        lambda: TnTClassifier(ccp_alpha=0.0, C=1e-3, fine_tune=3, random_state=0),
        lambda: load_digits(return_X_y=True),
        False,
    ),
    "continuous with missing": (
        lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, random_state=0),
        _with_missing(_continuous),
        False,
    ),
    "continuous with missing weighted": (
        lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, random_state=1),
        _with_missing(_continuous),
        True,
    ),
    "continuous with missing, every refit": (
        lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, internal_refit="always", random_state=0),
        _with_missing(_continuous),
        False,
    ),
    "continuous with missing weighted, every refit": (
        lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, internal_refit="always", random_state=1),
        _with_missing(_continuous),
        True,
    ),
    "california": (lambda: TnTRegressor(ccp_alpha=0.0, C=2e-3, random_state=0), _california, False),
    "california weighted": (lambda: TnTRegressor(ccp_alpha=0.0, C=2e-3, random_state=1), _california, True),
    "friedman": (lambda: TnTRegressor(ccp_alpha=0.0, C=1e-3, random_state=0), _friedman, False),
    "friedman weighted two threads": (
        lambda: TnTRegressor(ccp_alpha=0.0, C=1e-3, random_state=4, n_jobs=2),
        _friedman,
        True,
    ),
    "friedman one phase": (lambda: TnTRegressor(ccp_alpha=0.0, C=1e-3, N1=1, random_state=0), _friedman, False),
    "friedman with missing weighted": (
        lambda: TnTRegressor(ccp_alpha=0.0, C=1e-3, random_state=2),
        _with_missing(_friedman),
        True,
    ),
    "friedman with missing weighted, every refit": (
        lambda: TnTRegressor(ccp_alpha=0.0, C=1e-3, internal_refit="always", random_state=2),
        _with_missing(_friedman),
        True,
    ),
    "friedman fine-tuned binned": (
        lambda: TnTRegressor(ccp_alpha=0.0, C=1e-3, fine_tune=3, max_bins=32, random_state=0),
        _friedman,
        False,
    ),
    "categorical": (lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, **_CATEGORICAL), _categorical, False),
    "categorical weighted": (lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, **_CATEGORICAL), _categorical, True),
    "categorical pooled": (
        lambda: TnTClassifier(ccp_alpha=0.0, C=5e-4, min_category_samples=8, **_CATEGORICAL),
        _categorical,
        False,
    ),
    "categorical regression": (
        lambda: TnTRegressor(ccp_alpha=0.0, C=1e-3, **_CATEGORICAL),
        _categorical_regression,
        False,
    ),
    "categorical regression weighted two threads": (
        lambda: TnTRegressor(ccp_alpha=0.0, C=1e-3, n_jobs=2, **_CATEGORICAL),
        _categorical_regression,
        True,
    ),
}

# Recorded with `python tests/test_learner_fingerprints.py` (see the module's docstring for when).
RECORDED = {
    "pendigits": "2f0a84d80f07185e1cbda04bc9bbb9fcbaffc23eb1c7e06e5c036c378453a21e",
    "digits": "53af8166cf1a691299de6c93aa428c77dbaa17540b9018e27d89311d72313230",
    "digits weighted": "44d5a9226310e3bd726b87d5ef08dc24ef0711d7aa7457c1bacb31dcda1475e7",
    "continuous": "3631085a3a98d2efecc04d20060ba1590dda4a9bc0e144efdb330cdb771de673",
    "continuous weighted": "2910b700336e33f5cb4a3cbf5834f2ee938d1533a1d7f7e2804cc88ddf41d591",
    "continuous binned": "65ae9be95454e33a94845d8f2028a365e838f17b8d074a1d60d0e833ba00df8f",
    "pendigits weighted two threads": "4db9972763ae87b0e379b3d035add670b0e6d17512f8f675edf6bc0d57bad358",
    "digits fine-tuned": "5a93170a1e42bb141bc32ec1f190bc8b63c60951858939367017af6427aa0b47",
    "continuous with missing": "6cf46087ae7396def05828bd2684b9e2d6f8a7e088a27dc5da898852b11d7430",
    "continuous with missing, every refit": "f5dda641e1ea3ee09c7745829ec354b7418aa51bf714c3957fdfffe2b1913668",
    "continuous with missing weighted": "098c713f79b71690eebc7c78551864ba906132ec940301d2cd8c5ec79b7bd97a",
    "continuous with missing weighted, every refit": "0567bad199042d21fc0fc2740c6cee8500677d1074b1964c33d5276882029697",
    "california": "70742fe05f9409c94ea7ce4c3930552cf083a3781f8d84d99d95d57c9729a5e1",
    "california weighted": "1e17cbc976f2c90fb88fe4fcfafe5b927311f680d50a18078aebbc22c34030c7",
    "friedman": "06ed020321617c820ff94b910a87ad30606abf43645a9527b06f8ce8a38ca905",
    "friedman weighted two threads": "72f8519935db85b19f271fde201a4e63a75d9765e88bbb703e88babb38bcac7d",
    "friedman one phase": "267d51ca6436e43170f3d0cd07818ee45bbfc2f02a060d34ab6bbdd8b3777514",
    "friedman with missing weighted": "762a87c72f0940902c6906e1b915ebbb879ba58f96c9397771bf37f5751e2c87",
    "friedman with missing weighted, every refit": "23e92075ed6b40da24cd023a25558913cbaf65f45edfbca09ec0457fa67de63a",
    "friedman fine-tuned binned": "cbc226fe7b2a0b855d5f9573a1a54504f01e03b9cadb512086a5ed193f9c9c92",
    "categorical": "62b6da46c4071462970819aa97e027b865e53df849bedd85574c4187dfbd6558",
    "categorical weighted": "d5e73501543f7e59f8524ab3cc1f86cec11cf851e5ee9200d6722693212be2ec",
    "categorical pooled": "97173347b2471386db904b90eb0cf117f02836ed41e822430afee79a42adaf72",
    "categorical regression": "c301f175cc1e00a3391d27f423e5d3a4c16094c05023305ba4f4d498bbc2db05",
    "categorical regression weighted two threads": "74c66cd4acf7d590a7a5b9c762580c916c106f9a4b969e0d0215a7a62d2cea18",
}


def fit_digest(name: str) -> str:
    make_model, load, weighted = FITS[name]
    X, y = load()
    # The weights of a fit with every refit taken are those of the same fit with the defaults.
    sample_weight = _weights(len(y), seed=len(name.removesuffix(", every refit"))) if weighted else None
    return graph_digest(
        make_model().fit(X, y, sample_weight=sample_weight).graph_,
        bool(np.isnan(np.asarray(X, dtype=np.float64)).any()),
    )


@pytest.mark.parametrize("way", ["as chosen", "walks in lanes", "a call per micro tree"])
@pytest.mark.parametrize("name", sorted(FITS))
def test_fitted_graph_is_unchanged(name, way, monkeypatch):
    if "two threads" in name:  # data this small takes one thread unless waves are made to share them
        monkeypatch.setattr(growth, "THREADED_WORK", 0)
    if way == "walks in lanes":  # these fits' samples fit in a cache: their walks go one by one unless made not to
        monkeypatch.setattr(wave_routing, "CACHED_BYTES", -1)
        monkeypatch.setattr(wave_routing, "NARROW_ROW_BYTES", -1)
    if way == "a call per micro tree":  # as before the batch kernel is compiled
        with growth.one_call_per_micro_tree():
            assert fit_digest(name) == RECORDED[name]
        return
    assert fit_digest(name) == RECORDED[name]


if __name__ == "__main__":
    names = sys.argv[1:] or list(FITS)
    for name in names:
        print(f"    {name!r}: {fit_digest(name)!r},", flush=True)
