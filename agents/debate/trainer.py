"""Training: epochs of debate until the allocations stabilise, validated on held-out observations.

:meth:`Trainer.train` runs these phases:

1. **Claims**: every tendency's claims on every observation (built-in scorers, or an
   external :class:`~assembly_gym.agents.debate.claims.ClaimModel` with the scorers as fallback).
2. **Split**: a seeded random ``validation_split`` share of the observations is held out.
3. **Epoch loop**, for epoch t = 1 … ``max_epochs`` with learning rate
   η_t = ``initial_lr`` · ``lr_decay`` ^ (t − 1):

   a. *arena debate* on the training observations
      (:class:`~assembly_gym.agents.debate.arena.Arena`); allocations are projected into
      [``min_allocation``, ``max_allocation``] summing to 1 after every update;
   b. *convergence check*: an epoch is stable when its summed absolute allocation change
      Σ_k |Δw_k| is below ``convergence_threshold``; training has converged once
      ``patience`` consecutive epochs were stable and at least ``min_epochs`` have run;
   c. *learning-rate decay*: η ← η · ``lr_decay``;
   d. *validation* of the new allocations on the held-out observations
      (:class:`~assembly_gym.agents.debate.validator.Validator`), logged with the epoch's metrics;

   and stops after the epoch in which it converged.

Training starts from the agents' current allocations (equal shares for new agents),
projected into the bounds, and writes the final allocations back into the agents.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from tqdm.auto import tqdm

from assembly_gym.agents.debate.allocation import project_bounded_simplex
from assembly_gym.agents.debate.arena import Arena, ClaimSet, EpochDebate, top_claims
from assembly_gym.agents.debate.claims import BatchError, ClaimModel
from assembly_gym.agents.debate.config import TrainConfig
from assembly_gym.agents.debate.history import DebateResult, EpochMetrics, TrainHistory
from assembly_gym.agents.debate.loggers import DebateLogger
from assembly_gym.agents.debate.observations import Observations
from assembly_gym.agents.debate.tendencies import TendencyAgent, compute_claims
from assembly_gym.agents.debate.validator import ValidationResult, Validator

__all__ = ["Trainer"]


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
        claims, errors, batches = self._claims(observations, agents, claim_model, verbose)
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
            len(metrics),
            converged,
            best + 1,
            tuple(metrics),
            tuple(validations),
            claim_batches=batches,
            claim_failures=len(errors),
            first_claim_error=str(errors[0]) if errors else None,
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
    ) -> tuple[ClaimSet, tuple[BatchError, ...], int]:
        """Claims on every observation, the claim command's failed batches and its batches."""
        builtin = compute_claims(observations, agents)
        if claim_model is None:
            return builtin, (), 0
        report = claim_model.claims(observations, agents, fallback=builtin, progress=verbose)
        return report.claims, report.errors, report.batches

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
