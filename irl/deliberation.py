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
MDPs are stacked block-diagonally (one group per country) and fitted by one
:func:`assembly_gym.irl.maxent.fit_maxent` call.

Partially recorded episodes (their likelihood with unrecorded decisions marginalised, fitted
by EM) and identified weights (:func:`identified_weights`) are described in docs/irl.md,
section "What it computes". :func:`planted_deliberation` plants weights θ_D per country
(bloc centre + deviation) and samples behaviour from the soft-optimal policy: ground truth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np
import scipy.sparse as sp
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
from assembly_gym.irl.maxent import ExpertStatistics, MaxEntFit, Shrinkage, fit_maxent
from assembly_gym.irl.mdp import (
    LinearFeatures,
    SoftPolicy,
    TabularMDP,
    sample_trajectories,
    soft_value_iteration,
    stack_mdps,
)

__all__ = [
    "REFERENCE_ACTION",
    "UNRECORDED",
    "DeliberationProblem",
    "PlantedDeliberation",
    "cross_validate",
    "fit_deliberation_rewards",
    "held_out_log_likelihood",
    "identified_weights",
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
"""The action whose episode-constant weights (bias, issues) are 0 in identified weights."""
_CONSTANT_INPUTS = slice(0, 7)  # bias and issues: the same at every stage of an episode
_STAGE_INPUTS = slice(7, None)  # own_cosponsor and support: 0 at the draft
_EM_TOL = 1e-6  # EM stops when the log-likelihood per recorded decision gains less
_EM_MAX_ITER = 50
DELIBERATION_LAYOUT = (*feature_names(), *STATE_NAMES)
"""Observation names of ``Deliberation-v0`` with the default feature settings."""


def identified_weights(theta: np.ndarray) -> np.ndarray:
    """Deliberation weights (..., 5, 9) in their identified form; the policy is unchanged.

    Adding one vector v to every action's bias and issue weights adds the same v·g(s) to
    every valid action at every stage of an episode (g's bias and issues do not change
    within one): every soft value Q_t, V_t moves by (H − t) v·g, so π does not. COSPONSOR is
    valid only at the draft, where ``own_cosponsor`` and ``support`` are 0, so its weights on
    them never act. This returns θ with the bias and issue weights of
    :data:`REFERENCE_ACTION` subtracted from every action's (the reference's are then 0),
    and COSPONSOR's two inert weights at 0.
    """
    theta = np.array(theta, dtype=np.float64, copy=True)
    theta[..., _CONSTANT_INPUTS] -= theta[..., [REFERENCE_ACTION], _CONSTANT_INPUTS]
    theta[..., Action.COSPONSOR, _STAGE_INPUTS] = 0.0
    return theta


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

    def fit(self, states: np.ndarray, actions: np.ndarray, **options) -> MaxEntFit:
        """MaxEnt fit of every country from tabular trajectories, some partially recorded.

        Complete trajectories: one :func:`~assembly_gym.irl.maxent.fit_maxent` call. With
        :data:`UNRECORDED` entries: EM on the marginal likelihood (docs/irl.md), the
        E-step by :meth:`expected_counts`. Weights come back identified
        (:func:`identified_weights`; the standardised ones as fitted).

        Args:
            states: (N, 4) from :meth:`trajectories`.
            actions: (N, 3) from :meth:`trajectories`.
            options: options of ``fit_maxent``.

        Raises:
            ValueError: no trajectory, or none with a recorded decision.
        """
        states, actions = np.asarray(states, dtype=np.int64), np.asarray(actions, dtype=np.int64)
        if len(states) == 0 or not (actions != UNRECORDED).any():
            raise ValueError(
                "no recorded decisions to fit: every trajectory needs at least one recorded "
                "stage (sponsorship, committee or plenary vote) of a country in the problem"
            )
        if (states >= 0).all() and (actions >= 0).all():
            expert = ExpertStatistics.from_trajectories(
                states, actions, self.mdp.n_states, _N_ACTIONS
            )
            fit = fit_maxent(self.mdp, self.features, expert, **options)
        else:
            fit = self._fit_em(states, actions, options)
        return replace(fit, theta=identified_weights(fit.theta))

    def _fit_em(self, states: np.ndarray, actions: np.ndarray, options: dict) -> MaxEntFit:
        """EM: expected counts of the hidden stages under θ, then the MaxEnt fit on them."""
        start = np.bincount(states[:, 0], minlength=self.mdp.n_states).astype(np.float64)
        n_decisions = max(int((actions != UNRECORDED).sum()), 1)
        theta = np.zeros((len(self.countries), _N_ACTIONS, len(DELIBERATION_INPUTS)))
        previous, fit = -np.inf, None
        for _ in range(_EM_MAX_ITER):
            counts, loglik = self.expected_counts(theta, states, actions)
            mean = float(loglik.sum()) / n_decisions
            if fit is not None and mean - previous < _EM_TOL:
                break
            previous = mean
            fit = fit_maxent(self.mdp, self.features, ExpertStatistics(counts, start), **options)
            theta = fit.theta
        assert fit is not None
        return fit

    def policy(self, theta: np.ndarray) -> SoftPolicy:
        """Soft-optimal policy of weights θ (C, 5, 9) on the stacked MDPs."""
        return soft_value_iteration(self.mdp, self.features.rewards(theta))

    def log_likelihood(
        self, theta: np.ndarray, states: np.ndarray, actions: np.ndarray
    ) -> np.ndarray:
        """Log-probability of each trajectory's recorded decisions, the rest marginalised, (N,).

        log P(recorded actions | recorded states, θ) under the soft-optimal policy: unrecorded
        actions and the states after them are summed out (docs/irl.md).
        """
        return self.expected_counts(theta, states, actions)[1]

    def expected_counts(
        self, theta: np.ndarray, states: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Posterior expected (state, action) visits (S, 5) and each log-likelihood (N,).

        Each trajectory's fully observed prefix (state, action and next state known) is
        counted as it is; from the state that ends it on, a backward pass gives the
        probability of the later recorded actions from every state, and a forward pass the
        posterior visits, batched over trajectories with the same recorded-action pattern.

        Args:
            theta: weights (C, 5, 9).
            states: (N, 4) from :meth:`trajectories`.
            actions: (N, 3) from :meth:`trajectories`.

        Raises:
            ValueError: a known state after an unrecorded decision, or a recorded action
                the state does not allow.
        """
        policy = self.policy(theta)
        pi, log_pi = policy.policy, policy.log_policy
        n_states = self.mdp.n_states
        counts = np.zeros((n_states, _N_ACTIONS))
        loglik = np.zeros(len(states))
        # A step is fully observed when its state, its action and the state it leads to are.
        leads = np.column_stack([states[:, 1:HORIZON] >= 0, np.ones(len(states), dtype=bool)])
        known = (states[:, :HORIZON] >= 0) & (actions >= 0) & leads
        prefix = np.where(known.all(axis=1), HORIZON, known.argmin(axis=1))
        rows, steps = np.nonzero(np.arange(HORIZON)[None, :] < prefix[:, None])
        observed = log_pi[steps, states[rows, steps], actions[rows, steps]]
        if not np.isfinite(observed).all():
            raise ValueError("a recorded action is not valid in its state")
        np.add.at(counts, (states[rows, steps], actions[rows, steps]), 1.0)
        np.add.at(loglik, rows, observed)
        partial = np.flatnonzero(prefix < HORIZON)
        later = np.arange(HORIZON)[None, :] > prefix[partial, None]
        hidden_known = (states[partial, :HORIZON][later] >= 0).any()
        if hidden_known or (states[partial, prefix[partial]] < 0).any():
            raise ValueError("a state is known after an unrecorded decision, or unknown before it")
        patterns = np.column_stack([prefix[partial], actions[partial]])
        for key in np.unique(patterns, axis=0):
            members = partial[(patterns == key).all(axis=1)]
            first, recorded = int(key[0]), key[1:]
            allowed = np.ones((HORIZON, 1, _N_ACTIONS))
            for t in range(first, HORIZON):
                if recorded[t] != UNRECORDED:
                    allowed[t] = np.arange(_N_ACTIONS) == recorded[t]
            # Backward: b_t(s, a) = P(later recorded actions | s_t = s, a_t = a).
            beta = np.ones(n_states)
            backward = {}
            for t in range(HORIZON - 1, first - 1, -1):
                last = t + 1 == HORIZON
                after_action = np.ones_like(pi[t]) if last else self.mdp.expected_next(beta)
                backward[t] = after_action
                beta = (pi[t] * allowed[t] * after_action).sum(axis=1)
            begin = states[members, first]
            with np.errstate(divide="ignore"):
                loglik[members] += np.log(beta[begin])
            if not np.isfinite(loglik[members]).all():
                raise ValueError("a recorded action has probability 0 under the dynamics")
            # Forward: posterior visits, every trajectory normalised by its own likelihood.
            alpha = np.bincount(begin, weights=1.0 / beta[begin], minlength=n_states)
            for t in range(first, HORIZON):
                step = alpha[:, None] * pi[t] * allowed[t]
                counts += step * backward[t]
                if t + 1 < HORIZON:
                    alpha = self.mdp.push_forward(step)
        return counts, loglik

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Names of the weights, ``"<action>:<input>"``."""
        return tuple(f"{a.name.lower()}:{g}" for a in Action for g in DELIBERATION_INPUTS)


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
        theta: planted weights (C, 5, 9) over φ_D (centred over actions).
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
    centres[:, Action.NO_ACTION, 0] += 1.0  # not cosponsoring is the default at the draft
    theta = centres[blocs] + rng.normal(0.0, country_scale, size=(n_countries, *shape))
    # COSPONSOR is valid only at the draft, where own_cosponsor and support are 0: those two
    # weights never act, so none is planted on them.
    theta[:, Action.COSPONSOR, 7:] = 0.0
    theta -= theta.mean(axis=1, keepdims=True)
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
    l2: float = 10.0,
    shrinkage: Shrinkage = "global",
    progress: bool = False,
) -> LinearRewardModel:
    """Multi-step MaxEnt IRL of countries' Deliberation rewards from resolution records.

    Every recorded decision counts (:func:`recorded_demonstrations`, partial episodes by EM);
    the weights come back identified (:func:`identified_weights`).

    Args:
        records: resolution records (e.g. ``records_from_trajectories``).
        countries: whom to fit (default: every country with a recorded decision).
        l2: prior precision on standardised weights.
        shrinkage: prior mean of each country's weights ("global", "none").
        progress: show a progress bar.

    Raises:
        ValueError: no recorded decision of the countries asked for.
    """
    import time

    demos = recorded_demonstrations(records, countries)
    names = list(dict.fromkeys(d.country for d in demos))
    if not names:
        raise ValueError(f"{records.source}: no recorded decisions to fit")
    patterns = records.resolutions[[f"issue_{c}" for c in ISSUE_CODES]].to_numpy(bool)
    problem = DeliberationProblem.build(EmpiricalDynamics.fit(records), patterns, names)
    by_country = sorted(demos, key=lambda d: names.index(d.country))
    states, actions = problem.trajectories(by_country, DELIBERATION_LAYOUT)
    began = time.perf_counter()
    fit = problem.fit(states, actions, l2=l2, shrinkage=shrinkage, standard_errors=False,
                      progress=progress)  # fmt: skip
    loglik = problem.log_likelihood(fit.theta, states, actions)
    row = np.repeat(np.arange(len(names)), [sum(d.country == n for d in demos) for n in names])
    decisions = np.bincount(row, weights=(actions != UNRECORDED).sum(axis=1))
    info = {
        "source": records.source, "resolutions": records.n_resolutions, "l2": l2,
        "shrinkage": shrinkage, "fit_seconds": round(time.perf_counter() - began, 2),
        "converged": bool(fit.converged), "reference_action": REFERENCE_ACTION.name.lower(),
        "inert": {Action.COSPONSOR.name.lower(): list(DELIBERATION_INPUTS[_STAGE_INPUTS])},
        "n_decisions": {n: int(k) for n, k in zip(names, decisions, strict=True)},
        "n_partial": int(((actions == UNRECORDED).any(axis=1)).sum()),
        "log_likelihood": float(loglik.sum() / max(decisions.sum(), 1)),
    }  # fmt: skip
    return LinearRewardModel(tuple(names), tuple(a.name.lower() for a in Action),
                             DELIBERATION_INPUTS[1:], fit.theta, env_id="assembly/Deliberation-v0",
                             info=info)  # fmt: skip


def held_out_log_likelihood(
    records: ResolutionRecords,
    train: np.ndarray,
    test: np.ndarray,
    countries: Sequence[str] | None = None,
    *,
    l2: float = 10.0,
    shrinkage: Shrinkage = "global",
    layout: Sequence[str] = DELIBERATION_LAYOUT,
) -> dict[str, float]:
    """Fit on the ``train`` resolutions, score the recorded decisions of the ``test`` ones.

    Test resolutions are described by the training period's votes only. Returns the number of
    held-out decisions and their log-likelihood per decision under the fitted policy
    (partial episodes marginalised) and under uniform choice among the valid actions.
    """
    fitted, held_out = records.select(train), records.select(test)
    model = fit_deliberation_rewards(fitted, countries, l2=l2, shrinkage=shrinkage)
    demos = [d for d in recorded_demonstrations(held_out, model.countries,
                                                history=fitted.plenary_history())]  # fmt: skip
    if not demos:
        raise ValueError("no recorded decision of the fitted countries in the test resolutions")
    patterns = records.resolutions[[f"issue_{c}" for c in ISSUE_CODES]].to_numpy(bool)
    problem = DeliberationProblem.build(EmpiricalDynamics.fit(fitted), patterns, model.countries)
    demos.sort(key=lambda d: model.countries.index(d.country))
    states, actions = problem.trajectories(demos, layout)
    loglik = problem.log_likelihood(model.theta, states, actions)
    decisions = int((actions != UNRECORDED).sum())
    uniform = sum(float(-np.log(m.sum(axis=1)).sum()) for m in (d.masks for d in demos))
    return {"decisions": decisions, "log-lik (IRL)": float(loglik.sum()) / decisions,
            "log-lik (uniform)": uniform / decisions}  # fmt: skip


def cross_validate(
    records: ResolutionRecords, folds: Sequence[np.ndarray], countries: Sequence[str] | None = None,
    *, l2: float = 10.0, shrinkage: Shrinkage = "global",
) -> list[dict[str, float]]:  # fmt: skip
    """:func:`held_out_log_likelihood` on each fold, fitted on the other resolutions.

    Args:
        records: the resolutions.
        folds: each fold's test resolutions (indices; e.g. ``benchmarks.splits.record_folds``).
        countries: the countries to fit (None: all with recorded decisions).
        l2: prior precision on standardised weights.
        shrinkage: shrink each country toward the pooled fit of all countries.

    Returns:
        One row per fold: ``fold`` (from 1), ``train resolutions``, ``test resolutions``, then
        :func:`held_out_log_likelihood`'s scores.
    """
    rows = []
    for k, test in enumerate(folds, 1):
        train = np.setdiff1d(np.arange(records.n_resolutions), test)
        score = held_out_log_likelihood(records, train, test, countries, l2=l2, shrinkage=shrinkage)
        rows.append({"fold": k, "train resolutions": len(train), "test resolutions": len(test),
                     **score})  # fmt: skip
    return rows
