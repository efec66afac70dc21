"""The ground floor every package stands on; nothing here imports another assembly_gym package.

Modules:
    errors: the project's error types (``DataError`` names file, row and field).
    persist: atomic, versioned saving (temporary file beside the target, then rename).
    artifact: folders saved whole (a temporary sibling swapped in at once) and read whole.
    paths: where the real data lives (``$ASSEMBLY_GYM_DATA``, else ``../shared/data``).
    layout: ``ObservationLayout``, the names of an observation's dimensions.
    state: ``StateDeclaration``, how an env family declares its state (stages, categorical
        parts) for the world models and Simulator-v0 to consume; the ``Vote`` codes and the
        ``OutcomeRule`` that decides a vote (majority, quota, veto).
    transitions: ``Transitions``, the (s, a, s', done) batches an env family builds and
        world models learn, carrying the family's declaration.
    rewards: ``RewardFn``, the reward-function type every env takes; ``checked_reward``
        and ``batch_rewards``.
    metrics: accuracy, macro-F1, log-loss, Brier score and calibration error, one
        implementation for every package.
    render: the ``RenderModes`` mixin ("ansi", "human" and "rgb_array" renders) and the
        drawing tools the envs' pictures share; hemicycle: the picture of an assembly.
    seeding: ``isolated_seed`` for third-party code that only reads global generators.
    optional: ``require``, which imports an optional extra or names the ``pip install``.
    tensorboard: ``summary_writer``, TensorBoard logging with a clear message when absent.
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
