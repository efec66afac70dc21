from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.benchmarks.statistics import (
    bootstrap_intervals,
    bootstrap_weights,
    calibration_curve,
    paired_bootstrap_tests,
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


METRICS = ("accuracy", "macro_f1", "log_loss")


def test_paired_tests_detect_a_worse_predictor_and_not_itself(grouped_predictions):
    y, probs, groups = grouped_predictions
    rng = np.random.default_rng(3)
    base = GroupedScores.from_predictions(y, probs, groups)
    worse_probs = probs + np.array([0.0, 0.6, 0.0])
    worse = GroupedScores.from_predictions(
        y, worse_probs / worse_probs.sum(1, keepdims=True), groups
    )
    tests = paired_bootstrap_tests(worse, base, METRICS, 500, rng)
    assert list(tests) == list(METRICS)
    observed = {m: worse.metrics()[m][0] - base.metrics()[m][0] for m in METRICS}
    assert {m: d for m, (d, _) in tests.items()} == pytest.approx(observed)
    assert tests["log_loss"][0] > 0 and tests["log_loss"][1] < 0.01
    assert tests["accuracy"][0] < 0 and tests["accuracy"][1] < 0.01
    assert tests["macro_f1"][0] < 0 and tests["macro_f1"][1] < 0.01
    same = paired_bootstrap_tests(base, base, METRICS, 500, rng)
    assert same == {metric: (0.0, 1.0) for metric in METRICS}
    other = GroupedScores.from_predictions(y[:10], probs[:10], np.arange(10))
    with pytest.raises(ValueError, match="pair on the same"):
        paired_bootstrap_tests(base, other, METRICS, 10, rng)


def test_calibration_curve_bins():
    y = np.array([0, 0, 1, 1])
    probs = np.array([[0.95, 0.05], [0.95, 0.05], [0.55, 0.45], [0.45, 0.55]])
    confidence, accuracy, count = calibration_curve(y, probs, n_bins=10)
    np.testing.assert_allclose(confidence, [0.55, 0.95])
    np.testing.assert_allclose(accuracy, [0.5, 1.0])
    np.testing.assert_array_equal(count, [2, 2])
