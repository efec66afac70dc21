"""PolicyAgent (SB3 PPO / MaskablePPO trained in an env) and imitation's BC, as agents."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from assembly_gym.agents.base import Agent
from assembly_gym.agents.imitation_agents import BCAgent
from assembly_gym.agents.sb3 import PolicyAgent
from assembly_gym.envs.legislative.deliberation import DeliberationEnv, resolution_records
from assembly_gym.envs.legislative.demonstrations import (
    Demonstration,
    deliberation_demonstrations,
    group_by_country,
    rollcall_demonstrations,
)
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

COUNTRY = "Country 001"


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=4, n_blocs=2, n_sessions=3, roll_calls_per_session=20, seed=3)
    )


@pytest.fixture(scope="module")
def deliberation(assembly):
    records = resolution_records(assembly)
    return records, group_by_country(deliberation_demonstrations(records, [COUNTRY]))[COUNTRY]


def _make_env(records):
    return lambda demos: DeliberationEnv(records, country=demos[0].country)


@pytest.mark.parametrize("algorithm", ["maskable_ppo", "ppo"])
def test_policy_agent_trains_in_the_env_and_honours_masks(deliberation, algorithm):
    records, demos = deliberation
    agent = PolicyAgent(5, make_env=_make_env(records), algorithm=algorithm,
                        total_timesteps=128, n_steps=64, seed=0).fit(demos)  # fmt: skip
    assert isinstance(agent, Agent)
    obs, _, masks = (array[:20] for array in Demonstration.stack(demos))
    probs = agent.action_probs(obs, masks)
    assert probs.shape == (20, 5)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-6)
    assert (probs[~masks] == 0).all()
    assert masks[np.arange(20), agent.act(obs, masks)].all()


def test_policy_agent_is_reproducible_from_its_seed(deliberation):
    records, demos = deliberation
    obs = demos[0].obs[:-1]

    def probs(seed):
        agent = PolicyAgent(5, make_env=_make_env(records), total_timesteps=64, n_steps=64,
                            seed=seed).fit(demos)  # fmt: skip
        return agent.action_probs(obs)

    before = torch.random.get_rng_state()
    np.testing.assert_array_equal(probs(1), probs(1))
    assert torch.equal(torch.random.get_rng_state(), before)  # the seed stays inside fit


def test_policy_agent_rejects_bad_arguments(deliberation):
    records, _ = deliberation
    with pytest.raises(ValueError, match="algorithm"):
        PolicyAgent(5, make_env=_make_env(records), algorithm="dqn")
    with pytest.raises(ValueError, match="total_timesteps"):
        PolicyAgent(5, make_env=_make_env(records), total_timesteps=10, n_steps=64)
    with pytest.raises(ValueError, match="no demonstrations"):
        PolicyAgent(5, make_env=_make_env(records)).fit([])


@pytest.mark.imitation
def test_bc_learns_a_country_that_always_votes_the_same(assembly):
    demos = rollcall_demonstrations(assembly.data, [COUNTRY], with_infos=False)
    constant = [type(d)(d.country, d.obs, np.full_like(d.acts, 2), d.masks) for d in demos]
    before = torch.random.get_rng_state()
    agent = BCAgent(3, n_epochs=200, seed=0).fit(constant)
    assert torch.equal(torch.random.get_rng_state(), before)  # the seed stays inside fit
    obs, _, _ = Demonstration.stack(demos)
    probs = agent.action_probs(obs)
    assert probs.shape == (len(obs), 3)
    assert probs[:, 2].mean() > 0.9  # uniform would be 1/3
    again = BCAgent(3, n_epochs=200, seed=0).fit(constant).action_probs(obs)
    np.testing.assert_allclose(probs, again, atol=1e-6)
