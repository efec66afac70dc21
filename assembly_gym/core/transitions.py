"""A batch of transitions (s, a, s', done): what world models learn and env families build.

Each env family's transitions builder (:attr:`assembly_gym.envs.family.EnvFamily.transitions`)
returns one, carrying the family's :class:`~assembly_gym.core.state.StateDeclaration`, so that
a model fitted on it knows what the dimensions are.

Example:
    >>> import numpy as np
    >>> t = Transitions(np.zeros((4, 2), np.float32), np.zeros(4, np.int64),
    ...                 np.ones((4, 2), np.float32), np.array([0, 1, 0, 1], bool),
    ...                 np.array([0, 0, 1, 1]), obs_names=("a", "b"))
    >>> t.episode_starts().tolist(), len(t.select(t.episodes == 1))
    ([0, 2], 2)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from assembly_gym.core.state import StateDeclaration

__all__ = ["Transitions"]


@dataclass(frozen=True)
class Transitions:
    """A batch of transitions (s, a, s', done) with the episode each belongs to.

    Transitions of one episode are contiguous and in time order.

    Attributes:
        obs: observations s, shape (N, d) float32.
        acts: actions, shape (N,) int64 (Discrete) or (N, k) int64 (MultiDiscrete).
        next_obs: next observations s', shape (N, d) float32.
        dones: whether s' ends the episode, shape (N,) bool.
        episodes: episode id of each transition, shape (N,) int64.
        obs_names: name of each observation dimension, length d.
        groups: the unit a split never cuts, shape (N,) int64, or None for the episode
            (Deliberation: the resolution, so that every country's view of one resolution
            falls in the same part).
        masks: actions valid in s, shape (N, n_actions) bool, or None when unknown.
        bounds: the observation space's (low, high), each shape (d,), or None when unknown.
        extras: named per-transition side information, each shape (N,) (e.g. ``"session"``,
            ``"voters"``: how many countries voted at the step).
        declaration: the state declaration of the env family the transitions come from
            (the empty one when unknown); a model fitted on them carries it.
    """

    obs: np.ndarray
    acts: np.ndarray
    next_obs: np.ndarray
    dones: np.ndarray
    episodes: np.ndarray
    obs_names: tuple[str, ...] = field(default=())
    groups: np.ndarray | None = None
    masks: np.ndarray | None = None
    bounds: tuple[np.ndarray, np.ndarray] | None = None
    extras: Mapping[str, np.ndarray] = field(default_factory=dict)
    declaration: StateDeclaration = StateDeclaration()

    def __post_init__(self) -> None:
        n = len(self.obs)
        if self.obs.ndim != 2 or self.next_obs.shape != self.obs.shape:
            raise ValueError(
                f"obs and next_obs must both have shape (N, d); got {self.obs.shape} and "
                f"{self.next_obs.shape}"
            )
        rows = {"acts": self.acts, "dones": self.dones, "episodes": self.episodes,
                "groups": self.groups, "masks": self.masks, **self.extras}  # fmt: skip
        for name, values in rows.items():
            if values is not None and len(values) != n:
                raise ValueError(f"{name} has {len(values)} rows, expected {n}")
        if self.obs_names and len(self.obs_names) != self.obs.shape[1]:
            raise ValueError(
                f"{len(self.obs_names)} observation names for {self.obs.shape[1]} dimensions"
            )
        if self.masks is not None and (self.masks.ndim != 2 or self.masks.dtype != bool):
            raise ValueError(f"masks must be bool of shape (N, n_actions), got {self.masks.shape}")
        if self.bounds is not None and any(b.shape != self.obs.shape[1:] for b in self.bounds):
            raise ValueError(f"bounds must be (low, high) of shape ({self.obs.shape[1]},) each")
        if n and not (np.isfinite(self.obs).all() and np.isfinite(self.next_obs).all()):
            raise ValueError("observations contain NaN or infinite values")

    def __len__(self) -> int:
        return len(self.obs)

    @property
    def split_units(self) -> np.ndarray:
        """What a split keeps together: :attr:`groups`, else :attr:`episodes`, shape (N,)."""
        return self.episodes if self.groups is None else self.groups

    def select(self, rows: np.ndarray) -> Transitions:
        """The transitions at the given row indices (or boolean mask)."""

        def take(values: np.ndarray | None) -> np.ndarray | None:
            return None if values is None else values[rows]

        return Transitions(
            self.obs[rows], self.acts[rows], self.next_obs[rows], self.dones[rows],
            self.episodes[rows], self.obs_names, take(self.groups), take(self.masks),
            self.bounds, {name: values[rows] for name, values in self.extras.items()},
            self.declaration,
        )  # fmt: skip

    def split_by_episode(
        self, fractions: Sequence[float], rng: np.random.Generator
    ) -> tuple[Transitions, ...]:
        """Split into parts of about the given fractions of *episodes* (never of transitions).

        Episodes that share a group (:attr:`groups`) always fall in the same part.

        Args:
            fractions: e.g. (0.6, 0.2, 0.2) for train/validation/test; must sum to 1.
            rng: the generator that shuffles the episodes (or groups).
        """
        if not np.isclose(sum(fractions), 1.0) or min(fractions) < 0:
            raise ValueError(f"fractions must be non-negative and sum to 1, got {fractions}")
        units = self.split_units
        unique = np.unique(units)
        rng.shuffle(unique)
        bounds = np.round(np.cumsum(fractions) * len(unique)).astype(int)
        parts = np.split(unique, bounds[:-1])
        return tuple(self.select(np.isin(units, part)) for part in parts)

    def episode_starts(self) -> np.ndarray:
        """Row of the first transition of every episode, in order, shape (n_episodes,)."""
        if len(self) == 0:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(np.r_[True, self.episodes[1:] != self.episodes[:-1]])

    @classmethod
    def concatenate(cls, parts: Sequence[Transitions]) -> Transitions:
        """One batch of several (same names, optional fields, bounds and declaration; ids kept)."""
        if not parts:
            raise ValueError("nothing to concatenate")
        first = parts[0]
        for part in parts[1:]:
            if part.obs_names != first.obs_names or set(part.extras) != set(first.extras):
                raise ValueError("parts differ in observation names or extras")
            if part.declaration != first.declaration:
                raise ValueError("parts differ in their state declaration")
            if (part.groups is None) != (first.groups is None) or (part.masks is None) != (
                first.masks is None
            ):
                raise ValueError("parts differ in which optional fields they have")

        def join(name: str) -> np.ndarray:
            return np.concatenate([getattr(p, name) for p in parts])

        def join_optional(name: str) -> np.ndarray | None:
            return None if getattr(first, name) is None else join(name)

        return cls(
            join("obs"), join("acts"), join("next_obs"), join("dones"), join("episodes"),
            first.obs_names, join_optional("groups"), join_optional("masks"), first.bounds,
            {name: np.concatenate([p.extras[name] for p in parts]) for name in first.extras},
            first.declaration,
        )  # fmt: skip
