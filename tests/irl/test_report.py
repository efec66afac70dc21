"""Reward models read out as text, and one model per period of sessions over time."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT
from assembly_gym.irl.report import (
    SECTIONS,
    comparison_text,
    effects_over_time,
    effects_text,
    fit_summary,
    over_time_text,
    period_blocks,
    period_models,
    profile_text,
    weights_text,
)
from assembly_gym.irl.rollcall import fit_reward_model


def test_blocks_cover_every_session_once_and_name_their_folders(small_assembly) -> None:
    data = small_assembly.data
    blocks = list(period_blocks(data, 4))
    assert [name for name, _, _ in blocks] == ["sessions-01-04", "sessions-05-06"]
    assert [b.n_roll_calls for _, b, _ in blocks] == [120, 60]
    assert all(voters is None for _, _, voters in blocks)


def test_blocks_keep_only_the_countries_that_voted_in_them(small_assembly) -> None:
    data = small_assembly.data
    votes = data.votes.copy()
    votes[0, data.roll_calls["session"].to_numpy() <= 3] = ABSENT  # not a member until 4
    late = replace(data, votes=votes)
    names = list(late.country_names[:2])
    assert [v for _, _, v in period_blocks(late, 3, names)] == [names[1:], names]
    assert [v for _, _, v in period_blocks(late, 3, names[:1])] == [[], names[:1]]


@pytest.fixture(scope="module")
def periods(small_assembly, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("periods")
    for name, block, _ in period_blocks(small_assembly.data, 3):
        fit_reward_model(block, kind="linear", l2=5.0, standard_errors=False).save(folder / name)
    return folder


def test_period_models_are_in_session_order_and_only_in_a_folder_of_them(periods, tmp_path):
    assert [p.name for p in period_models(periods)] == ["sessions-01-03", "sessions-04-06"]
    assert period_models(periods / "sessions-01-03") == []  # one model, not a folder of them
    assert period_models(tmp_path / "missing") == []
    (tmp_path / "sessions-01-03").mkdir()
    (tmp_path / "notes.txt").write_text("mine")
    assert period_models(tmp_path) == []


def test_effects_over_time_reads_each_period(periods, small_assembly) -> None:
    country = small_assembly.data.country_names[2]
    found = effects_over_time(periods, country)
    assert found.country == country and found.actions == ("yes", "no", "abstain")
    assert list(found.table["sessions"].unique()) == ["1–3", "4–6"]
    top = found.top("preference", 3)
    assert len(top) == 3 and set(found.table.set_index("feature").loc[top, "kind"]) == {
        "preference"
    }
    wide = found.by_period(top)
    assert wide.shape == (3, 2) and list(wide.columns) == list(found.table["period"].unique())
    first = found.table[(found.table["feature"] == top[0])]["yes"].to_numpy()
    np.testing.assert_allclose(wide.iloc[0].to_numpy(), 100 * first)


def test_effects_over_time_says_what_is_missing(periods, tmp_path) -> None:
    with pytest.raises(DataError, match="no sessions-A-B model folders"):
        effects_over_time(tmp_path, "Country 001")
    with pytest.raises(DataError, match="no period model knows 'Atlantis'"):
        effects_over_time(periods, "Atlantis")


def test_over_time_text_shows_each_section_by_period(periods, small_assembly) -> None:
    found = effects_over_time(periods, small_assembly.data.country_names[2])
    text = over_time_text(found, top=2)
    assert text.startswith(f"How {found.country}'s votes moved with each feature, by period")
    assert SECTIONS[0][1] in text and found.table["period"].iloc[0] in text


@pytest.fixture(scope="module")
def model(small_assembly):
    return fit_reward_model(small_assembly.data.select_sessions(1, 4), kind="linear", l2=5.0)


def test_effects_text_ranks_the_top_features_of_each_section(model) -> None:
    name = model.countries[1]
    text, table = effects_text(model, name, top=2)
    assert text.startswith(f"What moves {name}'s votes") and "[95% CI]" in text
    assert "Strongest preference: " in text and SECTIONS[0][1] in text
    ranks = [line[:3] for line in text.splitlines()]
    assert " 2 " in ranks and " 3 " not in ranks
    assert len(table) == len(model.obs_names) and {"yes_low", "kind"} <= set(table.columns)


def test_weights_text_of_one_country_or_all_and_relative_to_an_action(model) -> None:
    text, table = weights_text(model, model.countries[0])
    assert text.startswith(f"Reward weights of {model.countries[0]} (original feature scale; se")
    assert "yes_se" in table.columns
    text, _ = weights_text(model, relative_to="no")
    assert text.startswith("Mean and spread of reward weights across 6 countries, relative to no")
    assert "no's own weights (0 where not shown" in text


def test_comparison_text_says_where_two_countries_differ_and_agree(model) -> None:
    text, table = comparison_text(model, *model.countries[:2], top=3)
    assert "Where they differ most" in text and "Where they agree" in text
    assert {f"yes_{model.countries[0]}", "z"} <= set(table.columns)
    with pytest.raises(DataError, match="name two countries"):
        comparison_text(model, model.countries[0], model.countries[0])


def test_fit_summary_says_what_was_fitted(model) -> None:
    text = fit_summary(model)
    source = model.info["source"]
    assert text.startswith(f"Fitted 6 countries' linear rewards on {source}, sessions 1–4 (")
    assert "l2=5.0, shrinkage=global" in text and "converged=" in text
    assert fit_summary(model, "my votes").startswith("Fitted 6 countries' linear rewards on my")


def test_profile_text_of_a_linear_model_is_the_weights_summary(model) -> None:
    text, table = profile_text(model)
    assert text.startswith("Mean and spread across 6 countries of what describes each country's")
    weights = model.explain()
    np.testing.assert_allclose(table["no_sd"], weights.loc[table.index, "no_sd"])


@pytest.fixture(scope="module")
def trees(small_assembly):
    data = small_assembly.data.select_sessions(1, 4)
    return fit_reward_model(data, data.country_names[:3], kind="trees", n_trees=20,
                            min_child_samples=10)  # fmt: skip


def test_a_kind_without_weights_reads_out_its_effects_and_profile(trees) -> None:
    assert fit_summary(trees).startswith("Fitted 3 countries' trees rewards on")
    assert "n_trees=20" in fit_summary(trees)
    text, table = effects_text(trees, trees.countries[0], top=2)
    assert "[no CI (the trees kind gives none)]" in text and table["yes_low"].isna().all()
    text, table = profile_text(trees)
    assert text.startswith("Mean and spread across 3 countries") and len(table) == len(
        trees.obs_names
    )
    means = table.filter(like="mean").abs().max(axis=1)
    assert list(means) == sorted(means, reverse=True)
    text, table = comparison_text(trees, *trees.countries[:2], top=3)
    assert "the difference of their effects" in text and "|z|" not in text
    assert "[no CI (the trees kind gives none)]" in text and table["z"].isna().all()


def test_the_default_profile_is_the_last_sessions_vote_probabilities(small_assembly) -> None:
    data = small_assembly.data.select_sessions(1, 2)
    model = fit_reward_model(data, data.country_names[:2], kind="neural", hidden=(2,), epochs=2,
                             device="cpu")  # fmt: skip
    text, table = profile_text(model)
    assert "its vote probabilities on each roll call (rcid) of the last training session" in text
    assert len(table) == (data.roll_calls["session"] == 2).sum()
    np.testing.assert_allclose(table.filter(like="mean").sum(axis=1), 1.0)
