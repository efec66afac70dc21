"""The neural reward kind: fit, batched logits, the saved networks and their checks, env use."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.core.persist import arrays_from_bytes, arrays_to_bytes
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.irl.base import MODEL_FILE, Decisions, RewardModel
from assembly_gym.irl.mlp import NETWORKS_FILE, NeuralRewardModel
from assembly_gym.irl.neural import NeuralReward
from assembly_gym.irl.rollcall import fit_reward_model

COUNTRIES = ("France", "Chile", "India")
ACTIONS = ("yes", "no", "abstain")


def _planted(n: int, seed: int) -> Decisions:
    """Votes of 3 countries on 2 features: yes with ±x0 (by country), no with x1² (nonlinear)."""
    rng = np.random.default_rng(seed)
    rows, x = np.arange(n) % 3, rng.normal(size=(n, 2))
    sign = np.array([1.0, -1.0, 1.0])[rows]
    logits = np.column_stack([2.5 * sign * x[:, 0], 2.0 * x[:, 1] ** 2 - 1.5, np.zeros(n)])
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    actions = (rng.random((n, 1)) > p.cumsum(axis=1)).sum(axis=1)
    return Decisions(COUNTRIES, rows, x, actions, np.ones((n, 3), dtype=bool), ("x0", "x1"),
                     ACTIONS)  # fmt: skip


@pytest.fixture(scope="module")
def model() -> NeuralRewardModel:
    return NeuralRewardModel.fit(
        _planted(300, seed=0), hidden=(8,), l2=1.0, lr=5e-2, epochs=50, device="cpu"
    )


def test_fit_learns_each_countrys_votes(model: NeuralRewardModel) -> None:
    held_out = _planted(600, seed=1)
    logits = model.logits(held_out.rows, held_out.obs)
    assert logits.shape == (600, 3)
    log_p = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    assert log_p[np.arange(600), held_out.actions].mean() > np.log(1 / 3) + 0.2
    assert model.hidden == (8,) and model.info["n_votes"] == dict.fromkeys(COUNTRIES, 100)
    assert model.info["settings"]["epochs"] == 50
    assert all(len(network.history_) == 50 for network in model.networks)


def test_logits_are_each_countrys_network(model: NeuralRewardModel) -> None:
    obs = np.random.default_rng(2).normal(size=(40, 2))
    rows = np.arange(40) % 3
    per_network = np.stack([model.networks[r].rewards(obs[[i]])[0] for i, r in enumerate(rows)])
    np.testing.assert_allclose(model.logits(rows, obs), per_network, atol=1e-12)  # by country
    np.testing.assert_allclose(model.logits(rows[:3], obs[:3]), per_network[:3], atol=1e-12)


def test_reward_fns_batch_equals_each_countrys_value(model: NeuralRewardModel) -> None:
    fns = model.reward_fns()
    rng = np.random.default_rng(3)
    obs, actions = rng.normal(size=(3, 2)), np.array([0, 2, 1])
    batched = fns.batch_rows(fns.rows(COUNTRIES), obs, actions, obs, {})
    one_by_one = [fns[c](obs[i], actions[i], obs[i], {}) for i, c in enumerate(COUNTRIES)]
    np.testing.assert_allclose(batched, one_by_one)
    values = fns["Chile"].values(obs)
    np.testing.assert_allclose(values, model.networks[1].rewards(obs), atol=1e-12)


def test_effects_table_has_one_row_per_feature(model: NeuralRewardModel) -> None:
    table = model.effects("Chile", _planted(300, seed=4).obs)
    assert sorted(table.index) == ["x0", "x1"] and table["yes_se"].isna().all()
    assert table.loc["x0", "yes"] < 0  # Chile votes yes less as x0 grows
    np.testing.assert_allclose(table[list(ACTIONS)].sum(axis=1), 0.0, atol=1e-12)


def test_settings_and_networks_are_checked(model: NeuralRewardModel) -> None:
    decisions = _planted(30, seed=5)
    with pytest.raises(TypeError, match="colour"):
        NeuralRewardModel.fit(decisions, colour=1)
    with pytest.raises(ValueError, match="hidden widths must be ≥ 1"):
        NeuralRewardModel.fit(decisions, hidden=(0,))
    lonely = Decisions(("A", "B"), np.zeros(30, dtype=np.int64), decisions.obs, decisions.actions,
                       decisions.masks, decisions.obs_names, ACTIONS)  # fmt: skip
    with pytest.raises(DataError, match="'B' has no decision"):
        NeuralRewardModel.fit(lonely, epochs=1, device="cpu")
    with pytest.raises(ValueError, match="2 networks for 3 countries"):
        NeuralRewardModel(COUNTRIES, ACTIONS, ("x0", "x1"), model.networks[:2])
    with pytest.raises(ValueError, match="map 1 inputs to 3 actions"):
        NeuralRewardModel(COUNTRIES, ACTIONS, ("x0",), model.networks)
    wide = NeuralReward(2, 3, (4,), device="cpu")
    with pytest.raises(ValueError, match="different widths"):
        NeuralRewardModel(COUNTRIES, ACTIONS, ("x0", "x1"), (*model.networks[:2], wide))


def test_a_network_from_its_arrays(model: NeuralRewardModel) -> None:
    network = model.networks[0]
    copy = NeuralReward.from_arrays(network.arrays(), network.mean_, network.scale_)
    obs = np.random.default_rng(6).normal(size=(5, 2))
    np.testing.assert_array_equal(copy.rewards(obs), network.rewards(obs))
    assert copy.device.type == "cpu"
    transposed = [network.arrays()[0].T, *network.arrays()[1:]]
    with pytest.raises(ValueError, match="parameter shapes"):
        NeuralReward.from_arrays(transposed, network.mean_, network.scale_)
    with pytest.raises(ValueError, match="a weight and a bias"):
        NeuralReward.from_arrays(network.arrays()[:3], network.mean_, network.scale_)


# ---------------------------------------------------------------------- the saved folder


def test_save_load_round_trip(model: NeuralRewardModel, tmp_path: Path) -> None:
    model.save(tmp_path)
    document = json.loads((tmp_path / MODEL_FILE).read_text())
    assert document["reward_kind"] == "neural" and document["hidden"] == [8]
    assert set(document["files"]) == {NETWORKS_FILE}
    loaded = RewardModel.load(tmp_path)
    assert isinstance(loaded, NeuralRewardModel) and loaded.info == model.info
    assert all(network.device.type == "cpu" for network in loaded.networks)
    held_out = _planted(60, seed=7)
    np.testing.assert_array_equal(
        loaded.logits(held_out.rows, held_out.obs), model.logits(held_out.rows, held_out.obs)
    )


def _replace_networks(folder: Path, arrays: dict[str, np.ndarray]) -> None:
    """Rewrite networks.npz and its checksum in the manifest (as a tamperer would)."""
    data = arrays_to_bytes(arrays)
    (folder / NETWORKS_FILE).write_bytes(data)
    document = json.loads((folder / MODEL_FILE).read_text())
    document["files"][NETWORKS_FILE] = {
        "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)
    }
    (folder / MODEL_FILE).write_text(json.dumps(document))


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda a: a.pop("bias_1"), r"arrays \['bias_0', 'mean'"),
        (lambda a: a.update(extra=np.zeros(1)), r"arrays \['bias_0', 'bias_1', 'extra'"),
        (lambda a: a.update(weight_0=a["weight_0"][:, :, :1]), r"'weight_0' is float64 .3, 8, 1."),
        (lambda a: a.update(mean=a["mean"][:2]), r"'mean' is float64 \(2, 2\), expected finite"),
        (lambda a: a.update(bias_1=a["bias_1"].astype(np.float32)), "'bias_1' is float32"),
        (lambda a: a["scale"].__setitem__((0, 0), np.nan), "'scale' is float64 .3, 2., expected"),
    ],
)
def test_tampered_networks_are_refused(model, tmp_path: Path, tamper, message) -> None:
    model.save(tmp_path)
    arrays = arrays_from_bytes((tmp_path / NETWORKS_FILE).read_bytes(), NETWORKS_FILE)
    tamper(arrays)
    _replace_networks(tmp_path, arrays)
    with pytest.raises(CheckpointError, match=f"networks.npz: {message}"):
        RewardModel.load(tmp_path)


def test_widths_and_files_that_do_not_fit_are_refused(model, tmp_path: Path) -> None:
    model.save(tmp_path)
    path = tmp_path / MODEL_FILE
    document = json.loads(path.read_text())
    path.write_text(json.dumps({**document, "hidden": [9]}))
    with pytest.raises(CheckpointError, match=r"networks.npz: 'weight_0' is float64 \(3, 8, 2\)"):
        RewardModel.load(tmp_path)
    path.write_text(json.dumps({**document, "hidden": [0]}))
    with pytest.raises(CheckpointError, match=r"reward_model.json: hidden widths \[0\]"):
        RewardModel.load(tmp_path)
    path.write_text(json.dumps({**document, "hidden": ["8"]}))
    with pytest.raises(CheckpointError, match="field 'hidden' holds a string"):
        RewardModel.load(tmp_path)
    (tmp_path / NETWORKS_FILE).unlink()
    path.write_text(json.dumps({**document, "files": {}}))
    with pytest.raises(CheckpointError, match="networks.npz: missing"):
        RewardModel.load(tmp_path)


# ---------------------------------------------------------------------- on roll calls


def test_fitted_on_roll_calls_it_plays_in_the_env_and_forecasts(small_assembly, tmp_path) -> None:
    fitted = fit_reward_model(small_assembly.data, kind="neural", hidden=(4,), epochs=5,
                              device="cpu")  # fmt: skip
    env = RollCallEnv(small_assembly.data, country="Country 001",
                      reward_fn=fitted.as_reward_fn("Country 001"),
                      feature_config=fitted.feature_config)  # fmt: skip
    obs, _ = env.reset(seed=0)
    _, reward, *_ = env.step(2)
    assert reward == pytest.approx(fitted.networks[0].rewards(obs[None])[0, 2])
    loaded = RewardModel.load(fitted.save(tmp_path / "m"))
    new = fitted.require_history().roll_calls.iloc[-10:]
    np.testing.assert_array_equal(loaded.policy(new), fitted.policy(new))
