"""MaxEnt IRL: logit equivalence, exact gradient, recovery, shrinkage and bad input."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.irl.maxent import (
    ExpertStatistics,
    SeparationWarning,
    decision_problem,
    fit_maxent,
    maxent_objective,
)
from assembly_gym.irl.mdp import (
    LinearFeatures,
    TabularMDP,
    random_mdp,
    sample_trajectories,
    soft_value_iteration,
)


def _logit_data(rng: np.random.Generator, n: int = 400, d: int = 3):
    x = rng.random((n, d)) * np.array([1.0, 50.0, 0.02])[:d]
    weights = rng.normal(size=(3, d + 1))
    logits = np.column_stack([np.ones(n), x / x.std(axis=0)]) @ weights.T
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    acts = (rng.random(n)[:, None] > np.cumsum(probs, axis=1)).sum(axis=1)
    return x, acts


def _direct_logit(x: np.ndarray, acts: np.ndarray, l2: float) -> np.ndarray:
    """Multinomial logit by scipy on standardised features; weights (3, 1 + d) original scale."""
    mean, std = x.mean(axis=0), x.std(axis=0)
    z = np.column_stack([np.ones(len(x)), (x - mean) / std])
    onehot = np.eye(3)[acts]

    def nll(w: np.ndarray) -> tuple[float, np.ndarray]:
        w = w.reshape(3, -1)
        logits = z @ w.T
        top = logits.max(axis=1, keepdims=True)
        log_norm = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
        probs = np.exp(logits - log_norm[:, None])
        value = -(logits * onehot).sum() + log_norm.sum() + 0.5 * l2 * (w**2).sum()
        return value, ((probs - onehot).T @ z + l2 * w).ravel()

    w = minimize(nll, np.zeros(3 * z.shape[1]), jac=True, method="BFGS", options={"gtol": 1e-10}).x
    w = w.reshape(3, -1)
    original = np.column_stack([w[:, 0] - (w[:, 1:] * mean / std).sum(axis=1), w[:, 1:] / std])
    return original - original.mean(axis=0)


@pytest.mark.parametrize("l2", [0.0, 5.0])
def test_horizon_one_maxent_is_the_multinomial_logit(l2: float) -> None:
    x, acts = _logit_data(np.random.default_rng(0))
    mdp, features, expert = decision_problem([x], [acts], n_actions=3)
    fit = fit_maxent(
        mdp, features, expert, l2=l2, shrinkage="none", tol=1e-9, standard_errors=False
    )
    direct = _direct_logit(x, acts, l2)
    np.testing.assert_allclose(fit.theta[0], direct, atol=2e-4 * max(1.0, np.abs(direct).max()))
    np.testing.assert_allclose(fit.theta[0].sum(axis=0), 0.0, atol=1e-9)  # centred over actions


def test_horizon_one_matches_scikit_learn_without_penalty() -> None:
    from sklearn.linear_model import LogisticRegression

    x, acts = _logit_data(np.random.default_rng(1), d=2)
    mdp, features, expert = decision_problem([x], [acts], n_actions=3)
    fit = fit_maxent(
        mdp, features, expert, l2=0.0, shrinkage="none", tol=1e-9, standard_errors=False
    )
    sk = LogisticRegression(C=np.inf, max_iter=10_000, tol=1e-10).fit(x, acts)
    ours = np.exp(np.column_stack([np.ones(len(x)), x]) @ fit.theta[0].T)
    ours /= ours.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(ours, sk.predict_proba(x), atol=1e-4)


def _multistep(rng: np.random.Generator):
    mdp = random_mdp(12, 3, 5, rng, branching=3)
    mask = np.ones((12, 3), dtype=bool)
    mask[::4, 2] = False
    mdp = TabularMDP(3, 5, mask, mdp.transitions)
    values = rng.normal(size=(12, 3, 4))
    group = np.repeat([0, 1], 6)
    return mdp, LinearFeatures(values, 3, group)


def test_gradient_matches_finite_differences_multistep_with_masks_and_groups() -> None:
    rng = np.random.default_rng(2)
    mdp, features = _multistep(rng)
    counts = rng.random((12, 3)) * mdp.mask
    expert = ExpertStatistics(counts, rng.random(12))
    theta = rng.normal(size=(2, 4))
    _, grad = maxent_objective(mdp, features, expert, theta)
    numeric = np.zeros_like(theta)
    for index in np.ndindex(theta.shape):
        step = np.zeros_like(theta)
        step[index] = 1e-6
        up = maxent_objective(mdp, features, expert, theta + step)[0].sum()
        down = maxent_objective(mdp, features, expert, theta - step)[0].sum()
        numeric[index] = (up - down) / 2e-6
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-7)


def test_recovers_a_planted_multistep_reward() -> None:
    rng = np.random.default_rng(3)
    mdp = random_mdp(20, 3, 6, rng, branching=3)
    values = rng.normal(size=(20, 3, 4))
    features = LinearFeatures(values, 3, np.zeros(20, dtype=np.int64))
    truth = np.array([[1.5, -1.0, 0.5, 0.0]])
    policy = soft_value_iteration(mdp, features.rewards(truth))
    states, actions = sample_trajectories(mdp, policy, np.ones(20), 3000, rng)
    expert = ExpertStatistics.from_trajectories(states, actions, 20, 3)
    fit = fit_maxent(mdp, features, expert, l2=0.0, shrinkage="none")
    assert fit.converged
    np.testing.assert_allclose(fit.theta[0], truth[0], atol=0.12)
    assert (np.abs(fit.theta[0] - truth[0]) < 3 * fit.standard_errors[0] + 0.02).all()


def test_global_shrinkage_gives_a_sparse_group_its_peers_reward() -> None:
    rng = np.random.default_rng(4)
    groups = [_logit_data(rng, n=n, d=2) for n in (600, 600, 600, 4)]
    mdp, features, expert = decision_problem(
        [g[0] for g in groups], [g[1] for g in groups], n_actions=3
    )
    alone = fit_maxent(mdp, features, expert, l2=5.0, shrinkage="none", standard_errors=False)
    pooled = fit_maxent(mdp, features, expert, l2=5.0, shrinkage="global", standard_errors=False)
    peers = pooled.group_means[0] - pooled.group_means[0].mean(axis=0)
    dist_alone = np.abs(alone.theta_standardised[3] - peers).sum()
    dist_pooled = np.abs(pooled.theta_standardised[3] - peers).sum()
    assert dist_pooled < 0.5 * dist_alone


def test_standard_errors_shrink_with_more_data() -> None:
    rng = np.random.default_rng(5)
    small, large = _logit_data(rng, n=200), _logit_data(rng, n=3200)
    errors = []
    for x, acts in (small, large):
        mdp, features, expert = decision_problem([x], [acts], n_actions=3)
        errors.append(
            fit_maxent(mdp, features, expert, l2=1.0, shrinkage="none").standard_errors[0]
        )
    ratio = np.median(errors[0] / errors[1])
    assert 2.5 < ratio < 6.0  # about √16 = 4


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"l2": -1.0}, "l2 must be"),
        ({"shrinkage": "bloc"}, "needs blocs"),
        ({"shrinkage": "bloc", "blocs": np.zeros(3)}, "blocs must have shape"),
        ({"shrinkage": "nearest"}, "shrinkage must be"),
    ],
)
def test_bad_options_are_rejected(kwargs: dict, message: str) -> None:
    x, acts = _logit_data(np.random.default_rng(6), n=30)
    mdp, features, expert = decision_problem([x], [acts], n_actions=3)
    with pytest.raises(ValueError, match=message):
        fit_maxent(mdp, features, expert, **kwargs)


def test_empty_demonstrations_are_rejected() -> None:
    with pytest.raises(ValueError, match="no groups"):
        decision_problem([], [])
    with pytest.raises(ValueError, match="at least one decision"):
        decision_problem([np.zeros((0, 2))], [np.zeros(0, dtype=int)])
    with pytest.raises(ValueError, match="no demonstrations"):
        ExpertStatistics(np.zeros((2, 2)), np.zeros(2))


def _separable_groups(rng: np.random.Generator):
    """Three groups of 60 decisions: mixed votes, always yes, and votes x₀ predicts exactly."""
    x = rng.normal(size=(60, 2))
    mixed = rng.integers(0, 3, 60)
    predicted = np.where(x[:, 0] > 0, 0, np.where(x[:, 1] > 0, 1, 2))
    return decision_problem([x, x, x], [mixed, np.zeros(60, dtype=int), predicted], n_actions=3)


@pytest.mark.parametrize("standard_errors", [True, False])
def test_separable_groups_are_flagged_named_and_not_converged(standard_errors: bool) -> None:
    problem = _separable_groups(np.random.default_rng(7))
    names = ["Mixed", "Yes-sayer", "Predictable"]
    with pytest.warns(SeparationWarning, match="Yes-sayer, Predictable diverge.*l2 > 0"):
        fit = fit_maxent(
            *problem, l2=0.0, shrinkage="none", standard_errors=standard_errors, group_names=names
        )
    np.testing.assert_array_equal(fit.separated, [False, True, True])
    assert not fit.converged and "2 separated groups" in fit.message
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        held = fit_maxent(*problem, l2=1.0, shrinkage="none", standard_errors=standard_errors)
    assert held.converged
    if standard_errors:
        np.testing.assert_array_equal(held.separated, [False, False, False])
        assert held.standard_errors.max() < 10 < fit.standard_errors[1:].max()
    else:  # with a prior and no standard errors, the check is not run
        assert held.separated is None


@pytest.mark.parametrize("seed", range(4))
def test_non_separable_fits_without_prior_are_not_flagged(seed: int) -> None:
    x, acts = _logit_data(np.random.default_rng(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = fit_maxent(*decision_problem([x], [acts], n_actions=3), l2=0.0, shrinkage="none")
    assert fit.converged and not fit.separated.any()


def test_the_separation_warning_names_a_few_groups_and_counts_the_rest() -> None:
    x = np.random.default_rng(8).normal(size=(20, 1))
    problem = decision_problem([x] * 7, [np.zeros(20, dtype=int)] * 7, n_actions=2)
    with pytest.warns(SeparationWarning, match="group 0, .*, group 4 and 2 more diverge"):
        fit_maxent(*problem, l2=0.0, shrinkage="none", standard_errors=False)
    with pytest.raises(ValueError, match="2 group names for 7 groups"):
        fit_maxent(*problem, group_names=["a", "b"])


def test_a_constant_feature_stays_constant_on_many_decisions() -> None:
    # Summing 200,000 visit weights leaves the constant column a std of ~1e-12, which once
    # scaled it up a trillionfold (and took the prior off its weight).
    rng = np.random.default_rng(9)
    x = rng.random((200_000, 1))
    acts = (rng.random(200_000) < 0.3 + 0.4 * x[:, 0]).astype(int)
    fit = fit_maxent(*decision_problem([x], [acts], n_actions=2), l2=1.0, standard_errors=False)
    assert fit.feature_scale[0] == 1.0 and fit.feature_mean[0] == 0.0
    assert fit.feature_scale[1] == pytest.approx(x.std(), rel=1e-6)


@pytest.mark.parametrize(
    ("acts", "masks", "message"),
    [
        ([0, 1, 3], None, "group 1, decision 2: action 3 is outside the actions 0…2"),
        ([0, -1, 2], None, "group 1, decision 1: action -1 is outside the actions 0…2"),
        ([0, 1, 2], [[1, 1, 1], [1, 0, 1], [1, 1, 1]], "group 1, decision 1: action 1 is masked"),
    ],
)
def test_a_demonstrated_action_outside_the_problem_is_named(acts, masks, message) -> None:
    x = np.zeros((3, 1))
    all_valid = np.ones((3, 3), dtype=bool)
    with pytest.raises(InvalidActionError, match=re.escape(message)):
        decision_problem(
            [x, x],
            [np.array([0, 1, 2]), np.array(acts)],
            None if masks is None else [all_valid, np.array(masks, dtype=bool)],
            n_actions=3,
        )


def test_the_number_of_actions_is_given_not_guessed() -> None:
    x, acts = np.zeros((3, 1)), np.array([0, 1, 7])
    with pytest.raises(ValueError, match="give n_actions"):
        decision_problem([x], [acts])
    with pytest.raises(ValueError, match=r"masks of widths \[3\] and n_actions=4 differ"):
        decision_problem([x], [np.array([0, 1, 2])], [np.ones((3, 3), dtype=bool)], n_actions=4)
    mdp, _, _ = decision_problem([x], [np.array([0, 1, 2])], [np.ones((3, 3), dtype=bool)])
    assert mdp.n_actions == 3
