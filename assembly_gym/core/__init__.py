"""The ground floor every package stands on; nothing here imports another assembly_gym package.

What each module holds: docs/architecture.md, section "What lives where".
"""

from assembly_gym.core.errors import (
    AssemblyGymError,
    CheckpointError,
    DataError,
    InvalidActionError,
    MissingDependencyError,
)
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.core.metrics import classification_metrics
from assembly_gym.core.state import OneHotGroup, OutcomeRule, Stages, StateDeclaration, VoteGroup
from assembly_gym.core.transitions import Transitions

__all__ = [
    "AssemblyGymError",
    "CheckpointError",
    "DataError",
    "InvalidActionError",
    "MissingDependencyError",
    "ObservationLayout",
    "OneHotGroup",
    "OutcomeRule",
    "Stages",
    "StateDeclaration",
    "Transitions",
    "VoteGroup",
    "classification_metrics",
]
