"""imitation's MCEIRL on our tabular MDP: it runs, and a time limit stops it."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.irl.imitation_compat import (
    decision_mdp,
    run_mce_irl,
    state_rewards,
    to_imitation_env,
    train_mce_irl,
)
from assembly_gym.irl.mdp import TabularMDP, random_mdp, sample_trajectories, soft_value_iteration

pytestmark = pytest.mark.imitation


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


def _decisions(seed: int = 0, n: int = 40):
    """n one-step decisions with 3 actions, φ(s, a) = e_a ⊗ [1, x(s)], votes from a logit."""
    from assembly_gym.envs.legislative.phi import ActionFeatureMap

    rng = np.random.default_rng(seed)
    x = rng.random((n, 2))
    feature_map = ActionFeatureMap(("x0", "x1"), ("yes", "no", "abstain"))
    truth = np.array([[1.0, 2.0, -1.0], [0.0, -2.0, 1.0], [-1.0, 0.0, 0.0]])
    logits = feature_map.logits(truth, x)
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    actions = (rng.random(n)[:, None] > np.cumsum(probs, axis=1)).sum(axis=1)
    return feature_map, x, actions


def test_decision_mdp_makes_imitations_policy_the_logit_of_a_reward_over_actions() -> None:
    """Through imitation's own planner and occupancy: the conventions the encoding relies on."""
    from imitation.algorithms.mce_irl import mce_occupancy_measures, mce_partition_fh

    feature_map, x, actions = _decisions()
    phi = feature_map(x)
    mdp, observations, start, states, acts = decision_mdp(phi, actions)
    n = len(x)
    assert mdp.n_states == n * 4 + 1 and mdp.horizon == 2
    assert states.shape == (n, 3) and acts.shape == (n, 2)
    np.testing.assert_array_equal(observations[states[:, 1]], phi[np.arange(n), actions])
    env = to_imitation_env(mdp, observations, start)
    w = np.random.default_rng(1).normal(size=phi.shape[2])
    reward = observations @ w
    _, _, pi = mce_partition_fh(env, reward=reward)
    logits = phi @ w
    expected = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(pi[0, :n], expected / expected.sum(axis=1, keepdims=True))
    _, visits = mce_occupancy_measures(env, reward=reward)
    # pending and absorbing states: visited once per decision by model and expert alike
    np.testing.assert_allclose(visits[:n], 1.0 / n)
    assert visits[-1] == pytest.approx(1.0)
    np.testing.assert_allclose(visits[n:-1].reshape(n, 3), pi[0, :n] / n)


def test_mce_irl_on_decisions_reaches_the_exact_penalised_logit() -> None:
    """Same data, same Gaussian prior: imitation's Adam steps land on our exact L-BFGS optimum."""
    from assembly_gym.irl.maxent import decision_problem, fit_maxent

    feature_map, x, actions = _decisions(n=60)
    l2 = 1.0
    net, seconds = train_mce_irl(
        *decision_mdp(feature_map(x), actions),
        weight_decay=l2 / len(x), lr=0.05, linf_eps=0.0, grad_l2_eps=1e-6, max_iter=400,
    )  # fmt: skip
    k = feature_map.n_features
    learned = (state_rewards(net, np.eye(k)) - state_rewards(net, np.zeros((1, k)))).reshape(3, 3)
    mdp, features, expert = decision_problem([x], [actions], n_actions=3)
    exact = fit_maxent(
        mdp, features, expert, l2=l2, shrinkage="none", standardise=False, standard_errors=False
    ).theta[0]
    np.testing.assert_allclose(learned - learned.mean(axis=0), exact, atol=1e-3)
    assert seconds > 0


def test_decision_mdp_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="action_features must have shape"):
        decision_mdp(np.zeros((0, 3, 2)), np.zeros(0, dtype=int))
    with pytest.raises(ValueError, match="actions must be 4 ints in 0..2"):
        decision_mdp(np.zeros((4, 3, 2)), np.array([0, 1, 2, 3]))
