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
:func:`assembly_gym.irl.maxent.fit_maxent` call; soft value iteration runs on the whole
stack at once.

:func:`planted_deliberation` plants weights θ_D per country (bloc centre + deviation) and
samples behaviour from the soft-optimal policy of each country's MDPs: ground truth for
reward recovery on this multi-step problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import scipy.sparse as sp
from scipy.special import ndtr

from assembly_gym.envs.legislative.data import ISSUE_CODES, Vote
from assembly_gym.envs.legislative.demonstrations import Demonstration
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics, issue_keys
from assembly_gym.envs.legislative.phi import DELIBERATION_INPUTS, SPONSOR_LEVELS, YES_LEVELS
from assembly_gym.envs.legislative.spaces import (
    SPONSOR_SHARE_EDGES,
    YES_SHARE_EDGES,
    Action,
    Stage,
    action_mask,
)
from assembly_gym.irl.maxent import ExpertStatistics, MaxEntFit, fit_maxent
from assembly_gym.irl.mdp import (
    LinearFeatures,
    TabularMDP,
    sample_trajectories,
    soft_value_iteration,
    stack_mdps,
)

__all__ = ["DeliberationProblem", "PlantedDeliberation", "planted_deliberation"]

N_BINS = len(SPONSOR_LEVELS)
N_STATES = 1 + 4 * N_BINS  # draft; committee (own × bin); plenary (own × bin)
HORIZON = 3
_N_ACTIONS = len(Action)
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
        """Tabular (states (N, 4), actions (N, 3)) of ``Deliberation-v0`` demonstrations."""
        states = np.empty((len(demos), HORIZON + 1), dtype=np.int64)
        actions = np.empty((len(demos), HORIZON), dtype=np.int64)
        for n, demo in enumerate(demos):
            _, visited = self.observation_states(demo.obs[:HORIZON], layout, demo.country)
            states[n] = [*visited, visited[-1]]  # the absorbing end repeats the last state
            actions[n] = demo.acts
        return states, actions

    def fit(self, states: np.ndarray, actions: np.ndarray, **options) -> MaxEntFit:
        """MaxEnt fit of every country from tabular trajectories (options of ``fit_maxent``)."""
        expert = ExpertStatistics.from_trajectories(states, actions, self.mdp.n_states, _N_ACTIONS)
        return fit_maxent(self.mdp, self.features, expert, **options)

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
