"""The validator: owners, the one-sided binomial test against scipy, held-out action metrics."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom, binomtest

from assembly_gym.agents.debate.arena import ClaimSet
from assembly_gym.agents.debate.validator import Validator, binomial_p_value, significance_stars
from assembly_gym.core.metrics import classification_metrics


@pytest.mark.parametrize(
    ("successes", "n", "chance"),
    [(30, 100, 1 / 7), (3, 10, 0.25), (0, 5, 0.5), (50, 50, 1 / 3), (14, 100, 1 / 7)],
)
def test_p_value_is_scipys_one_sided_binomial_test(successes, n, chance):
    expected = binomtest(successes, n, chance, alternative="greater").pvalue
    assert binomial_p_value(successes, n, chance) == pytest.approx(expected, rel=1e-12)
    # P(X ≥ k) by the survival function, independently of binomtest
    assert binomial_p_value(successes, n, chance) == pytest.approx(
        binom.sf(successes - 1, n, chance)
    )


@pytest.mark.parametrize(
    ("args", "match"),
    [((3, 0, 0.5), "n ≥ 1"), ((6, 5, 0.5), "successes ≤ n"), ((1, 5, 1.0), "0 < chance < 1")],
)
def test_p_value_rejects_impossible_counts(args, match):
    with pytest.raises(ValueError, match=match):
        binomial_p_value(*args)


@pytest.mark.parametrize(
    ("p", "stars"), [(0.0001, "***"), (0.005, "**"), (0.03, "*"), (0.2, "n.s.")]
)
def test_significance_stars(p, stars):
    assert significance_stars(p) == stars


def hand_claims() -> ClaimSet:
    """Tendency 0 predicts yes, tendency 1 predicts no, tendency 2 abstains; 4 observations."""
    probs = np.array([[[0.8, 0.1, 0.1]] * 4, [[0.1, 0.8, 0.1]] * 4, [[0.1, 0.1, 0.8]] * 4])
    return ClaimSet(probs, np.zeros((3, 4)))


def test_owners_of_labelled_observations():
    claims = hand_claims()
    outcomes = np.array([0, 1, 2, 0])
    predicted, actual = Validator().owners(claims, outcomes, np.array([0.6, 0.3, 0.1]))
    np.testing.assert_array_equal(actual, outcomes)  # each action's best explanation
    np.testing.assert_array_equal(predicted, [0, 0, 0, 0])  # the mixture forecasts yes
    predicted, _ = Validator().owners(claims, outcomes, np.array([0.1, 0.2, 0.7]))
    np.testing.assert_array_equal(predicted, [2, 2, 2, 2])


def test_owners_of_unlabelled_observations_use_relevance_and_allocation():
    relevance = np.array([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0], [0.0, 0.0, 0.7]])
    claims = ClaimSet(np.zeros((3, 3, 0)), relevance)
    predicted, actual = Validator().owners(claims, np.full(3, -1), np.array([0.2, 0.5, 0.3]))
    np.testing.assert_array_equal(actual, [0, 1, 2])
    np.testing.assert_array_equal(predicted, [1, 1, 1])


def test_validation_counts_successes_and_tests_them_against_chance():
    claims = hand_claims()
    outcomes = np.array([0, 1, 2, 0])
    result = Validator().validate(claims, outcomes, np.array([0.6, 0.3, 0.1]))
    assert (result.successes, result.n, result.accuracy) == (2, 4, 0.5)
    assert result.chance == pytest.approx(1 / 3)
    assert result.p_value == pytest.approx(binomtest(2, 4, 1 / 3, alternative="greater").pvalue)
    assert result.majority_rate == 0.5
    mixture = claims.mixture(np.array([0.6, 0.3, 0.1]))
    expected = classification_metrics(outcomes, mixture)
    assert result.action_accuracy == expected["accuracy"]
    assert result.action_log_loss == pytest.approx(expected["log_loss"])
    assert result.action_macro_f1 == expected["macro_f1"]


def test_masks_restrict_the_forecast():
    claims = hand_claims()
    masks = np.tile([False, True, True], (4, 1))
    result = Validator().validate(claims, np.array([1, 1, 2, 1]), np.array([0.6, 0.3, 0.1]), masks)
    assert result.action_accuracy == 0.75  # yes is masked: the mixture forecasts no


def test_unlabelled_validation_has_no_action_metrics_and_no_held_out_data_raises():
    claims = ClaimSet(np.zeros((2, 2, 0)), np.array([[0.9, 0.1], [0.1, 0.9]]))
    result = Validator().validate(claims, np.full(2, -1), np.array([0.5, 0.5]))
    assert result.action_accuracy is None and result.n == 2
    with pytest.raises(ValueError, match="no held-out observations"):
        Validator().validate(
            claims.take(np.array([], dtype=int)), np.zeros(0), np.array([0.5, 0.5])
        )
