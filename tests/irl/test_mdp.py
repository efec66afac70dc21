"""Soft value iteration, occupancy and sampling: invariants and stability."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from assembly_gym.irl.mdp import (
    LinearFeatures,
    TabularMDP,
    occupancy,
    random_mdp,
    sample_trajectories,
    soft_value_iteration,
    stack_mdps,
)


def test_policy_rows_sum_to_one_and_occupancy_sums_to_horizon() -> None:
    rng = np.random.default_rng(0)
    mdp = random_mdp(30, 4, 6, rng)
    policy = soft_value_iteration(mdp, rng.normal(size=(30, 4)))
    np.testing.assert_allclose(policy.policy.sum(axis=2), 1.0, atol=1e-12)
    start = rng.random(30) * 3
    visits = occupancy(mdp, policy, start)
    assert visits.sum() == pytest.approx(6 * start.sum())
    assert np.isfinite(policy.values).all()


def test_soft_value_is_log_sum_exp_of_q_by_brute_force() -> None:
    rng = np.random.default_rng(1)
    mdp = random_mdp(4, 2, 2, rng)
    rewards = rng.normal(size=(4, 2))
    policy = soft_value_iteration(mdp, rewards)
    dense = mdp.transitions.toarray().reshape(4, 2, 4)
    q1 = rewards
    v1 = np.log(np.exp(q1).sum(axis=1))
    q0 = rewards + dense @ v1
    np.testing.assert_allclose(policy.values[1], v1)
    np.testing.assert_allclose(policy.values[0], np.log(np.exp(q0).sum(axis=1)))


def test_masked_actions_get_zero_probability_and_no_visits() -> None:
    mask = np.array([[True, False], [True, True]])
    transitions = sp.csr_matrix(np.array([[0.5, 0.5], [0, 0], [0, 1.0], [1.0, 0]]))
    mdp = TabularMDP(2, 3, mask, transitions)
    policy = soft_value_iteration(mdp, np.array([[0.0, 50.0], [1.0, 0.0]]))
    assert policy.policy[:, 0, 1].max() == 0.0
    assert occupancy(mdp, policy, np.array([1.0, 0.0]))[0, 1] == 0.0


@settings(max_examples=40, deadline=None)
@given(
    scale=st.floats(min_value=1e-3, max_value=1e3),
    n_states=st.integers(min_value=1, max_value=40),
    horizon=st.integers(min_value=1, max_value=8),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_extreme_reward_scales_stay_finite_and_normalised(
    scale: float, n_states: int, horizon: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    mdp = random_mdp(n_states, 3, horizon, rng, branching=2)
    rewards = rng.normal(size=(n_states, 3)) * scale * 1e3  # up to 1e6 in magnitude
    policy = soft_value_iteration(mdp, rewards)
    assert np.isfinite(policy.values).all()
    np.testing.assert_allclose(policy.policy.sum(axis=2), 1.0, atol=1e-9)
    visits = occupancy(mdp, policy, np.ones(n_states))
    assert visits.sum() == pytest.approx(horizon * n_states)


def test_sampled_trajectories_follow_the_dynamics() -> None:
    rng = np.random.default_rng(2)
    mdp = random_mdp(5, 2, 3, rng, branching=2)
    policy = soft_value_iteration(mdp, np.zeros((5, 2)))
    states, actions = sample_trajectories(mdp, policy, np.ones(5), 2000, rng)
    assert states.shape == (2000, 4) and actions.shape == (2000, 3)
    dense = mdp.transitions.toarray()
    rows = states[:, :-1] * 2 + actions
    assert (dense[rows.ravel(), states[:, 1:].ravel()] > 0).all()
    assert np.abs(np.bincount(actions.ravel(), minlength=2) / actions.size - 0.5).max() < 0.03


def test_stacked_mdps_are_block_diagonal() -> None:
    rng = np.random.default_rng(3)
    a, b = random_mdp(3, 2, 2, rng), random_mdp(4, 2, 2, rng)
    stacked = stack_mdps([a, b])
    assert stacked.n_states == 7
    rewards = rng.normal(size=(7, 2))
    joint = soft_value_iteration(stacked, rewards).values
    np.testing.assert_allclose(joint[:, :3], soft_value_iteration(a, rewards[:3]).values)
    np.testing.assert_allclose(joint[:, 3:], soft_value_iteration(b, rewards[3:]).values)


def test_factored_and_dense_features_give_the_same_rewards() -> None:
    rng = np.random.default_rng(4)
    g = rng.normal(size=(6, 3))
    group = np.array([0, 0, 0, 1, 1, 1])
    theta = rng.normal(size=(2, 2, 3))
    factored = LinearFeatures(g, 2, group, factored=True)
    dense_values = np.zeros((6, 2, 6))
    dense_values[:, 0, :3], dense_values[:, 1, 3:] = g, g
    dense = LinearFeatures(dense_values, 2, group)
    np.testing.assert_allclose(factored.rewards(theta), dense.rewards(theta.reshape(2, 6)))
    weights = rng.random((6, 2))
    np.testing.assert_allclose(
        factored.expectations(weights).reshape(2, 6), dense.expectations(weights)
    )


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: TabularMDP(2, 0, np.ones((2, 2), bool)), "horizon must be"),
        (lambda: TabularMDP(2, 2, np.ones((2, 2), bool)), "needs transitions"),
        (lambda: TabularMDP(2, 1, np.array([[True, True], [False, False]])), "at least one valid"),
        (
            lambda: TabularMDP(2, 2, np.ones((2, 2), bool), sp.csr_matrix(np.full((4, 2), 0.3))),
            "sum to 1",
        ),
        (
            lambda: LinearFeatures(np.zeros((3, 2)), 2, np.array([0, 2, 2]), factored=True),
            "without gaps",
        ),
        (lambda: LinearFeatures(np.full((2, 2), np.nan), 2, np.zeros(2), factored=True), "finite"),
    ],
)
def test_invalid_construction_is_rejected(build, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()
