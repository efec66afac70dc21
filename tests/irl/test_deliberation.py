"""Deliberation: φ_D on env observations, the tabular MDPs, recovery, the real trajectories."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.core.paths import documents_dir, real_data_missing
from assembly_gym.envs.legislative.deliberation import DeliberationEnv
from assembly_gym.envs.legislative.demonstrations import deliberation_demonstrations
from assembly_gym.envs.legislative.documents.loading import load_trajectories
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics
from assembly_gym.envs.legislative.phi import DELIBERATION_INPUTS, DeliberationFeatureMap
from assembly_gym.envs.legislative.resolutions import (
    generate_resolution_records,
    records_from_trajectories,
)
from assembly_gym.envs.legislative.rewards import LinearReward
from assembly_gym.envs.legislative.spaces import Action
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.deliberation import (
    ACTING,
    DeliberationProblem,
    Prior,
    cross_validate,
    fit_deliberation_rewards,
    planted_deliberation,
)
from assembly_gym.irl.explanation import deliberation_effects
from assembly_gym.irl.mdp import soft_value_iteration

ISSUES = [f"issue_{c}" for c in ("me", "nu", "di", "hr", "co", "ec")]


@pytest.fixture(scope="module")
def records():
    assembly = generate_assembly(
        SyntheticConfig(n_countries=5, n_blocs=2, n_sessions=4, roll_calls_per_session=30, seed=2)
    )
    return generate_resolution_records(assembly)


@pytest.fixture(scope="module")
def problem(records) -> DeliberationProblem:
    issues = records.resolutions[ISSUES].to_numpy(bool)
    return DeliberationProblem.build(EmpiricalDynamics.fit(records), issues)


def test_feature_map_reads_env_observations_and_plugs_in_as_a_reward(records) -> None:
    env = DeliberationEnv(records, country="Country 001")
    phi = DeliberationFeatureMap(env.layout)
    theta = np.zeros(phi.weight_shape)
    theta[Action.YES, DELIBERATION_INPUTS.index("own_cosponsor")] = 2.0
    env.reward_fn = LinearReward(theta, phi)
    env.reset(seed=0)
    env.step(Action.COSPONSOR)
    _, reward, *_ = env.step(Action.YES)
    assert reward == pytest.approx(2.0)  # loyalty: yes after cosponsoring
    with pytest.raises(ValueError, match="not a Deliberation-v0 layout"):
        DeliberationFeatureMap(["issue_me"])


def test_mdps_are_valid_and_cosponsoring_changes_what_follows(problem: DeliberationProblem) -> None:
    assert problem.mdp.n_states == len(problem.countries) * len(problem.patterns) * 21
    theta = np.zeros((len(problem.countries), 5, len(DELIBERATION_INPUTS)))
    theta[:, Action.YES, DELIBERATION_INPUTS.index("own_cosponsor")] = 3.0
    policy = soft_value_iteration(problem.mdp, problem.features.rewards(theta)).policy
    draft = problem.draft_state(0, 0)
    # The reward at DRAFT is the same for both actions; only the future makes cosponsoring pay.
    assert policy[0, draft, Action.COSPONSOR] > 0.6


def test_demonstrations_map_to_tabular_trajectories(records, problem: DeliberationProblem) -> None:
    env_layout = DeliberationEnv(records).layout
    demos = deliberation_demonstrations(records, ["Country 002"])
    states, actions = problem.trajectories(demos, env_layout)
    assert states.shape == (len(demos), 4) and (actions == np.stack([d.acts for d in demos])).all()
    assert problem.mdp.mask[states[:, :3], actions].all()


def test_recovers_the_planted_policy(problem: DeliberationProblem) -> None:
    planted = planted_deliberation(problem, episodes_per_country=1500, seed=1)
    fit = problem.fit(planted.states, planted.actions, prior=Prior(draft=1.0, votes=1.0))
    truth = soft_value_iteration(problem.mdp, problem.features.rewards(planted.theta)).policy
    learned = soft_value_iteration(problem.mdp, problem.features.rewards(fit.theta)).policy
    visited = np.unique(planted.states[:, :3])
    gap = 0.5 * np.abs(truth[:, visited] - learned[:, visited]).sum(axis=2)
    steps = np.arange(3)[:, None]
    on_path = gap[steps, np.searchsorted(visited, planted.states[:, :3]).T]
    assert on_path.mean() < 0.05
    # Identified: the weights themselves come back, each country's apart from the shared term.
    assert np.corrcoef(fit.theta[:, ACTING].ravel(), planted.theta[:, ACTING].ravel())[0, 1] > 0.9
    assert (fit.theta[:, ~ACTING] == 0).all()
    # At the optimum the shared term is the sum of the deviations (both priors alike): what
    # every country has in common is in it, the deviations' mean is 1/C of it.
    np.testing.assert_allclose((fit.theta - fit.shared).sum(axis=0), fit.shared, atol=1e-3)


def test_cross_validation_fits_on_the_other_folds_and_scores_each(records) -> None:
    folds = np.array_split(np.arange(records.n_resolutions), 2)
    rows = cross_validate(records, folds, ["Country 001", "Country 002"])
    assert [row["fold"] for row in rows] == [1, 2]
    assert [row["test resolutions"] for row in rows] == [len(f) for f in folds]
    assert all(row["train resolutions"] + row["test resolutions"] == records.n_resolutions
               for row in rows)  # fmt: skip
    assert all(row["uniform"] < row["IRL"] < 0 and row["votes"] > 0 for row in rows)
    assert all(row["votes: uniform"] < row["votes: IRL"] for row in rows)


def test_real_trajectories_give_readable_weights_and_effects() -> None:
    documents = documents_dir()
    if documents is None:
        pytest.skip(real_data_missing("un_documents", "A_RES_78_220.genealogy.json"))
    records = records_from_trajectories(load_trajectories(documents))
    countries = ["France", "Cuba", "United States of America", "Brazil", "India", "Kenya"]
    model = fit_deliberation_rewards(records, countries)
    # Before: a cosponsor bias of +60 in every country and support weights near +400.
    assert np.abs(model.theta).max() < 10 and (model.theta[:, Action.NO_ACTION] == 0).all()
    effects = model.info["effects"]
    probabilities = np.array(list(effects["probabilities"].values()))  # (C, 3, 5)
    np.testing.assert_allclose(probabilities.sum(axis=2), 1.0, atol=1e-3)
    changes = pd.DataFrame(**effects["changes"])
    np.testing.assert_allclose(changes[effects["actions"]].sum(axis=1), 0.0, atol=1e-3)
    text, table = deliberation_effects(model)
    assert "draft: cosponsor" in text and "plenary vote: yes" in text and len(table) > 0
    with pytest.raises(DataError, match="no multi-step effects"):
        deliberation_effects(replace(model, info={}))
