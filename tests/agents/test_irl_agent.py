"""RewardModelAgent: any reward kind as an agent, alone, at once, from a model, in the harness."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.agents.base import Agent
from assembly_gym.agents.baselines import LogisticAgent
from assembly_gym.agents.irl_agent import RewardModelAgent
from assembly_gym.benchmarks.harness import TemporalSplit, evaluate
from assembly_gym.core.errors import DataError
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.demonstrations import (
    Demonstration,
    group_by_country,
    rollcall_demonstrations,
)
from assembly_gym.envs.legislative.observation import FeatureConfig, feature_names
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.rollcall import DEFAULT_KIND, fit_reward_model

LAYOUT = ObservationLayout(feature_names())
LINEAR = {"kind": "linear", "l2": 5.0, "standard_errors": False}
TREES = {"n_trees": 50, "min_child_samples": 20, "threads": 1}
KINDS = {
    "linear": LINEAR,
    "neural": {"kind": "neural", "epochs": 30, "device": "cpu"},
    "trees": {"kind": "trees", **TREES},
    "mixture": {"kind": "mixture", "trees": TREES, "linear": {"l2": 5.0, "standard_errors": False}},
}


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=5, n_blocs=2, n_sessions=5, roll_calls_per_session=40, seed=7)
    )


@pytest.fixture(scope="module")
def demos(assembly):
    return group_by_country(rollcall_demonstrations(assembly.data, with_infos=False))


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


def test_is_an_agent_named_after_its_kind_whose_policy_is_the_softmax_of_its_reward(demos):
    agent = RewardModelAgent(3, LAYOUT, **LINEAR).fit(demos["Country 001"])
    assert isinstance(agent, Agent) and agent.name == "maxent-irl (linear)"
    assert RewardModelAgent(3, LAYOUT).name == f"maxent-irl ({DEFAULT_KIND})"
    obs = demos["Country 001"][0].obs
    probs = agent.action_probs(obs)
    rewards = agent.reward_matrix(obs)
    assert rewards.shape == (len(obs), 3) and np.isfinite(rewards).all()
    expected = np.exp(rewards - rewards.max(axis=1, keepdims=True))
    np.testing.assert_allclose(probs, expected / expected.sum(axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_array_equal(agent.act(obs), probs.argmax(axis=1))
    masked = agent.action_probs(obs, np.array([True, False, True]))
    assert (masked[:, 1] == 0).all()
    np.testing.assert_allclose(masked.sum(axis=1), 1.0)


def test_alone_the_linear_kind_is_an_l2_logistic_regression(demos) -> None:
    """Same model family as scikit-learn's: their probabilities agree closely."""
    mine = RewardModelAgent(3, LAYOUT, kind="linear", l2=1.0, shrinkage="none",
                            standard_errors=False).fit(demos["Country 002"])  # fmt: skip
    theirs = LogisticAgent(3, C=1.0).fit(demos["Country 002"])
    obs, _, _ = Demonstration.stack(demos["Country 002"])
    gap = np.abs(mine.action_probs(obs) - theirs.action_probs(obs)).mean()
    assert gap < 0.03


def test_fit_countries_is_one_fit_of_the_kind_as_irl_fit_makes_it(assembly, demos) -> None:
    agents = RewardModelAgent.fit_countries(demos, layout=LAYOUT, **LINEAR)
    assert list(agents) == list(demos)
    assert len({id(agent.model_) for agent in agents.values()}) == 1  # one model, every country
    model = fit_reward_model(assembly.data, feature_config=FeatureConfig(), **LINEAR)
    obs = Demonstration.stack(demos["Country 003"])[0]
    np.testing.assert_allclose(agents["Country 003"].action_probs(obs),
                               model.action_probs("Country 003", obs), atol=1e-6)  # fmt: skip
    agent = RewardModelAgent.from_reward_model(model, "Country 004")
    assert agent.name == "maxent-irl (linear)" and agent.country_ == "Country 004"
    np.testing.assert_allclose(agent.action_probs(obs), model.action_probs("Country 004", obs))


def test_in_the_harness(assembly) -> None:
    result = evaluate(
        {"irl": lambda layout: RewardModelAgent(3, layout, **LINEAR)},
        TemporalSplit.of(assembly.data, 4),
        progress=False,
    )
    assert result.table.loc[0, "accuracy"] > 0.5


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_learns_held_out_votes(held_out, kind) -> None:
    """Far better than a uniform guess on a later session."""
    train, test = held_out
    agents = RewardModelAgent.fit_countries(train, layout=LAYOUT, **KINDS[kind])
    assert np.mean([_log_loss(agents[c], test[c]) for c in train]) < np.log(3) - 0.3


def test_errors(demos) -> None:
    with pytest.raises(ValueError, match="not fitted"):
        RewardModelAgent(3, LAYOUT).action_probs(np.zeros((1, len(LAYOUT))))
    with pytest.raises(ValueError, match="no demonstrations"):
        RewardModelAgent(3, LAYOUT).fit([])
    with pytest.raises(ValueError, match="unknown reward kind 'oak'"):
        RewardModelAgent(3, LAYOUT, kind="oak")
    with pytest.raises(ValueError, match="the demonstrations have 3 actions, the agent 4"):
        RewardModelAgent(4, LAYOUT, **LINEAR).fit(demos["Country 001"])
    with pytest.raises(ValueError, match="needs the env's observation layout"):
        RewardModelAgent(3, **LINEAR).fit(demos["Country 001"])
    with pytest.raises(DataError, match="has no demonstration"):
        RewardModelAgent.fit_countries({"Country 001": []}, layout=LAYOUT, **LINEAR)
