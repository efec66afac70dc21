"""Smoothed frequency tables: Dirichlet shrinkage and its nested back-off, coarse to fine.

A frequency table with little data is pulled toward a prior with ``strength``
pseudo-observations: p = (counts + strength · prior) / (n + strength), the posterior mean
of a Dirichlet prior (:func:`smoothed`). :func:`nested_backoff` does this level by level:
each context is pulled toward the estimate of the coarser context it refines, so a context
with little data takes the coarser estimate and one never seen takes it entirely. An env's
fitted dynamics (dense contexts) and the world models' ``EmpiricalModel`` (the contexts seen
in training) both fit this way.

Example:
    >>> import numpy as np
    >>> country = np.array([0, 0, 0, 1])  # four observations, two countries
    >>> outcome = np.array([0, 0, 1, 1])  # two outcomes
    >>> levels = [(np.zeros(4, dtype=np.int64), np.zeros(1, dtype=np.int64)),  # everyone
    ...           (country, np.zeros(2, dtype=np.int64))]  # each country, refining everyone
    >>> tables = nested_backoff(levels, outcome, 2, 2.0, np.array([0.5, 0.5]))
    >>> tables[0].tolist(), tables[1].round(3).tolist()
    ([[0.5, 0.5]], [[0.6, 0.4], [0.333, 0.667]])
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = ["nested_backoff", "smoothed"]


def smoothed(counts: np.ndarray, prior: np.ndarray, strength: float) -> np.ndarray:
    """Counts shrunk toward a prior: (counts + strength · prior) / (n + strength).

    Args:
        counts: (weighted) counts of each outcome, shape (..., O).
        prior: the estimate to shrink toward, broadcastable to ``counts``.
        strength: pseudo-observations given to the prior (> 0).

    Returns:
        Probabilities, shape (..., O); the prior itself where nothing was counted.
    """
    return (counts + strength * prior) / (counts.sum(axis=-1, keepdims=True) + strength)


def nested_backoff(
    levels: Iterable[tuple[np.ndarray, np.ndarray]],
    outcome: np.ndarray,
    n_outcomes: int,
    smoothing: float,
    prior: np.ndarray,
    weight: np.ndarray | None = None,
) -> list[np.ndarray]:
    """Nested smoothed frequency tables, coarse to fine, each shrunk toward its parent's.

    Args:
        levels: per level, coarse first, ``(key, parent)``: the context key of every
            observation, shape (N,) int (−1: not counted at this level), and the key of the
            previous level that each of this level's K keys refines, shape (K,) int (the
            first level's keys all refine ``prior``: zeros).
        outcome: outcome index of each observation, shape (N,) int in [0, O).
        n_outcomes: number of outcomes O.
        smoothing: pseudo-observations given to the parent's estimate at each level (> 0).
        prior: estimate the first level is shrunk toward, shape (O,).
        weight: weight of each observation, shape (N,) (None: 1 each).

    Returns:
        Per level, the probabilities of each of its keys, shape (K, O).
    """
    outcome = np.asarray(outcome, dtype=np.int64)
    weight = np.ones(len(outcome)) if weight is None else np.asarray(weight, dtype=np.float64)
    table = np.asarray(prior, dtype=np.float64)[None, :]
    tables: list[np.ndarray] = []
    for key, parent in levels:
        counted = key >= 0
        n_keys = len(parent)
        counts = np.bincount(
            key[counted] * n_outcomes + outcome[counted],
            weight[counted],
            minlength=n_keys * n_outcomes,
        ).reshape(n_keys, n_outcomes)
        table = smoothed(counts, table[parent], smoothing)
        tables.append(table)
    return tables
