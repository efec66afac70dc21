"""Readable rewards: feature names in words, effects on vote probabilities and their CIs."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.envs.legislative.observation import FeatureConfig, feature_names
from assembly_gym.irl.explanation import (
    action_grid,
    compare_effects,
    compare_weights,
    country_decisions,
    describe_feature,
    feature_kind,
    vote_effects,
)
from assembly_gym.irl.linear import LinearRewardModel
from assembly_gym.irl.rollcall import fit_reward_model

ACTIONS = ("yes", "no", "abstain")


def test_every_feature_is_said_in_words() -> None:
    assert describe_feature("issue_nu") == "Nuclear weapons and nuclear material (issue code)"
    assert describe_feature("issue_me").startswith("Palestinian conflict")
    assert describe_feature("similar_yes") == "its own yes votes on similar earlier roll calls"
    assert describe_feature("log_past_abstain").endswith("(log scale)")
    assert describe_feature("issue_no") == "its no share on earlier roll calls of the same issues"
    assert "the United States" in describe_feature("agree_united_states")
    assert "majority" in describe_feature("agree_majority")
    assert describe_feature("topic: nuclear · test · ban") == "topic: nuclear · test · ban"
    assert describe_feature("text_07").startswith("hashed word bucket 7")
    assert describe_feature("log_allies_no").startswith("how its closest allies voted no")
    assert describe_feature("lineage_yes").startswith("its yes vote on the resolution")
    every = feature_names(FeatureConfig(log_shares=True, relations=True, allies=3, lineage=True))
    assert all(describe_feature(name) != name for name in every)  # none left as a code


@pytest.mark.parametrize(
    ("name", "kind"),
    [("issue_hr", "preference"), ("amend", "preference"), ("topic: a · b · c", "preference"),
     ("similar_top", "preference"), ("log_similar_yes", "habit"), ("issue_abstain", "habit"),
     ("similar_coverage", "habit"), ("past_no", "habit"), ("consensus_yes", "alignment"),
     ("agree_china", "alignment"), ("allies_yes", "alignment"), ("log_allies_no", "alignment"),
     ("lineage_no", "habit"), ("lineage_none", "habit"), ("bias", "bias")],
)  # fmt: skip
def test_habits_are_apart_from_preferences(name: str, kind: str) -> None:
    assert feature_kind(name) == kind


def _model(theta: np.ndarray, se: np.ndarray | None) -> LinearRewardModel:
    return LinearRewardModel(("A", "B"), ACTIONS, ("issue_hr", "year"), theta, se)


def test_effects_match_the_policy_and_their_intervals_match_sampling() -> None:
    rng = np.random.default_rng(0)
    obs = np.column_stack([rng.integers(0, 2, 400), rng.uniform(0, 1, 400)])
    theta = rng.normal(0, 0.5, (2, 3, 3))
    theta -= theta.mean(axis=1, keepdims=True)
    # A covariance of centred weights (on the plane Σ_a θ_a = 0) for issue_hr's weights.
    centring = np.eye(3) - 1 / 3
    root = centring @ np.diag([0.05, 0.12, 0.08])
    covariance = root @ root.T
    se = np.full_like(theta, 0.01)
    se[0, :, 1] = np.sqrt(np.diag(covariance))
    model = _model(theta, se)
    table = vote_effects(model, "A", obs)
    row = table.loc["issue_hr"]
    assert (row["low"], row["high"]) == (0.0, 1.0)
    moved = [obs.copy(), obs.copy()]
    moved[0][:, 0], moved[1][:, 0] = 0.0, 1.0
    expected = model.action_probs("A", moved[1]).mean(0) - model.action_probs("A", moved[0]).mean(0)
    np.testing.assert_allclose(row[list(ACTIONS)].to_numpy(float), expected, atol=1e-12)
    np.testing.assert_allclose(table[list(ACTIONS)].sum(axis=1), 0.0, atol=1e-12)
    samples = []
    for draw in rng.normal(size=(3000, 3)) @ root.T:
        weights = theta.copy()
        weights[0, :, 1] += draw
        shifted = _model(weights, None)
        samples.append(
            shifted.action_probs("A", moved[1]).mean(0)
            - shifted.action_probs("A", moved[0]).mean(0)
        )
    spread = np.std(samples, axis=0)
    np.testing.assert_allclose(row[[f"{a}_se" for a in ACTIONS]].to_numpy(float), spread, rtol=0.1)
    assert (row["yes_low"] < row["yes"] < row["yes_high"]) and row["importance"] > 0
    assert list(table["importance"]) == sorted(table["importance"], reverse=True)


def test_without_standard_errors_the_intervals_are_missing() -> None:
    theta = np.zeros((2, 3, 3))
    table = vote_effects(_model(theta, None), "B", np.array([[0.0, 0.2], [1.0, 0.4]]))
    assert table["yes_low"].isna().all() and (table["yes"] == 0).all()
    with pytest.raises(ValueError, match="expected"):
        vote_effects(_model(theta, None), "B", np.zeros((3, 5)))


def test_compare_adds_both_variances() -> None:
    theta = np.zeros((2, 3, 3))
    theta[0, :, 1] = [1.0, -0.5, -0.5]
    se = np.full_like(theta, 0.1)
    table = compare_weights(_model(theta, se), "A", "B")
    assert table.index[0] == "issue_hr" and table.loc["issue_hr", "yes"] == pytest.approx(1.0)
    assert table.loc["issue_hr", "z"] == pytest.approx(1.0 / np.hypot(0.1, 0.1))
    half = table.loc["issue_hr", "yes_high"] - table.loc["issue_hr", "yes"]
    assert half == pytest.approx(1.959964 * np.hypot(0.1, 0.1), rel=1e-5)
    spans = compare_weights(_model(theta, se), "A", "B", np.array([[0.0, 0.0], [2.0, 0.0]]))
    assert spans.loc["issue_hr", "span"] == pytest.approx(2.0 * 0.8)  # 10th → 90th: 0.2 → 1.8


def test_decisions_of_a_fitted_model(small_assembly) -> None:
    data = small_assembly.data.select_sessions(1, 3)
    name = data.country_names[0]
    model = fit_reward_model(data, [name], kind="linear", l2=10.0)
    obs = country_decisions(model, [name])[name]
    assert obs.shape == ((data.votes[0] >= 0).sum(), len(model.obs_names))
    table = vote_effects(model, name, obs)
    assert "bias" not in table.index and set(table["kind"]) <= {"preference", "habit", "alignment"}
    assert np.isfinite(table[["yes", "yes_se"]].to_numpy(float)).all()


def test_compare_effects_differs_the_two_countries_effects_on_the_same_votes() -> None:
    rng = np.random.default_rng(1)
    obs = np.column_stack([rng.integers(0, 2, 300), rng.uniform(0, 1, 300)])
    theta = rng.normal(0, 0.5, (2, 3, 3))
    model = _model(theta, np.full_like(theta, 0.05))
    table = compare_effects(model, "A", "B", obs)
    first, second = vote_effects(model, "A", obs), vote_effects(model, "B", obs)
    for action in ACTIONS:
        np.testing.assert_allclose(table[f"{action}_A"], first.loc[table.index, action])
        np.testing.assert_allclose(table[action], table[f"{action}_A"] - table[f"{action}_B"])
    se = np.hypot(first.loc[table.index, "yes_se"], second.loc[table.index, "yes_se"])
    np.testing.assert_allclose(table["yes_high"] - table["yes"], 1.959964 * se, rtol=1e-5)
    assert list(table["z"]) == sorted(table["z"], reverse=True)
    bare = compare_effects(_model(theta, None), "A", "B", obs)  # no interval: by the difference
    assert bare["z"].isna().all() and bare["yes_low"].isna().all()
    assert list(bare["largest"]) == sorted(bare["largest"], reverse=True)


def test_action_grid_finds_the_action_on_either_side() -> None:
    labels, where = action_grid(["yes:bias", "yes:x", "no:bias", "no:x"], ("yes", "no"))
    assert labels == ("bias", "x") and where.tolist() == [[0, 1], [2, 3]]
    labels, where = action_grid(["7:yes", "7:no", "9:yes", "9:no"], ("yes", "no"))
    assert labels == ("7", "9") and where.tolist() == [[0, 2], [1, 3]]
    assert action_grid(["yes:topic: a · b", "no:topic: a · b"], ("yes", "no"))[0] == (
        "topic: a · b",
    )
    assert action_grid(["w0", "w1"], ("yes", "no")) is None
    assert action_grid(["yes:a", "no:b"], ("yes", "no")) is None  # not every pair
