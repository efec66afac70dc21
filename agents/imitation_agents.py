"""Reference agents from the ``imitation`` library, behind the agent protocol.

:class:`BCAgent` is imitation's behavioural cloning (``imitation.algorithms.bc.BC``);
:class:`AdversarialAgent` is GAIL or AIRL (``imitation.algorithms.adversarial``) with an SB3
PPO generator trained in an env built for the country. Both are fitted on one country's
demonstrations; their action probabilities are those of the learned policy. Imitation is
quiet here: its logger writes to a temporary folder and progress bars are off unless asked.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from typing import Literal

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces

from agents.base import BaseAgent, stack_demonstrations
from envs.legislative.demonstrations import Demonstration, to_imitation
from envs.legislative.spaces import ObservationLayout

__all__ = ["AdversarialAgent", "BCAgent"]


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


class AdversarialAgent(BaseAgent):
    """GAIL or AIRL (imitation) on one country's demonstrations, with a PPO generator.

    The generator acts in ``make_env(demonstrations)`` (e.g. ``Deliberation-v0`` for the
    country); the discriminator tells its transitions from the demonstrated ones. AIRL's
    discriminator is a shaped reward network, GAIL's a plain one.

    Args:
        n_actions: number of actions A.
        layout: observation names.
        make_env: builds the generator's env from the country's demonstrations.
        algorithm: "gail" or "airl".
        total_timesteps: generator environment steps.
        seed: seeds imitation's ``rng``, torch and PPO.
        n_steps: PPO rollout length (also the generator's steps per round).
    """

    name = "imitation adversarial"

    def __init__(
        self, n_actions: int = 5, layout: ObservationLayout | None = None, *,
        make_env: Callable[[Sequence[Demonstration]], gym.Env],
        algorithm: Literal["gail", "airl"] = "gail", total_timesteps: int = 8192, seed: int = 0,
        n_steps: int = 512,
    ) -> None:  # fmt: skip
        super().__init__(n_actions, layout)
        if algorithm not in ("gail", "airl"):
            raise ValueError(f"algorithm must be 'gail' or 'airl', got {algorithm!r}")
        self.make_env, self.algorithm = make_env, algorithm
        self.total_timesteps, self.seed, self.n_steps = total_timesteps, seed, n_steps

    def fit(self, demonstrations: Sequence[Demonstration]) -> AdversarialAgent:
        """Train the generator against the discriminator on the demonstrations."""
        from imitation.algorithms.adversarial.airl import AIRL
        from imitation.algorithms.adversarial.gail import GAIL
        from imitation.rewards.reward_nets import BasicRewardNet, BasicShapedRewardNet
        from imitation.util import logger as imitation_logger
        from imitation.util.networks import RunningNorm
        from stable_baselines3 import PPO
        from stable_baselines3.common.vec_env import DummyVecEnv

        if not demonstrations:
            raise ValueError("no demonstrations to fit on")
        torch.manual_seed(self.seed)
        venv = DummyVecEnv([lambda: self.make_env(demonstrations)])
        venv.seed(self.seed)
        learner = PPO("MlpPolicy", venv, n_steps=self.n_steps, batch_size=64, seed=self.seed,
                      device="cpu", verbose=0)  # fmt: skip
        net_class, trainer_class = (
            (BasicRewardNet, GAIL) if self.algorithm == "gail" else (BasicShapedRewardNet, AIRL)
        )
        reward_net = net_class(venv.observation_space, venv.action_space,
                               normalize_input_layer=RunningNorm)  # fmt: skip
        with tempfile.TemporaryDirectory() as folder:
            trainer = trainer_class(
                demonstrations=to_imitation(demonstrations),
                demo_batch_size=min(256, sum(len(d) for d in demonstrations)),
                gen_replay_buffer_capacity=self.n_steps,
                n_disc_updates_per_round=4,
                venv=venv,
                gen_algo=learner,
                reward_net=reward_net,
                custom_logger=imitation_logger.configure(folder, format_strs=[]),
            )
            trainer.train(self.total_timesteps)
        self.policy_ = learner.policy.eval()
        venv.close()
        return self

    def _probs(self, obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            distribution = self.policy_.get_distribution(torch.as_tensor(obs, dtype=torch.float32))
            return distribution.distribution.probs.numpy().astype(np.float64)
