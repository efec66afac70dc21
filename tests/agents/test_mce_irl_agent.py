"""MCEIRLAgent: imitation's MCE-IRL on a country's roll calls, behind the agent protocol."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from assembly_gym.agents.base import Agent
from assembly_gym.agents.imitation_agents import MCEIRLAgent
from assembly_gym.agents.irl_agent import RewardModelAgent
from assembly_gym.benchmarks.harness import TemporalSplit
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.demonstrations import (
    Demonstration,
    group_by_country,
    rollcall_demonstrations,
)
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

pytestmark = pytest.mark.imitation
LAYOUT = ObservationLayout(feature_names())


@pytest.fixture(scope="module")
def split():
    """Training demonstrations of sessions 1–4 and held-out ones of session 5, per country."""
    data = generate_assembly(
        SyntheticConfig(n_countries=3, n_blocs=2, n_sessions=5, roll_calls_per_session=40, seed=7)
    ).data
    split = TemporalSplit.of(data, 4)
    train = group_by_country(rollcall_demonstrations(split.train, with_infos=False))
    test = group_by_country(
        rollcall_demonstrations(split.test, history=split.train, with_infos=False)
    )
    return train, test


def _arrays(demos):
    obs, acts, _ = Demonstration.stack(demos)
    return obs, acts


def _log_loss(agent, demos) -> float:
    obs, acts = _arrays(demos)
    return float(-np.log(agent.action_probs(obs)[np.arange(len(acts)), acts]).mean())


def test_is_an_agent_with_a_linear_reward(split) -> None:
    train, test = split
    agent = MCEIRLAgent(3, max_decisions=60, max_iter=100).fit(train["Country 001"])
    assert isinstance(agent, Agent)
    obs, _ = _arrays(test["Country 001"])
    probs = agent.action_probs(obs)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert agent.theta_.shape == (3, 1 + obs.shape[1])
    rewards = agent.reward_matrix(obs)
    expected = np.exp(rewards - rewards.max(axis=1, keepdims=True))
    np.testing.assert_allclose(probs, expected / expected.sum(axis=1, keepdims=True))
    masked = agent.action_probs(obs, np.array([True, False, True]))
    assert (masked[:, 1] == 0).all()
    assert agent.act(obs).shape == (len(obs),)
    assert agent.train_seconds_ > 0


def test_learns_held_out_votes_like_our_linear_maxent_irl(split) -> None:
    """Same model family: beats a uniform guess, and lands near our exact linear fit."""
    train, test = split
    mce, ours = [], []
    for country in train:
        mce.append(_log_loss(MCEIRLAgent(3, max_iter=300).fit(train[country]), test[country]))
        linear = RewardModelAgent(3, LAYOUT, kind="linear", shrinkage="none", standard_errors=False)
        ours.append(_log_loss(linear.fit(train[country]), test[country]))
    assert np.mean(mce) < np.log(3) - 0.3
    assert abs(np.mean(mce) - np.mean(ours)) < 0.15


def test_keeps_the_most_recent_decisions(split) -> None:
    """max_decisions = 2 learns exactly what the country's last two votes alone teach."""
    train, _ = split
    demos = train["Country 002"]
    last = demos[-1]
    alone = replace(last, obs=last.obs[-3:], acts=last.acts[-2:], masks=last.masks[-2:])
    recent = MCEIRLAgent(3, max_decisions=2, max_iter=50).fit(demos)
    np.testing.assert_array_equal(recent.theta_, MCEIRLAgent(3, max_iter=50).fit([alone]).theta_)
    first = replace(
        demos[0], obs=demos[0].obs[:3], acts=demos[0].acts[:2], masks=demos[0].masks[:2]
    )
    assert not np.allclose(recent.theta_, MCEIRLAgent(3, max_iter=50).fit([first]).theta_)


def test_errors(split) -> None:
    train, _ = split
    demos = train["Country 001"]
    with pytest.raises(ValueError, match="not fitted"):
        MCEIRLAgent().action_probs(np.zeros((1, 56)))
    with pytest.raises(ValueError, match="no demonstrations"):
        MCEIRLAgent().fit([])
    with pytest.raises(ValueError, match="max_decisions must be ≥ 1 and l2 ≥ 0"):
        MCEIRLAgent(max_decisions=0)
    with pytest.raises(ValueError, match="the demonstrations have 3 actions, the agent 4"):
        MCEIRLAgent(4).fit(demos)
    masks = demos[-1].masks.copy()
    masks[-1, (demos[-1].acts[-1] + 1) % 3] = False  # an action the country did not take
    with pytest.raises(ValueError, match="no action masks"):
        MCEIRLAgent(max_iter=1).fit([replace(demos[-1], masks=masks)])
