"""Learned transition models that serve as simulators.

Example:
    >>> from assembly_gym.world_models import (
    ...     MLPEnsemble, deliberation_transitions, split_transitions)
    >>> train, validation, test = split_transitions(deliberation_transitions())  # doctest: +SKIP
    >>> model = MLPEnsemble().fit(train, validation=validation)  # doctest: +SKIP
    >>> model.save("models/deliberation")  # doctest: +SKIP
"""

from assembly_gym.world_models.base import (
    Prediction,
    Transitions,
    WorldModel,
    load_world_model,
    register_world_model,
)
from assembly_gym.world_models.empirical import EmpiricalModel
from assembly_gym.world_models.evaluation import Evaluation, evaluate_world_model, evaluation_table
from assembly_gym.world_models.heads import HeadModel, HeadOutputs
from assembly_gym.world_models.mlp import MLPEnsemble
from assembly_gym.world_models.schema import StateSchema
from assembly_gym.world_models.transitions import (
    deliberation_transitions,
    env_transitions,
    rollcall_transitions,
    split_transitions,
)

__all__ = [
    "EmpiricalModel",
    "Evaluation",
    "HeadModel",
    "HeadOutputs",
    "MLPEnsemble",
    "Prediction",
    "StateSchema",
    "Transitions",
    "WorldModel",
    "deliberation_transitions",
    "env_transitions",
    "evaluate_world_model",
    "evaluation_table",
    "load_world_model",
    "register_world_model",
    "rollcall_transitions",
    "split_transitions",
]
