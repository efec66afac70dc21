"""The harness: temporal splits, one table per run, forecasts from the training past only."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from assembly_gym.agents.baselines import MajorityAgent, PlantedAgent
from assembly_gym.benchmarks.harness import TemporalSplit, default_agents, evaluate
from assembly_gym.benchmarks.suites import SuiteResult
from assembly_gym.core.errors import DataError
from assembly_gym.core.metrics import classification_metrics
from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

COLUMNS = [
    "agent", "accuracy", "accuracy_ci", "macro_f1", "macro_f1_ci", "log_loss", "log_loss_ci",
    "brier", "brier_ci", "ece", "ece_ci", "countries", "n", "fit_seconds", "predict_seconds",
    "reference", "accuracy_diff", "accuracy_p", "macro_f1_diff", "macro_f1_p", "log_loss_diff",
    "log_loss_p",
]  # fmt: skip


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(
        SyntheticConfig(n_countries=6, n_blocs=2, n_sessions=5, roll_calls_per_session=20, seed=12)
    )


@pytest.fixture(scope="module")
def data(assembly) -> RollCallData:
    return assembly.data


@pytest.fixture(scope="module")
def result(data) -> SuiteResult:
    return evaluate(default_agents(), TemporalSplit.of(data, 3), progress=False)


def _with_votes(data: RollCallData, sessions, change) -> RollCallData:
    """The data with the cast votes of some sessions changed (absences kept where they are)."""
    votes = data.votes.copy()
    where = np.isin(data.roll_calls["session"].to_numpy(), sessions)[None, :] & (votes != ABSENT)
    votes[where] = change(votes[where])
    return replace(data, votes=votes)


# ---------------------------------------------------------------------- TemporalSplit


def test_temporal_split(data):
    split = TemporalSplit.of(data, 3)
    assert split.train.sessions.tolist() == [1, 2, 3] and split.test.sessions.tolist() == [4, 5]
    assert split.last_train_session == 3
    assert split.describe() == (
        "train sessions 1–3 (60 roll calls), test sessions 4–5 (40 roll calls)"
    )
    assert TemporalSplit.of(data).last_train_session == 3  # three quarters of 5 sessions


@pytest.mark.parametrize("last", [0, 5, 9])
def test_temporal_split_needs_both_periods(data, last):
    with pytest.raises(DataError, match=f"last training session {last} leaves no training"):
        TemporalSplit.of(data, last)


def test_temporal_split_needs_two_sessions(data):
    with pytest.raises(DataError, match="a temporal split needs at least two sessions"):
        TemporalSplit.of(data.select_sessions(2, 2))


# ---------------------------------------------------------------------- evaluate


def test_one_row_per_agent_with_the_documented_columns(result, data):
    assert result.table.columns.tolist() == COLUMNS
    assert result.table["agent"].tolist() == list(default_agents())
    test_votes = (data.temporal_split(3)[1].votes != ABSENT).sum()
    assert (result.table["n"] == test_votes).all()
    assert result.countries == data.country_names
    assert sum(result.class_balance.values()) == pytest.approx(1.0)
    for name, (y_true, probs) in result.predictions.items():
        assert probs.shape == (len(y_true), 3)
        row = result.table.set_index("agent").loc[name]
        assert row["accuracy"] == pytest.approx(classification_metrics(y_true, probs)["accuracy"])


def test_markdown_names_the_split_balance_chance_and_agents(result):
    text = result.to_markdown()
    assert f"Split: {result.split}; 6 countries." in text
    assert (
        "Held-out class balance: yes" in text
        and "Chance (uniform over valid actions): log-loss 1.099" in text
    )
    for name in default_agents():
        assert f"| {name} " in text


def test_learned_baselines_beat_random_and_the_oracle_beats_them(assembly, data):
    agents = {
        **default_agents(),
        "planted": lambda layout: PlantedAgent(assembly, layout),
    }
    table = evaluate(agents, TemporalSplit.of(data, 3), progress=False).table.set_index("agent")
    assert table.loc["majority", "log_loss"] < table.loc["random", "log_loss"]
    assert table.loc["planted", "log_loss"] < table.loc["majority", "log_loss"]
    assert table.loc["planted", "accuracy"] >= table.loc["majority", "accuracy"]


def test_countries_subset_and_unknown_country(data):
    split = TemporalSplit.of(data, 3)
    agents = {"majority": lambda layout: MajorityAgent(3, layout)}
    subset = evaluate(agents, split, countries=["Country 002", "Country 005"], progress=False)
    assert subset.countries == ("Country 002", "Country 005")
    rows = [data.country_index(c) for c in subset.countries]
    assert subset.table["n"].item() == (split.test.votes[rows] != ABSENT).sum()
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        evaluate(agents, split, countries=["Atlantis"], progress=False)


def test_no_country_in_both_periods_is_an_error(data):
    votes = data.votes.copy()
    votes[:, data.roll_calls["session"].to_numpy() > 3] = ABSENT
    with pytest.raises(DataError, match="no country voted in both"):
        evaluate(default_agents(), TemporalSplit.of(replace(data, votes=votes), 3), progress=False)


def test_test_features_come_from_the_training_history_only(data, result):
    """Replacing the test period's votes changes the answers, never the predictions."""
    shuffled = _with_votes(data, [4, 5], lambda v: (v + 1) % 3)
    again = evaluate(default_agents(), TemporalSplit.of(shuffled, 3), progress=False)
    for name, (y_true, probs) in result.predictions.items():
        other_true, other_probs = again.predictions[name]
        np.testing.assert_array_equal(probs, other_probs)
        assert not np.array_equal(y_true, other_true)
    # Not vacuous: changing the training votes does change the predictions.
    trained = _with_votes(data, [3], lambda v: (v + 1) % 3)
    changed = evaluate(default_agents(), TemporalSplit.of(trained, 3), progress=False)
    assert not np.array_equal(result.predictions["majority"][1], changed.predictions["majority"][1])
    assert not np.array_equal(
        result.predictions["similar-vote"][1], changed.predictions["similar-vote"][1]
    )


def test_a_named_country_without_votes_in_a_period_is_an_error(data):
    votes = data.votes.copy()
    votes[1, data.roll_calls["session"].to_numpy() <= 3] = ABSENT  # Country 002: no training votes
    split = TemporalSplit.of(replace(data, votes=votes), 3)
    agents = {"majority": lambda layout: MajorityAgent(3, layout)}
    with pytest.raises(DataError, match=r"\['Country 002'\] cast no vote in the training sessions"):
        evaluate(agents, split, countries=["Country 001", "Country 002"], progress=False)
    assert "Country 002" not in evaluate(agents, split, progress=False).countries
