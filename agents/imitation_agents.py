"""Reference agents from the ``imitation`` library, behind the agent protocol.

Behavioural cloning, GAIL/AIRL and MCE-IRL, each fitted on one country's demonstrations; the
action probabilities are those of the learned policy. Imitation is quiet here: its logger
writes to a temporary folder and progress bars are off unless asked.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Callable, Sequence
from typing import Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from threadpoolctl import threadpool_limits

from assembly_gym.agents.base import BaseAgent
from assembly_gym.agents.irl_agent import LinearRewardAgent
from assembly_gym.agents.sb3 import policy_probs
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.core.optional import require
from assembly_gym.core.seeding import isolated_seed
from assembly_gym.envs.legislative.demonstrations import Demonstration, to_imitation
from assembly_gym.envs.legislative.phi import ActionFeatureMap
from assembly_gym.irl.imitation_compat import decision_mdp, state_rewards, train_mce_irl

__all__ = ["AdversarialAgent", "BCAgent", "MCEIRLAgent"]


class BCAgent(BaseAgent):
    """Behavioural cloning (imitation's ``BC``) on one country's demonstrations.

    Args:
        n_actions: number of actions A.
        layout: observation names (sets the observation space's size).
        n_epochs: passes over the demonstrations.
        batch_size: demonstrations per gradient step.
        l2_weight: imitation's L2 penalty on the policy weights.
        seed: seeds imitation's ``rng`` and the policy's weights and batch order (so equal
            seeds give equal policies).
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
        require("imitation", extra="imitation", purpose="imitation's behavioural cloning")
        from imitation.algorithms import bc
        from imitation.util import logger as imitation_logger

        obs, _, _ = Demonstration.stack(demonstrations)
        observation_space = spaces.Box(0.0, 1.0, shape=(obs.shape[1],), dtype=np.float32)
        # BC draws the policy's initial weights and its batch order from torch's global
        # generator (it takes no torch.Generator): seed that, for this fit only.
        with isolated_seed(self.seed), tempfile.TemporaryDirectory() as folder:
            trainer = bc.BC(
                observation_space=observation_space,
                action_space=spaces.Discrete(self.n_actions),
                rng=np.random.default_rng(self.seed),
                demonstrations=to_imitation(demonstrations),
                batch_size=min(self.batch_size, len(obs)),  # imitation rejects a larger one
                l2_weight=self.l2_weight,
                device="cpu",
                custom_logger=imitation_logger.configure(folder, format_strs=[]),
            )
            with warnings.catch_warnings():  # imitation 1.0.1 logs a tensor that requires grad
                warnings.filterwarnings("ignore", "Converting a tensor with requires_grad")
                trainer.train(
                    n_epochs=self.n_epochs, progress_bar=self.progress, log_interval=10**9
                )
        self.policy_ = trainer.policy.eval()
        return self

    def _probs(self, obs: np.ndarray) -> np.ndarray:
        return policy_probs(self.policy_, obs)


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
        seed: seeds imitation's ``rng``, the reward net's weights, PPO and the env.
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
        require("imitation", extra="imitation", purpose=f"imitation's {self.algorithm.upper()}")
        from imitation.algorithms.adversarial.airl import AIRL
        from imitation.algorithms.adversarial.gail import GAIL
        from imitation.rewards.reward_nets import BasicRewardNet, BasicShapedRewardNet
        from imitation.util import logger as imitation_logger
        from imitation.util.networks import RunningNorm
        from stable_baselines3 import PPO
        from stable_baselines3.common.vec_env import DummyVecEnv

        if not demonstrations:
            raise ValueError("no demonstrations to fit on")
        # The reward net's initial weights come from torch's global generator, and SB3's
        # seed= reseeds the global generators: both are confined to this fit.
        with isolated_seed(self.seed), tempfile.TemporaryDirectory() as folder:
            venv = DummyVecEnv([lambda: self.make_env(demonstrations)])
            venv.seed(self.seed)
            learner = PPO("MlpPolicy", venv, n_steps=self.n_steps, batch_size=64, seed=self.seed,
                          device="cpu", verbose=0)  # fmt: skip
            net_class, trainer_class = (
                (BasicRewardNet, GAIL) if self.algorithm == "gail" else (BasicShapedRewardNet, AIRL)
            )
            reward_net = net_class(venv.observation_space, venv.action_space,
                                   normalize_input_layer=RunningNorm)  # fmt: skip
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
        return policy_probs(self.policy_, obs)


class MCEIRLAgent(LinearRewardAgent):
    """imitation's MCE-IRL on one country's roll calls: a linear reward over φ(s, a).

    :func:`assembly_gym.irl.imitation_compat.decision_mdp` encodes the country's decisions as
    a tabular MDP whose state reward is w·φ(s, a), so imitation's ``MCEIRL`` learns the
    multinomial logit of the linear reward kind (:mod:`assembly_gym.irl.linear`) by Adam steps;
    held-out roll calls are predicted with the same softmax (masked). Its dense (S, A, S)
    transitions (S = N·(1 + A) + 1) grow as N², so it learns from the last ``max_decisions``
    decisions only. The encoding and its cost: docs/irl_agents.md.

    Args:
        n_actions: number of actions A.
        layout: observation names (optional).
        max_decisions: the most recent decisions kept for training.
        l2: Gaussian prior precision on w (raw features), in decisions: imitation's Adam
            weight decay ``l2 / N``, as its gradient is an average over decisions. imitation's
            default, none, lets the weights of separable votes grow without bound; a weak
            unit prior keeps the optimum finite.
        lr: Adam's learning rate (imitation's default 0.01).
        max_iter: imitation's maximum gradient steps (its default 1,000).
        grad_l2_eps: stop when the gradient's norm falls below it (imitation's default; its
            other rule, an l∞ occupancy gap below 1e-3, is off: here it would stop at once).
        seed: seed of the reward net's initial weights and imitation's generator.

    Attributes:
        theta_: the learned weights w as a matrix, shape (A, 1 + d) (yes, no, abstain rows).
        train_seconds_: wall time of imitation's ``MCEIRL.train``.
    """

    name = "imitation MCE-IRL"

    def __init__(self, n_actions: int = 3, layout: ObservationLayout | None = None, *,
                 max_decisions: int = 200, l2: float = 1.0, lr: float = 1e-2, max_iter: int = 1000,
                 grad_l2_eps: float = 1e-4, seed: int = 0) -> None:  # fmt: skip
        super().__init__(n_actions, layout)
        if max_decisions < 1 or l2 < 0:
            raise ValueError(f"max_decisions must be ≥ 1 and l2 ≥ 0, got {max_decisions}, {l2}")
        self.max_decisions, self.l2, self.lr = max_decisions, l2, lr
        self.max_iter, self.grad_l2_eps, self.seed = max_iter, grad_l2_eps, seed

    def fit(self, demonstrations: Sequence[Demonstration]) -> MCEIRLAgent:
        """Train imitation's MCEIRL on the country's last ``max_decisions`` decisions.

        Raises:
            ValueError: for no demonstrations, another number of actions, or masked actions
                (imitation's MCEIRL has no action masks).
        """
        recent = slice(-self.max_decisions, None)
        obs, acts, masks = (array[recent] for array in Demonstration.stack(demonstrations))
        self._check_actions(masks.shape[1])
        if not masks.all():
            raise ValueError("imitation's MCEIRL has no action masks: every action must be valid")
        width = obs.shape[1]
        feature_map = ActionFeatureMap(
            [str(i) for i in range(width)], [str(a) for a in range(self.n_actions)]
        )
        # One thread (BLAS and torch's OpenMP): imitation's products are small, and on the busy
        # 2-core reference machine a second BLAS thread made each occupancy pass 14× slower.
        with threadpool_limits(limits=1):
            net, self.train_seconds_ = train_mce_irl(
                *decision_mdp(feature_map(obs), acts), seed=self.seed, max_iter=self.max_iter,
                lr=self.lr, weight_decay=self.l2 / len(acts), linf_eps=0.0,
                grad_l2_eps=self.grad_l2_eps,
            )  # fmt: skip
        # The net is linear (w·φ + b): read w off the unit vectors; b cancels in the softmax.
        k = feature_map.n_features
        weights = state_rewards(net, np.eye(k)) - state_rewards(net, np.zeros((1, k)))
        self.theta_ = weights.reshape(feature_map.weight_shape)
        return self
