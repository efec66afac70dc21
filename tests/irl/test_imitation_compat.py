"""imitation's MCEIRL on our tabular MDP: it runs, and a time limit stops it."""

from __future__ import annotations

import numpy as np
import pytest

from irl.imitation_compat import run_mce_irl, to_imitation_env
from irl.mdp import TabularMDP, random_mdp, sample_trajectories, soft_value_iteration


def _problem():
    rng = np.random.default_rng(0)
    mdp = random_mdp(8, 3, 3, rng, branching=2)
    observations = rng.normal(size=(8, 2))
    rewards = np.repeat((observations @ [1.0, -1.0])[:, None], 3, axis=1)
    states, actions = sample_trajectories(
        mdp, soft_value_iteration(mdp, rewards), np.ones(8), 200, rng
    )
    return mdp, observations, states, actions


def test_mce_irl_learns_a_state_reward_on_the_same_mdp() -> None:
    mdp, observations, states, actions = _problem()
    env = to_imitation_env(mdp, observations, np.ones(8))
    np.testing.assert_allclose(env.transition_matrix.reshape(24, 8), mdp.transitions.toarray())
    result = run_mce_irl(mdp, observations, np.ones(8), states, actions, time_limit=120)
    assert result.finished and result.state_reward.shape == (8,)
    learned = result.state_reward - result.state_reward.mean()
    truth = observations @ [1.0, -1.0]
    assert np.corrcoef(learned, truth)[0, 1] > 0.8


def test_time_limit_stops_it_and_masks_are_refused() -> None:
    mdp, observations, states, actions = _problem()
    result = run_mce_irl(mdp, observations, np.ones(8), states, actions, time_limit=1e-3)
    assert not result.finished and result.state_reward is None
    masked = TabularMDP(3, 3, np.eye(8, 3, dtype=bool) | True, mdp.transitions)
    masked.mask[0, 1] = False
    with pytest.raises(ValueError, match="no action masks"):
        to_imitation_env(masked, observations, np.ones(8))


def test_a_failing_child_is_an_error_not_a_timeout() -> None:
    mdp, observations, states, actions = _problem()
    with pytest.raises(RuntimeError, match="MCEIRL failed"):
        run_mce_irl(mdp, observations, np.ones(8), states + 100, actions, time_limit=120)
