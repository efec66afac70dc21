"""LeWorld: a world model that reads an external bit memory to predict the next state.

Small models (SLMs) choose which address range to read, a big model (BLM) routes between
their reads, predicts the next state and sends an info request to the SLMs' next step.

The house, floor by floor:

* ``config.py``: :class:`LeWorldConfig`, the model's hyperparameters (the world's sizes come
  from its description, :class:`~assembly_gym.envs.memory.config.MemoryWorldConfig`);
* ``layers.py``, ``memory.py``, ``slm.py``, ``blm.py``: the building blocks;
* ``system.py``: :class:`LeWorldSystem`, the pure ``nn.Module`` over a world's description
  and memory content;
* ``batches.py``, ``datasets.py``: tensors of episodes, and the seeded training,
  validation and test sets;
* ``losses.py``, ``training.py``: the losses and the three training phases (phases 1 and 2
  by default: :data:`DEFAULT_PHASES`);
* ``evaluation.py``, ``baselines.py``: held-out metrics, the memory-less MLP;
* ``model.py``: :class:`LeWorldModel`, the :class:`~assembly_gym.world_models.base.WorldModel`
  adapter on the observations of ``assembly/MemoryDynamics-v0`` (predict, sample, fit,
  save, load).

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

from assembly_gym.world_models.leworld.baselines import (
    MemorylessMLP,
    fit_memoryless,
    train_memoryless,
)
from assembly_gym.world_models.leworld.batches import SequenceBatch, StepBatch
from assembly_gym.world_models.leworld.blm import (
    BigLeWorldModel,
    BLMOutput,
    straight_through_sigmoid,
)
from assembly_gym.world_models.leworld.config import ADDRESS_GRADIENTS, LeWorldConfig
from assembly_gym.world_models.leworld.datasets import (
    Datasets,
    held_out_episodes,
    make_datasets,
    training_episodes,
)
from assembly_gym.world_models.leworld.evaluation import (
    LeWorldMetrics,
    PairedDifference,
    ablation_table,
    evaluate_system,
    metrics_table,
    noise_floor,
    paired_difference,
    phase_ablation,
    sequence_mse,
)
from assembly_gym.world_models.leworld.losses import (
    phase1_loss,
    phase1_request_loss,
    phase2_loss,
    phase3_loss,
    routing_losses,
    system_losses,
)
from assembly_gym.world_models.leworld.memory import (
    ArtificialMemory,
    range_means,
    read_alternatives,
    straight_through_read,
)
from assembly_gym.world_models.leworld.model import LeWorldModel
from assembly_gym.world_models.leworld.slm import SLMOutput, SmallLeWorldModel
from assembly_gym.world_models.leworld.system import (
    READ_MODES,
    LeWorldSystem,
    SequenceOutput,
    StepOutput,
    count_params,
)
from assembly_gym.world_models.leworld.training import (
    DEFAULT_PHASES,
    PHASES,
    PhaseReport,
    Progress,
    TrainingReport,
    fit_residual_std,
    fit_transitions,
    parse_phases,
    train_leworld,
    train_phase,
)

__all__ = [
    "ADDRESS_GRADIENTS",
    "ArtificialMemory",
    "BLMOutput",
    "BigLeWorldModel",
    "DEFAULT_PHASES",
    "Datasets",
    "LeWorldConfig",
    "LeWorldMetrics",
    "LeWorldModel",
    "LeWorldSystem",
    "MemorylessMLP",
    "PHASES",
    "PairedDifference",
    "PhaseReport",
    "Progress",
    "READ_MODES",
    "SLMOutput",
    "SequenceBatch",
    "SequenceOutput",
    "SmallLeWorldModel",
    "StepBatch",
    "StepOutput",
    "TrainingReport",
    "ablation_table",
    "count_params",
    "evaluate_system",
    "fit_memoryless",
    "fit_residual_std",
    "fit_transitions",
    "held_out_episodes",
    "make_datasets",
    "metrics_table",
    "noise_floor",
    "paired_difference",
    "parse_phases",
    "phase1_loss",
    "phase1_request_loss",
    "phase2_loss",
    "phase3_loss",
    "phase_ablation",
    "range_means",
    "read_alternatives",
    "routing_losses",
    "sequence_mse",
    "straight_through_read",
    "straight_through_sigmoid",
    "system_losses",
    "train_leworld",
    "train_memoryless",
    "train_phase",
    "training_episodes",
]
