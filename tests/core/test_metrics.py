"""Metrics of predicted distributions, against scikit-learn, with ties broken at random."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, brier_score_loss, f1_score, log_loss

from assembly_gym.core.metrics import (
    METRICS,
    GroupedScores,
    argmax_random_ties,
    chance_metrics,
    classification_metrics,
    expected_calibration_error,
)


def test_known_case_against_sklearn():
    y_true = np.array([0, 0, 1, 2, 0, 1, 2, 2])
    probs = np.array([
        [0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4],
        [0.6, 0.3, 0.1], [0.5, 0.4, 0.1], [0.2, 0.2, 0.6], [0.1, 0.6, 0.3],
    ])  # fmt: skip
    predicted = probs.argmax(axis=1)  # no ties here
    metrics = classification_metrics(y_true, probs)
    assert metrics["accuracy"] == pytest.approx(accuracy_score(y_true, predicted)) == 0.625
    assert metrics["macro_f1"] == pytest.approx(f1_score(y_true, predicted, average="macro"))
    assert metrics["log_loss"] == pytest.approx(log_loss(y_true, probs))
    assert metrics["n"] == 8


def test_hand_computed_values():
    y_true = np.array([0, 1])
    probs = np.array([[0.5, 0.25, 0.25], [0.1, 0.9, 0.0]])
    metrics = classification_metrics(y_true, probs)
    assert metrics["accuracy"] == 1.0 and metrics["macro_f1"] == 1.0
    assert metrics["log_loss"] == pytest.approx(-(np.log(0.5) + np.log(0.9)) / 2)


def test_macro_f1_averages_over_the_actions_that_occur():
    y_true = np.array([0, 0, 1, 1])
    probs = np.eye(3)[[0, 2, 1, 1]]  # predicts abstain once, which never occurs
    metrics = classification_metrics(y_true, probs)
    expected = f1_score(y_true, [0, 2, 1, 1], labels=[0, 1], average="macro")
    assert metrics["macro_f1"] == pytest.approx(expected)
    assert metrics["macro_f1"] > f1_score(y_true, [0, 2, 1, 1], average="macro")


def test_log_loss_stays_finite_with_zero_probabilities():
    metrics = classification_metrics(np.array([2]), np.array([[1.0, 0.0, 0.0]]))
    assert np.isfinite(metrics["log_loss"]) and metrics["log_loss"] > 30


def test_a_uniform_predictor_scores_chance_not_the_first_action():
    y_true = np.zeros(3000, dtype=np.int64)  # plain argmax would score 1.0 here
    probs = np.full((3000, 3), 1 / 3)
    metrics = classification_metrics(y_true, probs)
    assert metrics["accuracy"] == pytest.approx(1 / 3, abs=0.03)
    assert metrics["log_loss"] == pytest.approx(chance_metrics(3)["log_loss"])


def test_argmax_random_ties_picks_only_among_the_best():
    probs = np.tile([0.4, 0.1, 0.4, 0.1], (2000, 1))
    picks = argmax_random_ties(probs)
    assert set(np.unique(picks)) == {0, 2}
    assert abs((picks == 0).mean() - 0.5) < 0.05
    np.testing.assert_array_equal(picks, argmax_random_ties(probs))  # seeded
    assert not np.array_equal(picks, argmax_random_ties(probs, seed=1))
    clear = np.array([[0.1, 0.7, 0.2], [0.5, 0.2, 0.3]])
    np.testing.assert_array_equal(argmax_random_ties(clear), [1, 0])


def test_chance_metrics():
    assert chance_metrics(3) == {
        "accuracy": pytest.approx(1 / 3),
        "log_loss": pytest.approx(np.log(3)),
    }
    assert chance_metrics(5)["accuracy"] == 0.2


def test_errors():
    with pytest.raises(ValueError, match=r"probs must have shape \(3, A\)"):
        classification_metrics(np.zeros(3, dtype=int), np.full((2, 3), 1 / 3))
    with pytest.raises(ValueError, match=r"probs must have shape \(3, A\)"):
        classification_metrics(np.zeros(3, dtype=int), np.full(3, 1 / 3))
    with pytest.raises(ValueError, match="no predictions to score"):
        classification_metrics(np.zeros(0, dtype=int), np.zeros((0, 3)))


def test_grouped_point_metrics_match_sklearn(grouped_predictions):
    y, probs, groups = grouped_predictions
    scores = {
        k: float(v[0])
        for k, v in GroupedScores.from_predictions(y, probs, groups).metrics().items()
    }
    assert tuple(scores) == METRICS
    reference = classification_metrics(y, probs)
    for name in ("accuracy", "macro_f1", "log_loss"):
        assert scores[name] == pytest.approx(reference[name], abs=1e-12)
    predicted = argmax_random_ties(probs)
    assert scores["accuracy"] == pytest.approx(accuracy_score(y, predicted))
    assert scores["macro_f1"] == pytest.approx(f1_score(y, predicted, average="macro"))
    assert scores["log_loss"] == pytest.approx(log_loss(y, probs))
    onehot = np.eye(3)[y]
    brier = np.mean([brier_score_loss(onehot[:, k], probs[:, k]) for k in range(3)]) * 3
    assert scores["brier"] == pytest.approx(brier)


def test_groups_do_not_change_the_point_metrics(grouped_predictions):
    y, probs, groups = grouped_predictions
    grouped = GroupedScores.from_predictions(y, probs, groups)
    single = GroupedScores.from_predictions(y, probs)
    assert (grouped.n_groups, single.n_groups) == (200, 1)
    for name, value in single.metrics().items():
        np.testing.assert_allclose(grouped.metrics()[name], value, rtol=1e-12)


def test_ece_of_a_perfectly_calibrated_and_an_overconfident_predictor():
    rng = np.random.default_rng(1)
    n = 200_000
    confidence = rng.uniform(0.5, 1.0, n)
    probs = np.column_stack([confidence, 1 - confidence])
    y = (rng.random(n) > confidence).astype(int)  # class 0 with probability = confidence
    calibrated = GroupedScores.from_predictions(y, probs, np.arange(n)).metrics()["ece"][0]
    assert calibrated < 0.01
    sharp = np.column_stack([np.full(n, 0.99), np.full(n, 0.01)])
    overconfident = GroupedScores.from_predictions(y, sharp, np.arange(n)).metrics()["ece"][0]
    assert overconfident == pytest.approx(0.99 - (y == 0).mean(), abs=1e-9)
    assert expected_calibration_error(sharp[:, 0], y == 0) == pytest.approx(overconfident)


def test_expected_calibration_error_by_hand():
    confidence = np.array([0.95, 0.95, 0.55, 0.45, 0.05])
    correct = np.array([True, False, True, True, False])
    # bins 9: |1.9 − 1| ; 5: |0.55 − 1| ; 4: |0.45 − 1| ; 0: |0.05 − 0|, over 5 predictions
    expected = (0.9 + 0.45 + 0.55 + 0.05) / 5
    assert expected_calibration_error(confidence, correct) == pytest.approx(expected)
    assert expected_calibration_error(np.ones(4), np.ones(4, dtype=bool)) == 0.0
    assert np.isnan(expected_calibration_error(np.zeros(0), np.zeros(0, dtype=bool)))
