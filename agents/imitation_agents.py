"""Reference agents from the ``imitation`` library, behind the agent protocol.

:class:`BCAgent` is imitation's behavioural cloning (``imitation.algorithms.bc.BC``) trained
on one country's demonstrations; its action probabilities are those of the learned policy.
Imitation is quiet here: its logger writes to a temporary folder and its progress bar is off
unless asked for.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence

import numpy as np
import torch
from gymnasium import spaces

from agents.base import BaseAgent, stack_demonstrations
from envs.legislative.demonstrations import Demonstration, to_imitation
from envs.legislative.spaces import ObservationLayout

__all__ = ["BCAgent"]


class BCAgent(BaseAgent):
    """Behavioural cloning (imitation's ``BC``) on one country's demonstrations.

    Args:
        n_actions: number of actions A.
        layout: observation names (sets the observation space's size).
        n_epochs: passes over the demonstrations.
        batch_size: demonstrations per gradient step.
        l2_weight: imitation's L2 penalty on the policy weights.
        seed: seeds imitation's ``rng`` and torch (so equal seeds give equal policies).
        progress: show imitation's progress bar.
    """

    name = "imitation BC"

    def __init__(self, n_actions: int = 3, layout: ObservationLayout | None = None, *,
                 n_epochs: int = 5, batch_size: int = 64, l2_weight: float = 1e-4, seed: int = 0,
                 progress: bool = False) -> None:  # fmt: skip
        super().__init__(n_actions, layout)
        self.n_epochs, self.batch_size, self.l2_weight = n_epochs, batch_size, l2_weight
        self.seed, self.progress = seed, progress

    def fit(self, demonstrations: Sequence[Demonstration]) -> BCAgent:
        """Train the BC policy on the demonstrations' (observation, action) pairs."""
        from imitation.algorithms import bc
        from imitation.util import logger as imitation_logger

        obs, _, _ = stack_demonstrations(demonstrations)
        observation_space = spaces.Box(0.0, 1.0, shape=(obs.shape[1],), dtype=np.float32)
        torch.manual_seed(self.seed)  # the policy's initial weights come from torch's generator
        with tempfile.TemporaryDirectory() as folder:
            trainer = bc.BC(
                observation_space=observation_space,
                action_space=spaces.Discrete(self.n_actions),
                rng=np.random.default_rng(self.seed),
                demonstrations=to_imitation(demonstrations),
                batch_size=self.batch_size,
                l2_weight=self.l2_weight,
                device="cpu",
                custom_logger=imitation_logger.configure(folder, format_strs=[]),
            )
            trainer.train(n_epochs=self.n_epochs, progress_bar=self.progress, log_interval=10**9)
        self.policy_ = trainer.policy.eval()
        return self

    def _probs(self, obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            distribution = self.policy_.get_distribution(torch.as_tensor(obs, dtype=torch.float32))
            return distribution.distribution.probs.numpy().astype(np.float64)
