"""Training: epochs of debate until the allocations stabilise, validated on held-out observations.

:meth:`Trainer.train` runs these phases:

1. **Claims**: every tendency's claims on every observation (built-in scorers, or an
   external :class:`~agents.debate.claims.ClaimModel` with the scorers as fallback).
2. **Split**: a seeded random ``validation_split`` share of the observations is held out.
3. **Epoch loop**, for epoch t = 1 … ``max_epochs`` with learning rate
   η_t = ``initial_lr`` · ``lr_decay`` ^ (t − 1):

   a. *arena debate* on the training observations (:class:`~agents.debate.arena.Arena`);
      allocations are projected into [``min_allocation``, ``max_allocation``] summing to 1
      after every update;
   b. *convergence check*: an epoch is stable when its summed absolute allocation change
      Σ_k |Δw_k| is below ``convergence_threshold``; training has converged once
      ``patience`` consecutive epochs were stable and at least ``min_epochs`` have run;
   c. *learning-rate decay*: η ← η · ``lr_decay``;
   d. *validation* of the new allocations on the held-out observations
      (:class:`~agents.debate.validator.Validator`), logged with the epoch's metrics;

   and stops after the epoch in which it converged.

Training starts from the agents' current allocations (equal shares for new agents),
projected into the bounds, and writes the final allocations back into the agents.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from assembly_gym.agents.debate.allocation import check_bounds, project_bounded_simplex
from assembly_gym.agents.debate.arena import Arena, Claim, ClaimSet, EpochDebate, top_claims
from assembly_gym.agents.debate.claims import BatchError, ClaimModel
from assembly_gym.agents.debate.loggers import DebateLogger
from assembly_gym.agents.debate.observations import Observations
from assembly_gym.agents.debate.tendencies import TendencyAgent, compute_claims
from assembly_gym.agents.debate.validator import ValidationResult, Validator

__all__ = ["DebateResult", "EpochMetrics", "TrainConfig", "TrainHistory", "Trainer"]


@dataclass(frozen=True)
class TrainConfig:
    """Settings of debate training.

    Attributes:
        max_epochs: most epochs to run.
        min_epochs: fewest epochs before training may stop as converged.
        convergence_threshold: an epoch is stable when its summed absolute allocation change
            is below this.
        patience: consecutive stable epochs needed to stop.
        initial_lr: learning rate η of the first epoch.
        lr_decay: factor applied to η after each epoch, in (0, 1].
        validation_split: share of observations held out for validation, in (0, 1).
        min_allocation: smallest share of any tendency.
        max_allocation: largest share of any tendency.
    """

    max_epochs: int = 10
    min_epochs: int = 2
    convergence_threshold: float = 0.005
    patience: int = 3
    initial_lr: float = 0.15
    lr_decay: float = 0.9
    validation_split: float = 0.2
    min_allocation: float = 0.03
    max_allocation: float = 0.50

    def __post_init__(self) -> None:
        if not 1 <= self.min_epochs <= self.max_epochs:
            raise ValueError(
                f"need 1 ≤ min_epochs ≤ max_epochs, got {self.min_epochs} and {self.max_epochs}"
            )
        if self.patience < 1:
            raise ValueError(f"patience must be ≥ 1, got {self.patience}")
        if not self.convergence_threshold >= 0:
            raise ValueError(f"convergence_threshold must be ≥ 0, got {self.convergence_threshold}")
        if not self.initial_lr > 0:
            raise ValueError(f"initial_lr must be > 0, got {self.initial_lr}")
        if not 0 < self.lr_decay <= 1:
            raise ValueError(f"lr_decay must be in (0, 1], got {self.lr_decay}")
        if not 0 < self.validation_split < 1:
            raise ValueError(
                f"validation_split must be in (0, 1) (a share of the observations), "
                f"got {self.validation_split}"
            )
        if not 0 <= self.min_allocation <= self.max_allocation <= 1:
            raise ValueError(
                f"need 0 ≤ min_allocation ≤ max_allocation ≤ 1, "
                f"got {self.min_allocation} and {self.max_allocation}"
            )

    def check_tendencies(self, n_tendencies: int) -> None:
        """Check that ``n_tendencies`` allocations inside the bounds can sum to 1.

        Raises:
            ValueError: they cannot (names the bounds that would work).
        """
        check_bounds(n_tendencies, self.min_allocation, self.max_allocation)

    def learning_rate(self, epoch: int) -> float:
        """η of a 1-based epoch: ``initial_lr`` · ``lr_decay`` ^ (epoch − 1)."""
        return self.initial_lr * self.lr_decay ** (epoch - 1)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return asdict(self)


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
    """

    epochs_run: int
    converged: bool
    best_epoch: int
    metrics: tuple[EpochMetrics, ...]
    validation_results: tuple[ValidationResult, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "epochs_run": self.epochs_run,
            "converged": self.converged,
            "best_epoch": self.best_epoch,
            "metrics": [m.to_dict() for m in self.metrics],
            "validation_results": [v.to_dict() for v in self.validation_results],
        }

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> TrainHistory:
        """Inverse of :meth:`to_dict`."""
        return cls(
            epochs_run=int(payload["epochs_run"]),
            converged=bool(payload["converged"]),
            best_epoch=int(payload["best_epoch"]),
            metrics=tuple(EpochMetrics.from_dict(m) for m in payload["metrics"]),
            validation_results=tuple(
                ValidationResult.from_dict(v) for v in payload["validation_results"]
            ),
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


class Trainer:
    """Calibrates tendency allocations by epochs of debate (see the module docstring).

    Args:
        config: training settings.
        seed: seed of the train/validation split and of the validator's tie-breaking.
        arena: the debate rules (default :class:`~agents.debate.arena.Arena`).
    """

    def __init__(
        self, config: TrainConfig | None = None, *, seed: int = 0, arena: Arena | None = None
    ) -> None:
        self.config = config or TrainConfig()
        self.seed = seed
        self.arena = arena or Arena()

    def train(
        self,
        observations: Observations,
        agents: Sequence[TendencyAgent],
        logger: DebateLogger | Sequence[DebateLogger] | None = None,
        verbose: bool = False,
        *,
        claim_model: ClaimModel | None = None,
    ) -> tuple[TrainHistory, DebateResult]:
        """Run the debate and calibrate the agents' allocations.

        Args:
            observations: what the tendencies explain (at least two observations).
            agents: the competing tendencies (unique names); their ``allocation`` is updated.
            logger: one logger, several, or None.
            verbose: show a progress bar over epochs.
            claim_model: an external command that makes the claims (built-in scorers
                fill in for batches it fails on).

        Returns:
            The history and the debate's result.

        Raises:
            ValueError: bounds that cannot hold for this many agents, duplicate names, or
                fewer than two observations.
        """
        config = self.config
        names = [agent.name for agent in agents]
        if len(set(names)) != len(names):
            raise ValueError(f"tendency names must be unique, got {names}")
        config.check_tendencies(len(agents))
        if len(observations) < 2:
            raise ValueError(
                f"need at least two observations (one to train, one to validate), "
                f"got {len(observations)}"
            )
        claims, errors = self._claims(observations, agents, claim_model, verbose)
        train, held_out = self.split(len(observations))
        outcomes = observations.actions
        masks = observations.masks
        validator = Validator(seed=self.seed)
        loggers = _as_list(logger)
        for each in loggers:
            each.start(config, names)

        start = np.array([agent.allocation for agent in agents], dtype=np.float64)
        total = start.sum()
        start = np.full(len(agents), 1.0 / len(agents)) if total <= 0 else start / total
        allocations = project_bounded_simplex(start, config.min_allocation, config.max_allocation)
        initial = allocations.copy()
        train_claims, train_outcomes = claims.take(train), outcomes[train]
        held_claims = claims.take(held_out)
        held_masks = None if masks is None else masks[held_out]
        metrics: list[EpochMetrics] = []
        validations: list[ValidationResult] = []
        stable, converged, learning_rate = 0, False, config.initial_lr
        bar = tqdm(range(1, config.max_epochs + 1), desc="debate epochs", disable=not verbose)
        for epoch in bar:
            debate = self.arena.debate(
                train_claims,
                train_outcomes,
                allocations,
                learning_rate=learning_rate,
                lower=config.min_allocation,
                upper=config.max_allocation,
            )
            allocations = debate.allocations
            epoch_metrics = _epoch_metrics(epoch, learning_rate, names, debate)
            stable = stable + 1 if epoch_metrics.total_change < config.convergence_threshold else 0
            converged = epoch >= config.min_epochs and stable >= config.patience
            learning_rate *= config.lr_decay
            validation = validator.validate(
                held_claims, outcomes[held_out], allocations, held_masks
            )
            metrics.append(epoch_metrics)
            validations.append(validation)
            for each in loggers:
                each.log_epoch(epoch_metrics, validation)
            bar.set_postfix(winner=epoch_metrics.winner, change=f"{epoch_metrics.total_change:.4f}")
            if converged:
                break
        bar.close()

        for agent, share in zip(agents, allocations, strict=True):
            agent.allocation = float(share)
        best = max(range(len(validations)), key=lambda t: (validations[t].accuracy, -t))
        history = TrainHistory(
            len(metrics), converged, best + 1, tuple(metrics), tuple(validations)
        )
        result = DebateResult(
            winner=names[int(np.argmax(allocations))],
            allocations=dict(zip(names, map(float, allocations), strict=True)),
            allocation_changes=dict(zip(names, map(float, allocations - initial), strict=True)),
            claims=top_claims(
                train_claims,
                debate.last_round,
                names,
                [observations.ids[i] for i in train],
                observations.action_names,
            ),
            claim_errors=errors,
        )
        for each in loggers:
            each.finish(history, result)
        return history, result

    def _claims(
        self,
        observations: Observations,
        agents: Sequence[TendencyAgent],
        claim_model: ClaimModel | None,
        verbose: bool,
    ) -> tuple[ClaimSet, tuple[BatchError, ...]]:
        builtin = compute_claims(observations, agents)
        if claim_model is None:
            return builtin, ()
        report = claim_model.claims(observations, agents, fallback=builtin, progress=verbose)
        return report.claims, report.errors

    def split(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The seeded (train, validation) positions of n observations, each sorted and non-empty.

        ``round(validation_split · n)`` observations (at least one, at most n − 1) are held out.
        """
        order = np.random.default_rng(self.seed).permutation(n)
        n_validation = min(max(1, round(self.config.validation_split * n)), n - 1)
        return np.sort(order[n_validation:]), np.sort(order[:n_validation])


def _epoch_metrics(
    epoch: int, learning_rate: float, names: list[str], debate: EpochDebate
) -> EpochMetrics:
    def named(values: np.ndarray) -> dict[str, float]:
        return dict(zip(names, map(float, values), strict=True))

    winner = int(np.argmax(debate.scores))
    return EpochMetrics(
        epoch=epoch,
        learning_rate=float(learning_rate),
        winner=names[winner],
        winning_score=float(debate.scores[winner]),
        scores=named(debate.scores),
        allocations=named(debate.allocations),
        allocation_changes=named(debate.changes),
        total_stakes=named(debate.total_stakes),
    )


def _as_list(logger: DebateLogger | Sequence[DebateLogger] | None) -> list[DebateLogger]:
    if logger is None:
        return []
    if isinstance(logger, Sequence):
        return list(logger)
    return [logger]
