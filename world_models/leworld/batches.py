"""Tensor batches of the LeWorld world: sequences, and rows of single steps.

Batches are built on the CPU (from NumPy) and moved whole with ``to(device)``: once per
epoch or per batch, never per step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

import numpy as np
import torch

from assembly_gym.envs.memory.layout import MemoryLayout
from assembly_gym.envs.memory.world import Episodes

__all__ = ["SequenceBatch", "StepBatch"]

_Batch = TypeVar("_Batch", "StepBatch", "SequenceBatch")


def _map_tensors(batch: _Batch, fn: Callable[[torch.Tensor], torch.Tensor]) -> _Batch:
    """``batch`` with ``fn`` applied to each of its tensors (a None stays None)."""
    values = {f.name: getattr(batch, f.name) for f in fields(batch)}
    changes: dict[str, Any] = {k: None if v is None else fn(v) for k, v in values.items()}
    return replace(batch, **changes)


@dataclass(frozen=True)
class StepBatch:
    """Rows (s_{t−1}, s_t, c, t) → s_{t+1}.

    Attributes:
        s_prev, s: shape (N, state_dim) float32 (s_prev = s_0 at t = 0).
        c: shape (N, char_dim) float32.
        step: t, shape (N,) int64.
        target: s_{t+1}, shape (N, state_dim) float32.
        regions: the episode's regions (N, K, 3) int64 (N, K, 3 + T with pointer chasing),
            or None when unknown.
    """

    s_prev: torch.Tensor
    s: torch.Tensor
    c: torch.Tensor
    step: torch.Tensor
    target: torch.Tensor
    regions: torch.Tensor | None = None

    def __len__(self) -> int:
        return len(self.s)

    def to(self, device: torch.device | str) -> StepBatch:
        """The same rows on ``device`` (no copy where they already are)."""
        return _map_tensors(self, lambda tensor: tensor.to(device))

    def select(self, rows: torch.Tensor) -> StepBatch:
        """The rows at the given indices (on the rows' device)."""
        return _map_tensors(self, lambda tensor: tensor[rows])

    @classmethod
    def from_observations(
        cls, layout: MemoryLayout, sequence_length: int, obs: np.ndarray, next_obs: np.ndarray
    ) -> StepBatch:
        """Rows from ``MemoryDynamics-v0`` observations (N, d) and next observations."""

        def part(values: np.ndarray, name: str) -> torch.Tensor:
            return torch.as_tensor(layout.part(values, name), dtype=torch.float32)

        step = np.rint(layout.part(obs, "step")[:, 0] * sequence_length).astype(np.int64)
        return cls(
            part(obs, "s_prev"),
            part(obs, "s"),
            part(obs, "c"),
            torch.from_numpy(step),
            part(next_obs, "s"),
        )


@dataclass(frozen=True)
class SequenceBatch:
    """Whole sequences of the world.

    Attributes:
        states: s_0 … s_T, shape (B, T + 1, state_dim) float32.
        c: shape (B, char_dim) float32.
        regions: shape (B, K, 3) int64 (page, offset, length at step 0; with pointer
            chasing (B, K, 3 + T), then the page of every step), or None.
    """

    states: torch.Tensor
    c: torch.Tensor
    regions: torch.Tensor | None = None

    def __len__(self) -> int:
        return len(self.states)

    @property
    def sequence_length(self) -> int:
        """T."""
        return self.states.shape[1] - 1

    @classmethod
    def from_episodes(cls, episodes: Episodes) -> SequenceBatch:
        """Tensors of a batch of :class:`~assembly_gym.envs.memory.world.Episodes`."""
        return cls(
            torch.from_numpy(episodes.states),
            torch.from_numpy(episodes.c),
            torch.from_numpy(episodes.regions),
        )

    def to(self, device: torch.device | str) -> SequenceBatch:
        """The same sequences on ``device`` (no copy where they already are)."""
        return _map_tensors(self, lambda tensor: tensor.to(device))

    def select(self, rows: torch.Tensor) -> SequenceBatch:
        """The sequences at the given rows (on the sequences' device)."""
        return _map_tensors(self, lambda tensor: tensor[rows])

    def steps(self) -> StepBatch:
        """All transitions as rows, ordered sequence-major (row = b·T + t)."""
        b, t = len(self), self.sequence_length
        s = self.states[:, :-1]
        s_prev = torch.cat([self.states[:, :1], self.states[:, :-2]], dim=1)
        regions = None if self.regions is None else self.regions.repeat_interleave(t, dim=0)
        return StepBatch(
            s_prev.reshape(b * t, -1),
            s.reshape(b * t, -1),
            self.c.repeat_interleave(t, dim=0),
            torch.arange(t, device=self.states.device).repeat(b),
            self.states[:, 1:].reshape(b * t, -1),
            regions,
        )
