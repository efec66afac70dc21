"""The world-model protocol: fit on transitions, predict distributions, sample, save and load.

Every learned transition model (frequency tables, MLP ensembles, the LeWorld memory system)
implements :class:`WorldModel`, so that ``assembly/Simulator-v0`` and the evaluation code
can run any of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Prediction", "Transitions", "WorldModel"]


@dataclass(frozen=True)
class Transitions:
    """A batch of transitions (s, a, s', done) with the episode each belongs to.

    Attributes:
        obs: observations s, shape (N, d) float32.
        acts: actions, shape (N,) int64 (Discrete) or (N, k) int64 (MultiDiscrete).
        next_obs: next observations s', shape (N, d) float32.
        dones: whether s' ends the episode, shape (N,) bool.
        episodes: episode id of each transition, shape (N,) int64 (splits never cut one).
        obs_names: name of each observation dimension, length d.
    """

    obs: np.ndarray
    acts: np.ndarray
    next_obs: np.ndarray
    dones: np.ndarray
    episodes: np.ndarray
    obs_names: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        n = len(self.obs)
        if self.obs.ndim != 2 or self.next_obs.shape != self.obs.shape:
            raise ValueError(
                f"obs and next_obs must both have shape (N, d); got {self.obs.shape} and "
                f"{self.next_obs.shape}"
            )
        for name in ("acts", "dones", "episodes"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} has {len(getattr(self, name))} rows, expected {n}")
        if self.obs_names and len(self.obs_names) != self.obs.shape[1]:
            raise ValueError(
                f"{len(self.obs_names)} observation names for {self.obs.shape[1]} dimensions"
            )
        if n and not (np.isfinite(self.obs).all() and np.isfinite(self.next_obs).all()):
            raise ValueError("observations contain NaN or infinite values")

    def __len__(self) -> int:
        return len(self.obs)

    def select(self, rows: np.ndarray) -> Transitions:
        """The transitions at the given row indices (or boolean mask)."""
        return Transitions(
            self.obs[rows], self.acts[rows], self.next_obs[rows], self.dones[rows],
            self.episodes[rows], self.obs_names,
        )  # fmt: skip

    def split_by_episode(
        self, fractions: Sequence[float], rng: np.random.Generator
    ) -> tuple[Transitions, ...]:
        """Split into parts of about the given fractions of *episodes* (never of transitions).

        Args:
            fractions: e.g. (0.6, 0.2, 0.2) for train/validation/test; must sum to 1.
            rng: the generator that shuffles the episodes.
        """
        if not np.isclose(sum(fractions), 1.0) or min(fractions) < 0:
            raise ValueError(f"fractions must be non-negative and sum to 1, got {fractions}")
        episodes = np.unique(self.episodes)
        rng.shuffle(episodes)
        bounds = np.round(np.cumsum(fractions) * len(episodes)).astype(int)
        parts = np.split(episodes, bounds[:-1])
        return tuple(self.select(np.isin(self.episodes, part)) for part in parts)


@dataclass(frozen=True)
class Prediction:
    """A model's predictive distribution of s' for a batch of (s, a).

    Attributes:
        mean: expected next observation, shape (N, d).
        std: aleatoric standard deviation per dimension, shape (N, d) (0 where a dimension
            is predicted by a categorical distribution).
        epistemic_std: disagreement between ensemble members, shape (N, d), or None.
        distributions: named categorical distributions over discrete parts of the state
            (e.g. "stage", "adopted", "plenary_yes_bin"), each of shape (N, K) with rows
            summing to 1.
    """

    mean: np.ndarray
    std: np.ndarray
    epistemic_std: np.ndarray | None = None
    distributions: dict[str, np.ndarray] = field(default_factory=dict)


@runtime_checkable
class WorldModel(Protocol):
    """What a simulator needs from a learned transition model."""

    obs_names: tuple[str, ...]

    def fit(self, transitions: Transitions) -> WorldModel:
        """Learn from transitions; returns self."""
        ...

    def predict(self, obs: np.ndarray, action: np.ndarray) -> Prediction:
        """Predictive distribution of s' for a batch: obs (N, d), action (N,) or (N, k)."""
        ...

    def sample(self, obs: np.ndarray, action: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One sampled s' per row, shape (N, d)."""
        ...

    def save(self, path: str | Path) -> None:
        """Save atomically into the folder ``path`` (config, layout, parameters, version)."""
        ...
