"""MaxEnt IRL on ``Deliberation-v0``: tabular MDPs from the fitted dynamics, and a planted truth.

Each (country, issue pattern) gets a 21-state, 3-step MDP over the discrete part of the
state that φ_D (:mod:`assembly_gym.envs.legislative.phi`) reads:

* t = 0, DRAFT (1 state): COSPONSOR or NO_ACTION;
* t = 1, COMMITTEE_VOTE (own cosponsorship × sponsor-share bin: 10 states);
* t = 2, PLENARY_VOTE (own cosponsorship × committee yes-share bin: 10 states);

with YES / NO / ABSTAIN / NO_ACTION at the votes. Transitions come from
:class:`~assembly_gym.envs.legislative.dynamics.EmpiricalDynamics`: the sponsor share counts the
others' sponsorship (a normal approximation of their Poisson-binomial count) plus one's own;
the committee yes share the others' votes given the sponsor bin, plus one's own vote. All
MDPs are stacked block-diagonally (one group per country).

The fit (:meth:`DeliberationProblem.fit`) maximises the exact likelihood of the recorded
decisions, unrecorded ones summed out, under a hierarchical prior: each country's weights are
a shared term plus its own deviation, both Gaussian (:class:`Prior`). Only identified weights
are fitted (:data:`ACTING`); docs/irl.md, section "What it computes", has the equations.
:func:`planted_deliberation` plants weights θ_D per country (bloc centre + deviation) and
samples behaviour from the soft-optimal policy: ground truth.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import ndtr

from assembly_gym.envs.legislative.data import ISSUE_CODES, RollCallData, Vote
from assembly_gym.envs.legislative.deliberation import STATE_NAMES
from assembly_gym.envs.legislative.demonstrations import (
    Demonstration,
    deliberation_demonstrations,
)
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics, issue_keys
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.envs.legislative.phi import DELIBERATION_INPUTS, SPONSOR_LEVELS, YES_LEVELS
from assembly_gym.envs.legislative.resolutions import ResolutionRecords
from assembly_gym.envs.legislative.spaces import (
    SPONSOR_SHARE_EDGES,
    YES_SHARE_EDGES,
    Action,
    Stage,
    action_mask,
)
from assembly_gym.irl.linear import LinearRewardModel
from assembly_gym.irl.mdp import (
    LinearFeatures,
    SoftPolicy,
    TabularMDP,
    occupancy,
    sample_trajectories,
    soft_value_iteration,
    stack_mdps,
)

__all__ = [
    "ACTING",
    "DEFAULT_PRIOR",
    "REFERENCE_ACTION",
    "UNRECORDED",
    "DeliberationFit",
    "DeliberationProblem",
    "HeldOut",
    "Prior",
    "cross_validate",
    "fit_deliberation_rewards",
    "planted_deliberation",
    "recorded_demonstrations",
]

N_BINS = len(SPONSOR_LEVELS)
N_STATES = 1 + 4 * N_BINS  # draft; committee (own × bin); plenary (own × bin)
HORIZON = 3
_N_ACTIONS = len(Action)
UNRECORDED = -1
"""A state or action of a tabular trajectory that the records do not hold."""
REFERENCE_ACTION = Action.NO_ACTION
"""The action whose reward is 0 in every state: every weight is relative to it."""
ACTING = np.ones((_N_ACTIONS, len(DELIBERATION_INPUTS)), dtype=bool)
ACTING[REFERENCE_ACTION] = False
ACTING[Action.COSPONSOR, DELIBERATION_INPUTS.index("own_cosponsor") :] = False
"""The weights a fit sets, (5, 9) bool; the others are 0.

NO_ACTION, valid at every stage, is the reference. Without it three directions leave the
fit free: a vector added to every action's bias and issue weights (the same amount at every
stage of an episode) and a number added to every vote action's ``own_cosponsor`` weight with
twice it taken from COSPONSOR's bias change no choice; one added to every vote action's
``support`` weight changes them only through the one vote a country adds to the shares. It
left the weights unreadable (a cosponsor bias near +60 in every country, ``support`` near
+400). COSPONSOR's ``own_cosponsor`` and ``support`` never act: both are 0 at the draft.
"""
DELIBERATION_LAYOUT = (*feature_names(), *STATE_NAMES)
"""Observation names of ``Deliberation-v0`` with the default feature settings."""


@dataclass(frozen=True)
class Prior:
    """Gaussian prior precisions (in pseudo-decisions) of the shared term and each deviation.

    Attributes:
        draft: of COSPONSOR's weights, which every draft record informs.
        votes: of YES, NO and ABSTAIN's weights, which few records inform (most hold the
            draft only): weaker, they take up whatever explains the drafts.
    """

    draft: float = 3.0
    votes: float = 100.0

    def __post_init__(self) -> None:
        if not (self.draft >= 0 and self.votes >= 0):
            raise ValueError(f"prior precisions must be ≥ 0, got {self}")

    def precisions(self) -> np.ndarray:
        """The precision of each weight of :data:`ACTING`, (n_acting,)."""
        full = np.full(ACTING.shape, self.votes)
        full[Action.COSPONSOR] = self.draft
        return full[ACTING]


DEFAULT_PRIOR = Prior()
"""The precisions ``assembly-gym experiment trajectory_irl`` chose most often on validation
resolutions of the real documents (drafts 3 in 3 of 5 folds; votes 100 in 2 of the 3 whose
validation holds votes)."""


@dataclass(frozen=True)
class DeliberationFit:
    """Fitted Deliberation weights.

    Attributes:
        theta: each country's weights (C, 5, 9): the shared term plus its deviation, 0 off
            :data:`ACTING`.
        shared: the shared term (5, 9).
        log_likelihood: of the recorded decisions, per decision (nats).
        iterations: L-BFGS iterations.
        converged: whether L-BFGS met its tolerance.
    """

    theta: np.ndarray
    shared: np.ndarray
    log_likelihood: float
    iterations: int
    converged: bool


@dataclass(frozen=True)
class _Recorded:
    """Trajectories ready for the likelihood (:meth:`DeliberationProblem._recorded`).

    Their fully observed steps, counted as they are, and the rest grouped by first
    unobserved step and the actions recorded after it.
    """

    n: int
    n_decisions: int
    prefix_visits: np.ndarray  # (S, 5) visits of the fully observed steps
    rows: np.ndarray  # trajectory, step, state and action of each fully observed step
    steps: np.ndarray
    seen: np.ndarray
    chosen: np.ndarray
    partial: list[tuple[np.ndarray, int, np.ndarray, np.ndarray]]  # members, first, allowed, begin


_STAGE_NAMES = ("draft", "committee vote", "plenary vote")
_ACTION_NAMES = tuple(a.name.lower() for a in Action)


State = TypeVar("State", int, np.ndarray)  # one state index, or an array of them


def _committee_state(own: State, bin_: State) -> State:
    return 1 + own * N_BINS + bin_


def _plenary_state(own: State, bin_: State) -> State:
    return 1 + 2 * N_BINS + own * N_BINS + bin_


def _bin_probabilities(mean: float, sd: float, edges: np.ndarray) -> np.ndarray:
    """P(share in each bin) for a normal share (bins as :func:`dynamics.support_bin`)."""
    above = 1.0 - ndtr((edges - mean) / max(sd, 1e-9))  # P(share ≥ edge)
    upper = np.concatenate([[1.0], above])
    lower = np.concatenate([above, [0.0]])
    probs = np.clip(upper - lower, 0.0, 1.0)
    return probs / probs.sum()


@dataclass(frozen=True)
class DeliberationProblem:
    """The stacked tabular Deliberation MDPs of several countries.

    Attributes:
        countries: country names, one group each.
        patterns: the distinct issue patterns (P, 6) bool; each country has one MDP per pattern.
        mdp: all MDPs stacked (countries outer, patterns inner, 21 states each).
        features: φ_D as action-factored inputs g(s) (S, 9), one group per country.
    """

    countries: tuple[str, ...]
    patterns: np.ndarray
    mdp: TabularMDP
    features: LinearFeatures

    @classmethod
    def build(
        cls,
        dynamics: EmpiricalDynamics,
        patterns: np.ndarray,
        countries: Sequence[str] | None = None,
    ) -> DeliberationProblem:
        """MDPs of ``countries`` (default: all of the dynamics') for every issue pattern.

        Args:
            dynamics: the other countries' fitted behaviour.
            patterns: issue patterns of the resolutions, (R, 6) bool (duplicates merged).
            countries: names in the dynamics.
        """
        patterns = np.unique(np.asarray(patterns, dtype=bool).reshape(-1, len(ISSUE_CODES)), axis=0)
        names = tuple(countries) if countries is not None else dynamics.countries
        rows = [dynamics.countries.index(c) for c in names]
        keys = issue_keys(patterns)
        mdps, inputs = [], []
        for row in rows:
            for pattern, key in zip(patterns, keys, strict=True):
                mdps.append(_country_mdp(dynamics, row, int(key)))
                inputs.append(_inputs(pattern))
        group = np.repeat(np.arange(len(names)), len(patterns) * N_STATES)
        features = LinearFeatures(np.concatenate(inputs), _N_ACTIONS, group, factored=True)
        return cls(names, patterns, stack_mdps(mdps), features)

    def draft_state(self, country: int, pattern: int) -> int:
        """Index of the DRAFT state of a country's MDP for an issue pattern."""
        return (country * len(self.patterns) + pattern) * N_STATES

    def pattern_index(self, issues: np.ndarray) -> np.ndarray:
        """Pattern of each issue row (R, 6) → (R,); ValueError for an unknown pattern."""
        issues = np.asarray(issues, dtype=bool)
        match = (issues[:, None, :] == self.patterns[None, :, :]).all(axis=2)
        if not match.any(axis=1).all():
            raise ValueError("an issue pattern has no MDP: build the problem with every pattern")
        return match.argmax(axis=1)

    def observation_states(
        self, obs: np.ndarray, layout: Sequence[str], country: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """Step (N,) and tabular state (N,) of ``Deliberation-v0`` observations of a country.

        An observation carries everything the state needs: the stage, the issue pattern,
        one's own cosponsorship and the support share (sponsor share before the committee
        vote, committee yes share before the plenary vote).
        """
        names = tuple(layout)
        index = {name: names.index(name) for name in names}
        if country not in self.countries:
            raise ValueError(f"{country!r} is not among the problem's countries")
        obs = np.atleast_2d(obs)
        stage_columns = [index[f"stage_{s}"] for s in ("draft", "committee", "plenary")]
        step = obs[:, stage_columns].argmax(axis=1)
        patterns = self.pattern_index(obs[:, [index[f"issue_{c}"] for c in ISSUE_CODES]] > 0.5)
        base = np.array([self.draft_state(self.countries.index(country), int(p)) for p in patterns])
        own = (obs[:, index["own_cosponsor"]] > 0.5).astype(np.int64)
        sponsor_bin = np.searchsorted(SPONSOR_SHARE_EDGES, obs[:, index["sponsor_share"]], "right")
        yes_bin = np.searchsorted(YES_SHARE_EDGES, obs[:, index["committee_yes"]], "right")
        offset = np.select(
            [step == Stage.DRAFT, step == Stage.COMMITTEE_VOTE],
            [np.zeros_like(own), _committee_state(own, sponsor_bin)],
            _plenary_state(own, yes_bin),
        )
        return step, base + offset

    def trajectories(
        self, demos: Sequence[Demonstration], layout: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Tabular states (N, 4) and actions (N, 3) of demonstrations, recorded or not.

        A demonstration may cover any run of stages (``deliberation_demonstrations`` with
        ``from_first_recorded=True`` or ``draft_only=True``). Actions of stages it does not
        cover are :data:`UNRECORDED`; so is every state after an unrecorded stage (it depends
        on that stage's choices), except the DRAFT state, which the issue pattern fixes.

        Raises:
            ValueError: a demonstration longer than three steps, or empty.
        """
        states = np.full((len(demos), HORIZON + 1), UNRECORDED, dtype=np.int64)
        actions = np.full((len(demos), HORIZON), UNRECORDED, dtype=np.int64)
        for n, demo in enumerate(demos):
            length = len(demo)
            if not 1 <= length <= HORIZON:
                raise ValueError(f"demonstration {n} has {length} steps, expected 1 to 3")
            steps, visited = self.observation_states(demo.obs[: length + 1], layout, demo.country)
            first = int(steps[0])
            actions[n, first : first + length] = demo.acts
            if first == 0:  # recorded from the draft on: the states it saw are known
                known = visited[: min(length + 1, HORIZON)]
                states[n, : len(known)] = known
                if length == HORIZON:
                    states[n, HORIZON] = visited[HORIZON - 1]  # the absorbing end repeats it
            else:
                states[n, 0] = visited[0] - visited[0] % N_STATES  # its block's DRAFT state
        return states, actions

    def fit(
        self, states: np.ndarray, actions: np.ndarray, *, prior: Prior = DEFAULT_PRIOR,
        tol: float = 1e-6, max_iter: int = 2000,
    ) -> DeliberationFit:  # fmt: skip
        """MAP weights of every country from tabular trajectories, some partially recorded.

        Maximises Σ_n log P_θ(recorded decisions of n) − ½ Σ λ θ̄² − ½ Σ_c Σ λ δ_c² over the
        weights of :data:`ACTING`, θ_c = θ̄ + δ_c (shared term θ̄, deviations δ_c, precisions λ
        of ``prior``): one L-BFGS over them all, the gradient exact
        (:meth:`_log_likelihood_gradient`).

        Args:
            states: (N, 4) from :meth:`trajectories`.
            actions: (N, 3) from :meth:`trajectories`.
            prior: precisions of the shared term and of each deviation.
            tol: L-BFGS gradient tolerance (the objective is per recorded decision).
            max_iter: maximum L-BFGS iterations.

        Raises:
            ValueError: no trajectory, or none with a recorded decision; see
                :meth:`log_likelihood`.
        """
        recorded = self._recorded(states, actions)
        if recorded.n_decisions == 0:
            raise ValueError(
                "no recorded decisions to fit: every trajectory needs at least one recorded "
                "stage (sponsorship, committee or plenary vote) of a country in the problem"
            )
        precisions = prior.precisions()
        n_countries, width = len(self.countries), len(precisions)

        def weights(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            parts = x.reshape(n_countries + 1, width)  # the shared term, then each deviation
            theta = np.zeros((n_countries, *ACTING.shape))
            theta[:, ACTING] = parts[0] + parts[1:]
            return theta, parts

        def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
            theta, parts = weights(x)
            loglik, gradient = self._log_likelihood_gradient(theta, recorded)
            acting = gradient[:, ACTING]
            value = 0.5 * (precisions * parts**2).sum() - loglik
            grad = precisions * parts - np.vstack([acting.sum(axis=0), acting])
            return value / recorded.n_decisions, grad.ravel() / recorded.n_decisions

        result = minimize(
            objective, np.zeros((n_countries + 1) * width), jac=True, method="L-BFGS-B",
            options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-15, "maxcor": 20},
        )  # fmt: skip
        theta, parts = weights(result.x)
        shared = np.zeros(ACTING.shape)
        shared[ACTING] = parts[0]
        loglik = self._posterior(self.policy(theta), recorded)[1].sum() / recorded.n_decisions
        return DeliberationFit(theta, shared, float(loglik), int(result.nit), bool(result.success))

    def policy(self, theta: np.ndarray) -> SoftPolicy:
        """Soft-optimal policy of weights θ (C, 5, 9) on the stacked MDPs."""
        return soft_value_iteration(self.mdp, self.features.rewards(theta))

    def log_likelihood(
        self, theta: np.ndarray, states: np.ndarray, actions: np.ndarray
    ) -> np.ndarray:
        """Log-probability of each trajectory's recorded decisions, the rest marginalised, (N,).

        log P(recorded actions | recorded states, θ) under the soft-optimal policy: unrecorded
        actions and the states after them are summed out (docs/irl.md).

        Raises:
            ValueError: a known state after an unrecorded decision, or a recorded action
                the state does not allow, or one the dynamics never lead to.
        """
        return self._posterior(self.policy(theta), self._recorded(states, actions))[1]

    def _recorded(self, states: np.ndarray, actions: np.ndarray) -> _Recorded:
        """The trajectories (N, 4), (N, 3) of :meth:`trajectories`, checked and grouped."""
        states, actions = np.asarray(states, dtype=np.int64), np.asarray(actions, dtype=np.int64)
        # A step is fully observed when its state, its action and the state it leads to are.
        leads = np.column_stack([states[:, 1:HORIZON] >= 0, np.ones(len(states), dtype=bool)])
        known = (states[:, :HORIZON] >= 0) & (actions >= 0) & leads
        prefix = np.where(known.all(axis=1), HORIZON, known.argmin(axis=1))
        rows, steps = np.nonzero(np.arange(HORIZON)[None, :] < prefix[:, None])
        seen, chosen = states[rows, steps], actions[rows, steps]
        if not self.mdp.mask[seen, chosen].all():
            raise ValueError("a recorded action is not valid in its state")
        partial = np.flatnonzero(prefix < HORIZON)
        later = np.arange(HORIZON)[None, :] > prefix[partial, None]
        unknown_before = (states[partial, prefix[partial]] < 0).any()
        if (states[partial, :HORIZON][later] >= 0).any() or unknown_before:
            raise ValueError("a state is known after an unrecorded decision, or unknown before it")
        keys = np.column_stack([prefix[partial], actions[partial]])
        groups = []
        for key in np.unique(keys, axis=0):
            members = partial[(keys == key).all(axis=1)]
            first = int(key[0])
            allowed = np.ones((HORIZON, 1, _N_ACTIONS))
            for t in range(first, HORIZON):
                if key[1 + t] != UNRECORDED:
                    allowed[t] = np.arange(_N_ACTIONS) == key[1 + t]
            groups.append((members, first, allowed, states[members, first]))
        visits = np.bincount(seen * _N_ACTIONS + chosen, minlength=self.mdp.n_states * _N_ACTIONS)
        return _Recorded(len(states), int((actions != UNRECORDED).sum()),
                         visits.reshape(-1, _N_ACTIONS).astype(np.float64), rows, steps, seen,
                         chosen, groups)  # fmt: skip

    def _posterior(self, policy: SoftPolicy, recorded: _Recorded) -> tuple[np.ndarray, np.ndarray]:
        """Posterior expected (state, action) visits (S, 5) and each log-likelihood (N,).

        Each trajectory's fully observed prefix is counted as it is; from the state that ends
        it on, a backward pass gives the probability of the later recorded actions from every
        state, and a forward pass the posterior visits, batched over trajectories with the
        same recorded-action pattern.
        """
        pi, log_pi = policy.policy, policy.log_policy
        n_states = self.mdp.n_states
        visits = recorded.prefix_visits.copy()
        observed = log_pi[recorded.steps, recorded.seen, recorded.chosen]
        loglik = np.bincount(recorded.rows, observed, recorded.n).astype(np.float64)
        for members, first, allowed, begin in recorded.partial:
            # Backward: b_t(s, a) = P(later recorded actions | s_t = s, a_t = a).
            beta = np.ones(n_states)
            backward = {}
            for t in range(HORIZON - 1, first - 1, -1):
                last = t + 1 == HORIZON
                after_action = np.ones_like(pi[t]) if last else self.mdp.expected_next(beta)
                backward[t] = after_action
                beta = (pi[t] * allowed[t] * after_action).sum(axis=1)
            with np.errstate(divide="ignore"):
                loglik[members] += np.log(beta[begin])
            if not np.isfinite(loglik[members]).all():
                raise ValueError("a recorded action has probability 0 under the dynamics")
            # Forward: posterior visits, every trajectory normalised by its own likelihood.
            alpha = np.bincount(begin, weights=1.0 / beta[begin], minlength=n_states)
            for t in range(first, HORIZON):
                step = alpha[:, None] * pi[t] * allowed[t]
                visits += step * backward[t]
                if t + 1 < HORIZON:
                    alpha = self.mdp.push_forward(step)
        return visits, loglik

    def _log_likelihood_gradient(
        self, theta: np.ndarray, recorded: _Recorded
    ) -> tuple[float, np.ndarray]:
        """Σ_n log P_θ(recorded decisions of n) and its gradient (C, 5, 9).

        By Fisher's identity the gradient is the posterior expectation of
        Σ_t ∇ log π_t(a_t | s_t), and ∇ log π_t(a | s) = φ(s, a) + E[F_t+1(s') | s, a] − F_t(s),
        F_t(s) the expected features from s at step t on. Summed over the posterior visits
        n(s, a) this is φ·(n − m): m are the visits the policy predicts when each stage starts
        afresh from the mass of n there that the previous stage's visits do not lead to
        (:meth:`_predicted`). Unlike the MaxEnt IRL dual (φ·n − the features expected from
        the start), it holds when the recorded states differ from what the dynamics predict.
        """
        policy = self.policy(theta)
        visits, loglik = self._posterior(policy, recorded)
        predicted = self._predicted(policy, visits)
        return float(loglik.sum()), self.features.expectations(visits - predicted)

    def _predicted(self, policy: SoftPolicy, visits: np.ndarray) -> np.ndarray:
        """Visits (S, 5) of the policy started at each stage from what ``visits`` add there."""
        stage = _stage_of(np.arange(self.mdp.n_states) % N_STATES)
        at = visits.sum(axis=1)
        mass = np.where(stage == 0, at, 0.0)
        total = np.zeros_like(visits)
        for t in range(HORIZON):
            step = mass[:, None] * policy.policy[t]
            total += step
            if t + 1 < HORIZON:
                recorded_here = np.where((stage == t)[:, None], visits, 0.0)
                mass = self.mdp.push_forward(step - recorded_here)
                mass += np.where(stage == t + 1, at, 0.0)
        return total

    def effects(self, theta: np.ndarray) -> tuple[np.ndarray, pd.DataFrame]:
        """Each country's choice probabilities at each stage and how its inputs move them.

        Under the soft-optimal policy of θ, one episode per issue pattern: at each stage the
        mean of π_t over the states the episodes reach (weighted by how often), and for each
        input of φ_D the change in π_t when it moves from low to high, the rest of the state
        as the episodes reach it: an issue code between patterns that differ in it only,
        ``own_cosponsor`` 0 → 1, ``support`` the lowest bin's level → the highest's.

        Returns:
            Probabilities (C, 3, 5) by stage and action, and the changes: one row per
            (country, stage, input), columns ``country``, ``stage``, ``feature``, ``low``,
            ``high`` and one per action (``cosponsor``, ``yes``, …).
        """
        soft = self.policy(theta)
        start = np.zeros(self.mdp.n_states)
        start[::N_STATES] = 1.0
        reach = occupancy(self.mdp, soft, start).sum(axis=1)
        state = np.arange(self.mdp.n_states)
        by_state = soft.policy[_stage_of(state % N_STATES), state]  # π at each state's stage
        n_countries, n_patterns = len(self.countries), len(self.patterns)
        reach = reach.reshape(n_countries, n_patterns * N_STATES)
        by_state = by_state.reshape(n_countries, n_patterns * N_STATES, _N_ACTIONS)
        local = np.tile(np.arange(N_STATES), n_patterns)
        probabilities = np.stack([
            np.einsum("cs,csa->ca", reach * (_stage_of(local) == t), by_state)
            / (reach * (_stage_of(local) == t)).sum(axis=1, keepdims=True)
            for t in range(HORIZON)
        ], axis=1)  # fmt: skip
        rows = []
        for stage, feature, low, high, lower, upper in self._input_pairs():
            weight = reach[:, lower] + reach[:, upper]
            change = np.einsum("ck,cka->ca", weight, by_state[:, upper] - by_state[:, lower])
            change /= weight.sum(axis=1, keepdims=True)
            for country, values in zip(self.countries, change, strict=True):
                rows.append({"country": country, "stage": _STAGE_NAMES[stage],
                             "feature": feature, "low": low, "high": high,
                             **dict(zip(_ACTION_NAMES, values, strict=True))})  # fmt: skip
        return probabilities, pd.DataFrame(rows)

    def _input_pairs(self) -> list[tuple[int, str, float, float, np.ndarray, np.ndarray]]:
        """(stage, input, low, high, states low (K,), states high (K,)) in a country's block."""
        pairs = []
        patterns = np.arange(len(self.patterns))[:, None] * N_STATES
        bins = np.arange(N_BINS)
        for j, code in enumerate(ISSUE_CODES):
            with_code = self.patterns.copy()
            with_code[:, j] = True
            same = (with_code[:, None, :] == self.patterns[None, :, :]).all(axis=2)
            lower, upper = np.nonzero(same & ~self.patterns[:, j, None])
            if len(lower) == 0:
                continue
            for t in range(HORIZON):
                states = np.flatnonzero(_stage_of(np.arange(N_STATES)) == t)
                pairs.append((t, f"issue_{code}", 0.0, 1.0,
                              (lower[:, None] * N_STATES + states).ravel(),
                              (upper[:, None] * N_STATES + states).ravel()))  # fmt: skip
        for t, levels in ((Stage.COMMITTEE_VOTE, SPONSOR_LEVELS), (Stage.PLENARY_VOTE, YES_LEVELS)):
            first = patterns + (_committee_state(0, 0) if t == Stage.COMMITTEE_VOTE
                                else _plenary_state(0, 0))  # fmt: skip
            pairs.append((t, "own_cosponsor", 0.0, 1.0, (first + bins).ravel(),
                          (first + N_BINS + bins).ravel()))  # fmt: skip
            own = np.array([0, N_BINS])
            pairs.append((t, "support", float(levels[0]), float(levels[-1]),
                          (first + own).ravel(), (first + own + N_BINS - 1).ravel()))  # fmt: skip
        return pairs

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Names of the weights, ``"<action>:<input>"``."""
        return tuple(f"{a.name.lower()}:{g}" for a in Action for g in DELIBERATION_INPUTS)


def _stage_of(local: np.ndarray) -> np.ndarray:
    """The stage (0, 1, 2) of local state indices 0 … 20 of an MDP."""
    return np.where(local == 0, 0, np.where(local <= 2 * N_BINS, 1, 2))


def _inputs(pattern: np.ndarray) -> np.ndarray:
    """g(s) of the 21 states of one MDP: [1, issues, own_cosponsor, support level]."""
    g = np.zeros((N_STATES, len(DELIBERATION_INPUTS)))
    g[:, 0] = 1.0
    g[:, 1:7] = pattern
    for own in (0, 1):
        for b in range(N_BINS):
            g[_committee_state(own, b), 7:] = own, SPONSOR_LEVELS[b]
            g[_plenary_state(own, b), 7:] = own, YES_LEVELS[b]
    return g


def _country_mdp(dynamics: EmpiricalDynamics, row: int, key: int) -> TabularMDP:
    """The 21-state MDP of one country for resolutions of one issue key."""
    n = len(dynamics.countries)
    others = np.ones(n, dtype=bool)
    others[row] = False
    p_sponsor = dynamics.sponsor[others, key]
    mask = np.zeros((N_STATES, _N_ACTIONS), dtype=bool)
    mask[0] = action_mask(Stage.DRAFT)
    mask[1:] = action_mask(Stage.COMMITTEE_VOTE)
    transitions = np.zeros((N_STATES, _N_ACTIONS, N_STATES))
    mean, var = p_sponsor.sum(), (p_sponsor * (1 - p_sponsor)).sum()
    for action in (Action.COSPONSOR, Action.NO_ACTION):
        own = int(action == Action.COSPONSOR)
        probs = _bin_probabilities((mean + own) / n, np.sqrt(var + 1 / 12) / n, SPONSOR_SHARE_EDGES)
        transitions[0, action, [_committee_state(own, b) for b in range(N_BINS)]] = probs
    for own in (0, 1):
        for b in range(N_BINS):
            # Others' committee outcome probabilities, their sponsorship marginalised.
            votes = (
                p_sponsor[:, None] * dynamics.votes[others, key, 1, 0, b]
                + (1 - p_sponsor[:, None]) * dynamics.votes[others, key, 0, 0, b]
            )
            yes, voting = votes[:, Vote.YES], 1.0 - votes[:, 3]
            for action in (Action.YES, Action.NO, Action.ABSTAIN, Action.NO_ACTION):
                own_yes, own_votes = float(action == Action.YES), float(action != Action.NO_ACTION)
                voters = voting.sum() + own_votes
                share = (yes.sum() + own_yes) / voters
                sd = np.sqrt((yes * (1 - yes)).sum() + 1 / 12) / voters
                probs = _bin_probabilities(share, sd, YES_SHARE_EDGES)
                transitions[
                    _committee_state(own, b),
                    action,
                    [_plenary_state(own, y) for y in range(N_BINS)],
                ] = probs
            for any_action in range(_N_ACTIONS):  # the plenary is the last decision: a formal loop
                transitions[_plenary_state(own, b), any_action, _plenary_state(own, b)] = 1.0
    return TabularMDP(
        _N_ACTIONS,
        HORIZON,
        mask,
        sp.csr_matrix(transitions.reshape(N_STATES * _N_ACTIONS, N_STATES)),
    )


@dataclass(frozen=True)
class PlantedDeliberation:
    """Planted Deliberation rewards and the behaviour they produce.

    Attributes:
        problem: the stacked MDPs the behaviour was sampled in.
        theta: planted weights (C, 5, 9) over φ_D (0 off :data:`ACTING`).
        blocs: planted bloc of each country, (C,).
        states: sampled tabular states (N, 4).
        actions: sampled actions (N, 3).
    """

    problem: DeliberationProblem
    theta: np.ndarray
    blocs: np.ndarray
    states: np.ndarray
    actions: np.ndarray


def planted_deliberation(
    problem: DeliberationProblem,
    *,
    episodes_per_country: int = 300,
    n_blocs: int = 2,
    bloc_scale: float = 1.0,
    country_scale: float = 0.3,
    seed: int = 0,
) -> PlantedDeliberation:
    """Plant θ_D per country and sample episodes from each one's soft-optimal policy.

    Blocs differ in issue preferences; every country gets loyalty (``yes:own_cosponsor``)
    and bandwagon (``yes:support``) weights, so cosponsoring pays off at the votes.

    Args:
        problem: the stacked Deliberation MDPs.
        episodes_per_country: resolutions each country deliberates (patterns drawn uniformly).
        n_blocs: number of blocs.
        bloc_scale: standard deviation of bloc-centre weights.
        country_scale: standard deviation of a country's deviation.
        seed: seed of the generator.
    """
    rng = np.random.default_rng(seed)
    n_countries, shape = len(problem.countries), (_N_ACTIONS, len(DELIBERATION_INPUTS))
    blocs = np.arange(n_countries) % n_blocs
    centres = rng.normal(0.0, bloc_scale, size=(n_blocs, *shape))
    centres[:, Action.YES, 0] += 2.0  # most resolutions pass with a yes
    centres[:, Action.YES, 7] += 1.5  # loyalty to one's own draft
    centres[:, Action.YES, 8] += 1.0  # bandwagon
    centres[:, Action.COSPONSOR, 0] -= 1.0  # not cosponsoring is the default at the draft
    theta = centres[blocs] + rng.normal(0.0, country_scale, size=(n_countries, *shape))
    theta[:, ~ACTING] = 0.0  # the reference's reward is 0; COSPONSOR's stage inputs never act
    policy = soft_value_iteration(problem.mdp, problem.features.rewards(theta))
    start = np.zeros(problem.mdp.n_states)
    draws = rng.integers(0, len(problem.patterns), size=(n_countries, episodes_per_country))
    np.add.at(start, [problem.draft_state(c, p) for c in range(n_countries) for p in draws[c]], 1.0)
    states, actions = sample_trajectories(
        problem.mdp, policy, start, n_countries * episodes_per_country, rng
    )
    return PlantedDeliberation(problem, theta, blocs, states, actions)


def recorded_demonstrations(
    records: ResolutionRecords,
    countries: Sequence[str] | None = None,
    *,
    history: RollCallData | None = None,
) -> list[Demonstration]:
    """Every recorded run of stages as a demonstration, complete or partial.

    Runs that end with the plenary vote (complete episodes, plenary-only records) start at
    their first recorded stage; pairs whose plenary vote is not recorded but whose
    sponsorship is (draft records) give their DRAFT decision.
    """
    trailing = deliberation_demonstrations(
        records, countries, history=history, from_first_recorded=True
    )
    drafts = deliberation_demonstrations(records, countries, history=history, draft_only=True)
    ended = {(d.country, d.infos[0]["rcid"]) for d in trailing}
    return [*trailing, *(d for d in drafts if (d.country, d.infos[0]["rcid"]) not in ended)]


def fit_deliberation_rewards(
    records: ResolutionRecords,
    countries: Sequence[str] | None = None,
    *,
    prior: Prior = DEFAULT_PRIOR,
) -> LinearRewardModel:
    """Multi-step MaxEnt IRL of countries' Deliberation rewards from resolution records.

    Every recorded decision counts (:func:`recorded_demonstrations`, partial episodes
    marginalised). The model's ``info`` holds the shared term (``shared``, by action and
    input) and what the weights do (``effects``: :meth:`DeliberationProblem.effects` under the
    training dynamics, which the model does not carry), read by ``irl explain``.

    Args:
        records: resolution records (e.g. ``records_from_trajectories``).
        countries: whom to fit (default: every country with a recorded decision).
        prior: precisions of the shared term and of each country's deviation.

    Raises:
        ValueError: no recorded decision of the countries asked for.
    """
    began = time.perf_counter()
    problem, states, actions = _problem(records, records, countries)
    fit = problem.fit(states, actions, prior=prior)
    names = problem.countries
    recorded = (actions != UNRECORDED).sum(axis=1)
    decisions = np.bincount(problem.features.group[states[:, 0]], recorded, len(names))
    probabilities, changes = problem.effects(fit.theta)
    inputs = ("bias", *DELIBERATION_INPUTS[1:])
    info = {
        "source": records.source, "resolutions": records.n_resolutions,
        "prior": {"draft": prior.draft, "votes": prior.votes},
        "fit_seconds": round(time.perf_counter() - began, 2), "converged": fit.converged,
        "reference_action": REFERENCE_ACTION.name.lower(),
        "inert": {Action.COSPONSOR.name.lower(): ["own_cosponsor", "support"]},
        "n_decisions": {n: int(k) for n, k in zip(names, decisions, strict=True)},
        "n_partial": int(((actions == UNRECORDED).any(axis=1)).sum()),
        "log_likelihood": fit.log_likelihood,
        "shared": {a: dict(zip(inputs, np.round(fit.shared[i], 6).tolist(), strict=True))
                   for i, a in enumerate(_ACTION_NAMES)},
        "effects": {
            "stages": list(_STAGE_NAMES), "actions": list(_ACTION_NAMES),
            "probabilities": dict(zip(names, np.round(probabilities, 4).tolist(), strict=True)),
            "changes": changes.round(4).to_dict(orient="split", index=False),
        },
    }  # fmt: skip
    return LinearRewardModel(names, _ACTION_NAMES, DELIBERATION_INPUTS[1:], fit.theta,
                             env_id="assembly/Deliberation-v0", info=info)  # fmt: skip


def _problem(
    records: ResolutionRecords, train: ResolutionRecords, countries: Sequence[str] | None
) -> tuple[DeliberationProblem, np.ndarray, np.ndarray]:
    """The problem of ``train``'s recorded decisions and their trajectories.

    The problem has every issue pattern of ``records`` and the dynamics of ``train``.
    """
    demos = recorded_demonstrations(train, countries)
    names = list(dict.fromkeys(d.country for d in demos))
    if not names:
        raise ValueError(f"{train.source}: no recorded decisions to fit")
    patterns = records.resolutions[[f"issue_{c}" for c in ISSUE_CODES]].to_numpy(bool)
    problem = DeliberationProblem.build(EmpiricalDynamics.fit(train), patterns, names)
    demos.sort(key=lambda d: names.index(d.country))
    return problem, *problem.trajectories(demos, DELIBERATION_LAYOUT)


@dataclass(frozen=True)
class HeldOut:
    """Resolutions split in two: the problem of the training ones, and the test decisions.

    Build with :meth:`split`; :meth:`scores` fits a prior and scores the test decisions
    (the problem is built once for every prior tried).

    Attributes:
        problem: the problem of the training resolutions' recorded decisions.
        train: their trajectories, states (N, 4) and actions (N, 3).
        test: the test resolutions' trajectories (M, 4), (M, 3), described by the training
            period's votes only.
        decided: country and rcid of each test trajectory, (M, 2).
    """

    problem: DeliberationProblem
    train: tuple[np.ndarray, np.ndarray]
    test: tuple[np.ndarray, np.ndarray]
    decided: pd.DataFrame

    @classmethod
    def split(
        cls, records: ResolutionRecords, train: np.ndarray, test: np.ndarray,
        countries: Sequence[str] | None = None,
    ) -> HeldOut:  # fmt: skip
        """Train on the ``train`` resolutions (indices), test on the ``test`` ones.

        Raises:
            ValueError: no recorded decision of the fitted countries in either part.
        """
        fitted = records.select(train)
        problem, states, actions = _problem(records, fitted, countries)
        demos = recorded_demonstrations(records.select(test), problem.countries,
                                        history=fitted.plenary_history())  # fmt: skip
        if not demos:
            raise ValueError("no recorded decision of the fitted countries in the test resolutions")
        demos.sort(key=lambda d: problem.countries.index(d.country))
        decided = pd.DataFrame({"country": [d.country for d in demos],
                                "rcid": [d.infos[0]["rcid"] for d in demos]})  # fmt: skip
        test_trajectories = problem.trajectories(demos, DELIBERATION_LAYOUT)
        return cls(problem, (states, actions), test_trajectories, decided)

    def scores(self, prior: Prior = DEFAULT_PRIOR) -> tuple[pd.DataFrame, DeliberationFit]:
        """Fit ``prior`` on the training decisions; score every recorded test decision.

        Returns:
            One row per recorded test decision: ``country``, ``rcid``, ``stage`` (0 draft, 1
            committee, 2 plenary) and its log-probability given the earlier recorded ones
            under the fitted policy (``irl``; later stages do not count, unrecorded ones
            are summed out), uniform choice among the valid actions (``uniform``) and the
            training decisions' frequencies (``frequencies``: of the drafts, or of both vote
            stages, add-one); and the fit.
        """
        fit = self.problem.fit(*self.train, prior=prior)
        states, actions = self.test
        trained = self.train[1]
        drafts, votes = trained[:, 0], trained[:, 1:]
        rows, before = [], np.zeros(len(states))
        for t, chosen in enumerate((drafts, votes, votes)):
            valid = action_mask(Stage(t))
            counts = np.bincount(chosen[chosen != UNRECORDED], minlength=_N_ACTIONS) + valid
            upto_states, upto_actions = states.copy(), actions.copy()
            upto_states[:, t + 2 :], upto_actions[:, t + 1 :] = UNRECORDED, UNRECORDED
            upto = self.problem.log_likelihood(fit.theta, upto_states, upto_actions)
            decided = np.flatnonzero(actions[:, t] != UNRECORDED)
            rows.append(self.decided.iloc[decided].assign(
                stage=t, irl=(upto - before)[decided], uniform=-np.log(valid.sum()),
                frequencies=np.log(counts[actions[decided, t]] / counts.sum()),
            ))  # fmt: skip
            before = upto
        return pd.concat(rows, ignore_index=True), fit


def cross_validate(
    records: ResolutionRecords, folds: Sequence[np.ndarray], countries: Sequence[str] | None = None,
    *, prior: Prior = DEFAULT_PRIOR,
) -> list[dict[str, float]]:  # fmt: skip
    """:meth:`HeldOut.scores` on each fold, fitted on the other resolutions.

    Args:
        records: the resolutions.
        folds: each fold's test resolutions (indices; e.g. ``benchmarks.splits.record_folds``).
        countries: the countries to fit (None: all with recorded decisions).
        prior: precisions of the shared term and of each deviation.

    Returns:
        One row per fold: ``fold`` (from 1), ``train resolutions``, ``test resolutions``, the
        recorded ``decisions`` and their mean log-likelihood under the fit (``IRL``),
        ``uniform`` and the training ``frequencies``; then the same of the vote decisions
        alone (``votes``, ``votes: IRL``, …; NaN without any).
    """
    rows = []
    for k, test in enumerate(folds, 1):
        train = np.setdiff1d(np.arange(records.n_resolutions), test)
        scores, _ = HeldOut.split(records, train, test, countries).scores(prior)
        votes = scores[scores["stage"] > 0]
        rows.append({"fold": k, "train resolutions": len(train), "test resolutions": len(test),
                     "decisions": len(scores), **_means(scores, ""),
                     "votes": len(votes), **_means(votes, "votes: ")})  # fmt: skip
    return rows


def _means(scores: pd.DataFrame, prefix: str) -> dict[str, float]:
    """Mean log-likelihood per decision of each scorer (NaN for no decision)."""
    names = {"irl": "IRL", "uniform": "uniform", "frequencies": "frequencies"}
    return {f"{prefix}{label}": float(scores[column].mean()) if len(scores) else float("nan")
            for column, label in names.items()}  # fmt: skip
