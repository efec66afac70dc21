"""What a debate training run leaves behind: per-epoch metrics, its history and the result."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from assembly_gym.agents.debate.arena import Claim
from assembly_gym.agents.debate.claims import BatchError
from assembly_gym.agents.debate.validator import ValidationResult

__all__ = ["DebateResult", "EpochMetrics", "TrainHistory"]


@dataclass(frozen=True)
class EpochMetrics:
    """What one epoch did (dicts are keyed by tendency name).

    Attributes:
        epoch: 1-based epoch number.
        learning_rate: η used in the epoch.
        winner: the tendency with the highest score.
        winning_score: its score.
        scores: net winnings per observation, summed over the epoch's rounds.
        allocations: allocations after the epoch.
        allocation_changes: signed change of each allocation in the epoch.
        total_stakes: stake per observation, averaged over the rounds.
    """

    epoch: int
    learning_rate: float
    winner: str
    winning_score: float
    scores: dict[str, float]
    allocations: dict[str, float]
    allocation_changes: dict[str, float]
    total_stakes: dict[str, float]

    @property
    def total_change(self) -> float:
        """Σ_k |Δw_k|, what the convergence check compares with the threshold."""
        return float(sum(abs(v) for v in self.allocation_changes.values()))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return asdict(self)

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> EpochMetrics:
        """Inverse of :meth:`to_dict`."""
        return cls(**{f.name: payload[f.name] for f in fields(cls)})


@dataclass(frozen=True)
class TrainHistory:
    """The record of a training run.

    Attributes:
        epochs_run: epochs run.
        converged: whether the convergence check stopped training (else ``max_epochs`` did).
        best_epoch: the epoch with the highest validation accuracy (the earliest on ties).
        metrics: one :class:`EpochMetrics` per epoch.
        validation_results: one :class:`ValidationResult` per epoch.
        claim_batches: batches sent to the claim command (0: built-in claims only).
        claim_failures: how many of them failed (their claims came from the built-in scorers).
        first_claim_error: what went wrong in the first failed batch; None if none failed.
    """

    epochs_run: int
    converged: bool
    best_epoch: int
    metrics: tuple[EpochMetrics, ...]
    validation_results: tuple[ValidationResult, ...]
    claim_batches: int = 0
    claim_failures: int = 0
    first_claim_error: str | None = None

    @property
    def claims_all_failed(self) -> bool:
        """Whether a claim command was used and failed on every batch."""
        return self.claim_batches > 0 and self.claim_failures == self.claim_batches

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "epochs_run": self.epochs_run,
            "converged": self.converged,
            "best_epoch": self.best_epoch,
            "metrics": [m.to_dict() for m in self.metrics],
            "validation_results": [v.to_dict() for v in self.validation_results],
            "claim_batches": self.claim_batches,
            "claim_failures": self.claim_failures,
            "first_claim_error": self.first_claim_error,
        }

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> TrainHistory:
        """Inverse of :meth:`to_dict` (a history saved before the claim fields has none)."""
        first_error = payload.get("first_claim_error")
        return cls(
            epochs_run=int(payload["epochs_run"]),
            converged=bool(payload["converged"]),
            best_epoch=int(payload["best_epoch"]),
            metrics=tuple(EpochMetrics.from_dict(m) for m in payload["metrics"]),
            validation_results=tuple(
                ValidationResult.from_dict(v) for v in payload["validation_results"]
            ),
            claim_batches=int(payload.get("claim_batches", 0)),
            claim_failures=int(payload.get("claim_failures", 0)),
            first_claim_error=None if first_error is None else str(first_error),
        )


@dataclass(frozen=True)
class DebateResult:
    """The outcome of the debate.

    Attributes:
        winner: the tendency with the largest final allocation.
        allocations: final allocations by tendency.
        allocation_changes: final minus initial allocation by tendency.
        claims: each tendency's largest stakes in the last round, with how they fared.
        claim_errors: batches the claim command failed on (their claims came from the
            built-in scorers).
    """

    winner: str
    allocations: dict[str, float]
    allocation_changes: dict[str, float]
    claims: dict[str, tuple[Claim, ...]]
    claim_errors: tuple[BatchError, ...] = ()
