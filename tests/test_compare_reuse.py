"""The Compare page reuses the TnT and CART the Train page trained at the same settings
(``compare_models(..., fitted=...)``) instead of fitting them again, and only when they are exactly
the models it would fit: the same table but for the fit times, the Train page's TnT fit time."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from app_helpers import go
from app_helpers import train as press_train

from tnt import CARTClassifier, TAOClassifier, TnTClassifier
from tnt.data.datasets import load_bundled
from tnt.model_io import model_from_json, model_to_json
from tnt.services.compare import compare_models, comparison_frame
from tnt.services.training import TrainParams, train
from ui.display import labelled

FIT_TIME = "fit time (s)"


def reused(result) -> dict:
    """A TrainResult's models as ``compare_models`` takes them."""
    return {
        "TnT": (result.tnt, result.tnt_metrics["fit_time"]),
        "CART (best-first)": (result.cart, result.cart_metrics["fit_time"]),
    }


def without_times(results: dict) -> dict:
    return {name: {k: v for k, v in m.items() if k != "fit_time"} for name, (_, m) in results.items()}


@pytest.mark.parametrize("dataset_id", ["wine", "california_housing"])
def test_reused_models_give_a_fresh_calls_table_but_the_fit_times(dataset_id):
    data = load_bundled(dataset_id)
    settings = dict(C=1e-2, N1=2, N2=3, seed=1)
    trained = train(data, TrainParams(C=1e-2, N2=3, seed=1))
    fresh = compare_models(data, **settings)
    again = compare_models(data, **settings, fitted=reused(trained))
    assert list(again) == list(fresh)
    assert without_times(again) == without_times(fresh)
    for name in fresh:  # the same models: the same predictions on the test part
        assert np.array_equal(again[name][0].predict(data.X_test), fresh[name][0].predict(data.X_test))
    assert again["TnT"][0] is trained.tnt and again["CART (best-first)"][0] is trained.cart
    assert again["TnT"][1]["fit_time"] == trained.tnt_metrics["fit_time"]
    assert again["CART (best-first)"][1]["fit_time"] == trained.cart_metrics["fit_time"]
    if not data.is_regression:  # fine-tuned from the TnT given: its time counts that TnT's growing
        assert again["TnT fine-tuned"][0] is not trained.tnt and again["TnT fine-tuned"][0].fine_tune == 5
        assert again["TnT fine-tuned"][1]["fit_time"] >= trained.tnt_metrics["fit_time"]
    shown, expected = comparison_frame(again), comparison_frame(fresh)
    pd.testing.assert_frame_equal(shown.drop(columns="fit_time"), expected.drop(columns="fit_time"))


def test_a_model_compare_models_would_not_fit_is_refused():
    data = load_bundled("wine")
    plain = train(data, TrainParams(C=1e-2))
    tuned = train(data, TrainParams(C=1e-2, fine_tune=2))
    with pytest.raises(ValueError, match=r"fine_tune=2 \(not 0\)"):  # a fine-tuned TnT is not the TnT row
        compare_models(data, C=1e-2, fitted={"TnT": (tuned.tnt, 0.1)})
    with pytest.raises(ValueError, match=r"C=0.01 \(not 0.001\)"):  # other settings than asked for
        compare_models(data, C=1e-3, fitted={"TnT": (plain.tnt, 0.1)})
    tao = TAOClassifier.with_splits(plain.tnt.n_splits_, fine_tune=5, random_state=0).fit(data.X_train, data.y_train)
    with pytest.raises(ValueError, match="TAOClassifier"):  # TAO (a CART subclass) is not CART
        compare_models(data, C=1e-2, fitted={"TnT": (plain.tnt, 0.1), "CART (best-first)": (tao, 0.1)})
    with pytest.raises(ValueError, match="not compared here"):
        compare_models(load_bundled("california_housing"), C=1e-2, fitted={"NDG": (plain.tnt, 0.1)})
    with pytest.raises(ValueError, match="features"):
        other = TnTClassifier(C=1e-2, random_state=0).fit(data.X_train[:, :5], data.y_train)
        compare_models(data, C=1e-2, fitted={"TnT": (other, 0.1)})
    unfitted = CARTClassifier.with_splits(plain.tnt.n_splits_, random_state=0)
    with pytest.raises(ValueError):  # scikit-learn's NotFittedError is a ValueError
        compare_models(data, C=1e-2, fitted={"TnT": (plain.tnt, 0.1), "CART (best-first)": (unfitted, 0.1)})


# --------------------------------------------------------------------------------- the page
@pytest.fixture
def fits(monkeypatch):
    """The class of every TnTClassifier.fit and CARTClassifier.fit call, in order (a TAOClassifier
    fitted from scratch would be a CARTClassifier.fit of a TAOClassifier)."""
    calls = []
    for cls in (TnTClassifier, CARTClassifier):
        original = cls.fit

        def spy(self, *args, _original=original, **kwargs):
            calls.append(type(self).__name__)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "fit", spy)
    return calls


@pytest.fixture
def app(open_app):
    return open_app(90)


def no_problem(at):
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def train_on_train_page(at, params: TrainParams):
    """Make ``params`` the settings in use, open the Train page (its form filled from them) and press Train."""
    go(at, "data")  # leaving the Train page clears its form, which is filled again from the settings in use
    at.session_state["train/params"] = params
    no_problem(press_train(at))
    return at.session_state["train/models"].get((at.session_state["data/dataset"].key, params))


def fresh_table(at) -> pd.DataFrame:
    """The table a fresh compare_models call gives at the Train page's settings."""
    data, p = at.session_state["data/dataset"], at.session_state["train/params"]
    fresh = compare_models(data, C=p.C, N1=p.N1, N2=p.N2, seed=p.seed, max_bins=p.max_bins)
    return labelled(comparison_frame(fresh))


def test_compare_after_train_reuses_the_train_pages_tnt_and_cart(app, fits):
    result = train_on_train_page(app, TrainParams())
    assert fits == ["TnTClassifier", "CARTClassifier"]
    del fits[:]
    no_problem(go(app, "compare"))
    assert fits == []  # TnT and CART not fitted again; TAO is that CART fine-tuned
    (results,) = app.session_state["analysis/compare"].values()
    assert results["TnT"][0] is result.tnt and results["CART (best-first)"][0] is result.cart
    table = app.dataframe[0].value
    assert table.loc["TnT", FIT_TIME] == round(result.tnt_metrics["fit_time"], 2)  # the Train page's time
    assert table.loc["CART (best-first)", FIT_TIME] == round(result.cart_metrics["fit_time"], 2)
    assert table.loc["TnT fine-tuned", FIT_TIME] >= table.loc["TnT", FIT_TIME]
    pd.testing.assert_frame_equal(
        table.drop(columns=FIT_TIME), fresh_table(app).drop(columns=FIT_TIME), check_dtype=False
    )
    assert any("not trained again" in c.value for c in app.main.caption)


def test_a_fine_tuned_train_page_model_is_not_the_tnt_row(app, fits):
    tuned = train_on_train_page(app, TrainParams(fine_tune=2))
    assert tuned.tnt.fine_tune == 2 and len(app.session_state["train/models"]) == 1  # no plain TnT trained
    del fits[:]
    no_problem(go(app, "compare"))
    assert fits.count("TnTClassifier") == 1 and fits.count("CARTClassifier") == 1  # fitted at fine_tune=0
    (results,) = app.session_state["analysis/compare"].values()
    assert results["TnT"][0] is not tuned.tnt and results["TnT"][0].fine_tune == 0
    table = app.dataframe[0].value
    pd.testing.assert_frame_equal(
        table.drop(columns=FIT_TIME), fresh_table(app).drop(columns=FIT_TIME), check_dtype=False
    )
    assert not any("not trained again" in c.value for c in app.main.caption)


def test_with_fine_tuning_chosen_the_same_settings_model_without_it_is_reused(app, fits):
    plain = train_on_train_page(app, TrainParams(seed=3))
    train_on_train_page(app, TrainParams(seed=3, fine_tune=2))  # the settings in use now have 2 rounds
    assert app.session_state["train/params"].fine_tune == 2
    del fits[:]
    no_problem(go(app, "compare"))
    assert fits == []
    (results,) = app.session_state["analysis/compare"].values()
    assert results["TnT"][0] is plain.tnt
    table = app.dataframe[0].value
    assert table.loc["TnT", FIT_TIME] == round(plain.tnt_metrics["fit_time"], 2)
    pd.testing.assert_frame_equal(
        table.drop(columns=FIT_TIME), fresh_table(app).drop(columns=FIT_TIME), check_dtype=False
    )


def read_back(result):
    """The result as a run of the workspace gives it back: model files."""
    return replace(
        result, tnt=model_from_json(model_to_json(result.tnt)), cart=model_from_json(model_to_json(result.cart))
    )


def unknown_time(result):
    """The result of a budget search whose TnT fit was an earlier one: no fit time."""
    return replace(result, tnt_metrics={**result.tnt_metrics, "fit_time": float("nan")})


@pytest.mark.parametrize("change", [read_back, unknown_time])
def test_a_model_read_back_or_without_a_fit_time_is_fitted_again(app, fits, change):
    result = train_on_train_page(app, TrainParams())
    app.session_state["train/models"].put(result.key, change(result))
    del fits[:]
    no_problem(go(app, "compare"))
    assert fits.count("TnTClassifier") == 1 and fits.count("CARTClassifier") == 1
    table = app.dataframe[0].value
    assert np.isfinite(table[FIT_TIME]).all()
    pd.testing.assert_frame_equal(
        table.drop(columns=FIT_TIME), fresh_table(app).drop(columns=FIT_TIME), check_dtype=False
    )


def test_compare_opened_first_fits_its_models(app, fits):
    no_problem(go(app, "compare"))  # nothing trained yet: fitted as before
    assert fits.count("TnTClassifier") == 1 and fits.count("CARTClassifier") == 1
    table = app.dataframe[0].value
    pd.testing.assert_frame_equal(
        table.drop(columns=FIT_TIME), fresh_table(app).drop(columns=FIT_TIME), check_dtype=False
    )
