"""agents.rllib: one PPO iteration per config (single agent, masked, multi-agent), bloc mapping."""

from __future__ import annotations

import math
import pickle

import gymnasium as gym
import numpy as np
import pytest

from assembly_gym.agents.rllib import (
    PolicyMapping,
    assembly_ppo_config,
    bloc_policy_mapping,
    masked_ppo_config,
    ppo_config,
)
from assembly_gym.envs.rllib import MaskedObservation
from assembly_gym.irl.base import RewardModel
from assembly_gym.irl.rollcall import fit_reward_model

pytestmark = pytest.mark.filterwarnings(
    "ignore:.*Overriding environment rllib-:UserWarning"  # RLlib re-registers its own wrapper
)
TINY = {"hidden": (16,), "train_batch_size_per_learner": 64, "minibatch_size": 32}
"""One iteration at the smallest sizes: 64 env steps, 2 minibatches, 1 epoch."""


@pytest.fixture(scope="module")
def reward_model(small_assembly) -> RewardModel:
    return fit_reward_model(small_assembly.data, kind="linear", standard_errors=False)


def _one_iteration(config) -> tuple[dict, object]:
    """Build, train once, stop: the learners' results (module id → metrics), the RL module."""
    algo = config.training(num_epochs=1).build_algo()
    try:
        result = algo.train()
        module = algo.get_module()
    finally:
        algo.stop()
    assert result["num_env_steps_sampled_lifetime"] >= TINY["train_batch_size_per_learner"]
    learners = {k: v for k, v in result["learners"].items() if k != "__all_modules__"}
    assert all(math.isfinite(m["total_loss"]) for m in learners.values())
    return learners, module


def _same_partition(mapping: PolicyMapping, small_assembly) -> bool:
    """Whether the blocs are the planted ones, up to their names."""
    labels = [mapping(country) for country in small_assembly.data.country_names]
    planted = small_assembly.blocs
    return all((a == b) == (planted[i] == planted[j])
               for i, a in enumerate(labels) for j, b in enumerate(labels))  # fmt: skip


def test_bloc_mapping_recovers_the_planted_blocs(small_assembly, reward_model):
    mapping = bloc_policy_mapping(reward_model, 2)
    assert mapping.module_ids == ["bloc_1", "bloc_2"]
    assert _same_partition(mapping, small_assembly)
    assert pickle.loads(pickle.dumps(mapping)) == mapping
    with pytest.raises(KeyError, match="no policy for agent 'Atlantis'"):
        mapping("Atlantis")
    with pytest.raises(ValueError, match="n_clusters"):
        bloc_policy_mapping(reward_model, 99)
    with pytest.raises(ValueError, match="at least one agent"):
        PolicyMapping({})


def test_blocs_of_any_kind_cluster_its_profile(small_assembly):
    trees = fit_reward_model(small_assembly.data, kind="trees", n_trees=50, threads=1)
    assert _same_partition(bloc_policy_mapping(trees, 2), small_assembly)


def test_assembly_config_refuses_what_it_cannot_build(reward_model):
    with pytest.raises(ValueError, match="needs a reward_model"):
        assembly_ppo_config(policies="bloc")
    with pytest.raises(ValueError, match="variant must be"):
        assembly_ppo_config(variant="plenary")
    with pytest.raises(ValueError, match="policies must be"):
        assembly_ppo_config(policies="region")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Deliberation-v0"):
        assembly_ppo_config(variant="deliberation", reward_model=reward_model)


@pytest.mark.ray
def test_ppo_on_rollcall(ray_local, small_assembly):
    config = ppo_config(env_config={"data": small_assembly, "country": "Country 001"}, **TINY)
    assert set(_one_iteration(config)[0]) == {"default_policy"}


@pytest.mark.ray
def test_masked_ppo_on_deliberation_never_samples_a_masked_action(ray_local, small_assembly):
    import torch

    config = masked_ppo_config(env_config={"data": small_assembly}, **TINY)
    learners, module = _one_iteration(config)
    assert set(learners) == {"default_policy"}
    env = MaskedObservation(gym.make("assembly/Deliberation-v0", data=small_assembly))
    torch.manual_seed(0)
    for episode in range(10):
        obs, info = env.reset(seed=episode)
        terminated = False
        while not terminated:
            batch = {"obs": {key: torch.as_tensor(value)[None] for key, value in obs.items()}}
            with torch.no_grad():
                logits = module.forward_exploration(batch)["action_dist_inputs"][0]
            probs = torch.softmax(logits, dim=-1).numpy()
            assert probs[~info["action_mask"]].max(initial=0.0) == 0.0
            action = int(torch.multinomial(torch.as_tensor(probs), 1))
            obs, _, terminated, _, info = env.step(action)
            assert not info["invalid_action"]


@pytest.mark.ray
def test_multi_agent_ppo_a_policy_per_bloc(ray_local, small_assembly, reward_model):
    config = assembly_ppo_config(
        policies="bloc", reward_model=reward_model, n_blocs=2,
        env_config={"data": small_assembly, "window": 8}, **TINY,
    )  # fmt: skip
    assert config.env == "assembly_v0"
    assert set(config.env_config["rewards"]) == set(reward_model.countries)
    assert set(_one_iteration(config)[0]) == {"bloc_1", "bloc_2"}


@pytest.mark.ray
def test_multi_agent_ppo_a_policy_per_country(ray_local, small_assembly):
    config = assembly_ppo_config(
        variant="deliberation", env_config={"data": small_assembly}, **TINY
    )
    assert config.env == "assembly_v0-deliberation"
    assert set(_one_iteration(config)[0]) == set(small_assembly.data.country_names)
    assert np.unique(config.policy_mapping_fn.module_ids).size == 6
