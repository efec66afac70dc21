"""A new reward kind in one module and one registry line: fitted by name, saved, explained,
simulated, played in ``assembly_v0`` and benched, with no change anywhere else."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from assembly_gym.benchmarks.simulation import simulate
from assembly_gym.benchmarks.suites import SUITES, Options, run_suite
from assembly_gym.benchmarks.suites.catalog import baseline_specs, reward_spec
from assembly_gym.envs import assembly_v0
from assembly_gym.envs.legislative.data import ABSENT
from assembly_gym.irl.base import RewardModel, reward_kind, reward_kinds
from assembly_gym.irl.explanation import country_decisions, vote_effects
from assembly_gym.irl.report import effects_text
from assembly_gym.irl.rollcall import fit_reward_model

from .habit import HabitRewardModel


@pytest.fixture(scope="module")
def history(small_assembly):
    """Sessions 1–5 of the small synthetic assembly (session 6 is played and forecast)."""
    return small_assembly.data.select_sessions(1, 5)


@pytest.fixture(scope="module")
def model(history) -> RewardModel:
    return fit_reward_model(history, kind="habit")


def _frequencies(history, country: str) -> np.ndarray:
    votes = history.votes[history.country_index(country)]
    counts = np.bincount(votes[votes != ABSENT], minlength=3) + 1.0
    return counts / counts.sum()


def test_it_is_a_kind_fitted_by_name(model, history) -> None:
    assert "habit" in reward_kinds() and reward_kind("habit") is HabitRewardModel
    assert isinstance(model, HabitRewardModel) and model.history is history
    country = model.countries[2]
    obs = np.random.default_rng(0).random((4, len(model.layout)))
    np.testing.assert_allclose(model.action_probs(country, obs),
                               np.tile(_frequencies(history, country), (4, 1)))  # fmt: skip


def test_it_is_saved_and_loaded(model, tmp_path) -> None:
    loaded = RewardModel.load(model.save(tmp_path / "habit"))
    assert isinstance(loaded, HabitRewardModel) and loaded.countries == model.countries
    np.testing.assert_array_equal(loaded.log_frequencies, model.log_frequencies)
    assert loaded.layout == model.layout and loaded.history is not None


def test_it_is_explained(model) -> None:
    country = model.countries[0]
    obs = country_decisions(model, [country])[country]
    table = vote_effects(model, country, obs)
    assert set(table.index) == set(model.obs_names)
    assert (table["importance"] == 0).all()  # no feature moves a habit
    assert {"description", "kind", "yes", "yes_low"} <= set(table.columns)
    text, shown = effects_text(model, country)
    assert text.startswith(f"What moves {country}") and len(shown) == len(table)


def test_it_is_simulated_on_later_roll_calls(model, small_assembly) -> None:
    later = small_assembly.data.select_sessions(6, 6).roll_calls
    play = simulate(model, later, seed=1)
    assert play.votes.shape == (len(play.countries), len(later))
    for i, country in enumerate(play.countries):
        np.testing.assert_allclose(play.probs[i], np.tile(_frequencies(model.history, country),
                                                          (len(later), 1)))  # fmt: skip


def test_it_is_played_in_assembly_v0(model, history) -> None:
    env = assembly_v0.parallel_env(data=history, rewards=model.reward_fns(),
                                   feature_config=model.feature_config)  # fmt: skip
    env.reset(seed=0)
    actions = {agent: i % 3 for i, agent in enumerate(env.agents)}
    rewards = env.step(actions)[1]
    assert set(rewards) == set(actions)
    for agent, action in actions.items():
        expected = np.log(_frequencies(history, agent))[action]
        assert rewards[agent] == pytest.approx(expected)


def test_it_is_benched_as_the_majority_baseline_is() -> None:
    """A bench row from its name alone: its policy is the majority baseline's, vote for vote."""
    options = Options(quick=True, n_bootstrap=50)

    def agents(task, options):
        majority = [spec for spec in baseline_specs(task) if spec.name == "majority"]
        return [*majority, replace(reward_spec("habit"), reference=True)]

    result = run_suite(replace(SUITES["synthetic"], agents=agents), options, progress=False)
    table = result.table.set_index("agent")
    assert list(table.index) == ["majority", "maxent-irl (habit)"]
    assert table.loc["maxent-irl (habit)", "log_loss"] == pytest.approx(
        table.loc["majority", "log_loss"]
    )
    assert table.loc["majority", "reference"] == "maxent-irl (habit)"
    assert table.loc["majority", "log_loss_diff"] == pytest.approx(0.0, abs=1e-12)
