"""envs.rllib: every env in Ray's registry; masked observations in RLlib's layout."""

from __future__ import annotations

import sys

import gymnasium as gym
import numpy as np
import pytest

import assembly_gym  # noqa: F401
from assembly_gym.core.errors import MissingDependencyError
from assembly_gym.envs import assembly_v0
from assembly_gym.envs.family import FAMILIES
from assembly_gym.envs.rllib import (
    MASKED_SUFFIX,
    MULTI_AGENT_ENVS,
    MaskedObservation,
    MaskedParallelEnv,
    register_rllib_envs,
)


def test_masked_observation_carries_the_env_mask(small_assembly):
    """At every step the mask is the env's own (as floats), beside the observation."""
    env = MaskedObservation(gym.make("assembly/Deliberation-v0", data=small_assembly))
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3):
        assert env.observation_space.contains(obs)
        assert obs["action_mask"].dtype == np.float32
        np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
        obs, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert not info["invalid_action"]
    assert terminated and not obs["action_mask"].any()


def test_masked_observation_needs_action_masks():
    with pytest.raises(TypeError, match="action_masks"):
        MaskedObservation(gym.make("CartPole-v1"))


def test_masked_parallel_env_renames_the_keys(small_assembly):
    inner = assembly_v0.parallel_env(variant="deliberation", data=small_assembly)
    env = MaskedParallelEnv(assembly_v0.parallel_env(variant="deliberation", data=small_assembly))
    expected, _ = inner.reset(seed=1)
    observations, _ = env.reset(seed=1)
    agent = env.agents[0]
    ours, theirs = observations[agent], expected[agent]
    assert env.observation_space(agent).contains(ours)
    np.testing.assert_array_equal(ours["observations"], theirs["observation"])
    np.testing.assert_array_equal(ours["action_mask"], theirs["action_mask"])
    stepped = env.step({a: 4 for a in env.agents})  # NO_ACTION: valid at every stage
    assert set(stepped[0][agent]) == {"action_mask", "observations"}


def test_without_ray_the_error_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails
    with pytest.raises(MissingDependencyError, match=r"assembly-gym\[ray\]"):
        register_rllib_envs()


@pytest.mark.ray
def test_every_id_is_registered_with_ray(ray_local):
    from ray.tune.registry import ENV_CREATOR, _global_registry

    names = register_rllib_envs()
    assert names == register_rllib_envs()  # a second call changes nothing
    assert set(names) == {*FAMILIES, *(i + MASKED_SUFFIX for i in FAMILIES), *MULTI_AGENT_ENVS}
    assert all(_global_registry.contains(ENV_CREATOR, name) for name in names)
    creator = _global_registry.get(ENV_CREATOR, "assembly/Deliberation-v0" + MASKED_SUFFIX)
    obs, _ = creator({"country": "Country 002"}).reset(seed=0)
    assert obs["action_mask"].tolist() == [1.0, 0.0, 0.0, 0.0, 1.0]


@pytest.mark.ray
def test_multi_agent_env_knows_every_possible_agent(ray_local, small_assembly):
    """RLlib sees every country, not just the first episode's members."""
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.tune.registry import ENV_CREATOR, _global_registry

    register_rllib_envs()
    creator = _global_registry.get(ENV_CREATOR, "assembly_v0-deliberation")
    env = creator({"data": small_assembly})
    assert isinstance(env, MultiAgentEnv)
    countries = list(small_assembly.data.country_names)
    assert env.possible_agents == countries
    assert all(env.get_observation_space(c)["action_mask"].shape == (5,) for c in countries)
    observations, _ = env.reset(seed=0)
    assert set(observations) <= set(countries)
