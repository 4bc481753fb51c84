"""What scikit-learn's estimator checks expect of the project's estimators that they cannot meet."""

from tnt._tnt_estimator import CHOSEN_LEVELS


def expected_failed_checks(estimator) -> dict:
    """The checks an estimator fails by design, each with the reason (``parametrize_with_checks``'s
    ``expected_failed_checks``): a pruning level chosen on a held-out part of the rows sees a
    repeated sample on both sides of the split (a copy it learned from scores it), a weighted one on
    one side only, so weights are not repetitions there."""
    if getattr(estimator, "ccp_alpha", None) in CHOSEN_LEVELS:
        return {
            "check_sample_weight_equivalence_on_dense_data": "a held-out part of repeated rows holds copies of "
            "rows the graph learned from; a weighted row is on one side only"
        }
    return {}
