"""Classification metrics of predicted action distributions against the actions taken.

The package's one implementation of accuracy, macro-F1 (over the actions that occur),
log-loss (nats), multiclass Brier score (Σ_k (p_k − y_k)², averaged over predictions) and
top-label expected calibration error (ECE, equal-width confidence bins). The predicted
action is the most likely one, ties broken at random (:func:`argmax_random_ties`).

Every metric is a ratio of sums. :class:`GroupedScores` keeps, per group of predictions
(e.g. the votes of one roll call), the sums: confusion counts, summed log-loss and Brier
terms and calibration-bin counts; the metrics of any weighted combination of groups are
weighted sums of them (one matrix product per statistic), so a cluster bootstrap scores
thousands of resamples at once. That is why the metrics are written here instead of taken
from scikit-learn, which scores one set of predictions per call; the tests check every
value against scikit-learn.

Example:
    >>> import numpy as np
    >>> metrics = classification_metrics(np.array([0, 1]), np.array([[0.9, 0.1], [0.4, 0.6]]))
    >>> metrics["accuracy"], round(metrics["log_loss"], 4)
    (1.0, 0.3081)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "METRICS",
    "GroupedScores",
    "argmax_random_ties",
    "chance_metrics",
    "classification_metrics",
    "expected_calibration_error",
]

METRICS = ("accuracy", "macro_f1", "log_loss", "brier", "ece")
"""The metrics of :meth:`GroupedScores.metrics`, in order."""

_MIN_PROB = 1e-15
"""Probabilities are clipped to at least this before the log, so log-loss stays finite."""


def argmax_random_ties(probs: np.ndarray, seed: int = 0) -> np.ndarray:
    """Most likely action per row, ties broken uniformly at random (seeded).

    A plain argmax picks the first of tied actions, which would credit a uniform guesser
    with the accuracy of always predicting action 0.

    Args:
        probs: scores, shape (N, A).
        seed: seed of the tie-breaking.

    Returns:
        The chosen column of each row, shape (N,) int.
    """
    rng = np.random.default_rng(seed)
    best = probs >= probs.max(axis=1, keepdims=True) - 1e-12
    noise = rng.random(probs.shape)
    return np.where(best, noise, -1.0).argmax(axis=1)


@dataclass(frozen=True)
class GroupedScores:
    """Per-group sufficient statistics of predictions: every metric is a ratio of their sums.

    Attributes:
        confusion: (G, A, A) counts of (actual, predicted) per group.
        log_loss: (G,) summed −log p(actual) per group (nats).
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
        cls,
        y_true: np.ndarray,
        probs: np.ndarray,
        groups: np.ndarray | None = None,
        *,
        n_bins: int = 10,
    ) -> GroupedScores:
        """Statistics of predicted distributions, grouped.

        Args:
            y_true: actual actions, shape (N,) ints in 0..A − 1.
            probs: predicted probabilities, shape (N, A); clipped to at least 1e-15 and
                renormalised, so a zero probability gives a large but finite log-loss.
            groups: group label of each prediction (e.g. roll-call ids), shape (N,);
                None puts every prediction in one group.
            n_bins: equal-width confidence bins of the ECE.

        Raises:
            ValueError: for no predictions or ``probs`` not of shape (N, A).
        """
        y_true = np.asarray(y_true, dtype=np.int64)
        probs = np.asarray(probs, dtype=np.float64)
        if probs.ndim != 2 or len(probs) != len(y_true):
            raise ValueError(f"probs must have shape ({len(y_true)}, A), got {probs.shape}")
        if len(y_true) == 0:
            raise ValueError("no predictions to score")
        probs = np.clip(probs, _MIN_PROB, 1.0)
        probs = probs / probs.sum(axis=1, keepdims=True)
        if groups is None:
            group, n_groups = np.zeros(len(y_true), dtype=np.int64), 1
        else:
            _, group = np.unique(np.asarray(groups), return_inverse=True)
            n_groups = int(group.max()) + 1
        n_actions = probs.shape[1]
        predicted = argmax_random_ties(probs)
        rows = np.arange(len(y_true))
        confusion = np.zeros((n_groups, n_actions, n_actions))
        np.add.at(confusion, (group, y_true, predicted), 1.0)
        onehot = np.eye(n_actions)[y_true]
        log_loss = np.bincount(group, -np.log(probs[rows, y_true]), minlength=n_groups)
        brier = np.bincount(group, ((probs - onehot) ** 2).sum(axis=1), minlength=n_groups)
        bins = _calibration_bins(
            probs[rows, predicted], predicted == y_true, group, n_groups, n_bins
        )
        present = np.bincount(y_true, minlength=n_actions) > 0
        return cls(confusion, log_loss, brier, bins, present)

    @property
    def n_groups(self) -> int:
        """Number of groups G."""
        return len(self.log_loss)

    def metrics(self, weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Every metric of :data:`METRICS` for each row of group weights.

        Args:
            weights: (B, G) how often each group counts in each of B scorings (e.g.
                bootstrap resamples); None scores the data once (all weights 1).

        Returns:
            Metric name → values, shape (B,) ((1,) for ``weights=None``).
        """
        w = np.ones((1, self.n_groups)) if weights is None else np.atleast_2d(weights)
        confusion = np.einsum("bg,gij->bij", w, self.confusion)
        n = confusion.sum(axis=(1, 2))
        true_positive = np.diagonal(confusion, axis1=1, axis2=2)
        # F1 of an action = 2 TP / (actual + predicted), the same as 2 TP / (2 TP + FP + FN).
        denominator = confusion.sum(axis=2) + confusion.sum(axis=1)
        f1 = np.where(denominator > 0, 2 * true_positive / np.maximum(denominator, 1e-300), 0.0)
        return {
            "accuracy": true_positive.sum(axis=1) / n,
            "macro_f1": f1[:, self.present].mean(axis=1),
            "log_loss": (w @ self.log_loss) / n,
            "brier": (w @ self.brier) / n,
            "ece": _calibration_gap(np.einsum("bg,gkc->bkc", w, self.bins)),
        }


def classification_metrics(y_true: np.ndarray, probs: np.ndarray) -> dict[str, float]:
    """Accuracy, macro-F1 and log-loss (nats) of predicted distributions.

    Args:
        y_true: actual actions, shape (N,) ints in 0..A − 1.
        probs: predicted probabilities, shape (N, A), rows summing to 1.

    Returns:
        ``accuracy`` and ``macro_f1`` of the most likely action (ties broken at random;
        macro-F1 over the actions that occur in ``y_true``), ``log_loss`` of the
        distributions, and the number of predictions ``n``.

    Raises:
        ValueError: for no predictions or ``probs`` not of shape (N, A).
    """
    scores = GroupedScores.from_predictions(y_true, probs).metrics()
    metrics = {name: float(scores[name][0]) for name in ("accuracy", "macro_f1", "log_loss")}
    return metrics | {"n": len(y_true)}


def expected_calibration_error(
    confidence: np.ndarray, correct: np.ndarray, n_bins: int = 10
) -> float:
    """Σ_b (n_b / n) |accuracy_b − mean confidence_b| over equal-width confidence bins.

    Args:
        confidence: the probability given to each prediction, shape (N,) in [0, 1].
        correct: whether each prediction came true, shape (N,) bool.
        n_bins: number of bins over [0, 1].

    Returns:
        The ECE in [0, 1]; NaN for no predictions.
    """
    confidence = np.asarray(confidence, dtype=np.float64)
    if len(confidence) == 0:
        return np.nan
    group = np.zeros(len(confidence), dtype=np.int64)
    bins = _calibration_bins(confidence, np.asarray(correct, dtype=bool), group, 1, n_bins)
    return float(_calibration_gap(bins)[0])


def chance_metrics(n_actions: int) -> dict[str, float]:
    """What a uniform guess scores: accuracy 1/A and log-loss log A."""
    return {"accuracy": 1.0 / n_actions, "log_loss": float(np.log(n_actions))}


def _calibration_bins(
    confidence: np.ndarray, correct: np.ndarray, group: np.ndarray, n_groups: int, n_bins: int
) -> np.ndarray:
    """Per group and confidence bin: count, summed confidence, correct count; (G, n_bins, 3)."""
    bin_index = np.minimum((confidence * n_bins).astype(np.int64), n_bins - 1)
    bins = np.zeros((n_groups, n_bins, 3))
    cell = (group, bin_index)
    np.add.at(bins[..., 0], cell, 1.0)  # into views of bins
    np.add.at(bins[..., 1], cell, confidence)
    np.add.at(bins[..., 2], cell, correct.astype(np.float64))
    return bins


def _calibration_gap(bins: np.ndarray) -> np.ndarray:
    """ECE of bin statistics (..., n_bins, 3) → (...): Σ_b |confidence_b − correct_b| / n."""
    return np.abs(bins[..., 1] - bins[..., 2]).sum(axis=-1) / bins[..., 0].sum(axis=-1)
