from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.benchmarks.statistics import (
    bootstrap_intervals,
    bootstrap_weights,
    calibration_curve,
    paired_bootstrap_test,
)
from assembly_gym.core.metrics import GroupedScores, classification_metrics


def test_one_bootstrap_replicate_equals_rescoring_the_resampled_votes(grouped_predictions):
    y, probs, groups = grouped_predictions
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


def test_bootstrap_interval_contains_the_estimate_and_shrinks_with_data(grouped_predictions):
    y, probs, groups = grouped_predictions
    rng = np.random.default_rng(2)
    full = GroupedScores.from_predictions(y, probs, groups)
    small = GroupedScores.from_predictions(y[:300], probs[:300], groups[:300])
    estimate = full.metrics()["log_loss"][0]
    low, high = bootstrap_intervals(full, 500, rng)["log_loss"]
    small_low, small_high = bootstrap_intervals(small, 500, rng)["log_loss"]
    assert low < estimate < high
    assert high - low < small_high - small_low


def test_paired_test_detects_a_worse_predictor_and_not_itself(grouped_predictions):
    y, probs, groups = grouped_predictions
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
