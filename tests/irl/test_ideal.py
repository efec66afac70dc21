"""The ideal-point reward kind: fit, the positions table, saving, the reward in both envs."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax

from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import arrays_from_bytes, arrays_to_bytes
from assembly_gym.envs import assembly_v0
from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.demonstrations import rollcall_demonstrations
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.base import MODEL_FILE, Decisions, RewardModel
from assembly_gym.irl.ideal import IDEAL_FILE, POSITIONS_FILE, IdealPointModel
from assembly_gym.irl.rollcall import fit_reward_model

LAST = "Country 008"
"""Absent from the last session: 4 sessions × 8 countries − 1 country-sessions with votes."""


@pytest.fixture(scope="module")
def data() -> RollCallData:
    """8 countries, 4 sessions of 20 roll calls; LAST silent in the last session."""
    data = generate_assembly(
        SyntheticConfig(n_countries=8, n_sessions=4, roll_calls_per_session=20, seed=1)
    ).data
    votes = data.votes.copy()
    votes[data.country_index(LAST), data.roll_calls["session"].to_numpy() == 4] = ABSENT
    return replace(data, votes=votes)


@pytest.fixture(scope="module")
def model(data: RollCallData) -> IdealPointModel:
    return cast(IdealPointModel, fit_reward_model(data, kind="ideal", dims=1))


@pytest.fixture(scope="module")
def model_2d(data: RollCallData) -> IdealPointModel:
    return cast(IdealPointModel, fit_reward_model(data, kind="ideal", dims=2))


def test_the_fit_has_every_country_session_and_roll_call(model, data) -> None:
    assert isinstance(model, IdealPointModel) and model.kind == "ideal" and model.dims == 1
    assert model.action_names == ("yes", "no", "abstain")
    np.testing.assert_array_equal(model.sessions, [1, 2, 3, 4])
    np.testing.assert_array_equal(model.rcids, np.sort(data.roll_calls["rcid"].to_numpy()))
    assert model.positions.shape == model.position_se.shape == (8, 4, 1)
    assert model.b.shape == (80, 1) and model.a.shape == model.kappa.shape == (80,)
    last = model.country_index(LAST)
    assert not model.voted[last, 3] and model.voted.sum() == 31
    assert np.isnan(model.positions[last, 3]).all() and np.isfinite(model.positions[:, :3]).all()
    assert (model.position_se[model.voted] > 0).all()
    assert model.info["dims"] == 1 and model.info["converged"] is True
    assert model.reference in model.countries  # no United States here: the most votes


def test_the_position_table_has_one_row_per_country_session_with_votes(model, model_2d) -> None:
    table = model.position_table()
    assert list(table.columns) == ["country", "country_code", "session", "x1", "x1_lo", "x1_hi"]
    assert len(table) == model.voted.sum() == 31
    assert not ((table["country"] == LAST) & (table["session"] == 4)).any()
    assert (table["x1_lo"] < table["x1"]).all() and (table["x1"] < table["x1_hi"]).all()
    two = model_2d.position_table()
    assert list(two.columns)[3:] == ["x1", "x1_lo", "x1_hi", "x2", "x2_lo", "x2_hi"]
    values, names = model_2d.profile()
    assert values.shape == (8, 2) and names == ("x1", "x2")
    assert values[model_2d.country_index(LAST)] == pytest.approx(model_2d.positions[-1, 2])


# ---------------------------------------------------------------------- saving


def test_save_and_load_keep_every_array_and_probability(model, tmp_path) -> None:
    model.save(tmp_path)
    loaded = RewardModel.load(tmp_path)
    assert isinstance(loaded, IdealPointModel) and loaded.reference == model.reference
    for name in ("positions", "position_se", "voted", "rcids", "b", "item_keys"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(model, name))
    rows, items = np.repeat(np.arange(8), 80), np.tile(np.arange(80), 8)
    np.testing.assert_array_equal(loaded.item_logits(rows, items), model.item_logits(rows, items))
    new = model.require_history().roll_calls.iloc[-10:]
    np.testing.assert_array_equal(loaded.policy(new), model.policy(new))
    written = pd.read_csv(tmp_path / POSITIONS_FILE, keep_default_na=False)
    table = model.position_table()
    assert list(written.columns) == list(table.columns) and len(written) == len(table)
    np.testing.assert_allclose(written["x1_hi"], table["x1_hi"], atol=1e-4)


def _edit_manifest(folder: Path, **changes: Any) -> None:
    path = folder / MODEL_FILE
    document = json.loads(path.read_text())
    document.update(changes)
    path.write_text(json.dumps(document))


def _replace_arrays(folder: Path, **changes: np.ndarray | None) -> None:
    """Rewrite ideal.npz with arrays changed (None: dropped) and its checksum, as a tamperer."""
    arrays = arrays_from_bytes((folder / IDEAL_FILE).read_bytes(), IDEAL_FILE)
    arrays.update(changes)
    data = arrays_to_bytes({k: v for k, v in arrays.items() if v is not None})
    (folder / IDEAL_FILE).write_bytes(data)
    files = json.loads((folder / MODEL_FILE).read_text())["files"]
    entry = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    _edit_manifest(folder, files={**files, IDEAL_FILE: entry})


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (lambda f: (f / IDEAL_FILE).unlink(), "ideal.npz: file not found"),
        (lambda f: _replace_arrays(f, positions=np.zeros((8, 3, 1))),
         r"'positions' is float64 \(8, 3, 1\), expected float64 \(8, 4, 1\)"),
        (lambda f: _replace_arrays(f, voted=np.ones((8, 4), dtype=np.int64)),
         r"'voted' is int64 \(8, 4\), expected bool \(8, 4\)"),
        (lambda f: _replace_arrays(f, kappa=None), r"ideal.npz: arrays \[.*\], expected"),
        (lambda f: _edit_manifest(f, dims=4), r"dims 4 or sizes \[4, 80, \d+\] out of range"),
        (lambda f: _edit_manifest(f, dims=2), r"'positions' is float64 \(8, 4, 1\), expected"),
        (lambda f: _edit_manifest(f, dims="one"), "field 'dims' is a string"),
        (lambda f: _edit_manifest(f, n_sessions=0), r"sizes \[0, 80, \d+\] out of range"),
        (lambda f: _edit_manifest(f, reference=None), "field 'reference' is null"),
    ],
)  # fmt: skip
def test_corrupted_saves_are_refused(model, tmp_path, corrupt, message) -> None:
    model.save(tmp_path)
    corrupt(tmp_path)
    with pytest.raises(CheckpointError, match=message):
        RewardModel.load(tmp_path)


def test_a_save_without_its_arrays_is_refused(model, tmp_path) -> None:
    model.save(tmp_path)
    (tmp_path / IDEAL_FILE).unlink()
    files = json.loads((tmp_path / MODEL_FILE).read_text())["files"]
    _edit_manifest(tmp_path, files={k: v for k, v in files.items() if k != IDEAL_FILE})
    with pytest.raises(CheckpointError, match="ideal.npz: missing"):
        RewardModel.load(tmp_path)


# ---------------------------------------------------------------------- the reward


def _training_obs(model: IdealPointModel, data: RollCallData, country: str):
    """A country's RollCall-v0 observations of its training roll calls, and their items."""
    demos = rollcall_demonstrations(data, [country], feature_config=model.feature_config,
                                    with_infos=False)  # fmt: skip
    obs = np.concatenate([demo.obs[:-1] for demo in demos])
    voted = data.votes[data.country_index(country)] != ABSENT
    items = np.searchsorted(model.rcids, data.roll_calls["rcid"].to_numpy()[voted])
    return model.select(obs), items


def test_item_logits_are_the_spatial_model(model) -> None:
    rows, items = np.array([0, 3]), np.array([5, 70])
    logits = model.item_logits(rows, items)
    periods = np.searchsorted(model.sessions, model.item_session[items])
    eta = model.a[items] + model.b[items, 0] * model.positions[rows, periods, 0]
    np.testing.assert_allclose(logits[:, 0] - logits[:, 1], eta)
    level = model.kappa[items] + model.abstention[rows, periods]
    np.testing.assert_allclose(logits[:, 2], level)


def test_logits_of_a_training_roll_call_are_its_own_cut(model, data) -> None:
    for country in (model.countries[0], LAST):
        obs, items = _training_obs(model, data, country)
        rows = np.full(len(items), model.country_index(country))
        own = softmax(model.item_logits(rows, items), axis=1)
        np.testing.assert_allclose(softmax(model.logits(rows, obs), axis=1), own, atol=1e-6)


def test_shifting_a_country_moves_only_its_rewards(model) -> None:
    country = model.countries[2]
    row, delta = model.country_index(country), 0.5
    moved = model.shifted(country, np.array([delta]))
    np.testing.assert_allclose(moved.positions[row], model.positions[row] + delta)
    others = np.arange(8) != row
    np.testing.assert_array_equal(moved.positions[others], model.positions[others])
    rows, items = np.repeat(np.arange(8), 80), np.tile(np.arange(80), 8)
    before, after = model.item_logits(rows, items), moved.item_logits(rows, items)
    mine = rows == row
    np.testing.assert_array_equal(after[~mine], before[~mine])
    gap = (after[mine, 0] - after[mine, 1]) - (before[mine, 0] - before[mine, 1])
    np.testing.assert_allclose(gap, model.b[items[mine], 0] * delta)


def test_it_is_the_reward_of_rollcall_v0(model_2d, data) -> None:
    country = model_2d.countries[1]
    env = gym.make("assembly/RollCall-v0", data=data, country=country,
                   reward_fn=model_2d.as_reward_fn(country),
                   feature_config=model_2d.feature_config)  # fmt: skip
    obs, _ = env.reset(seed=0)
    for action in (0, 1, 2):
        expected = model_2d.logits(np.array([1]), model_2d.select(obs))[0, action]
        next_obs, reward, *_ = env.step(action)
        assert reward == pytest.approx(expected)
        obs = next_obs


def test_every_country_plays_by_its_position_in_assembly_v0(model_2d, data) -> None:
    env = assembly_v0.parallel_env(data=data, rewards=model_2d.reward_fns(),
                                   feature_config=model_2d.feature_config)  # fmt: skip
    observations, _ = env.reset(seed=0)
    actions = {agent: i % 3 for i, agent in enumerate(env.agents)}
    rewards = env.step(actions)[1]
    assert set(rewards) == set(actions)
    width = len(model_2d.layout)
    for agent, action in actions.items():
        seen = model_2d.select(observations[agent]["observation"][:width])
        row = np.array([model_2d.country_index(agent)])
        assert rewards[agent] == pytest.approx(model_2d.logits(row, seen)[0, action])


# ---------------------------------------------------------------------- errors


def _decisions(**changes: Any) -> Decisions:
    decisions = Decisions(("A", "B"), np.array([0, 1]), np.zeros((2, 1)), np.array([0, 1]),
                          np.ones((2, 3), dtype=bool), ("year",), ("yes", "no", "abstain"),
                          rcids=np.array([7, 7]), sessions=np.array([1, 1]))  # fmt: skip
    return replace(decisions, **changes)


@pytest.mark.parametrize(
    ("changes", "settings", "message"),
    [
        ({"rcids": None}, {}, r"each vote's roll call and session.*fit_reward_model"),
        ({"sessions": None}, {}, "each vote's roll call and session"),
        ({"action_names": ("yes", "no")}, {}, "read yes, no, abstain votes"),
        ({}, {"dims": 0}, "dims must be 1, 2 or 3, got 0"),
        ({}, {"dims": 4}, "dims must be 1, 2 or 3, got 4"),
    ],
)
def test_bad_decisions_and_settings_are_refused(changes, settings, message) -> None:
    with pytest.raises(ValueError, match=message):
        IdealPointModel.fit(_decisions(**changes), **settings)


def test_dims_out_of_range_through_fit_reward_model(data) -> None:
    with pytest.raises(ValueError, match="dims must be 1, 2 or 3, got 4"):
        fit_reward_model(data, kind="ideal", dims=4)
