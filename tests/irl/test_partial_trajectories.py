"""Partially recorded Deliberation episodes: marginal likelihood, its gradient, identification."""

from __future__ import annotations

import numpy as np
import pytest

from assembly_gym.envs.legislative.data import ISSUE_CODES
from assembly_gym.envs.legislative.deliberation import resolution_records
from assembly_gym.envs.legislative.demonstrations import deliberation_demonstrations
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics
from assembly_gym.envs.legislative.spaces import Action
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.deliberation import (
    ACTING,
    DELIBERATION_LAYOUT,
    N_STATES,
    UNRECORDED,
    DeliberationProblem,
    fit_deliberation_rewards,
    recorded_demonstrations,
)

COUNTRIES = ("Country 001", "Country 002")


@pytest.fixture(scope="module")
def records():
    return resolution_records(generate_assembly(SyntheticConfig(seed=3, n_countries=6,
                                                                n_sessions=2)))  # fmt: skip


@pytest.fixture(scope="module")
def problem(records) -> DeliberationProblem:
    patterns = records.resolutions[[f"issue_{c}" for c in ISSUE_CODES]].to_numpy(bool)
    return DeliberationProblem.build(EmpiricalDynamics.fit(records), patterns, COUNTRIES)


def _theta(problem: DeliberationProblem, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(len(problem.countries), 5, 9))


def _hand_log_likelihood(problem, theta, start: int, actions: list[int]) -> float:
    """Σ over every path of Π π_t(a_t | s_t) P(s_t+1 | s_t, a_t), recorded actions fixed."""
    pi = problem.policy(theta).policy
    transitions = problem.mdp.transitions.toarray().reshape(problem.mdp.n_states, 5, -1)

    def total(t: int, state: int) -> float:
        if t == 3:
            return 1.0
        choices = range(5) if actions[t] == UNRECORDED else [actions[t]]
        value = 0.0
        for a in choices:
            if pi[t, state, a] == 0.0:
                continue
            nexts = np.flatnonzero(transitions[state, a]) if t < 2 else [state]
            weight = transitions[state, a] if t < 2 else {state: 1.0}
            value += pi[t, state, a] * sum(weight[s] * total(t + 1, s) for s in nexts)
        return value

    return float(np.log(total(0, start)))


@pytest.mark.parametrize("recorded", [[-1, -1, 1], [-1, 2, -1], [0, -1, -1], [-1, -1, -1]])
def test_partial_likelihood_equals_the_hand_computed_sum(problem, recorded: list[int]) -> None:
    theta = _theta(problem)
    start = problem.draft_state(1, 0)
    states = np.array([[start, -1, -1, -1]])
    got = problem.log_likelihood(theta, states, np.array([recorded]))
    assert got[0] == pytest.approx(_hand_log_likelihood(problem, theta, start, recorded), abs=1e-10)
    if recorded == [-1, -1, -1]:
        assert got[0] == pytest.approx(0.0, abs=1e-12)  # nothing recorded: probability 1


def test_complete_likelihood_is_the_sum_of_log_policy(problem, records) -> None:
    demos = deliberation_demonstrations(records, COUNTRIES)[:20]
    states, actions = problem.trajectories(demos, DELIBERATION_LAYOUT)
    theta = _theta(problem, 1)
    log_pi = problem.policy(theta).log_policy
    expected = log_pi[np.arange(3), states[:, :3], actions].sum(axis=1)
    np.testing.assert_allclose(problem.log_likelihood(theta, states, actions), expected)


def test_trajectories_mark_unrecorded_stages(problem, records) -> None:
    demos = deliberation_demonstrations(records, COUNTRIES, draft_only=True)[:3]
    states, actions = problem.trajectories(demos, DELIBERATION_LAYOUT)
    assert (actions[:, 1:] == UNRECORDED).all() and (actions[:, 0] >= 0).all()
    assert (states[:, :2] >= 0).all() and (states[:, 2:] == UNRECORDED).all()
    plenary = [d.__class__(d.country, d.obs[2:], d.acts[2:], d.masks[2:], d.infos[2:], True)
               for d in deliberation_demonstrations(records, COUNTRIES)[:3]]  # fmt: skip
    states, actions = problem.trajectories(plenary, DELIBERATION_LAYOUT)
    assert (actions[:, :2] == UNRECORDED).all() and (actions[:, 2] >= 0).all()
    assert (states[:, 0] % N_STATES == 0).all() and (states[:, 1:] == UNRECORDED).all()


def test_plenary_only_records_are_fitted(records) -> None:
    from dataclasses import replace

    hidden = np.full_like(records.sponsors, -2)
    plenary_only = replace(records, sponsors=hidden, committee=hidden.copy())
    assert len(recorded_demonstrations(plenary_only, COUNTRIES)) > 0
    model = fit_deliberation_rewards(plenary_only, COUNTRIES)
    assert model.info["n_partial"] == sum(model.info["n_decisions"].values())
    assert np.isfinite(model.theta).all() and model.env_id == "assembly/Deliberation-v0"


def test_zero_demonstrations_is_a_clear_error(problem) -> None:
    with pytest.raises(ValueError, match="no recorded decisions to fit"):
        problem.fit(np.zeros((0, 4), dtype=int), np.zeros((0, 3), dtype=int))
    start = problem.draft_state(0, 0)
    with pytest.raises(ValueError, match="no recorded decisions to fit"):
        problem.fit(np.array([[start, -1, -1, -1]]), np.full((1, 3), UNRECORDED))


def test_the_gradient_is_exact_with_partial_records_and_unpredicted_states(problem, records):
    demos = deliberation_demonstrations(records, COUNTRIES)[:40]
    states, actions = problem.trajectories(demos, DELIBERATION_LAYOUT)
    actions[::3, 0], states[::3, 1:] = UNRECORDED, UNRECORDED  # the draft unrecorded
    actions[1::4, 2] = UNRECORDED  # the plenary unrecorded
    theta = _theta(problem, 2)
    _, gradient = problem._log_likelihood_gradient(theta, problem._recorded(states, actions))
    numeric, step = np.zeros_like(theta), 1e-6
    for index in np.ndindex(theta.shape):
        moved = [theta.copy(), theta.copy()]
        moved[0][index] += step
        moved[1][index] -= step
        up, down = (problem.log_likelihood(m, states, actions).sum() for m in moved)
        numeric[index] = (up - down) / (2 * step)
    np.testing.assert_allclose(gradient, numeric, atol=1e-5)


def test_the_directions_left_out_of_the_fit_change_no_choice(problem, records) -> None:
    theta = _theta(problem, 3)
    theta[:, ~ACTING] = 0.0
    moved = theta.copy()
    moved[:, :, :7] += np.random.default_rng(0).normal(size=(len(COUNTRIES), 1, 7))  # bias, issues
    moved[:, 1:, 7] += 2.0  # every vote action's own_cosponsor weight (and NO_ACTION's) …
    moved[:, Action.COSPONSOR, 0] -= 4.0  # … twice it off COSPONSOR's bias
    state = np.arange(problem.mdp.n_states)
    stage = np.select([state % N_STATES == 0, state % N_STATES <= 10], [0, 1], 2)
    before, after = (problem.policy(t).policy[stage, state] for t in (theta, moved))
    np.testing.assert_allclose(after, before, atol=1e-12)  # at every state, at its stage
    demos = recorded_demonstrations(records, COUNTRIES)
    fit = problem.fit(*problem.trajectories(demos, DELIBERATION_LAYOUT))
    assert (fit.theta[:, ~ACTING] == 0).all() and np.abs(fit.theta).max() < 10


def test_explain_reports_weights_relative_to_the_reference(records) -> None:
    model = fit_deliberation_rewards(records, COUNTRIES)
    table = model.explain(COUNTRIES[0], relative_to="no_action")
    assert (table["no_action"] == 0).all()
    assert (table.loc[["own_cosponsor", "support"], "cosponsor"] == 0).all()
    np.testing.assert_array_equal(table.to_numpy().T, model.weights(COUNTRIES[0]))
