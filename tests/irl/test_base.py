"""The reward-model protocol, on a toy kind: lookup, policy, env rewards, effects, the artifact."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assembly_gym.core.artifact import Artifact
from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.core.persist import arrays_from_bytes, arrays_to_bytes
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.irl import base
from assembly_gym.irl.base import (
    MODEL_FILE,
    CountryReward,
    Decisions,
    RewardModel,
    register_reward_kind,
    reward_kind,
    reward_kinds,
)
from assembly_gym.irl.history import HISTORY_FILE
from assembly_gym.irl.rollcall import fit_reward_model

TABLE_FILE = "table.npz"


@dataclass(frozen=True)
class ToyRewardModel(RewardModel):
    """A kind in a few lines: r_c(s, a) = log of c's frequency of a, + tanh(first input) for a = 0.

    Attributes:
        table: log frequencies, (C, A); saved in its own file.
    """

    kind = "toy"

    table: np.ndarray

    @classmethod
    def fit(cls, decisions: Decisions, *, progress: bool = False, **settings: Any) -> RewardModel:
        counts = 1.0 + np.stack([
            np.bincount(decisions.of(row)[1], minlength=len(decisions.action_names))
            for row in range(len(decisions.countries))
        ])  # fmt: skip
        table = np.log(counts / counts.sum(axis=1, keepdims=True))
        return cls(decisions.countries, decisions.action_names, decisions.obs_names, table,
                   info={"settings": settings})  # fmt: skip

    def logits(self, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        values = self.table[np.asarray(rows)].copy()
        values[:, 0] += np.tanh(np.atleast_2d(obs)[:, 0])
        return values

    def _parts(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        return {}, {TABLE_FILE: arrays_to_bytes({"table": self.table})}

    @classmethod
    def _from_parts(cls, common: dict[str, Any], saved: Artifact, source: Path) -> RewardModel:
        if TABLE_FILE not in saved.files:
            raise CheckpointError(f"{source}: no {TABLE_FILE}")
        table = arrays_from_bytes(saved.files[TABLE_FILE], saved.folder / TABLE_FILE)["table"]
        return cls(table=table, **common)


@pytest.fixture(scope="module", autouse=True)
def toy_kind():
    """The toy kind registered for this module's tests only."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(base, "_KINDS", dict(base._KINDS))
        register_reward_kind("toy", ToyRewardModel)
        yield


@pytest.fixture(scope="module")
def model(small_assembly, toy_kind) -> RewardModel:
    return fit_reward_model(small_assembly.data, kind="toy", reward_features=["year", "important"])


def test_a_registered_kind_is_fitted_by_name_and_an_unknown_one_is_named() -> None:
    assert reward_kind("toy") is ToyRewardModel
    assert reward_kinds()[:3] == ("linear", "trees", "neural") and "toy" in reward_kinds()
    with pytest.raises(ValueError, match="unknown reward kind 'oak'; the kinds are linear"):
        reward_kind("oak")


def test_action_probs_sum_to_one_and_respect_masks(model: RewardModel) -> None:
    obs = np.random.default_rng(0).random((5, len(model.layout)))
    probs = model.action_probs("Country 002", obs)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    masked = model.action_probs("Country 002", obs, mask=np.array([True, False, True]))
    assert (masked[:, 1] == 0).all()
    np.testing.assert_allclose(masked.sum(axis=1), 1.0)


def test_the_reward_reads_its_features_from_whole_observations(model: RewardModel) -> None:
    assert model.obs_names == ("year", "important") and len(model.layout) > 2
    obs = np.random.default_rng(1).random((4, len(model.layout)))
    year, important = model.layout.index("year"), model.layout.index("important")
    np.testing.assert_array_equal(model.select(obs), obs[:, [year, important]])
    expected = model.table[1, 0] + np.tanh(obs[:, year])
    np.testing.assert_allclose(model.reward_fns()["Country 002"].values(obs)[:, 0], expected)
    with pytest.raises(ValueError, match="observations have 3 dimensions"):
        model.action_probs("Country 002", obs[:, :3])


def test_reward_fns_are_batched_and_equal_each_countrys_reward(model: RewardModel) -> None:
    fns = model.reward_fns()
    assert list(fns) == list(model.countries) and len(fns) == len(model.countries)
    rng = np.random.default_rng(2)
    obs, actions = rng.random((12, len(model.layout))), rng.integers(0, 3, 12)
    names = [model.countries[i % 3] for i in range(12)]
    batched = fns.batch_rows(fns.rows(names), obs, actions, obs, {})
    one_by_one = [fns[c](obs[i], actions[i], obs[i], {}) for i, c in enumerate(names)]
    np.testing.assert_allclose(batched, one_by_one)
    first = fns["Country 001"]
    np.testing.assert_allclose(
        first.batch(obs, actions, obs, {}),
        [first(obs[i], a, obs[i], {}) for i, a in enumerate(actions)],
    )
    assert isinstance(model.as_reward_fn("Country 003"), CountryReward)
    assert list(model.reward_fns(["Country 003"])) == ["Country 003"]


def test_reward_plugs_into_the_env(model: RewardModel, small_assembly) -> None:
    env = RollCallEnv(small_assembly.data, country="Country 001",
                      reward_fn=model.as_reward_fn("Country 001"),
                      feature_config=model.feature_config)  # fmt: skip
    obs, _ = env.reset(seed=0)
    _, reward, *_ = env.step(0)
    assert reward == pytest.approx(model.logits(np.array([0]), model.select(obs))[0, 0])


def test_unknown_country_is_a_clear_error(model: RewardModel) -> None:
    with pytest.raises(DataError, match="unknown country 'Country 0001'.*did you mean"):
        model.as_reward_fn("Country 0001")
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        model.reward_fns(["Country 001", "Atlantis"])


def test_policy_forecast_and_profile_of_new_roll_calls(model: RewardModel) -> None:
    new = model.history.roll_calls.iloc[-20:]
    probs = model.policy(new)
    assert probs.shape == (6, 20, 3)
    np.testing.assert_allclose(probs.sum(axis=2), 1.0)
    table = model.forecast(new)
    assert list(table.columns) == ["rcid", "country_code", "p_yes", "p_no", "p_abstain"]
    np.testing.assert_allclose(table["p_no"].to_numpy(), probs[:, :, 1].ravel())
    values, names = model.profile()  # the default: the last training session's policy
    last = model.history.roll_calls[model.history.roll_calls["session"] == 6]
    assert values.shape == (6, 3 * len(last)) and len(names) == values.shape[1]
    assert names[:2] == (f"{last['rcid'].iloc[0]}:yes", f"{last['rcid'].iloc[0]}:no")


def test_without_history_there_is_no_forecast_nor_default_profile(model: RewardModel) -> None:
    bare = ToyRewardModel(model.countries, model.action_names, model.obs_names, model.table)
    with pytest.raises(DataError, match="no training history"):
        bare.forecast(model.history.roll_calls)
    with pytest.raises(DataError, match="no training history"):
        bare.profile()


def test_effects_move_each_feature_over_its_span(model: RewardModel) -> None:
    obs = np.random.default_rng(3).normal(size=(200, 2))
    table = model.effects("Country 004", obs)
    assert list(table.index) == ["year", "important"]  # most important first
    assert table.loc["important", ["yes", "no", "abstain"]].abs().max() == 0.0  # not read
    low, high = np.percentile(obs[:, 0], [10, 90])
    assert table.loc["year", ["low", "high"]].tolist() == pytest.approx([low, high])
    assert table.loc["year", "yes"] > 0 and table["yes_se"].isna().all()
    np.testing.assert_allclose(table[["yes", "no", "abstain"]].sum(axis=1), 0.0, atol=1e-12)
    with pytest.raises(ValueError, match=r"expected \(N ≥ 1, 2\)"):
        model.effects("Country 004", obs[:, :1])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (((), ("yes",), ("x",)), "at least one country"),
        ((("A", "A"), ("yes",), ("x",)), "a country appears twice"),
    ],
)
def test_a_model_needs_distinct_countries(args, message) -> None:
    with pytest.raises(ValueError, match=message):
        ToyRewardModel(*args, np.zeros((len(args[0]), 1)))


def test_reward_features_must_be_in_the_layout() -> None:
    with pytest.raises(ValueError, match="not in the observation layout"):
        ToyRewardModel(("A",), ("yes",), ("x",), np.zeros((1, 1)), layout=("y",))


# ---------------------------------------------------------------------- the saved folder


def test_save_load_round_trip_of_a_kind_with_its_own_file(model: RewardModel, tmp_path) -> None:
    model.save(tmp_path)
    document = json.loads((tmp_path / MODEL_FILE).read_text())
    assert document["format_version"] == 2 and document["reward_kind"] == "toy"
    assert set(document["files"]) == {TABLE_FILE, HISTORY_FILE}
    loaded = RewardModel.load(tmp_path)
    assert isinstance(loaded, ToyRewardModel)
    np.testing.assert_array_equal(loaded.table, model.table)
    assert (loaded.countries, loaded.action_names) == (model.countries, model.action_names)
    assert (loaded.obs_names, loaded.layout) == (model.obs_names, model.layout)
    assert loaded.feature_config == model.feature_config and loaded.info == model.info
    np.testing.assert_array_equal(loaded.history.votes, model.history.votes)
    new = model.history.roll_calls.iloc[-20:]
    np.testing.assert_allclose(loaded.policy(new), model.policy(new))


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


def _edit(folder: Path, **changes: Any) -> None:
    path = folder / MODEL_FILE
    document = json.loads(path.read_text())
    document.update(changes)
    path.write_text(json.dumps(document))


def _replace_history(folder: Path, data: bytes) -> None:
    """Put other bytes in history.npz and their checksum in the manifest (as a tamperer would)."""
    (folder / HISTORY_FILE).write_bytes(data)
    files = json.loads((folder / MODEL_FILE).read_text())["files"]
    entry = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    _edit(folder, files={**files, HISTORY_FILE: entry})


def test_an_unknown_reward_kind_names_the_file(model: RewardModel, tmp_path) -> None:
    model.save(tmp_path)
    _edit(tmp_path, reward_kind="oak")
    with pytest.raises(CheckpointError, match=r"reward_model.json: unknown reward kind 'oak'"):
        RewardModel.load(tmp_path)


def test_a_save_is_one_artifact_with_one_id(model: RewardModel, tmp_path) -> None:
    model.save(tmp_path / "m")
    document = json.loads((tmp_path / "m" / MODEL_FILE).read_text())
    with np.load(tmp_path / "m" / HISTORY_FILE) as history:
        assert str(history["artifact_id"]) == document["artifact_id"]
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
        ({"format_version": 1}, "format version 1, this code reads 2"),
        ({"format_version": True}, "format version True, this code reads 2"),
        ({"reward_kind": 3}, "field 'reward_kind' is an integer"),
        ({"countries": []}, "no countries"),
        ({"countries": {"Country 001": 5}}, "field 'countries' is an object, expected a list"),
        ({"countries": [5]}, "field 'countries' holds an integer"),
        ({"action_names": "yes"}, "field 'action_names' is a string, expected a list"),
        ({"action_names": []}, "no actions"),
        ({"obs_names": [1, 2]}, "field 'obs_names' holds an integer, expected only a string"),
        ({"layout": 3}, "field 'layout' is an integer"),
        ({"layout": ["year"]}, "invalid reward model .reward features"),
        ({"env_id": None}, "field 'env_id' is null"),
        ({"feature_config": "default"}, "field 'feature_config' is a string"),
        ({"feature_config": {"colour": 1}}, r"feature_config .unknown .* options \['colour'\]"),
        ({"feature_config": {"log_shares": "yes"}}, "json: corrupted feature_config .field 'log_"),
        ({"feature_config": {"text_dims": 0}}, "corrupted feature_config .text_dims and neighb"),
        ({"info": [1]}, "field 'info' is a list"),
    ],
)
def test_fields_of_the_wrong_type(model: RewardModel, tmp_path, changes, message) -> None:
    model.save(tmp_path)
    _edit(tmp_path, **changes)
    with pytest.raises(CheckpointError, match=message):
        RewardModel.load(tmp_path)
