"""LeWorld: a world model that reads an external bit memory to predict the next state.

Small models (SLMs) choose which address range to read, a big model (BLM) routes between
their reads, predicts the next state and sends an info request to the SLMs' next step.
docs/leworld.md, section "The model", says what each module of this package is. Here: the
config, the model, training and evaluation; the building blocks, losses, data sets and
baselines are importable from their modules.

Example:
    >>> from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
    >>> from assembly_gym.world_models.leworld import LeWorldConfig, train_leworld
    >>> world = MemoryWorld(MemoryWorldConfig(difficulty="easy", num_words=1024,
    ...                                       sequence_length=4))
    >>> config = LeWorldConfig(phase1_epochs=1, phase2_epochs=1, phase3_epochs=1,
    ...                        num_train_sequences=16, num_val_sequences=4,
    ...                        num_test_sequences=4)
    >>> system, report = train_leworld(world, config, phases=(1, 2, 3), progress=False)
    >>> [p.phase for p in report.phases]
    [1, 2, 3]
    >>> model = LeWorldModel(system)  # predict, sample, save, load
"""

from assembly_gym.world_models.leworld.config import LeWorldConfig
from assembly_gym.world_models.leworld.evaluation import (
    LeWorldMetrics,
    evaluate_system,
    metrics_table,
)
from assembly_gym.world_models.leworld.model import LeWorldModel
from assembly_gym.world_models.leworld.system import LeWorldSystem
from assembly_gym.world_models.leworld.training import TrainingReport, train_leworld

__all__ = [
    "LeWorldConfig",
    "LeWorldMetrics",
    "LeWorldModel",
    "LeWorldSystem",
    "TrainingReport",
    "evaluate_system",
    "metrics_table",
    "train_leworld",
]
