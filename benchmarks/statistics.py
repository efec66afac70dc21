"""Scores with uncertainty: bootstrap confidence intervals over roll calls and paired tests.

Votes on the same roll call are not independent (countries vote in blocs), so uncertainty
is estimated by resampling *roll calls* (clusters) with replacement. Each metric is computed
from per-roll-call sufficient statistics — confusion counts, summed log-loss and Brier
terms, calibration-bin counts — so one bootstrap replicate is a weighted sum of those
statistics (a matrix product), not a re-scoring of every vote.

Metrics: accuracy, macro-F1 (over the actions that occur), log-loss (nats), multiclass Brier
score (Σ_k (p_k − y_k)², averaged over votes) and top-label expected calibration error
(ECE, equal-width confidence bins).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assembly_gym.benchmarks.metrics import argmax_random_ties

__all__ = [
    "METRICS",
    "GroupedScores",
    "calibration_curve",
    "paired_bootstrap_test",
]

METRICS = ("accuracy", "macro_f1", "log_loss", "brier", "ece")
LOWER_IS_BETTER = {"log_loss", "brier", "ece"}


@dataclass(frozen=True)
class GroupedScores:
    """Per-group sufficient statistics of one agent's predictions.

    Attributes:
        confusion: (G, A, A) counts of (actual, predicted) per group.
        log_loss: (G,) summed −log p(actual) per group.
        brier: (G,) summed Brier terms per group.
        bins: (G, n_bins, 3) per confidence bin: count, summed confidence, correct count.
        present: (A,) whether each action occurs among the actual actions (for macro-F1).
    """

    confusion: np.ndarray
    log_loss: np.ndarray
    brier: np.ndarray
    bins: np.ndarray
    present: np.ndarray

    @classmethod
    def from_predictions(
        cls, y_true: np.ndarray, probs: np.ndarray, groups: np.ndarray, *, n_bins: int = 10
    ) -> GroupedScores:
        """Statistics of predictions grouped by ``groups`` (e.g. roll-call ids), shape (N,)."""
        y_true = np.asarray(y_true, dtype=np.int64)
        probs = np.clip(np.asarray(probs, dtype=np.float64), 1e-15, 1.0)
        probs = probs / probs.sum(axis=1, keepdims=True)
        _, group = np.unique(np.asarray(groups), return_inverse=True)
        n_groups, n_actions = int(group.max()) + 1, probs.shape[1]
        predicted = argmax_random_ties(probs)
        rows = np.arange(len(y_true))
        confusion = np.zeros((n_groups, n_actions, n_actions))
        np.add.at(confusion, (group, y_true, predicted), 1.0)
        onehot = np.eye(n_actions)[y_true]
        log_loss = np.bincount(group, -np.log(probs[rows, y_true]), minlength=n_groups)
        brier = np.bincount(group, ((probs - onehot) ** 2).sum(axis=1), minlength=n_groups)
        confidence = probs[rows, predicted]
        bin_index = np.minimum((confidence * n_bins).astype(np.int64), n_bins - 1)
        bins = np.zeros((n_groups, n_bins, 3))
        np.add.at(bins, (group, bin_index, 0), 1.0)
        np.add.at(bins, (group, bin_index, 1), confidence)
        np.add.at(bins, (group, bin_index, 2), (predicted == y_true).astype(float))
        present = np.bincount(y_true, minlength=n_actions) > 0
        return cls(confusion, log_loss, brier, bins, present)

    @property
    def n_groups(self) -> int:
        """Number of groups G."""
        return len(self.log_loss)

    def metrics(self, weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Every metric for each row of group weights: (B, G) → arrays of shape (B,).

        ``weights=None`` scores the data once (all weights 1) and returns shape (1,).
        """
        w = np.ones((1, self.n_groups)) if weights is None else np.atleast_2d(weights)
        confusion = np.einsum("bg,gij->bij", w, self.confusion)
        n = confusion.sum(axis=(1, 2))
        correct = np.trace(confusion, axis1=1, axis2=2)
        true_positive = np.diagonal(confusion, axis1=1, axis2=2)
        actual, predicted = confusion.sum(axis=2), confusion.sum(axis=1)
        denominator = actual + predicted
        f1 = np.where(denominator > 0, 2 * true_positive / np.maximum(denominator, 1e-300), 0.0)
        bins = np.einsum("bg,gkc->bkc", w, self.bins)
        gap = np.abs(bins[..., 1] - bins[..., 2]).sum(axis=1)
        return {
            "accuracy": correct / n,
            "macro_f1": f1[:, self.present].mean(axis=1),
            "log_loss": (w @ self.log_loss) / n,
            "brier": (w @ self.brier) / n,
            "ece": gap / n,
        }

    def bootstrap(
        self, n_resamples: int, rng: np.random.Generator, confidence: float = 0.95
    ) -> dict[str, tuple[float, float]]:
        """Percentile confidence intervals of every metric from resampled groups."""
        weights = bootstrap_weights(self.n_groups, n_resamples, rng)
        samples = self.metrics(weights)
        tail = (1.0 - confidence) / 2 * 100
        return {
            name: (float(np.percentile(v, tail)), float(np.percentile(v, 100 - tail)))
            for name, v in samples.items()
        }


def bootstrap_weights(n_groups: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """How often each group is drawn in each resample: (n_resamples, n_groups) counts."""
    return rng.multinomial(n_groups, np.full(n_groups, 1.0 / n_groups), size=n_resamples).astype(
        float
    )


def paired_bootstrap_test(
    a: GroupedScores,
    b: GroupedScores,
    metric: str,
    n_resamples: int,
    rng: np.random.Generator,
) -> tuple[float, float]:
    """Difference ``a − b`` in a metric and its two-sided paired bootstrap p-value.

    Both agents must be scored on the same groups. The same resampled groups score both
    agents, so votes shared by the two predictions cancel. The p-value is twice the share of
    resamples on the far side of zero (at least 1 / n_resamples).
    """
    if a.n_groups != b.n_groups:
        raise ValueError(f"agents scored on {a.n_groups} and {b.n_groups} groups; pair on the same")
    weights = bootstrap_weights(a.n_groups, n_resamples, rng)
    difference = a.metrics(weights)[metric] - b.metrics(weights)[metric]
    observed = float(a.metrics()[metric][0] - b.metrics()[metric][0])
    tail = min((difference <= 0).mean(), (difference >= 0).mean())
    return observed, float(min(1.0, max(2 * tail, 1.0 / n_resamples)))


def calibration_curve(
    y_true: np.ndarray, probs: np.ndarray, n_bins: int = 10
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top-label reliability: mean confidence, accuracy and count per non-empty bin."""
    scores = GroupedScores.from_predictions(y_true, probs, np.zeros(len(y_true)), n_bins=n_bins)
    count, confidence, correct = scores.bins[0].T
    keep = count > 0
    return confidence[keep] / count[keep], correct[keep] / count[keep], count[keep]
