"""The MaxEnt-IRL policy as an agent: a country's learned reward, acted on softly.

Every agent here acts by :class:`RewardPolicyAgent` (π(a | s) ∝ exp r(s, a)) or, multi-step,
by soft value iteration. :meth:`MaxEntIRLAgent.fit_countries` fits many countries in one
batched call, with shrinkage toward the global (or bloc) mean — what a harness should use.

Example:
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> from assembly_gym.envs.legislative.demonstrations import (
    ...     group_by_country,
    ...     rollcall_demonstrations,
    ... )
    >>> data = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=3)).data
    >>> demos = group_by_country(rollcall_demonstrations(data, with_infos=False))
    >>> agents = MaxEntIRLAgent.fit_countries(demos)
    >>> agents["Country 001"].action_probs(demos["Country 001"][0].obs[:2]).shape
    (2, 3)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy.special import softmax
from threadpoolctl import threadpool_limits

from assembly_gym.agents.base import BaseAgent
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.demonstrations import Demonstration
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics
from assembly_gym.envs.legislative.phi import DeliberationFeatureMap
from assembly_gym.envs.legislative.spaces import Action
from assembly_gym.irl.deliberation import DeliberationProblem
from assembly_gym.irl.maxent import Shrinkage, decision_problem
from assembly_gym.irl.mdp import soft_value_iteration
from assembly_gym.irl.neural import NeuralReward
from assembly_gym.irl.reward_model import RewardModel
from assembly_gym.irl.rollcall import fit_demonstrations

__all__ = [
    "LinearRewardAgent",
    "MaxEntDeliberationAgent",
    "MaxEntIRLAgent",
    "NeuralMaxEntIRLAgent",
    "RewardPolicyAgent",
]


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


class MaxEntIRLAgent(LinearRewardAgent):
    """Softmax policy of a linear MaxEnt reward r(s, a) = θ·φ(s, a) learned from votes.

    Args:
        n_actions: number of actions A (3 in RollCall-v0).
        layout: observation names (optional; used only for explanations).
        l2: prior precision on standardised weights.
        tol: L-BFGS gradient tolerance (nats per vote).
    """

    name = "maxent-irl"

    def __init__(self, n_actions: int = 3, layout: ObservationLayout | None = None, *,
                 l2: float = 10.0, tol: float = 1e-6) -> None:  # fmt: skip
        super().__init__(n_actions, layout)
        if l2 < 0:
            raise ValueError(f"l2 must be ≥ 0, got {l2}")
        self.l2, self.tol = l2, tol

    def fit(self, demonstrations: Sequence[Demonstration]) -> MaxEntIRLAgent:
        """Learn this country's reward alone (L2 toward zero)."""
        if not demonstrations:
            raise ValueError("no demonstrations to fit on")
        fit = fit_demonstrations({"country": demonstrations}, l2=self.l2, shrinkage="none",
                                 standard_errors=False, tol=self.tol)  # fmt: skip
        self._check_actions(fit.theta.shape[1])
        self.theta_ = fit.theta[0]
        return self

    @classmethod
    def fit_countries(
        cls,
        demos_by_country: Mapping[str, Sequence[Demonstration]],
        *,
        layout: ObservationLayout | None = None,
        l2: float = 10.0,
        shrinkage: Shrinkage = "global",
        blocs: Mapping[str, int] | None = None,
        tol: float = 1e-6,
    ) -> dict[str, MaxEntIRLAgent]:
        """Fit every country in one batched call; returns country → fitted agent."""
        fit = fit_demonstrations(demos_by_country, l2=l2, shrinkage=shrinkage, blocs=blocs,
                                 standard_errors=False, tol=tol)  # fmt: skip
        agents = {}
        for row, country in enumerate(demos_by_country):
            agent = cls(fit.theta.shape[1], layout, l2=l2, tol=tol)
            agent.theta_ = fit.theta[row]
            agents[country] = agent
        return agents

    @classmethod
    def from_reward_model(cls, model: RewardModel, country: str) -> MaxEntIRLAgent:
        """One country's policy of a saved :class:`~assembly_gym.irl.reward_model.RewardModel`."""
        agent = cls(len(model.action_names))
        agent.theta_ = model.weights(country).copy()
        return agent


class NeuralMaxEntIRLAgent(RewardPolicyAgent):
    """Softmax policy of an MLP reward r_ψ(s, a) learned from one country's votes by MaxEnt IRL.

    The network (:class:`assembly_gym.irl.neural.NeuralReward`) is trained full-batch with the
    exact MaxEnt gradient of the horizon-1 decisions: a neural multinomial logit (see
    docs/irl_agents.md).

    Args:
        n_actions: number of actions A (3 in RollCall-v0).
        layout: observation names (optional).
        hidden: hidden layer widths.
        l2: prior precision on the network's parameters over the whole demonstration (as
            :class:`MaxEntIRLAgent`'s, so it weakens as the country's votes grow).
        lr: Adam learning rate.
        epochs: full-batch gradient steps.
        seed: seed of the initial weights.
        device: where the network trains and runs (``"auto"``: the GPU when there is one;
            see :class:`~assembly_gym.irl.neural.NeuralReward`).
    """

    name = "maxent-irl (neural)"

    def __init__(self, n_actions: int = 3, layout: ObservationLayout | None = None, *,
                 hidden: Sequence[int] = (32,), l2: float = 10.0, lr: float = 1e-2,
                 epochs: int = 300, seed: int = 0, device: str = "auto") -> None:  # fmt: skip
        super().__init__(n_actions, layout)
        if l2 < 0:
            raise ValueError(f"l2 must be ≥ 0, got {l2}")
        self.hidden, self.l2, self.lr, self.epochs, self.seed = tuple(hidden), l2, lr, epochs, seed
        self.device = device
        self.reward_: NeuralReward | None = None

    def fit(self, demonstrations: Sequence[Demonstration]) -> NeuralMaxEntIRLAgent:
        """Train the reward network on this country's decisions."""
        obs, acts, masks = Demonstration.stack(demonstrations)
        mdp, _, expert = decision_problem([obs], [acts], [masks])
        self._check_actions(mdp.n_actions)
        reward = NeuralReward(
            obs.shape[1], self.n_actions, self.hidden, l2=self.l2 / expert.n_steps, lr=self.lr,
            epochs=self.epochs, seed=self.seed, device=self.device,
        )  # fmt: skip
        # One thread (torch's OpenMP and BLAS): the network is small, and on the busy 2-core
        # reference machine a second torch thread made this fit about 20× slower.
        with threadpool_limits(limits=1):
            self.reward_ = reward.fit(mdp, obs, expert)
        return self

    def reward_matrix(self, obs: np.ndarray) -> np.ndarray:
        """The learned reward r_ψ(s, a) of every action, (N, d) → (N, A)."""
        if self.reward_ is None:
            raise ValueError("NeuralMaxEntIRLAgent is not fitted: call fit() first")
        return self.reward_.rewards(np.atleast_2d(obs))


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
        l2: float = 10.0,
        shrinkage: Shrinkage = "global",
    ) -> dict[str, MaxEntDeliberationAgent]:
        """Fit every country in one stacked MaxEnt fit.

        Args:
            demos_by_country: demonstrations per country, complete (three-stage) or partially
                recorded (the unrecorded stages are summed out).
            layout: the env's observation names.
            dynamics: the other countries' behaviour the MDPs are built from.
            patterns: every issue pattern the agents will see, (P, 6) bool.
            l2: prior precision on standardised weights.
            shrinkage: prior mean of each country's weights ("global", "none").
        """
        countries = list(demos_by_country)
        problem = DeliberationProblem.build(dynamics, patterns, countries)
        demos = [demo for country in countries for demo in demos_by_country[country]]
        states, actions = problem.trajectories(demos, layout.names)
        fit = problem.fit(states, actions, l2=l2, shrinkage=shrinkage, standard_errors=False)
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
