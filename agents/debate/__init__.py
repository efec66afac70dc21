"""The debate allocator: tendencies compete to explain an actor's behaviour.

K tendency agents claim observations, stake their allocation where they disagree with the
consensus, and win or lose by how well they explain what was observed; the allocations
shift toward the winners (kept inside bounds and summing to 1) until they stabilise, and
held-out observations test whether the calibrated mixture beats chance. As an agent, the
mixture predicts a country's votes. See ``docs/debate.md``.
"""

from assembly_gym.agents.debate.agent import DebateAllocatorAgent
from assembly_gym.agents.debate.allocation import check_bounds, project_bounded_simplex
from assembly_gym.agents.debate.arena import (
    Arena,
    Claim,
    ClaimSet,
    EpochDebate,
    RoundOutcome,
    top_claims,
)
from assembly_gym.agents.debate.claims import (
    PROTOCOL,
    BatchError,
    ClaimModel,
    ClaimModelError,
    ClaimReport,
)
from assembly_gym.agents.debate.config import TrainConfig
from assembly_gym.agents.debate.forecast import ClaimProfiles
from assembly_gym.agents.debate.history import DebateResult, EpochMetrics, TrainHistory
from assembly_gym.agents.debate.loggers import (
    JSON_LOG_KIND,
    ConsoleLogger,
    DebateLogger,
    JSONLogger,
    TensorBoardLogger,
    WandbLogger,
)
from assembly_gym.agents.debate.model import MODEL_KIND, DebateModel, create_debate_model
from assembly_gym.agents.debate.observations import (
    ABOUT,
    UNLABELLED,
    VOTE_NAMES,
    Observations,
    TextObservationFile,
    TextTendencySpec,
    load_observations_json,
    observations_from_demonstrations,
    rollcall_observations,
)
from assembly_gym.agents.debate.plots import allocations_figure, plot_allocations
from assembly_gym.agents.debate.synthetic import plant_mixture, synthetic_person
from assembly_gym.agents.debate.tendencies import (
    EPSILON,
    PERSON_TENDENCIES,
    Tendency,
    TendencyAgent,
    compute_claims,
    legislative_agents,
    legislative_claims,
    text_agents,
    text_relevance,
)
from assembly_gym.agents.debate.trainer import Trainer
from assembly_gym.agents.debate.validator import (
    ValidationResult,
    Validator,
    binomial_p_value,
    significance_stars,
)

__all__ = [
    "ABOUT",
    "EPSILON",
    "JSON_LOG_KIND",
    "MODEL_KIND",
    "PERSON_TENDENCIES",
    "PROTOCOL",
    "UNLABELLED",
    "VOTE_NAMES",
    "Arena",
    "BatchError",
    "Claim",
    "ClaimModel",
    "ClaimProfiles",
    "ClaimModelError",
    "ClaimReport",
    "ClaimSet",
    "ConsoleLogger",
    "DebateAllocatorAgent",
    "DebateLogger",
    "DebateModel",
    "DebateResult",
    "EpochDebate",
    "EpochMetrics",
    "JSONLogger",
    "Observations",
    "RoundOutcome",
    "TensorBoardLogger",
    "Tendency",
    "TendencyAgent",
    "TextObservationFile",
    "TextTendencySpec",
    "TrainConfig",
    "TrainHistory",
    "Trainer",
    "ValidationResult",
    "Validator",
    "WandbLogger",
    "binomial_p_value",
    "check_bounds",
    "compute_claims",
    "create_debate_model",
    "legislative_agents",
    "legislative_claims",
    "load_observations_json",
    "observations_from_demonstrations",
    "plant_mixture",
    "allocations_figure",
    "plot_allocations",
    "project_bounded_simplex",
    "rollcall_observations",
    "synthetic_person",
    "significance_stars",
    "text_agents",
    "text_relevance",
    "top_claims",
]
