"""The debate allocator: tendencies compete to explain an actor's behaviour.

K tendency agents claim observations, stake their allocation where they disagree with the
consensus, and win or lose by how well they explain what was observed; the allocations
shift toward the winners (kept inside bounds and summing to 1) until they stabilise, and
held-out observations test whether the calibrated mixture beats chance. As an agent, the
mixture predicts a country's votes. See ``docs/debate.md``.

Here: the model, its training and its loggers; the parts (claims, arena, tendencies,
observations, validation) are importable from their modules.
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
