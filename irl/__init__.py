"""MaxEnt inverse RL: learn each country's reward function from how it votes.

Example:
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> from assembly_gym.irl import fit_reward_model
    >>> data = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=3)).data
    >>> model = fit_reward_model(data, standard_errors=False)
    >>> model.explain("Country 001").shape[1]
    3
"""

from assembly_gym.irl.analysis import (
    cluster_rewards,
    dendrogram_figure,
    effects_over_time_figure,
    plot_dendrogram,
    plot_effects_over_time,
    plot_weights_heatmap,
    reward_correlations,
    reward_distances,
    weights_heatmap_figure,
)
from assembly_gym.irl.deliberation import (
    REFERENCE_ACTION,
    UNRECORDED,
    DeliberationProblem,
    PlantedDeliberation,
    fit_deliberation_rewards,
    held_out_log_likelihood,
    identified_weights,
    planted_deliberation,
    recorded_demonstrations,
)
from assembly_gym.irl.explanation import (
    Z95,
    compare_weights,
    country_decisions,
    describe_feature,
    feature_kind,
    vote_effects,
)
from assembly_gym.irl.maxent import (
    ExpertStatistics,
    MaxEntFit,
    SeparationWarning,
    decision_problem,
    fit_maxent,
    maxent_objective,
)
from assembly_gym.irl.mdp import (
    LinearFeatures,
    SoftPolicy,
    TabularMDP,
    occupancy,
    random_mdp,
    sample_trajectories,
    soft_value_iteration,
    stack_mdps,
)
from assembly_gym.irl.neural import NeuralReward
from assembly_gym.irl.reward_model import RewardModel
from assembly_gym.irl.rollcall import fit_demonstrations, fit_reward_model

__all__ = [
    "REFERENCE_ACTION",
    "UNRECORDED",
    "Z95",
    "DeliberationProblem",
    "ExpertStatistics",
    "LinearFeatures",
    "MaxEntFit",
    "NeuralReward",
    "PlantedDeliberation",
    "RewardModel",
    "SeparationWarning",
    "SoftPolicy",
    "TabularMDP",
    "cluster_rewards",
    "compare_weights",
    "country_decisions",
    "describe_feature",
    "effects_over_time_figure",
    "feature_kind",
    "decision_problem",
    "fit_deliberation_rewards",
    "fit_demonstrations",
    "fit_maxent",
    "fit_reward_model",
    "maxent_objective",
    "held_out_log_likelihood",
    "identified_weights",
    "occupancy",
    "planted_deliberation",
    "dendrogram_figure",
    "plot_dendrogram",
    "plot_effects_over_time",
    "plot_weights_heatmap",
    "random_mdp",
    "recorded_demonstrations",
    "reward_correlations",
    "reward_distances",
    "weights_heatmap_figure",
    "sample_trajectories",
    "soft_value_iteration",
    "stack_mdps",
    "vote_effects",
]
