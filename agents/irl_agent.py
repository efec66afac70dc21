"""The MaxEnt-IRL policy as an agent: a country's learned reward, acted on softly.

Every agent here acts by :class:`RewardPolicyAgent` (π(a | s) ∝ exp r(s, a)) or, multi-step,
by soft value iteration. :class:`RewardModelAgent` is the policy of any reward kind
(:func:`~assembly_gym.irl.base.reward_kinds`); :meth:`RewardModelAgent.fit_countries` fits
every country in one call of the kind, as ``irl fit`` does — what a harness should use.

Example:
    >>> from assembly_gym.core.layout import ObservationLayout
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> from assembly_gym.envs.legislative.demonstrations import (
    ...     group_by_country,
    ...     rollcall_demonstrations,
    ... )
    >>> from assembly_gym.envs.legislative.observation import feature_names
    >>> data = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=3)).data
    >>> demos = group_by_country(rollcall_demonstrations(data, with_infos=False))
    >>> layout = ObservationLayout(feature_names())
    >>> agents = RewardModelAgent.fit_countries(demos, layout=layout, kind="linear")
    >>> agents["Country 001"].action_probs(demos["Country 001"][0].obs[:2]).shape
    (2, 3)
    >>> agents["Country 001"].name
    'maxent-irl (linear)'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.special import softmax

from assembly_gym.agents.base import BaseAgent
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.demonstrations import Demonstration
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics
from assembly_gym.envs.legislative.phi import DeliberationFeatureMap
from assembly_gym.envs.legislative.spaces import Action
from assembly_gym.irl.base import RewardModel, reward_kind
from assembly_gym.irl.deliberation import DEFAULT_PRIOR, DeliberationProblem, Prior
from assembly_gym.irl.mdp import soft_value_iteration
from assembly_gym.irl.rollcall import DEFAULT_KIND, demonstration_decisions

__all__ = [
    "LinearRewardAgent",
    "MaxEntDeliberationAgent",
    "RewardModelAgent",
    "RewardPolicyAgent",
    "reward_agent_name",
]


def reward_agent_name(kind: str) -> str:
    """The name of a reward kind's agent, in the bench's table and ``--agents``."""
    return f"maxent-irl ({kind})"


class RewardPolicyAgent(BaseAgent):
    """The one-decision MaxEnt policy of a learned reward: π(a | s) ∝ exp r(s, a).

    Subclasses learn the reward in ``fit`` and give it by :meth:`reward_matrix`; masked
    actions get zero probability (the softmax over the valid ones).
    """

    def reward_matrix(self, obs: np.ndarray) -> np.ndarray:
        """The learned reward r(s, a) of every action, (N, d) → (N, A)."""
        raise NotImplementedError

    def _check_actions(self, n_actions: int) -> None:
        if n_actions != self.n_actions:
            raise ValueError(
                f"the demonstrations have {n_actions} actions, the agent {self.n_actions}"
            )

    def _probs(self, obs: np.ndarray) -> np.ndarray:
        return softmax(self.reward_matrix(obs), axis=1)


class LinearRewardAgent(RewardPolicyAgent):
    """A :class:`RewardPolicyAgent` whose reward is linear: r(s, a) = θ_a·[1, x(s)].

    ``theta_`` has shape (A, 1 + d) (:class:`~assembly_gym.envs.legislative.phi.ActionFeatureMap`'s
    weight layout); subclasses set it in ``fit``.
    """

    theta_: np.ndarray | None = None

    def reward_matrix(self, obs: np.ndarray) -> np.ndarray:
        """The learned reward θ·φ(s, a) of every action, (N, d) → (N, A)."""
        if self.theta_ is None:
            raise ValueError(f"{type(self).__name__} is not fitted: call fit() first")
        return self.theta_[:, 0] + np.atleast_2d(obs).astype(np.float64) @ self.theta_[:, 1:].T


class RewardModelAgent(RewardPolicyAgent):
    """One country's MaxEnt policy under a reward model of any kind: π(a | s) ∝ exp r_c(s, a).

    Its policy is the model's (:meth:`~assembly_gym.irl.base.RewardModel.action_probs`), so
    a fitted model and its agent forecast alike.

    Args:
        n_actions: number of actions A (3 in RollCall-v0).
        layout: the env's observation names (the reward's features).
        kind: a registered reward kind (default: the default reward,
            :data:`~assembly_gym.irl.rollcall.DEFAULT_KIND`).
        **settings: the kind's own (e.g. ``l2`` of "linear"), passed to its ``fit``.

    Attributes:
        name: ``maxent-irl (<kind>)`` (:func:`reward_agent_name`).
        model_: the fitted :class:`~assembly_gym.irl.base.RewardModel` (None before a fit).
        country_: the model's country this agent plays.
    """

    def __init__(self, n_actions: int = 3, layout: ObservationLayout | None = None, *,
                 kind: str = DEFAULT_KIND, **settings: Any) -> None:  # fmt: skip
        super().__init__(n_actions, layout)
        reward_kind(kind)  # an unknown kind fails here, naming the known ones
        self.kind, self.settings = kind, settings
        self.name = reward_agent_name(kind)
        self.model_: RewardModel | None = None
        self.country_ = ""

    def fit(self, demonstrations: Sequence[Demonstration]) -> RewardModelAgent:
        """Learn this country's reward alone (a one-country model of the kind).

        Alone, a country has no others to be pooled with: give the linear kind
        ``shrinkage="none"`` (its ridge toward zero) rather than its default shrinkage.
        """
        if not demonstrations:
            raise ValueError("no demonstrations to fit on")
        self._check_actions(demonstrations[0].masks.shape[1])
        country = demonstrations[0].country
        fitted = self.fit_countries({country: demonstrations}, layout=self._require_layout(),
                                    kind=self.kind, **self.settings)  # fmt: skip
        self.model_, self.country_ = fitted[country].model_, country
        return self

    @classmethod
    def fit_countries(
        cls,
        demos_by_country: Mapping[str, Sequence[Demonstration]],
        *,
        layout: ObservationLayout,
        kind: str = DEFAULT_KIND,
        **settings: Any,
    ) -> dict[str, RewardModelAgent]:
        """Fit every country in one call of the kind; returns country → its agent.

        Raises:
            DataError: no country, or a country without demonstrations.
            ValueError: an unknown kind.
        """
        demos = {country: list(found) for country, found in demos_by_country.items()}
        decisions = demonstration_decisions(demos, layout.names)
        model = reward_kind(kind).fit(decisions, **settings)
        return {country: cls.from_reward_model(model, country, layout) for country in demos}

    @classmethod
    def from_reward_model(
        cls, model: RewardModel, country: str, layout: ObservationLayout | None = None
    ) -> RewardModelAgent:
        """One country's policy of a fitted (or loaded) model, of any kind."""
        agent = cls(len(model.action_names), layout, kind=model.kind)
        agent.model_, agent.country_ = model, model.countries[model.country_index(country)]
        return agent

    def reward_matrix(self, obs: np.ndarray) -> np.ndarray:
        """The learned reward r_c(s, a) of every action, (N, len(layout)) → (N, A)."""
        if self.model_ is None:
            raise ValueError(f"{type(self).__name__} is not fitted: call fit() first")
        return self.model_.as_reward_fn(self.country_).values(np.atleast_2d(obs))


class MaxEntDeliberationAgent(BaseAgent):
    """Soft-optimal policy of a country's learned ``Deliberation-v0`` reward (multi-step IRL).

    The reward r(s, a) = θ·φ_D(s, a)
    (:mod:`assembly_gym.envs.legislative.phi`) is fitted by MaxEnt IRL on the
    tabular Deliberation MDPs of :mod:`assembly_gym.irl.deliberation` (transitions from the
    other countries' fitted dynamics); the policy is that of exact soft value iteration,
    so a reward that values loyalty or bandwagoning makes the agent cosponsor with the later
    votes in view. Fit many countries at once with :meth:`fit_countries`.
    """

    name = "maxent-irl (deliberation)"
    # Set by fit_countries, with country_:
    problem_: DeliberationProblem
    policy_: np.ndarray  # π_t(a | s) of the stacked MDP, (H, S, A)
    theta_: np.ndarray  # the country's weights (its row of the fit's theta)
    feature_map_: DeliberationFeatureMap

    def __init__(self, n_actions: int = 5, layout: ObservationLayout | None = None) -> None:
        super().__init__(n_actions, layout)
        self.country_: str | None = None

    @classmethod
    def fit_countries(
        cls,
        demos_by_country: Mapping[str, Sequence[Demonstration]],
        *,
        layout: ObservationLayout,
        dynamics: EmpiricalDynamics,
        patterns: np.ndarray,
        prior: Prior = DEFAULT_PRIOR,
    ) -> dict[str, MaxEntDeliberationAgent]:
        """Fit every country in one stacked MaxEnt fit.

        Args:
            demos_by_country: demonstrations per country, complete (three-stage) or partially
                recorded (the unrecorded stages are summed out).
            layout: the env's observation names.
            dynamics: the other countries' behaviour the MDPs are built from.
            patterns: every issue pattern the agents will see, (P, 6) bool.
            prior: precisions of the shared term and of each country's deviation.
        """
        countries = list(demos_by_country)
        problem = DeliberationProblem.build(dynamics, patterns, countries)
        demos = [demo for country in countries for demo in demos_by_country[country]]
        states, actions = problem.trajectories(demos, layout.names)
        fit = problem.fit(states, actions, prior=prior)
        policy = soft_value_iteration(problem.mdp, problem.features.rewards(fit.theta)).policy
        feature_map = DeliberationFeatureMap(layout.names)
        agents = {}
        for row, country in enumerate(countries):
            agent = cls(len(Action), layout)
            agent.country_, agent.problem_, agent.policy_ = country, problem, policy
            agent.theta_, agent.feature_map_ = fit.theta[row], feature_map
            agents[country] = agent
        return agents

    def fit(self, demonstrations: Sequence[Demonstration]) -> MaxEntDeliberationAgent:
        """Not available alone: the MDPs need the dynamics; use :meth:`fit_countries`."""
        raise NotImplementedError("use MaxEntDeliberationAgent.fit_countries(...)")

    def reward_matrix(self, obs: np.ndarray) -> np.ndarray:
        """The learned reward of every action, (N, d) → (N, 5)."""
        return self.feature_map_(np.atleast_2d(obs)) @ self.theta_.reshape(-1)

    def _probs(self, obs: np.ndarray) -> np.ndarray:
        if self.country_ is None:
            raise ValueError("MaxEntDeliberationAgent is not fitted: call fit_countries() first")
        step, state = self.problem_.observation_states(
            obs, self._require_layout().names, self.country_
        )
        return self.policy_[step, state]
