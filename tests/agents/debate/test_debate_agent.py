"""The debate allocator as an agent: the protocol, masking, the harness, real data."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.agents.base import Agent
from assembly_gym.agents.debate import DebateAllocatorAgent, TrainConfig
from assembly_gym.agents.debate.tendencies import Tendency
from assembly_gym.benchmarks.harness import TemporalSplit, default_agents, evaluate
from assembly_gym.core.paths import unvotes_dir
from assembly_gym.envs.legislative.demonstrations import (
    Demonstration,
    group_by_country,
    rollcall_demonstrations,
)


@pytest.fixture(scope="module")
def demos(assembly):
    return group_by_country(rollcall_demonstrations(assembly.data, with_infos=False))


def test_agent_implements_the_protocol_and_mixes_the_tendencies(demos, layout):
    country = next(iter(demos))
    agent = DebateAllocatorAgent(3, layout).fit(demos[country])
    assert isinstance(agent, Agent)
    assert agent.allocations_.sum() == pytest.approx(1.0)
    assert set(agent.allocations) == {t.label for t in Tendency}
    obs, _, _ = Demonstration.stack(demos[country])
    probs = agent.action_probs(obs)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert agent.history_.epochs_run >= 1 and agent.result_.winner.label in agent.allocations
    masked = agent.action_probs(obs[:5], np.array([False, True, True]))
    np.testing.assert_allclose(masked[:, 0], 0.0)
    np.testing.assert_allclose(masked.sum(axis=1), 1.0)
    assert agent.act(obs[:5]).shape == (5,)
    assert agent.act(obs[:5], rng=np.random.default_rng(0)).shape == (5,)


def test_fitting_is_deterministic_under_a_seed(demos, layout):
    country = next(iter(demos))
    first = DebateAllocatorAgent(3, layout, seed=2).fit(demos[country]).allocations_
    again = DebateAllocatorAgent(3, layout, seed=2).fit(demos[country]).allocations_
    np.testing.assert_array_equal(first, again)


def test_agent_runs_in_the_harness_beside_the_baselines(assembly):
    split = TemporalSplit.of(assembly.data, 6)
    agents = {
        "majority": default_agents()["majority"],
        "debate": lambda layout: DebateAllocatorAgent(3, layout),
    }
    result = evaluate(agents, split, progress=False)
    table = result.table.set_index("agent")
    assert table.loc["debate", "n"] == table.loc["majority", "n"] > 0
    assert table.loc["debate", "accuracy"] > 1 / 3


def test_agent_settings_are_checked(layout, demos):
    with pytest.raises(ValueError, match="n_actions=3"):
        DebateAllocatorAgent(5, layout)
    with pytest.raises(ValueError, match="cannot sum to 1"):
        DebateAllocatorAgent(3, layout, tendencies=[Tendency.HUMAN_RIGHTS])
    with pytest.raises(ValueError, match="needs the env's observation layout"):
        DebateAllocatorAgent(3).fit(next(iter(demos.values())))
    small = DebateAllocatorAgent(
        3,
        layout,
        tendencies=[Tendency.HUMAN_RIGHTS, Tendency.CONSENSUS],
        config=TrainConfig(max_epochs=2),
    )
    small.fit(next(iter(demos.values())))
    assert list(small.allocations) == ["human rights", "consensus / majority-following"]


@pytest.mark.real_data
def test_agent_on_real_votes_beats_the_majority_baseline():
    if unvotes_dir() is None:
        pytest.skip("real data not found: set $ASSEMBLY_GYM_DATA or place ../shared/data")
    from assembly_gym.envs.legislative.sources import roll_call_data

    data = roll_call_data("unvotes").select_sessions(50, 64)
    split = TemporalSplit.of(data, 60)
    agents = {
        "majority": default_agents()["majority"],
        "debate": lambda layout: DebateAllocatorAgent(3, layout),
    }
    result = evaluate(agents, split, countries=["France", "Brazil"], progress=False)
    table = result.table.set_index("agent")
    assert table.loc["debate", "accuracy"] > table.loc["majority", "accuracy"]
    assert table.loc["debate", "macro_f1"] > table.loc["majority", "macro_f1"]
