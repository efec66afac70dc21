"""Metrics of predicted action distributions against what countries actually did."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score, f1_score, log_loss

__all__ = ["argmax_random_ties", "chance_metrics", "classification_metrics"]


def classification_metrics(y_true: np.ndarray, probs: np.ndarray) -> dict[str, float]:
    """Accuracy, macro-F1 and log-loss (nats) of predicted distributions.

    Args:
        y_true: actual actions, shape (N,).
        probs: predicted probabilities, shape (N, A), rows summing to 1.

    Returns:
        ``accuracy`` and ``macro_f1`` of the most likely action (ties broken at random;
        macro-F1 over the actions
        that occur in ``y_true``), ``log_loss`` of the distributions, and ``n``.
    """
    y_true = np.asarray(y_true)
    probs = np.asarray(probs, dtype=np.float64)
    if probs.ndim != 2 or len(probs) != len(y_true):
        raise ValueError(f"probs must have shape ({len(y_true)}, A), got {probs.shape}")
    if len(y_true) == 0:
        raise ValueError("no predictions to score")
    predicted = argmax_random_ties(probs)
    labels = np.unique(y_true)
    return {
        "accuracy": float(accuracy_score(y_true, predicted)),
        "macro_f1": float(
            f1_score(y_true, predicted, labels=labels, average="macro", zero_division=0)
        ),
        "log_loss": float(
            log_loss(y_true, np.clip(probs, 1e-15, 1.0), labels=np.arange(probs.shape[1]))
        ),
        "n": int(len(y_true)),
    }


def argmax_random_ties(probs: np.ndarray, seed: int = 0) -> np.ndarray:
    """Most likely action per row, ties broken uniformly at random (seeded), shape (N,).

    A plain argmax picks the first of tied actions, which would credit a uniform guesser
    with the accuracy of always predicting action 0.
    """
    rng = np.random.default_rng(seed)
    best = probs >= probs.max(axis=1, keepdims=True) - 1e-12
    noise = rng.random(probs.shape)
    return np.where(best, noise, -1.0).argmax(axis=1)


def chance_metrics(n_actions: int) -> dict[str, float]:
    """What a uniform guess scores: accuracy 1/A and log-loss log A."""
    return {"accuracy": 1.0 / n_actions, "log_loss": float(np.log(n_actions))}
