"""The masked-vote split and suite; the ideal-point forecaster in the roll-call suites."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax

from assembly_gym.benchmarks.commands.bench import _restricted
from assembly_gym.benchmarks.splits import MASKED_FRACTION, MaskedSplit
from assembly_gym.benchmarks.suites import SUITES, Options, run_suite
from assembly_gym.benchmarks.suites.base import build_task
from assembly_gym.benchmarks.suites.masked import RollCallAgent, _ideal_probs
from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT
from assembly_gym.envs.legislative.observation import RollCallFeatures
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.rollcall import DEFAULT_FEATURES, fit_reward_model

QUICK = Options(data="synthetic", quick=True, n_bootstrap=50)
SCORED = ("random", "majority", "roll-call shares", "maxent-irl (mixture)", "ideal points (1-D)",
          "ideal points")  # fmt: skip


@pytest.fixture(scope="module")
def data():
    return generate_assembly(SyntheticConfig(n_countries=8, n_sessions=4, seed=3)).data


def test_the_masked_split_hides_a_seeded_tenth_of_the_cast_votes(data):
    split = MaskedSplit.of(data, seed=5)
    cast, hidden = data.votes != ABSENT, split.test.votes != ABSENT
    seen = split.train.votes != ABSENT
    assert hidden.sum() == round(MASKED_FRACTION * cast.sum())
    assert not (hidden & seen).any() and ((hidden | seen) == cast).all()  # disjoint, covering
    np.testing.assert_array_equal(split.test.votes[hidden], data.votes[hidden])
    np.testing.assert_array_equal(split.train.votes[seen], data.votes[seen])
    assert (split.train.votes[hidden] == ABSENT).all()
    for part in (split.train, split.test):  # same roll calls, same countries
        assert part.country_names == data.country_names
        assert part.roll_calls["rcid"].tolist() == data.roll_calls["rcid"].tolist()
    again, other = MaskedSplit.of(data, seed=5), MaskedSplit.of(data, seed=6)
    np.testing.assert_array_equal(again.test.votes, split.test.votes)
    assert (other.test.votes != split.test.votes).any()
    assert split.describe().startswith(f"10% of the cast votes hidden (seed 5): {hidden.sum():,}")


def test_a_fraction_that_hides_nothing_is_refused(data):
    with pytest.raises(DataError, match="leaves none hidden or none seen"):
        MaskedSplit.of(data, fraction=1e-6)


def test_the_masked_task_forecasts_the_hidden_votes_from_the_visible_ones():
    task = build_task(SUITES["masked"], QUICK)
    visible = task.context["train_data"]
    assert task.context["feature_config"] == DEFAULT_FEATURES
    for country in task.countries:
        _, acts, _ = task.test_arrays(country)
        rcids = task.test_groups[country]
        assert len(acts) == len(rcids)
        columns = pd.Index(visible.roll_calls["rcid"]).get_indexer(rcids)
        assert (visible.votes[visible.country_index(country), columns] == ABSENT).all()


def test_the_masked_suite_scores_its_agents_against_the_ideal_points():
    suite = SUITES["masked"]
    names = [spec.name for spec in suite.agents(build_task(suite, QUICK), QUICK)]
    assert {"logistic (sklearn)", "maxent-irl (mixture)"} <= set(names)
    result = run_suite(_restricted(suite, SCORED), QUICK, progress=False)
    table = result.table.set_index("agent")
    assert list(table.index) == [name for name in names if name in SCORED]
    assert (table["reference"] == "ideal points").all()
    assert (table["n"] == table["n"].iloc[0]).all()  # the same hidden votes for every agent
    assert table.loc["ideal points", "log_loss"] < table.loc["random", "log_loss"]
    assert "10% of the cast votes hidden (seed 0)" in result.header_text()


def test_a_roll_call_agent_refuses_decisions_it_was_not_told_about():
    agent = RollCallAgent("shares", np.array([1, 2]), lambda rcids, obs: np.full((2, 3), 1 / 3))
    assert agent.action_probs(np.zeros((2, 4))).shape == (2, 3)
    with pytest.raises(ValueError, match="knows the roll calls of 2 decisions, not of 3"):
        agent.action_probs(np.zeros((3, 4)))


def test_ideal_points_forecast_a_roll_call_without_visible_votes_by_its_nearest_ones(data):
    votes = data.votes.copy()
    votes[:, 0] = ABSENT  # the first roll call: no vote seen
    visible = replace(data, votes=votes)
    model = fit_reward_model(visible, kind="ideal", dims=1)
    country, rcids = data.country_names[0], data.roll_calls["rcid"].to_numpy()[:2]
    obs = RollCallFeatures(data.roll_calls, visible, DEFAULT_FEATURES).for_country(country)[:2]
    probs = _ideal_probs(model, country, rcids, obs)
    row = np.array([model.country_index(country)])
    np.testing.assert_allclose(probs[0], softmax(model.logits(row, obs[:1]), axis=1)[0])
    item = np.flatnonzero(model.rcids == rcids[1])
    np.testing.assert_allclose(probs[1], softmax(model.item_logits(row, item), axis=1)[0])


def test_the_synthetic_suite_has_the_ideal_point_forecast():
    suite = _restricted(SUITES["synthetic"], ("maxent-irl (ideal)",))
    task = build_task(suite, Options(quick=True))
    agent = suite.agents(task, Options(quick=True))[0].fit(task, task.countries[:2])
    country = task.countries[0]
    assert agent[country].model_.layout == task.layout.names
    obs, _, masks = task.test_arrays(country)
    np.testing.assert_allclose(agent[country].action_probs(obs, masks).sum(axis=1), 1.0)
