"""The mixture kind: its policy is the weighted average of its members', saved whole."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assembly_gym.core.errors import CheckpointError
from assembly_gym.irl.base import Decisions, RewardModel
from assembly_gym.irl.mixture import MixtureRewardModel

SETTINGS = {"trees": {"n_trees": 15, "min_child_samples": 10, "threads": 1},
            "linear": {"l2": 1.0, "standard_errors": False}}  # fmt: skip


@pytest.fixture(scope="module")
def decisions() -> Decisions:
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(400, 2))
    actions = (obs[:, 0] > 0).astype(np.int64) + (obs[:, 1] > 1)
    return Decisions(("A", "B"), rng.integers(0, 2, 400), obs, actions,
                     np.ones((400, 3), bool), ("x", "y"), ("yes", "no", "abstain"))  # fmt: skip


@pytest.fixture(scope="module")
def model(decisions: Decisions) -> MixtureRewardModel:
    return MixtureRewardModel.fit(decisions, members={"trees": 0.6, "linear": 0.4}, **SETTINGS)


def test_the_policy_is_the_weighted_average_of_the_members(
    model: MixtureRewardModel, decisions: Decisions
) -> None:
    trees, linear = model.members
    obs = decisions.obs[:20]
    expected = 0.6 * trees.action_probs("B", obs) + 0.4 * linear.action_probs("B", obs)
    np.testing.assert_allclose(model.action_probs("B", obs), expected, atol=1e-12)
    assert [m["kind"] for m in model.info["members"]] == ["trees", "linear"]


def test_a_saved_mixture_loads_with_the_same_rewards(model: MixtureRewardModel, tmp_path) -> None:
    model.save(tmp_path / "m")
    loaded = RewardModel.load(tmp_path / "m")
    assert isinstance(loaded, MixtureRewardModel) and loaded.weights == (0.6, 0.4)
    rows, obs = np.array([0, 1, 1]), np.array([[0.5, 0.1], [-1.0, 2.0], [0.0, 0.0]])
    np.testing.assert_array_equal(loaded.logits(rows, obs), model.logits(rows, obs))


def test_a_mixture_nested_in_its_manifest_is_refused(model: MixtureRewardModel, tmp_path) -> None:
    model.save(tmp_path / "m")
    manifest = tmp_path / "m" / "reward_model.json"
    document = json.loads(manifest.read_text())
    document["members"][0]["kind"] = "mixture"
    manifest.write_text(json.dumps(document))
    with pytest.raises(CheckpointError, match="reward_model.json"):
        RewardModel.load(tmp_path / "m")


def test_weights_must_be_positive_and_sum_to_one(model: MixtureRewardModel) -> None:
    with pytest.raises(ValueError, match="sum to 1"):
        MixtureRewardModel(model.countries, model.action_names, model.obs_names,
                           members=model.members, weights=(0.7, 0.7))  # fmt: skip
    with pytest.raises(ValueError, match="name no member"):
        MixtureRewardModel.fit(
            Decisions(("A",), np.zeros(3, np.int64), np.zeros((3, 2)), np.zeros(3, np.int64),
                      np.ones((3, 3), bool), ("x", "y"), ("yes", "no", "abstain")),
            members={"linear": 1.0}, trees={},
        )  # fmt: skip


def test_the_default_fit_of_roll_calls_is_a_mixture_and_says_so() -> None:
    from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    from assembly_gym.irl import report
    from assembly_gym.irl.rollcall import fit_reward_model

    data = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=3)).data
    model = fit_reward_model(data, **SETTINGS)
    summary = report.fit_summary(model)
    assert isinstance(model, MixtureRewardModel)
    assert "members=trees 0.6 + linear 0.4" in summary and " s)" in summary
