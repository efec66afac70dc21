"""MaxEnt inverse RL: learn each country's reward function from how it votes.

Here: the fits and their results; the tabular MDP tools, explanations and analyses are
importable from their modules (``mdp``, ``explanation``, ``analysis``, …).

Example:
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> from assembly_gym.irl import fit_reward_model
    >>> data = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=3)).data
    >>> model = fit_reward_model(data, kind="linear", standard_errors=False)
    >>> model.explain("Country 001").shape[1]
    3
"""

from assembly_gym.irl.base import RewardModel, register_reward_kind, reward_kinds
from assembly_gym.irl.deliberation import (
    DeliberationProblem,
    fit_deliberation_rewards,
    planted_deliberation,
)
from assembly_gym.irl.linear import LinearRewardModel
from assembly_gym.irl.maxent import MaxEntFit, fit_maxent
from assembly_gym.irl.mdp import TabularMDP
from assembly_gym.irl.neural import NeuralReward
from assembly_gym.irl.rollcall import fit_reward_model

__all__ = [
    "DeliberationProblem",
    "LinearRewardModel",
    "MaxEntFit",
    "NeuralReward",
    "RewardModel",
    "TabularMDP",
    "fit_deliberation_rewards",
    "fit_maxent",
    "fit_reward_model",
    "planted_deliberation",
    "register_reward_kind",
    "reward_kinds",
]
