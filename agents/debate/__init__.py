"""The debate allocator: tendencies compete to explain an actor's behaviour.

How tendencies claim, stake and win allocations, and how held-out observations test the
calibrated mixture: docs/debate.md. Here: the model, its training and its loggers; the parts
(claims, arena, tendencies, observations, validation) are importable from their modules.
"""

from assembly_gym.agents.debate.agent import DebateAllocatorAgent
from assembly_gym.agents.debate.claims import ClaimModel
from assembly_gym.agents.debate.loggers import (
    ConsoleLogger,
    JSONLogger,
    TensorBoardLogger,
    WandbLogger,
)
from assembly_gym.agents.debate.model import DebateModel, create_debate_model
from assembly_gym.agents.debate.observations import rollcall_observations
from assembly_gym.agents.debate.plots import plot_allocations
from assembly_gym.agents.debate.trainer import DebateResult, TrainConfig, Trainer, TrainHistory

__all__ = [
    "ClaimModel",
    "ConsoleLogger",
    "DebateAllocatorAgent",
    "DebateModel",
    "DebateResult",
    "JSONLogger",
    "TensorBoardLogger",
    "TrainConfig",
    "TrainHistory",
    "Trainer",
    "WandbLogger",
    "create_debate_model",
    "plot_allocations",
    "rollcall_observations",
]
