"""Agents trained by reinforcement learning: an SB3 policy learned inside an env, as an agent.

:class:`PolicyAgent`'s env is typically ``Simulator-v0`` (a learned world model) with the
country's learned reward as ``reward_fn``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal, cast

import gymnasium as gym
import numpy as np
import torch

from assembly_gym.agents.base import BaseAgent
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.core.seeding import isolated_seed
from assembly_gym.envs.legislative.demonstrations import Demonstration

if TYPE_CHECKING:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm
    from stable_baselines3.common.policies import ActorCriticPolicy

__all__ = ["PolicyAgent", "policy_probs"]

EnvFactory = Callable[[Sequence[Demonstration]], gym.Env]
"""Builds the training env of one country from its demonstrations (e.g. with its reward)."""


class PolicyAgent(BaseAgent):
    """An SB3 policy trained in an env built from a country's demonstrations.

    Args:
        n_actions: number of actions A.
        layout: observation names.
        make_env: builds the training env from the country's demonstrations.
        algorithm: "maskable_ppo" (sb3-contrib, uses the env's ``action_masks``) or "ppo".
        total_timesteps: environment steps of training.
        seed: seeds SB3 (weights, sampling) and the env.
        n_steps: steps per PPO rollout.
    """

    name = "sb3 policy"

    def __init__(
        self, n_actions: int = 5, layout: ObservationLayout | None = None, *,
        make_env: EnvFactory, algorithm: Literal["maskable_ppo", "ppo"] = "maskable_ppo",
        total_timesteps: int = 20_000, seed: int = 0, n_steps: int = 512,
    ) -> None:  # fmt: skip
        super().__init__(n_actions, layout)
        if algorithm not in ("maskable_ppo", "ppo"):
            raise ValueError(f"algorithm must be 'maskable_ppo' or 'ppo', got {algorithm!r}")
        if total_timesteps < n_steps:
            raise ValueError(f"total_timesteps ({total_timesteps}) must be ≥ n_steps ({n_steps})")
        self.make_env, self.algorithm = make_env, algorithm
        self.total_timesteps, self.seed, self.n_steps = total_timesteps, seed, n_steps

    def fit(self, demonstrations: Sequence[Demonstration]) -> PolicyAgent:
        """Build the env from the demonstrations and train the policy in it."""
        if not demonstrations:
            raise ValueError("no demonstrations to fit on")
        env = self.make_env(demonstrations)
        model_class: Callable[..., OnPolicyAlgorithm]
        if self.algorithm == "maskable_ppo":
            from sb3_contrib import MaskablePPO

            model_class = MaskablePPO
        else:
            from stable_baselines3 import PPO

            model_class = PPO
        with isolated_seed(self.seed):  # SB3's seed= reseeds the global generators
            model = model_class("MlpPolicy", env, n_steps=self.n_steps, batch_size=64,
                                seed=self.seed, device="cpu", verbose=0)  # fmt: skip
            model.learn(total_timesteps=self.total_timesteps)
        self.policy_ = model.policy.eval()
        env.close()
        return self

    def _probs(self, obs: np.ndarray) -> np.ndarray:
        return policy_probs(self.policy_, obs)


def policy_probs(
    policy: ActorCriticPolicy | MaskableActorCriticPolicy, obs: np.ndarray
) -> np.ndarray:
    """π(a | s) of an SB3 policy over Discrete actions, (N, d) → (N, A) float64."""
    with torch.no_grad():
        distribution = policy.get_distribution(torch.as_tensor(obs, dtype=torch.float32))
        # Discrete actions: SB3's distribution wraps a torch Categorical.
        categorical = cast("torch.distributions.Categorical", distribution.distribution)
        return categorical.probs.numpy().astype(np.float64)
