"""Train to a budget: the TnT with the most splits not above N, found by a search over C."""

import pytest
from sklearn.datasets import load_digits

from tnt.services.budget import fit_to_budget


@pytest.fixture(scope="module")
def digits():
    return load_digits(return_X_y=True)


@pytest.fixture(scope="module")
def searches(digits):
    X, y = digits
    fitted = {}
    return fitted, {N: fit_to_budget(X, y, N, random_state=0, fitted=fitted) for N in (25, 60)}


@pytest.mark.parametrize("N", [25, 60])
def test_result_is_within_budget_and_no_tried_C_did_better(searches, N):
    _, results = searches
    found = results[N]
    assert found.n_splits <= N
    assert found.model.C == found.C
    assert all(s > N or s <= found.n_splits for _, s in found.tried)
    # CART compared at exactly the same splits.
    assert found.cart.n_splits_ == found.n_splits
    assert found.bracketed  # the digits need more than 60 splits at small C


def test_a_budget_beyond_what_tnt_uses_stops_at_C_min(digits):
    X, y = digits
    found = fit_to_budget(X[:300], y[:300], 10_000, random_state=0, C_min=1e-5)
    assert not found.bracketed
    assert min(C for C, _ in found.tried) == 1e-5
    assert found.n_splits == max(s for _, s in found.tried)


def test_the_search_reuses_earlier_fits(searches, digits):
    fitted, results = searches
    X, y = digits
    assert set(fitted) >= {C for r in results.values() for C, _ in r.tried}
    before = len(fitted)
    again = fit_to_budget(X, y, 60, random_state=0, fitted=fitted)
    assert again.n_fits == 0 and len(fitted) == before
    assert again.C == results[60].C and again.n_splits == results[60].n_splits


def test_fits_are_counted_and_capped(digits):
    X, y = digits
    calls = []
    found = fit_to_budget(X, y, 30, random_state=0, max_fits=3, on_fit=lambda C, s, k: calls.append((C, s, k)))
    assert found.n_fits == len(calls) <= 3
    assert [k for _, _, k in calls] == list(range(1, len(calls) + 1))
    assert found.n_splits <= 30


def test_bad_budgets_say_why(digits):
    X, y = digits
    with pytest.raises(ValueError, match="max_splits must be 0 or more"):
        fit_to_budget(X, y, -1)
    with pytest.raises(ValueError, match="No C up to 0.0001 gives at most 0 splits"):
        fit_to_budget(X, y, 0, C_start=1e-4, C_max=1e-4, random_state=0)
