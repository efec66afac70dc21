from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss

from assembly_gym.benchmarks.metrics import classification_metrics
from assembly_gym.benchmarks.statistics import (
    GroupedScores,
    bootstrap_weights,
    calibration_curve,
    paired_bootstrap_test,
)


@pytest.fixture(scope="module")
def predictions():
    rng = np.random.default_rng(0)
    n = 3000
    y = rng.choice(3, n, p=[0.7, 0.1, 0.2])
    probs = rng.dirichlet([3, 1, 1], n)
    groups = rng.integers(0, 200, n)
    return y, probs, groups


def test_point_metrics_match_sklearn(predictions):
    y, probs, groups = predictions
    scores = {
        k: float(v[0])
        for k, v in GroupedScores.from_predictions(y, probs, groups).metrics().items()
    }
    reference = classification_metrics(y, probs)
    for name in ("accuracy", "macro_f1", "log_loss"):
        assert scores[name] == pytest.approx(reference[name], abs=1e-12)
    onehot = np.eye(3)[y]
    brier = np.mean([brier_score_loss(onehot[:, k], probs[:, k]) for k in range(3)]) * 3
    assert scores["brier"] == pytest.approx(brier)


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


def test_one_bootstrap_replicate_equals_rescoring_the_resampled_votes(predictions):
    y, probs, groups = predictions
    scores = GroupedScores.from_predictions(y, probs, groups)
    weights = bootstrap_weights(scores.n_groups, 1, np.random.default_rng(7))[0]
    ids = np.unique(groups)
    chosen = np.repeat(ids, weights.astype(int))
    rows = np.concatenate([np.flatnonzero(groups == g) for g in chosen])
    direct = classification_metrics(y[rows], probs[rows])
    replicate = scores.metrics(weights[None, :])
    assert replicate["accuracy"][0] == pytest.approx(direct["accuracy"])
    assert replicate["log_loss"][0] == pytest.approx(direct["log_loss"])
    assert replicate["macro_f1"][0] == pytest.approx(direct["macro_f1"], abs=2e-3)  # ties re-broken


def test_bootstrap_interval_contains_the_estimate_and_shrinks_with_data(predictions):
    y, probs, groups = predictions
    rng = np.random.default_rng(2)
    full = GroupedScores.from_predictions(y, probs, groups)
    small = GroupedScores.from_predictions(y[:300], probs[:300], groups[:300])
    estimate = full.metrics()["log_loss"][0]
    low, high = full.bootstrap(500, rng)["log_loss"]
    small_low, small_high = small.bootstrap(500, rng)["log_loss"]
    assert low < estimate < high
    assert high - low < small_high - small_low


def test_paired_test_detects_a_worse_predictor_and_not_itself(predictions):
    y, probs, groups = predictions
    rng = np.random.default_rng(3)
    base = GroupedScores.from_predictions(y, probs, groups)
    worse_probs = probs + np.array([0.0, 0.3, 0.0])
    worse = GroupedScores.from_predictions(
        y, worse_probs / worse_probs.sum(1, keepdims=True), groups
    )
    difference, p_value = paired_bootstrap_test(worse, base, "log_loss", 500, rng)
    assert difference > 0 and p_value < 0.01
    assert paired_bootstrap_test(base, base, "log_loss", 500, rng) == (0.0, 1.0)
    other = GroupedScores.from_predictions(y[:10], probs[:10], np.arange(10))
    with pytest.raises(ValueError, match="pair on the same"):
        paired_bootstrap_test(base, other, "log_loss", 10, rng)


def test_calibration_curve_bins():
    y = np.array([0, 0, 1, 1])
    probs = np.array([[0.95, 0.05], [0.95, 0.05], [0.55, 0.45], [0.45, 0.55]])
    confidence, accuracy, count = calibration_curve(y, probs, n_bins=10)
    np.testing.assert_allclose(confidence, [0.55, 0.95])
    np.testing.assert_allclose(accuracy, [0.5, 1.0])
    np.testing.assert_array_equal(count, [2, 2])
