"""The "habit" reward kind: r_c(s, a) = log of c's training frequency of a, in every state.

Frequencies are smoothed by ``pseudo_votes`` per action (default 1, as the majority
baseline's), so the kind's policy is that baseline's. Saved in the manifest (one list of
log frequencies per country).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assembly_gym.core.artifact import Artifact
from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import checked_field
from assembly_gym.irl.base import Decisions, RewardModel, register_reward_kind


@dataclass(frozen=True)
class HabitRewardModel(RewardModel):
    """Every country's smoothed log action frequencies, the same whatever it sees.

    Attributes:
        log_frequencies: (C, A).
    """

    kind = "habit"

    log_frequencies: np.ndarray

    @classmethod
    def fit(cls, decisions: Decisions, *, progress: bool = False, **settings: Any) -> RewardModel:
        """Count each country's actions (``settings``: ``pseudo_votes`` per action, 1)."""
        pseudo_votes = float(settings.get("pseudo_votes", 1.0))
        n_actions = len(decisions.action_names)
        counts = np.stack([
            np.bincount(decisions.of(row)[1], minlength=n_actions) + pseudo_votes
            for row in range(len(decisions.countries))
        ])  # fmt: skip
        log_frequencies = np.log(counts / counts.sum(axis=1, keepdims=True))
        return cls(decisions.countries, decisions.action_names, decisions.obs_names,
                   log_frequencies, info={"pseudo_votes": pseudo_votes})  # fmt: skip

    def logits(self, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """The rows' countries' log frequencies, (N,) → (N, A); ``obs`` is not read."""
        return self.log_frequencies[np.asarray(rows)]

    def _parts(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        rows = dict(zip(self.countries, self.log_frequencies.tolist(), strict=True))
        return {"log_frequencies": rows}, {}

    @classmethod
    def _from_parts(cls, common: dict[str, Any], saved: Artifact, source: Path) -> RewardModel:
        rows = checked_field(saved.manifest, "log_frequencies", dict, source, items=list)
        if tuple(rows) != common["countries"]:
            raise CheckpointError(f"{source}: the frequencies are not those of the countries")
        return cls(log_frequencies=np.array(list(rows.values()), dtype=np.float64), **common)


register_reward_kind("habit", HabitRewardModel)
