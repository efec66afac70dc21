"""Learned transition models that serve as simulators.

Example:
    >>> from assembly_gym.world_models import MLPEnsemble, env_transitions, split_transitions
    >>> transitions = env_transitions("Deliberation-v0")  # doctest: +SKIP
    >>> train, validation, test = split_transitions(transitions)  # doctest: +SKIP
    >>> model = MLPEnsemble().fit(train, validation=validation)  # doctest: +SKIP
    >>> model.save("models/deliberation")  # doctest: +SKIP
"""

from assembly_gym.world_models.base import (
    Prediction,
    WorldModel,
    load_world_model,
    register_world_model,
)
from assembly_gym.world_models.empirical import EmpiricalModel
from assembly_gym.world_models.evaluation import Evaluation, evaluate_world_model
from assembly_gym.world_models.heads import HeadModel
from assembly_gym.world_models.mlp import MLPEnsemble
from assembly_gym.world_models.transitions import env_transitions, split_transitions

__all__ = [
    "EmpiricalModel",
    "Evaluation",
    "HeadModel",
    "MLPEnsemble",
    "Prediction",
    "WorldModel",
    "env_transitions",
    "evaluate_world_model",
    "load_world_model",
    "register_world_model",
    "split_transitions",
]
