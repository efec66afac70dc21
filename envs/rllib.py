"""RLlib sees the envs: every id in Ray's registry, action masks where its masking module looks.

RLlib builds envs from Ray's own registry, on its env runners, from a name and an
``env_config``. :func:`register_rllib_envs` registers the names docs/ray.md, section "RLlib",
lists. Masked observations are the layout of RLlib's ``ActionMaskingTorchRLModule`` (the
mask as floats: the module adds log(mask) to the logits).

Example:
    >>> import gymnasium as gym
    >>> env = MaskedObservation(gym.make("assembly/Deliberation-v0", country="Country 002"))
    >>> obs, info = env.reset(seed=0)
    >>> sorted(obs), obs["action_mask"].tolist()
    (['action_mask', 'observations'], [1.0, 0.0, 0.0, 0.0, 1.0])
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseParallelWrapper

from assembly_gym.core.optional import require
from assembly_gym.envs.family import FAMILIES  # importing envs registers the families
from assembly_gym.envs.multiagent.assembly import parallel_env
from assembly_gym.envs.multiagent.base import AssemblyEnvBase

__all__ = [
    "MASKED_SUFFIX",
    "MULTI_AGENT_ENVS",
    "MaskedObservation",
    "MaskedParallelEnv",
    "masked_space",
    "register_rllib_envs",
]

MASKED_SUFFIX = "-masked"
"""Suffix of the names whose observations carry the action mask (``"assembly/…-v0-masked"``)."""
MULTI_AGENT_ENVS: dict[str, str] = {
    "assembly_v0": "rollcall",
    "assembly_v0-deliberation": "deliberation",
}
"""Ray name of each multi-agent env → the variant of ``assembly_v0`` it builds."""


def masked_space(observation_space: gym.Space, n_actions: int) -> spaces.Dict:
    """The masked observation space: ``{"action_mask": (n_actions,) float32, "observations"}``."""
    mask = spaces.Box(0.0, 1.0, (n_actions,), np.float32)
    return spaces.Dict({"action_mask": mask, "observations": observation_space})


def _masked(observation: Any, mask: np.ndarray) -> dict[str, Any]:
    """One masked observation: the mask (A,) as float32 beside the observation."""
    return {"action_mask": np.asarray(mask, dtype=np.float32), "observations": observation}


class MaskedObservation(gym.ObservationWrapper):
    """A single-agent env's observation with its action mask: see :func:`masked_space`.

    The mask is the env's ``action_masks()`` after each reset and step (all zeros once an
    episode has ended, where no action is sampled).

    Args:
        env: an env with a ``Discrete`` action space and an ``action_masks()`` method
            (every ``assembly/`` id has one).

    Raises:
        TypeError: the env has another action space or no ``action_masks()``.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        if not isinstance(env.action_space, spaces.Discrete):
            raise TypeError(f"masking needs a Discrete action space, got {env.action_space}")
        if not callable(getattr(env.unwrapped, "action_masks", None)):
            raise TypeError(f"{env.unwrapped} has no action_masks() to mask actions with")
        self.observation_space = masked_space(env.observation_space, int(env.action_space.n))

    def observation(self, observation: Any) -> dict[str, Any]:
        """The observation and the current action mask, as a dict."""
        return _masked(observation, self.env.unwrapped.action_masks())  # type: ignore[attr-defined]


class MaskedParallelEnv(BaseParallelWrapper):
    """``assembly_v0`` with each agent's ``{"observation", "action_mask"}`` in RLlib's layout.

    Every agent sees ``{"action_mask": (A,) float32, "observations": (d,)}``
    (:func:`masked_space`); actions, rewards and infos are unchanged.

    Args:
        env: a parallel env of :func:`~assembly_gym.envs.multiagent.assembly.parallel_env`.
    """

    def __init__(self, env: AssemblyEnvBase) -> None:
        super().__init__(env)
        agent = env.possible_agents[0]
        observation = env.observation_space(agent)["observation"]
        self._space = masked_space(observation, int(env.action_space(agent).n))

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Reset the env; observations in the masked layout."""
        observations, infos = self.env.reset(seed=seed, options=options)
        return self._convert(observations), infos

    def step(self, actions: dict[str, Any]) -> tuple[
        dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]
    ]:  # fmt: skip
        """Step the env; observations in the masked layout."""
        observations, *rest = self.env.step(actions)
        return (self._convert(observations), *rest)

    def observation_space(self, agent: str) -> spaces.Dict:
        """The masked observation space, one object for every agent."""
        return self._space

    @staticmethod
    def _convert(observations: Mapping[str, dict[str, np.ndarray]]) -> dict[str, Any]:
        return {
            agent: _masked(obs["observation"], obs["action_mask"])
            for agent, obs in observations.items()
        }


def _make_single(env_id: str, env_config: Mapping[str, Any], *, masked: bool = False) -> gym.Env:
    """The creator of a single-agent name: ``gym.make(env_id, **env_config)``, masked if asked."""
    env = gym.make(env_id, **env_config)
    return MaskedObservation(env) if masked else env


def _make_multi(variant: str, env_config: Mapping[str, Any]) -> Any:
    """The creator of a multi-agent name: ``assembly_v0`` as an RLlib ``MultiAgentEnv``.

    RLlib's ``ParallelPettingZooEnv`` takes the agents of the first episode for all of them;
    here every country of the data is a possible agent (a session's members change).
    """
    require("ray", extra="ray", purpose="RLlib's multi-agent assembly_v0")
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    parallel = MaskedParallelEnv(parallel_env(variant, **env_config))
    env = ParallelPettingZooEnv(parallel)
    agents = list(parallel.possible_agents)
    env.possible_agents = agents
    env.observation_space = spaces.Dict({a: parallel.observation_space(a) for a in agents})
    env.action_space = spaces.Dict({a: parallel.action_space(a) for a in agents})
    return env


def register_rllib_envs() -> list[str]:
    """Register every env with Ray's registry, for RLlib (safe to call twice).

    Registers the ids of ``FAMILIES``, each again with :data:`MASKED_SUFFIX`, and
    :data:`MULTI_AGENT_ENVS`; an RLlib config then names the env:
    ``PPOConfig().environment("assembly/RollCall-v0", env_config={"country": "Country 001"})``.

    Returns:
        The registered names.

    Raises:
        MissingDependencyError: Ray is not installed (``pip install 'assembly-gym[ray]'``).
    """
    require("ray", extra="ray", purpose="registering the envs with RLlib")
    from ray.tune.registry import register_env

    creators: dict[str, Any] = {}
    for env_id in FAMILIES:
        creators[env_id] = functools.partial(_make_single, env_id)
        creators[env_id + MASKED_SUFFIX] = functools.partial(_make_single, env_id, masked=True)
    for name, variant in MULTI_AGENT_ENVS.items():
        creators[name] = functools.partial(_make_multi, variant)
    for name, creator in creators.items():
        register_env(name, creator)
    return list(creators)
