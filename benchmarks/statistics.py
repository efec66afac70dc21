"""Scores with uncertainty: bootstrap confidence intervals over roll calls and paired tests.

Votes on the same roll call are not independent (countries vote in blocs), so uncertainty
is estimated by resampling *roll calls* (clusters) with replacement. The metrics
(:data:`assembly_gym.core.metrics.METRICS`) are computed from per-roll-call sufficient
statistics (:class:`~assembly_gym.core.metrics.GroupedScores`), so one bootstrap replicate
is a weighted sum of those statistics (a matrix product), not a re-scoring of every vote.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assembly_gym.core.metrics import GroupedScores

__all__ = [
    "bootstrap_intervals",
    "bootstrap_weights",
    "calibration_curve",
    "paired_bootstrap_tests",
    "paired_p_value",
    "percentile_interval",
]


def bootstrap_weights(n_groups: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """How often each group is drawn in each resample: (n_resamples, n_groups) counts."""
    return rng.multinomial(n_groups, np.full(n_groups, 1.0 / n_groups), size=n_resamples).astype(
        float
    )


def bootstrap_intervals(
    scores: GroupedScores, n_resamples: int, rng: np.random.Generator, confidence: float = 0.95
) -> dict[str, tuple[float, float]]:
    """Percentile confidence intervals of every metric from resampled groups.

    Args:
        scores: the statistics of the predictions, per group (roll call).
        n_resamples: bootstrap resamples.
        rng: draws the resamples.
        confidence: coverage of the intervals.

    Returns:
        Metric name → (low, high).
    """
    samples = scores.metrics(bootstrap_weights(scores.n_groups, n_resamples, rng))
    return {name: percentile_interval(v, confidence) for name, v in samples.items()}


def percentile_interval(samples: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile interval of bootstrap samples, shape (n_resamples,): (low, high)."""
    tail = (1.0 - confidence) / 2 * 100
    return float(np.percentile(samples, tail)), float(np.percentile(samples, 100 - tail))


def paired_p_value(differences: np.ndarray) -> float:
    """Two-sided bootstrap p-value of resampled paired differences, shape (n_resamples,).

    Twice the share of resamples on the far side of zero, at least 1 / n_resamples.
    """
    tail = min((differences <= 0).mean(), (differences >= 0).mean())
    return float(min(1.0, max(2 * tail, 1.0 / len(differences))))


def paired_bootstrap_tests(
    a: GroupedScores,
    b: GroupedScores,
    metrics: Sequence[str],
    n_resamples: int,
    rng: np.random.Generator,
) -> dict[str, tuple[float, float]]:
    """Differences ``a − b`` in some metrics and their two-sided paired bootstrap p-values.

    Both agents must be scored on the same groups. The same resampled groups score both
    agents (and every metric), so votes shared by the two predictions cancel (p-value:
    :func:`paired_p_value`).

    Returns:
        Metric name → (observed difference, p-value).
    """
    if a.n_groups != b.n_groups:
        raise ValueError(f"agents scored on {a.n_groups} and {b.n_groups} groups; pair on the same")
    weights = bootstrap_weights(a.n_groups, n_resamples, rng)
    resampled_a, resampled_b = a.metrics(weights), b.metrics(weights)
    observed_a, observed_b = a.metrics(), b.metrics()
    return {
        metric: (
            float(observed_a[metric][0] - observed_b[metric][0]),
            paired_p_value(resampled_a[metric] - resampled_b[metric]),
        )
        for metric in metrics
    }


def calibration_curve(
    y_true: np.ndarray, probs: np.ndarray, n_bins: int = 10
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top-label reliability: mean confidence, accuracy and count per non-empty bin."""
    scores = GroupedScores.from_predictions(y_true, probs, n_bins=n_bins)
    count, confidence, correct = scores.bins[0].T
    keep = count > 0
    return confidence[keep] / count[keep], correct[keep] / count[keep], count[keep]
