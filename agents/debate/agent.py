"""The debate allocator as an agent: a calibrated mixture of legislative tendencies for one country.

Example:
    >>> from assembly_gym.core.layout import ObservationLayout
    >>> from assembly_gym.envs.legislative.demonstrations import rollcall_demonstrations
    >>> from assembly_gym.envs.legislative.observation import feature_names
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> data = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=4)).data
    >>> demos = rollcall_demonstrations(data, ["Country 001"])
    >>> agent = DebateAllocatorAgent(3, ObservationLayout(feature_names())).fit(demos)
    >>> agent.action_probs(demos[0].obs[:2], demos[0].masks[:2]).shape
    (2, 3)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from assembly_gym.agents.base import BaseAgent
from assembly_gym.agents.debate.arena import Arena
from assembly_gym.agents.debate.observations import VOTE_NAMES, observations_from_demonstrations
from assembly_gym.agents.debate.tendencies import Tendency, legislative_claims, tendency_agents
from assembly_gym.agents.debate.trainer import DebateResult, TrainConfig, Trainer, TrainHistory
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.demonstrations import Demonstration

__all__ = ["DebateAllocatorAgent"]


class DebateAllocatorAgent(BaseAgent):
    """Policy = allocation-weighted mixture of legislative tendencies, calibrated by debate.

    Args:
        n_actions: must be 3 (``RollCall-v0``: yes, no, abstain).
        layout: the env's observation layout (tendencies read features by name).
        tendencies: which tendencies compete (default all seven).
        config: training settings (default :class:`TrainConfig`).
        seed: seed of the trainer (train/validation split).
        arena: the debate rules (default :class:`Arena`).

    Attributes:
        allocations_: calibrated shares, shape (K,), after :meth:`fit`.
        history_: the training history, after :meth:`fit`.
        result_: the debate's result, after :meth:`fit`.
    """

    name = "debate"

    def __init__(self, n_actions: int = 3, layout: ObservationLayout | None = None, *,
                 tendencies: Iterable[Tendency] = tuple(Tendency),
                 config: TrainConfig | None = None, seed: int = 0,
                 arena: Arena | None = None) -> None:  # fmt: skip
        super().__init__(n_actions, layout)
        if n_actions != len(VOTE_NAMES):
            raise ValueError(
                f"the debate allocator votes yes/no/abstain (n_actions=3), got {n_actions}"
            )
        self.tendencies = tuple(dict.fromkeys(tendencies))
        self.config = config or TrainConfig()
        self.config.check_tendencies(len(self.tendencies))
        self.seed = seed
        self.arena = arena

    def fit(self, demonstrations: Sequence[Demonstration]) -> DebateAllocatorAgent:
        """Calibrate the allocations on one country's demonstrations."""
        observations = observations_from_demonstrations(demonstrations, self._require_layout())
        agents = tendency_agents(self.tendencies)
        trainer = Trainer(self.config, seed=self.seed, arena=self.arena)
        self.history_: TrainHistory
        self.result_: DebateResult
        self.history_, self.result_ = trainer.train(observations, agents)
        self.allocations_ = np.array([agent.allocation for agent in agents])
        return self

    @property
    def allocations(self) -> dict[str, float]:
        """Calibrated share of each tendency, by label (after :meth:`fit`)."""
        return {t.label: float(w) for t, w in zip(self.tendencies, self.allocations_, strict=True)}

    def _probs(self, obs: np.ndarray) -> np.ndarray:
        layout = self._require_layout()
        mixture = np.zeros((len(obs), self.n_actions))
        for tendency, share in zip(self.tendencies, self.allocations_, strict=True):
            mixture += share * legislative_claims(tendency, obs, layout)[0]
        return mixture
