"""MaxEntIRLAgent and NeuralMaxEntIRLAgent: one country, many at once, the harness, errors."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.agents.base import Agent
from assembly_gym.agents.baselines import LogisticAgent
from assembly_gym.agents.irl_agent import MaxEntIRLAgent, NeuralMaxEntIRLAgent
from assembly_gym.benchmarks.harness import TemporalSplit, evaluate
from assembly_gym.envs.legislative.demonstrations import (
    Demonstration,
    group_by_country,
    rollcall_demonstrations,
)
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.rollcall import fit_reward_model


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=5, n_blocs=2, n_sessions=5, roll_calls_per_session=40, seed=7)
    )


@pytest.fixture(scope="module")
def demos(assembly):
    return group_by_country(rollcall_demonstrations(assembly.data, with_infos=False))


def test_is_an_agent_and_gives_distributions(demos) -> None:
    agent = MaxEntIRLAgent(3, l2=5.0).fit(demos["Country 001"])
    assert isinstance(agent, Agent)
    obs = demos["Country 001"][0].obs
    probs = agent.action_probs(obs)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert agent.act(obs).shape == (len(obs),)
    masked = agent.action_probs(obs, np.array([True, False, True]))
    assert (masked[:, 1] == 0).all()


def test_alone_it_is_an_l2_logistic_regression(demos) -> None:
    """Same model family as scikit-learn's: their probabilities agree closely."""
    mine = MaxEntIRLAgent(3, l2=1.0).fit(demos["Country 002"])
    theirs = LogisticAgent(3, C=1.0).fit(demos["Country 002"])
    obs, _, _ = Demonstration.stack(demos["Country 002"])
    gap = np.abs(mine.action_probs(obs) - theirs.action_probs(obs)).mean()
    assert gap < 0.03


def test_fit_countries_fits_everyone_in_one_call(demos) -> None:
    agents = MaxEntIRLAgent.fit_countries(demos, l2=5.0)
    assert set(agents) == set(demos)
    first = agents["Country 003"].action_probs(demos["Country 003"][0].obs)
    np.testing.assert_allclose(first.sum(axis=1), 1.0)


def test_from_a_reward_model_and_in_the_harness(assembly, demos) -> None:
    model = fit_reward_model(assembly.data, l2=5.0, standard_errors=False)
    agent = MaxEntIRLAgent.from_reward_model(model, "Country 004")
    obs = demos["Country 004"][0].obs
    np.testing.assert_allclose(agent.action_probs(obs), model.action_probs("Country 004", obs))
    result = evaluate(
        {"irl": lambda layout: MaxEntIRLAgent(3, layout, l2=5.0)},
        TemporalSplit.of(assembly.data, 4),
        progress=False,
    )
    assert result.table.loc[0, "accuracy"] > 0.5


def test_errors(demos) -> None:
    with pytest.raises(ValueError, match="not fitted"):
        MaxEntIRLAgent().action_probs(np.zeros((1, 56)))
    with pytest.raises(ValueError, match="no demonstrations"):
        MaxEntIRLAgent().fit([])
    with pytest.raises(ValueError, match="l2 must be"):
        MaxEntIRLAgent(l2=-1.0)


@pytest.fixture(scope="module")
def held_out(assembly):
    """Training demonstrations of sessions 1–4 and held-out decisions of session 5."""
    split = TemporalSplit.of(assembly.data, 4)
    train = group_by_country(rollcall_demonstrations(split.train, with_infos=False))
    test = group_by_country(
        rollcall_demonstrations(split.test, history=split.train, with_infos=False)
    )
    return train, test


def _log_loss(agent, demos) -> float:
    obs, acts, _ = Demonstration.stack(demos)
    return float(-np.log(agent.action_probs(obs)[np.arange(len(acts)), acts]).mean())


def test_neural_agent_is_an_agent_with_a_reward(demos) -> None:
    agent = NeuralMaxEntIRLAgent(3, epochs=20).fit(demos["Country 001"])
    assert isinstance(agent, Agent)
    obs = demos["Country 001"][0].obs
    probs = agent.action_probs(obs)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    rewards = agent.reward_matrix(obs)
    assert rewards.shape == (len(obs), 3) and np.isfinite(rewards).all()
    # the policy is the softmax of the reward
    expected = np.exp(rewards - rewards.max(axis=1, keepdims=True))
    np.testing.assert_allclose(probs, expected / expected.sum(axis=1, keepdims=True), rtol=1e-6)
    masked = agent.action_probs(obs, np.array([True, True, False]))
    assert (masked[:, 2] == 0).all()
    np.testing.assert_array_equal(agent.act(obs), probs.argmax(axis=1))
    again = NeuralMaxEntIRLAgent(3, epochs=20).fit(demos["Country 001"])
    np.testing.assert_array_equal(again.action_probs(obs), probs)  # same seed, same network


def test_neural_agent_learns_held_out_votes(held_out) -> None:
    """Far better than a uniform guess on a later session, and as good as the linear reward."""
    train, test = held_out
    neural = np.mean([_log_loss(NeuralMaxEntIRLAgent(3).fit(train[c]), test[c]) for c in train])
    linear = np.mean([_log_loss(MaxEntIRLAgent(3).fit(train[c]), test[c]) for c in train])
    assert neural < np.log(3) - 0.3
    assert neural < linear + 0.05


def test_neural_agent_errors(demos) -> None:
    with pytest.raises(ValueError, match="not fitted"):
        NeuralMaxEntIRLAgent().action_probs(np.zeros((1, 56)))
    with pytest.raises(ValueError, match="no demonstrations"):
        NeuralMaxEntIRLAgent().fit([])
    with pytest.raises(ValueError, match="l2 must be"):
        NeuralMaxEntIRLAgent(l2=-1.0)
    with pytest.raises(ValueError, match="the demonstrations have 3 actions, the agent 4"):
        NeuralMaxEntIRLAgent(4, epochs=1).fit(demos["Country 001"])
