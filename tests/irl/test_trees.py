"""The tree-ensemble reward kind: fit, logits, TreeSHAP, effects, profile, the saved booster."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.special import log_softmax, softmax

from assembly_gym.core.errors import CheckpointError
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.base import MODEL_FILE, Decisions, RewardModel
from assembly_gym.irl.explanation import country_decisions
from assembly_gym.irl.rollcall import fit_reward_model
from assembly_gym.irl.trees import PROFILE_DECISIONS, TREES_FILE, TreeRewardModel

COUNTRIES = ("France", "Chile", "India")
ACTIONS = ("yes", "no", "abstain")
SMALL = {"n_trees": 30, "min_child_samples": 10, "threads": 1}


def _planted(n: int, seed: int) -> Decisions:
    """Votes of 3 countries on 2 inputs: yes with ±x0 (by country), no with x1² (nonlinear)."""
    rng = np.random.default_rng(seed)
    rows, x = np.arange(n) % 3, rng.normal(size=(n, 2))
    sign = np.array([1.0, -1.0, 1.0])[rows]
    p = softmax(np.column_stack([3 * sign * x[:, 0], 2 * x[:, 1] ** 2 - 1.5, np.zeros(n)]), axis=1)
    actions = (rng.random((n, 1)) > p.cumsum(axis=1)).sum(axis=1)
    return Decisions(COUNTRIES, rows, x, actions, np.ones((n, 3), dtype=bool), ("x0", "x1"),
                     ACTIONS)  # fmt: skip


@pytest.fixture(scope="module")
def model() -> TreeRewardModel:
    """Trees fitted on a small synthetic assembly's votes, with its history."""
    data = generate_assembly(SyntheticConfig(n_countries=6, n_sessions=4)).data
    fitted = fit_reward_model(data, kind="trees", **SMALL)
    assert isinstance(fitted, TreeRewardModel)
    return fitted


@pytest.fixture(scope="module")
def decisions(model: TreeRewardModel) -> tuple[np.ndarray, np.ndarray]:
    """The model's training decisions: country rows (N,) and inputs (N, d)."""
    by_country = country_decisions(model, model.countries)
    rows = np.concatenate([np.full(len(obs), i) for i, obs in enumerate(by_country.values())])
    return rows, np.concatenate(list(by_country.values()))


def test_fit_learns_a_planted_rule_that_differs_by_country() -> None:
    fitted = TreeRewardModel.fit(
        _planted(1500, seed=0), n_trees=60, min_child_samples=20, threads=1
    )
    held_out = _planted(1500, seed=1)
    logits = fitted.logits(held_out.rows, held_out.obs)
    assert logits.shape == (1500, 3) and np.isfinite(logits).all()
    log_likelihood = log_softmax(logits, axis=1)[np.arange(1500), held_out.actions].mean()
    assert log_likelihood > np.log(1 / 3) + 0.3
    assert fitted.info["n_votes"] == dict.fromkeys(COUNTRIES, 500)
    assert fitted.info["settings"]["n_trees"] == 60


def test_probabilities_and_env_rewards(model: TreeRewardModel, decisions) -> None:
    rows, obs = decisions
    country = model.countries[rows[0]]
    probs = model.action_probs(country, obs[:5])
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    no_abstain = model.action_probs(country, obs[:5], mask=np.array([True, True, False]))
    assert (no_abstain[:, 2] == 0).all() and np.allclose(no_abstain.sum(axis=1), 1.0)
    reward = model.reward_fns()[country]
    assert reward(obs[:1], 1, obs[:1], {}) == pytest.approx(model.logits(rows[:1], obs[:1])[0, 1])


def test_the_same_seed_gives_the_same_trees() -> None:
    planted = _planted(600, seed=0)
    first, again, other = (TreeRewardModel.fit(planted, **SMALL, seed=seed) for seed in (3, 3, 4))
    np.testing.assert_array_equal(first.logits(planted.rows, planted.obs),
                                  again.logits(planted.rows, planted.obs))  # fmt: skip
    assert not np.array_equal(first.logits(planted.rows, planted.obs),
                              other.logits(planted.rows, planted.obs))  # fmt: skip


def test_contributions_sum_to_the_logits(model: TreeRewardModel, decisions) -> None:
    rows, obs = decisions
    mine = rows == 2
    contributions = model.contributions(model.countries[2], obs[mine])
    assert contributions.shape == (mine.sum(), 3, len(model.obs_names) + 1)
    np.testing.assert_allclose(contributions.sum(axis=2), model.logits(rows[mine], obs[mine]),
                               atol=1e-9)  # fmt: skip


def test_effects_add_the_mean_absolute_contributions(model: TreeRewardModel, decisions) -> None:
    rows, obs = decisions
    country, mine = model.countries[1], obs[rows == 1]
    table = model.effects(country, mine)
    assert set(table.index) == set(model.obs_names)
    assert {"yes", "yes_se", "importance", "yes_shap", "no_shap", "abstain_shap"} <= set(table)
    assert table["importance"].is_monotonic_decreasing and table["yes_se"].isna().all()
    shap = np.abs(model.contributions(country, mine)[:, 0, :-1]).mean(axis=0)
    np.testing.assert_allclose(table.loc[list(model.obs_names), "yes_shap"], shap)


def test_profile_is_each_countrys_mean_absolute_contributions(
    model: TreeRewardModel, decisions
) -> None:
    values, names = model.profile()
    d = len(model.obs_names)
    assert values.shape == (len(model.countries), 3 * d) and (values >= 0).all()
    assert names[0] == f"yes:{model.obs_names[0]}" and names[d] == f"no:{model.obs_names[0]}"
    rows, obs = decisions
    last = obs[rows == 0][-PROFILE_DECISIONS:]  # the cap applies: ~150 decisions each
    first = np.abs(model.contributions(model.countries[0], last)[..., :-1])
    np.testing.assert_allclose(values[0], first.mean(axis=0).ravel())


def test_a_saved_model_gives_the_same_logits(model: TreeRewardModel, decisions, tmp_path) -> None:
    rows, obs = decisions
    loaded = RewardModel.load(model.save(tmp_path / "m"))
    assert isinstance(loaded, TreeRewardModel) and loaded.info == model.info
    assert loaded.history is not None and loaded.layout == model.layout
    np.testing.assert_array_equal(loaded.logits(rows, obs), model.logits(rows, obs))


def _replace_trees(folder: Path, text: str) -> None:
    """Put another booster text in trees.txt and its checksum in the manifest (a tamperer's)."""
    data = text.encode()
    (folder / TREES_FILE).write_bytes(data)
    manifest = json.loads((folder / MODEL_FILE).read_text())
    manifest["files"][TREES_FILE] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    (folder / MODEL_FILE).write_text(json.dumps(manifest))


def test_a_corrupted_booster_is_refused(model: TreeRewardModel, tmp_path) -> None:
    model.save(tmp_path)
    _replace_trees(tmp_path, "tree\nversion=v4\n")
    with pytest.raises(CheckpointError, match="trees.txt: corrupted trees"):
        RewardModel.load(tmp_path)


def test_trees_of_other_names_are_refused(model: TreeRewardModel, tmp_path) -> None:
    other = TreeRewardModel.fit(_planted(300, seed=0), **SMALL)
    model.save(tmp_path)
    _replace_trees(tmp_path, other.booster.model_to_string())
    with pytest.raises(CheckpointError, match="trees.txt: the trees read 3 inputs, not the"):
        RewardModel.load(tmp_path)


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("action_names", "the trees score 3 actions, not 4"),
        ("countries", "the trees know country rows up to 5, the model 4 countries"),
    ],
)
def test_trees_that_do_not_fit_the_names_are_refused(
    model: TreeRewardModel, tmp_path, field: str, message: str
) -> None:
    model.save(tmp_path)
    manifest = json.loads((tmp_path / MODEL_FILE).read_text())
    manifest[field] = manifest[field][:4] + ["maybe"] * (4 - len(manifest[field][:4]))
    (tmp_path / MODEL_FILE).write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match=f"trees.txt: {message}"):
        RewardModel.load(tmp_path)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"trees": 10}, r"unknown tree settings \['trees'\]"),
        ({"n_trees": 0}, r"n_trees must be ≥ 1, got 0"),
        ({"leaves": 2.5}, "leaves must be an integer"),
        ({"subsample": 1.5}, r"subsample must be in \(0, 1\]"),
        ({"threads": True}, "threads must be an integer"),
    ],
)
def test_bad_settings_are_refused(settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TreeRewardModel.fit(_planted(30, seed=0), **settings)


def test_decisions_with_a_disallowed_action_are_refused() -> None:
    planted = _planted(30, seed=0)
    masks = planted.masks.copy()
    masks[np.arange(30), (planted.actions + 1) % 3] = False
    masked = Decisions(COUNTRIES, planted.rows, planted.obs, planted.actions, masks,
                       planted.obs_names, ACTIONS)  # fmt: skip
    with pytest.raises(ValueError, match="every action is allowed"):
        TreeRewardModel.fit(masked, **SMALL)


def test_progress_shows_the_boosting_rounds(capsys) -> None:
    TreeRewardModel.fit(
        _planted(60, seed=0), n_trees=3, min_child_samples=5, threads=1, progress=True
    )
    assert "trees: 100%" in capsys.readouterr().err
