"""Deliberation: φ_D on env observations, the tabular MDPs, and recovery of a planted policy."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.envs.legislative.deliberation import DeliberationEnv
from assembly_gym.envs.legislative.demonstrations import deliberation_demonstrations
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics
from assembly_gym.envs.legislative.phi import DELIBERATION_INPUTS, DeliberationFeatureMap
from assembly_gym.envs.legislative.resolutions import generate_resolution_records
from assembly_gym.envs.legislative.rewards import LinearReward
from assembly_gym.envs.legislative.spaces import Action
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.deliberation import (
    DeliberationProblem,
    cross_validate,
    planted_deliberation,
)
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
    fit = problem.fit(
        planted.states, planted.actions, l2=1.0, shrinkage="global", standard_errors=False
    )
    truth = soft_value_iteration(problem.mdp, problem.features.rewards(planted.theta)).policy
    learned = soft_value_iteration(problem.mdp, problem.features.rewards(fit.theta)).policy
    visited = np.unique(planted.states[:, :3])
    gap = 0.5 * np.abs(truth[:, visited] - learned[:, visited]).sum(axis=2)
    steps = np.arange(3)[:, None]
    on_path = gap[steps, np.searchsorted(visited, planted.states[:, :3]).T]
    assert on_path.mean() < 0.05


def test_cross_validation_fits_on_the_other_folds_and_scores_each(records) -> None:
    folds = np.array_split(np.arange(records.n_resolutions), 2)
    rows = cross_validate(records, folds, ["Country 001", "Country 002"], l2=10.0)
    assert [row["fold"] for row in rows] == [1, 2]
    assert [row["test resolutions"] for row in rows] == [len(f) for f in folds]
    assert all(row["train resolutions"] + row["test resolutions"] == records.n_resolutions
               for row in rows)  # fmt: skip
    assert all(row["log-lik (uniform)"] < row["log-lik (IRL)"] < 0 for row in rows)
