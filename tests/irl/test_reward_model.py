"""RewardModel and the RollCall fit: recovery, save/load, explanations, errors, env plug-in."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.envs.legislative.observation import FeatureConfig
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.analysis import reward_correlations
from assembly_gym.irl.reward_model import HISTORY_FILE, MODEL_FILE, RewardModel
from assembly_gym.irl.rollcall import fit_reward_model


@pytest.fixture(scope="module")
def model(small_assembly) -> RewardModel:
    return fit_reward_model(small_assembly.data, l2=5.0)


def test_recovers_planted_weights_of_a_small_assembly() -> None:
    assembly = generate_assembly(
        SyntheticConfig(n_countries=8, n_blocs=2, n_sessions=10, roll_calls_per_session=80, seed=5)
    )
    from assembly_gym.envs.legislative.observation import content_names

    fitted = fit_reward_model(
        assembly.data, l2=10.0, standard_errors=False, reward_features=content_names()
    )
    planted = assembly.theta[:, :, : 1 + len(content_names())]
    corr = reward_correlations(fitted.theta, planted)
    assert np.median(corr) > 0.65  # minority-vote weights are noisy with 800 roll calls


def test_weights_are_centred_with_finite_standard_errors(model: RewardModel) -> None:
    assert model.theta.shape == (6, 3, 1 + len(model.obs_names))
    np.testing.assert_allclose(model.theta.sum(axis=1), 0.0, atol=1e-8)
    assert np.isfinite(model.standard_errors).all() and (model.standard_errors > 0).all()


def test_action_probs_sum_to_one_and_respect_masks(model: RewardModel, small_assembly) -> None:
    obs = np.random.default_rng(0).random((5, len(model.obs_names)))
    probs = model.action_probs("Country 002", obs)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    masked = model.action_probs("Country 002", obs, mask=np.array([True, False, True]))
    assert (masked[:, 1] == 0).all()
    np.testing.assert_allclose(masked.sum(axis=1), 1.0)


def test_save_load_round_trip(model: RewardModel, tmp_path) -> None:
    model.save(tmp_path)
    document = json.loads((tmp_path / MODEL_FILE).read_text())
    assert document["format_version"] == 1
    assert "weight" in document["countries"]["Country 001"]["yes"]["issue_hr"]
    loaded = RewardModel.load(tmp_path)
    np.testing.assert_array_equal(loaded.theta, model.theta)
    np.testing.assert_array_equal(loaded.standard_errors, model.standard_errors)
    assert loaded.countries == model.countries and loaded.obs_names == model.obs_names
    assert loaded.feature_config == model.feature_config
    np.testing.assert_array_equal(loaded.history.votes, model.history.votes)
    new = model.history.roll_calls.iloc[-20:]
    np.testing.assert_allclose(
        loaded.forecast(new)[["p_yes", "p_no", "p_abstain"]],
        model.forecast(new)[["p_yes", "p_no", "p_abstain"]],
    )


def test_load_rejects_missing_or_corrupted_files(model: RewardModel, tmp_path) -> None:
    with pytest.raises(CheckpointError, match="file not found"):
        RewardModel.load(tmp_path)
    model.save(tmp_path)
    (tmp_path / HISTORY_FILE).write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="history.npz: corrupted or truncated"):
        RewardModel.load(tmp_path)
    (tmp_path / MODEL_FILE).write_text("{")
    with pytest.raises(CheckpointError, match="corrupted"):
        RewardModel.load(tmp_path)


def test_explain_tables(model: RewardModel) -> None:
    one = model.explain("Country 003")
    assert list(one.columns[:3]) == ["yes", "yes_se", "yes_z"] and one.index[0] == "bias"
    summary = model.explain()
    assert "no_mean" in summary.columns and len(summary) == 1 + len(model.obs_names)


def test_unknown_country_is_a_clear_error(model: RewardModel) -> None:
    with pytest.raises(DataError, match="unknown country 'Country 0001'.*did you mean"):
        model.weights("Country 0001")
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        model.as_reward_fn("Atlantis")


def test_fit_errors_for_unknown_country_and_no_votes(small_assembly) -> None:
    data = small_assembly.data
    with pytest.raises(DataError, match="unknown country"):
        fit_reward_model(data, ["Atlantis"])
    silent = type(data)(data.countries, data.roll_calls, np.full(data.votes.shape, -1, np.int8))
    with pytest.raises(DataError, match="no votes to learn from"):
        fit_reward_model(silent)


def test_reward_plugs_into_the_env(model: RewardModel, small_assembly) -> None:
    reward_fn = model.as_reward_fn("Country 001")
    env = RollCallEnv(
        small_assembly.data,
        country="Country 001",
        reward_fn=reward_fn,
        feature_config=model.feature_config or FeatureConfig(),
    )
    obs, _ = env.reset(seed=0)
    _, reward, *_ = env.step(0)
    logits = model.feature_map.logits(model.weights("Country 001"), obs[None])
    assert reward == pytest.approx(logits[0, 0])


def test_predict_without_history_is_an_error(model: RewardModel) -> None:
    bare = RewardModel(model.countries, model.action_names, model.obs_names, model.theta)
    with pytest.raises(DataError, match="no training history"):
        bare.forecast(model.history.roll_calls)


def test_reward_on_a_subset_of_features_reads_whole_observations(small_assembly) -> None:
    from assembly_gym.envs.legislative.observation import content_names

    model = fit_reward_model(
        small_assembly.data, reward_features=content_names(), l2=5.0, standard_errors=False
    )
    assert model.obs_names == content_names() and len(model.layout) > len(content_names())
    obs = np.random.default_rng(1).random((4, len(model.layout)))
    probs = model.action_probs("Country 001", obs)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    reward = model.as_reward_fn("Country 001")(obs[0], 1, obs[0], {})
    # Centred weights: the reward is the log-probability relative to the mean over actions.
    assert reward == pytest.approx(np.log(probs[0, 1]) - np.log(probs[0]).mean())
    with pytest.raises(ValueError, match="unknown reward features"):
        fit_reward_model(small_assembly.data, reward_features=["votes_of_mars"])


def _edit(folder, **changes) -> None:
    path = folder / MODEL_FILE
    document = json.loads(path.read_text())
    document.update(changes)
    path.write_text(json.dumps(document))


def _replace_history(folder, data: bytes) -> None:
    """Put other bytes in history.npz and their checksum in the manifest (as a tamperer would)."""
    (folder / HISTORY_FILE).write_bytes(data)
    files = json.loads((folder / MODEL_FILE).read_text())["files"]
    entry = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    _edit(folder, files={**files, HISTORY_FILE: entry})


def test_a_save_is_one_artifact_with_one_id(model: RewardModel, tmp_path) -> None:
    model.save(tmp_path / "m")
    document = json.loads((tmp_path / "m" / MODEL_FILE).read_text())
    with np.load(tmp_path / "m" / HISTORY_FILE) as history:
        assert str(history["artifact_id"]) == document["artifact_id"]
    assert set(document["files"]) == {HISTORY_FILE}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]  # no temporary sibling left
    (tmp_path / "file").write_text("x")
    with pytest.raises(CheckpointError, match="exists and is not a folder"):
        model.save(tmp_path / "file")


def test_a_truncated_history_with_a_matching_checksum(model: RewardModel, tmp_path) -> None:
    model.save(tmp_path)
    _replace_history(tmp_path, (tmp_path / HISTORY_FILE).read_bytes()[:500])
    with pytest.raises(CheckpointError, match="history.npz: corrupted arrays"):
        RewardModel.load(tmp_path)


def test_the_history_of_another_save_is_refused(model: RewardModel, tmp_path) -> None:
    model.save(tmp_path / "a")
    model.save(tmp_path / "b")
    _replace_history(tmp_path / "a", (tmp_path / "b" / HISTORY_FILE).read_bytes())
    with pytest.raises(CheckpointError, match="history.npz: the history of another save"):
        RewardModel.load(tmp_path / "a")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"format_version": True}, "format version True, this code reads 1"),
        ({"countries": {}}, "no countries"),
        ({"countries": []}, "field 'countries' is a list, expected an object"),
        ({"countries": {"Country 001": 5}}, "field 'countries' holds an integer"),
        ({"action_names": "yes"}, "field 'action_names' is a string, expected a list"),
        ({"action_names": []}, "no actions"),
        ({"obs_names": [1, 2]}, "field 'obs_names' holds an integer, expected only a string"),
        ({"layout": 3}, "field 'layout' is an integer"),
        ({"env_id": None}, "field 'env_id' is null"),
        ({"feature_config": "default"}, "field 'feature_config' is a string"),
        ({"feature_config": {"colour": 1}}, "invalid reward model"),
        ({"info": [1]}, "field 'info' is a list"),
    ],
)
def test_fields_of_the_wrong_type(model: RewardModel, tmp_path, changes, message) -> None:
    model.save(tmp_path)
    _edit(tmp_path, **changes)
    with pytest.raises(CheckpointError, match=message):
        RewardModel.load(tmp_path)


@pytest.mark.parametrize("weight", ["0.5", True, None, [1.0]])
def test_weights_that_are_not_numbers(model: RewardModel, tmp_path, weight) -> None:
    model.save(tmp_path)
    countries = json.loads((tmp_path / MODEL_FILE).read_text())["countries"]
    countries["Country 002"]["no"]["issue_hr"]["weight"] = weight
    _edit(tmp_path, countries=countries)
    with pytest.raises(CheckpointError, match="invalid reward model .a weight is"):
        RewardModel.load(tmp_path)


def test_a_model_needs_a_country() -> None:
    with pytest.raises(ValueError, match="at least one country"):
        RewardModel((), ("yes", "no"), ("x",), np.zeros((0, 2, 2)))
