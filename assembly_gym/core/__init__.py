"""The ground floor every package stands on; nothing here imports another assembly_gym package.

Modules:
    errors: the project's error types (``DataError`` names file, row and field).
    persist: atomic, versioned saving (temporary file beside the target, then rename).
    artifact: folders saved whole (a temporary sibling swapped in at once) and read whole.
    paths: where the real data lives (``$ASSEMBLY_GYM_DATA``, else ``../shared/data``).
    layout: ``ObservationLayout``, the names of an observation's dimensions.
    state: ``StateDeclaration``, how an env family declares its state (stages, categorical
        parts, the outcome rule) for the world models and Simulator-v0 to consume.
    metrics: accuracy, macro-F1, log-loss, Brier score and calibration error, one
        implementation for every package.
    render: the ``RenderModes`` mixin ("ansi", "human" and "rgb_array" renders) and the
        drawing tools the envs' pictures share.
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
from assembly_gym.core.metrics import (
    METRICS,
    GroupedScores,
    argmax_random_ties,
    chance_metrics,
    classification_metrics,
    expected_calibration_error,
)
from assembly_gym.core.paths import DATA_ENV_VAR, documents_dir, find_data_dir, unvotes_dir
from assembly_gym.core.persist import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    read_versioned_json,
)
from assembly_gym.core.state import OneHotGroup, OutcomeRule, Stages, StateDeclaration, VoteGroup

__all__ = [
    "DATA_ENV_VAR",
    "METRICS",
    "AssemblyGymError",
    "CheckpointError",
    "DataError",
    "GroupedScores",
    "InvalidActionError",
    "MissingDependencyError",
    "ObservationLayout",
    "OneHotGroup",
    "OutcomeRule",
    "Stages",
    "StateDeclaration",
    "VoteGroup",
    "argmax_random_ties",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "chance_metrics",
    "classification_metrics",
    "documents_dir",
    "expected_calibration_error",
    "find_data_dir",
    "read_versioned_json",
    "unvotes_dir",
]
