"""Synthetic actors with planted tendency mixtures: the ground truth of the debate's recovery.

A planted actor faces real (or synthetic-assembly) situations but acts by a known mixture:
for each observation i a tendency z_i ~ Categorical(w*) is drawn, then the action
y_i ~ p_{z_i}(· | x_i) from that tendency's claim. Training on the relabelled observations
should recover w*, and the planted owners z tell how well owners are predicted.
"""

from __future__ import annotations

import numpy as np

from assembly_gym.agents.debate.arena import ClaimSet
from assembly_gym.agents.debate.observations import Observations

__all__ = ["plant_mixture"]


def plant_mixture(
    observations: Observations,
    claims: ClaimSet,
    allocations: np.ndarray,
    *,
    rng: np.random.Generator,
) -> tuple[Observations, np.ndarray]:
    """Relabel observations with actions drawn from a planted mixture of claims.

    Args:
        observations: the situations (their actions are replaced).
        claims: the tendencies' claims on them, shape (K, N, A) with A ≥ 1.
        allocations: the planted mixture w*, shape (K,), summing to 1.
        rng: the random generator.

    Returns:
        The relabelled observations and the planted owner of each, shape (N,).

    Raises:
        ValueError: shapes that do not match, no actions, or weights that are not a distribution.
    """
    weights = np.asarray(allocations, dtype=np.float64)
    k, n, n_actions = claims.probs.shape
    if n != len(observations) or n_actions != observations.n_actions or n_actions == 0:
        raise ValueError("claims must cover every observation and its (at least one) actions")
    if weights.shape != (k,) or (weights < 0).any() or not np.isclose(weights.sum(), 1.0):
        raise ValueError(f"allocations must be a distribution over {k} tendencies")
    owners = rng.choice(k, size=(n,), p=weights / weights.sum())
    probs = claims.probs[owners, np.arange(n)]  # (N, A)
    if observations.masks is not None:
        probs = np.where(observations.masks, probs, 0.0)
        probs /= probs.sum(axis=1, keepdims=True)
    draws = rng.random((n, 1))
    actions = np.minimum((draws > np.cumsum(probs, axis=1)).sum(axis=1), n_actions - 1)
    relabelled = Observations(
        ids=observations.ids,
        features=observations.features,
        feature_names=observations.feature_names,
        actions=actions.astype(np.int64),
        action_names=observations.action_names,
        texts=observations.texts,
        masks=observations.masks,
    )
    return relabelled, owners
