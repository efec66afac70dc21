"""The agent protocol: all that acts is fitted on demonstrations and gives action probabilities.

An :class:`Agent` models one actor (a country): ``fit`` it on that actor's demonstrations, then
ask ``action_probs(obs, mask)`` (masked actions get zero). Where there is no label to
forecast, an :class:`EpisodicAgent` plays a task's held-out episodes instead (``play``) and
hands back :class:`EpisodeScores`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.demonstrations import Demonstration

__all__ = ["Agent", "BaseAgent", "EpisodeScores", "EpisodicAgent", "apply_mask"]


@runtime_checkable
class Agent(Protocol):
    """What the harness needs from an agent."""

    name: str

    def fit(self, demonstrations: Sequence[Demonstration]) -> Agent:
        """Learn from one country's demonstrations; returns self."""
        ...

    def action_probs(self, obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Probabilities of each action, (N, d) observations → (N, A), rows sum to 1."""
        ...

    def act(
        self,
        obs: np.ndarray,
        mask: np.ndarray | None = None,
        *,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        """Actions for a batch, shape (N,): sampled when ``rng`` is given, else the most likely."""
        ...


@dataclass(frozen=True)
class EpisodeScores:
    """An episodic agent's scores on a task's held-out episodes.

    Attributes:
        scores: metric name → one value per held-out episode, shape (n_episodes,), in the
            task's episode order (NaN everywhere: the metric does not apply to this agent).
        fit_seconds: wall time of fitting the agent.
        predict_seconds: wall time of its decisions and predictions on the episodes.
    """

    scores: Mapping[str, np.ndarray]
    fit_seconds: float
    predict_seconds: float

    def __post_init__(self) -> None:
        lengths = {name: np.shape(values) for name, values in self.scores.items()}
        if not lengths or len(set(lengths.values())) != 1 or len(next(iter(lengths.values()))) != 1:
            raise ValueError(f"scores must be 1-D arrays of one length per metric, got {lengths}")


@runtime_checkable
class EpisodicAgent(Protocol):
    """What an episodic benchmark suite needs from an agent.

    ``name`` and ``baseline`` are read-only here, so that frozen dataclasses conform.
    """

    @property
    def name(self) -> str:
        """The name in the table."""
        ...

    @property
    def baseline(self) -> bool:
        """Whether it is a simple baseline (the paired test compares with the best one)."""
        ...

    def play(self, task: Any, options: Any) -> EpisodeScores:
        """Fit on the task's training data, then play its held-out episodes.

        Args:
            task: the suite's task (what its ``make_task`` built).
            options: the run's settings (the benchmark suites' ``Options``).
        """
        ...


def apply_mask(probs: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """Zero out masked actions and renormalise; rows with no mass become uniform over valid ones.

    Args:
        probs: shape (N, A), non-negative.
        mask: shape (N, A) or (A,) bool, or None for "all valid".

    Raises:
        ValueError: when a row of the mask allows no action (no distribution exists).
    """
    probs = np.asarray(probs, dtype=np.float64)
    if mask is None:
        valid = np.ones_like(probs, dtype=bool)
    else:
        valid = np.broadcast_to(np.asarray(mask, dtype=bool), probs.shape)
    empty = ~valid.any(axis=1)
    if empty.any():
        raise ValueError(
            f"mask row {int(np.flatnonzero(empty)[0])} allows no action; "
            "ask for probabilities only where the env has a valid action"
        )
    masked = np.where(valid, probs, 0.0)
    total = masked.sum(axis=1, keepdims=True)
    uniform = valid / np.maximum(valid.sum(axis=1, keepdims=True), 1)
    return np.where(total > 0, masked / np.where(total > 0, total, 1.0), uniform)


class BaseAgent:
    """Shared behaviour: ``act`` from ``action_probs``, a name, the observation layout.

    Subclasses implement ``fit`` and ``_probs(obs) -> (N, A)``; masking is applied here.

    Args:
        n_actions: number of actions A.
        layout: names of the observation dimensions (needed by agents that read named ones).
    """

    name = "agent"

    def __init__(self, n_actions: int = 3, layout: ObservationLayout | None = None) -> None:
        if n_actions < 1:
            raise ValueError(f"n_actions must be ≥ 1, got {n_actions}")
        self.n_actions = n_actions
        self.layout = layout

    def fit(self, demonstrations: Sequence[Demonstration]) -> BaseAgent:
        """Default: nothing to learn."""
        return self

    def _probs(self, obs: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def action_probs(self, obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Probabilities of each action, (N, d) → (N, A); masked actions get zero."""
        obs = np.atleast_2d(np.asarray(obs, dtype=np.float32))
        return apply_mask(self._probs(obs), mask)

    def act(
        self,
        obs: np.ndarray,
        mask: np.ndarray | None = None,
        *,
        rng: np.random.Generator | None = None,
    ) -> np.ndarray:
        """Most likely actions, or actions sampled with ``rng``; shape (N,)."""
        probs = self.action_probs(obs, mask)
        if rng is None:
            return probs.argmax(axis=1)
        draws = rng.random(len(probs))[:, None]
        return np.minimum((draws > np.cumsum(probs, axis=1)).sum(axis=1), probs.shape[1] - 1)

    def _require_layout(self) -> ObservationLayout:
        if self.layout is None:
            raise ValueError(f"{type(self).__name__} needs the env's observation layout (layout=…)")
        return self.layout
