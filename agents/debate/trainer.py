"""Training: epochs of debate until the allocations stabilise, validated on held-out observations.

The loop (seeded split, claims, epochs of arena debate, convergence check, validation), its
:class:`TrainConfig` and its records (:class:`TrainHistory`, :class:`EpochMetrics`,
:class:`DebateResult`): docs/debate.md, "Training". Training starts from the agents'
allocations (equal shares for new agents), projected into the bounds, and writes the final
ones back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from tqdm.auto import tqdm

from assembly_gym.agents.debate.allocation import check_bounds, project_bounded_simplex
from assembly_gym.agents.debate.arena import Arena, Claim, EpochDebate, top_claims
from assembly_gym.agents.debate.claims import BatchError, ClaimModel
from assembly_gym.agents.debate.forecast import ClaimProfiles
from assembly_gym.agents.debate.observations import Observations
from assembly_gym.agents.debate.tendencies import AnyTendency, TendencyAgent, compute_claims
from assembly_gym.agents.debate.validator import ValidationResult, Validator
from assembly_gym.core.persist import dataclass_from_dict

__all__ = ["DebateLogger", "DebateResult", "EpochMetrics", "TrainConfig", "TrainHistory", "Trainer"]


@dataclass(frozen=True)
class TrainConfig:
    """Settings of debate training.

    Attributes:
        max_epochs: most epochs to run.
        min_epochs: fewest epochs before training may stop as converged.
        convergence_threshold: an epoch is stable when its summed absolute allocation change
            is below this.
        patience: consecutive stable epochs needed to stop.
        initial_lr: learning rate η of the first epoch, in (0, 1]: the share of the way to
            the market allocation each round moves.
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
        if not 0 < self.initial_lr <= 1:
            raise ValueError(f"initial_lr must be in (0, 1], got {self.initial_lr}")
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
        winner: the tendency with the highest score: the one whose share grew most.
        winning_score: its score.
        scores: winnings v*_k − w_k, summed over the epoch's rounds.
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


@dataclass(frozen=True)
class TrainHistory:
    """The record of a training run.

    Attributes:
        epochs_run: epochs run.
        converged: whether the convergence check stopped training (else ``max_epochs`` did).
        best_epoch: the epoch with the highest held-out log-likelihood (the earliest on ties).
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
        return asdict(self)

    @classmethod
    def from_dict(cls, payload: dict[str, Any], *, source: object = None) -> TrainHistory:
        """Inverse of :meth:`to_dict` (the claim fields take their defaults where absent).

        Raises:
            ValueError: a missing field or one of another type; with ``source`` (the file the
                payload was read from), a CheckpointError naming it.
        """
        return dataclass_from_dict(cls, payload, what="history", source=source)


@dataclass(frozen=True)
class DebateResult:
    """The outcome of the debate.

    Attributes:
        winner: the tendency of the largest final allocation (``winner.value``: its value;
            ``winner.label``: the agent's name).
        allocations: final allocations by tendency.
        allocation_changes: final minus initial allocation by tendency.
        claims: each tendency's largest stakes in the last round, with how they fared.
        claim_errors: batches the claim command failed on (their claims came from the
            built-in scorers).
    """

    winner: AnyTendency
    allocations: dict[str, float]
    allocation_changes: dict[str, float]
    claims: dict[str, tuple[Claim, ...]]
    claim_errors: tuple[BatchError, ...] = ()


@runtime_checkable
class DebateLogger(Protocol):
    """What the trainer calls on a logger."""

    def start(self, config: TrainConfig, tendencies: Sequence[str]) -> None:
        """Training begins with these settings and tendencies."""
        ...

    def log_epoch(self, metrics: EpochMetrics, validation: ValidationResult) -> None:
        """An epoch ended."""
        ...

    def finish(self, history: TrainHistory, result: DebateResult) -> None:
        """Training ended."""
        ...


class Trainer:
    """Calibrates tendency allocations by epochs of debate (see the module docstring).

    Args:
        config: training settings.
        seed: seed of the train/validation split and of the validator's tie-breaking.
        arena: the debate rules (default :class:`~assembly_gym.agents.debate.arena.Arena`).
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
                fill in for batches it fails on; the history counts them).

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
        train, held_out = self.split(len(observations))
        claims = _Claims(observations, agents, claim_model, held_out, verbose)
        start = np.array([agent.allocation for agent in agents], dtype=np.float64)
        total = start.sum()
        start = np.full(len(agents), 1.0 / len(agents)) if total <= 0 else start / total
        allocations = project_bounded_simplex(start, config.min_allocation, config.max_allocation)
        initial = allocations.copy()
        claims.ask(allocations, epoch=1)
        outcomes, masks = observations.actions, observations.masks
        train_outcomes = outcomes[train]
        held_masks = None if masks is None else masks[held_out]
        profiles = None
        texts = observations.texts
        if texts is not None and (outcomes[held_out] < 0).any():  # forecast from training claims
            profiles = ClaimProfiles([texts[i] for i in train], [texts[i] for i in held_out])
        validator = Validator(seed=self.seed, evidence_floor=self.arena.evidence_floor)
        loggers = _as_list(logger)
        for each in loggers:
            each.start(config, names)
        metrics: list[EpochMetrics] = []
        validations: list[ValidationResult] = []
        stable, converged, learning_rate = 0, False, config.initial_lr
        bar = tqdm(range(1, config.max_epochs + 1), desc="debate epochs", disable=not verbose)
        for epoch in bar:
            if epoch > 1 and claims.refresh:
                claims.ask(allocations, epoch=epoch)
            train_claims = claims.current.take(train)
            debate = self.arena.debate(train_claims, train_outcomes, allocations,
                                       learning_rate=learning_rate, lower=config.min_allocation,
                                       upper=config.max_allocation)  # fmt: skip
            allocations = debate.allocations
            epoch_metrics = _epoch_metrics(epoch, learning_rate, names, debate)
            stable = stable + 1 if epoch_metrics.total_change < config.convergence_threshold else 0
            converged = epoch >= config.min_epochs and stable >= config.patience
            learning_rate *= config.lr_decay
            relevance = train_claims.relevance
            forecast = None if profiles is None else profiles.log_likelihood(relevance, allocations)
            validation = validator.validate(
                claims.current.take(held_out), outcomes[held_out], allocations, held_masks,
                forecast=forecast, relevance_source=claims.held_out_source,
            )  # fmt: skip
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
        best = max(range(len(validations)), key=lambda t: (validations[t].log_likelihood, -t))
        history = TrainHistory(
            len(metrics), converged, best + 1, tuple(metrics), tuple(validations),
            claim_batches=claims.batches, claim_failures=len(claims.errors),
            first_claim_error=str(claims.errors[0]) if claims.errors else None,
        )  # fmt: skip
        train_ids, action_names = [observations.ids[i] for i in train], observations.action_names
        result = DebateResult(
            winner=agents[int(np.argmax(allocations))].tendency,
            allocations=_named(names, allocations),
            allocation_changes=_named(names, allocations - initial),
            claims=top_claims(train_claims, debate.last_round, names, train_ids, action_names),
            claim_errors=tuple(claims.errors),
        )
        for each in loggers:
            each.finish(history, result)
        return history, result

    def split(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The seeded (train, validation) positions of n observations, each sorted and non-empty.

        ``round(validation_split · n)`` observations (at least one, at most n − 1) are held out.
        """
        order = np.random.default_rng(self.seed).permutation(n)
        n_validation = min(max(1, round(self.config.validation_split * n)), n - 1)
        return np.sort(order[n_validation:]), np.sort(order[:n_validation])


class _Claims:
    """The claims of a run: built-in ones, replaced where the claim command answers.

    Args:
        observations: every observation.
        agents: the tendencies.
        claim_model: the claim command, or None (built-in claims only).
        held_out: positions of the held-out observations (the command skips them unless
            its ``validate`` is on).
        verbose: show the command's progress bars.
    """

    def __init__(
        self,
        observations: Observations,
        agents: Sequence[TendencyAgent],
        claim_model: ClaimModel | None,
        held_out: np.ndarray,
        verbose: bool,
    ) -> None:
        self.observations, self.agents, self.model = observations, agents, claim_model
        self.verbose = verbose
        self.builtin = compute_claims(observations, agents)
        self.current = self.builtin
        self.errors: list[BatchError] = []
        self.batches = 0
        validated = claim_model is not None and claim_model.validate
        everything = np.arange(len(observations))
        held_back = claim_model is not None and not validated
        self.asked = np.setdiff1d(everything, held_out) if held_back else everything
        self.refresh = claim_model is not None and claim_model.refresh
        self.held_out_source = "claim command" if validated else "built-in relevance"

    def ask(self, allocations: np.ndarray, *, epoch: int) -> None:
        """Ask the claim command (if any) for claims, with the current allocations."""
        if self.model is None:
            return
        report = self.model.claims(
            self.observations.take(self.asked),
            self.agents,
            fallback=self.builtin.take(self.asked),
            progress=self.verbose,
            allocations=allocations,
            epoch=epoch,
        )
        self.current = self.builtin.replace(self.asked, report.claims)
        self.errors.extend(report.errors)
        self.batches += report.batches


def _named(names: list[str], values: np.ndarray) -> dict[str, float]:
    return dict(zip(names, map(float, values), strict=True))


def _epoch_metrics(
    epoch: int, learning_rate: float, names: list[str], debate: EpochDebate
) -> EpochMetrics:
    winner = int(np.argmax(debate.scores))
    return EpochMetrics(
        epoch=epoch,
        learning_rate=float(learning_rate),
        winner=names[winner],
        winning_score=float(debate.scores[winner]),
        scores=_named(names, debate.scores),
        allocations=_named(names, debate.allocations),
        allocation_changes=_named(names, debate.changes),
        total_stakes=_named(names, debate.total_stakes),
    )


def _as_list(logger: DebateLogger | Sequence[DebateLogger] | None) -> list[DebateLogger]:
    if logger is None:
        return []
    if isinstance(logger, Sequence):
        return list(logger)
    return [logger]
