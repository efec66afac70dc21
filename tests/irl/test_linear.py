"""The linear kind: recovery, centred weights, explanations with intervals, its saved weights."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.envs.legislative.observation import content_names
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.analysis import reward_correlations
from assembly_gym.irl.base import MODEL_FILE, RewardModel
from assembly_gym.irl.linear import LinearRewardModel
from assembly_gym.irl.rollcall import fit_reward_model


@pytest.fixture(scope="module")
def model(small_assembly) -> LinearRewardModel:
    return fit_reward_model(small_assembly.data, kind="linear", l2=5.0)


def test_recovers_planted_weights_of_a_small_assembly() -> None:
    assembly = generate_assembly(
        SyntheticConfig(n_countries=8, n_blocs=2, n_sessions=10, roll_calls_per_session=80, seed=5)
    )
    fitted = fit_reward_model(assembly.data, kind="linear", l2=10.0, standard_errors=False,
                              reward_features=content_names())  # fmt: skip
    planted = assembly.theta[:, :, : 1 + len(content_names())]
    corr = reward_correlations(fitted.theta, planted)
    assert np.median(corr) > 0.65  # minority-vote weights are noisy with 800 roll calls


def test_weights_are_centred_with_finite_standard_errors(model: LinearRewardModel) -> None:
    assert model.theta.shape == (6, 3, 1 + len(model.obs_names))
    np.testing.assert_allclose(model.theta.sum(axis=1), 0.0, atol=1e-8)
    assert np.isfinite(model.standard_errors).all() and (model.standard_errors > 0).all()
    assert model.info["l2"] == 5.0 and model.info["converged"] is True


def test_the_reward_is_theta_phi_and_its_profile_the_weights(model: LinearRewardModel) -> None:
    obs = np.random.default_rng(0).random((4, len(model.obs_names)))
    expected = model.feature_map.logits(model.weights("Country 003"), obs)
    np.testing.assert_allclose(model.logits(np.full(4, 2), obs), expected)
    # Centred weights: the reward is the log-probability relative to the mean over actions.
    probs = model.action_probs("Country 003", obs)
    np.testing.assert_allclose(expected, np.log(probs) - np.log(probs).mean(axis=1, keepdims=True))
    values, names = model.profile()
    np.testing.assert_array_equal(values, model.theta.reshape(6, -1))
    assert names == model.weight_names and names[:2] == ("yes:bias", f"yes:{model.obs_names[0]}")


def test_explain_tables(model: LinearRewardModel) -> None:
    one = model.explain("Country 003")
    assert list(one.columns[:3]) == ["yes", "yes_se", "yes_z"] and one.index[0] == "bias"
    summary = model.explain()
    assert "no_mean" in summary.columns and len(summary) == 1 + len(model.obs_names)
    with pytest.raises(DataError, match="unknown country 'Country 0001'.*did you mean"):
        model.weights("Country 0001")


def test_effects_are_the_protocols_with_an_interval(model: LinearRewardModel) -> None:
    obs = np.random.default_rng(1).random((50, len(model.obs_names)))
    linear, generic = (
        model.effects("Country 002", obs),
        RewardModel.effects(model, "Country 002", obs),
    )
    actions = list(model.action_names)
    np.testing.assert_allclose(linear[actions], generic.loc[linear.index, actions], atol=1e-12)
    assert (linear["yes_se"] > 0).all() and (linear["yes_low"] < linear["yes_high"]).all()
    assert generic["yes_se"].isna().all()


def test_a_weight_table_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match=r"theta has shape \(1, 2, 2\), expected \(1, 3, 2\)"):
        LinearRewardModel(("A",), ("yes", "no", "abstain"), ("x",), np.zeros((1, 2, 2)))


def test_the_weights_are_saved_by_country_action_and_feature(model, tmp_path) -> None:
    model.save(tmp_path)
    document = json.loads((tmp_path / MODEL_FILE).read_text())
    assert document["reward_kind"] == "linear"
    entry = document["weights"]["Country 001"]["yes"]["issue_hr"]
    assert set(entry) == {"weight", "std_error"}
    loaded = RewardModel.load(tmp_path)
    assert isinstance(loaded, LinearRewardModel)
    np.testing.assert_array_equal(loaded.theta, model.theta)
    np.testing.assert_array_equal(loaded.standard_errors, model.standard_errors)


def _edit_weights(folder, edit) -> None:
    path = folder / MODEL_FILE
    document = json.loads(path.read_text())
    edit(document["weights"])
    path.write_text(json.dumps(document))


@pytest.mark.parametrize("weight", ["0.5", True, None, [1.0]])
def test_weights_that_are_not_numbers(model, tmp_path, weight) -> None:
    model.save(tmp_path)
    _edit_weights(tmp_path, lambda w: w["Country 002"]["no"]["issue_hr"].update(weight=weight))
    with pytest.raises(CheckpointError, match="invalid reward model .a weight is"):
        RewardModel.load(tmp_path)


@pytest.mark.parametrize(
    "edit",
    [lambda w: w.pop("Country 006"), lambda w: w.update({"Atlantis": w["Country 001"]})],
    ids=["one missing", "one more"],
)
def test_weights_of_other_countries_than_those_listed(model, tmp_path, edit) -> None:
    model.save(tmp_path)
    _edit_weights(tmp_path, edit)
    with pytest.raises(CheckpointError, match="reward_model.json: the weights are not those"):
        RewardModel.load(tmp_path)
