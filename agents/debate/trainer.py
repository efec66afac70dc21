"""Training: epochs of debate until the allocations stabilise, validated on held-out observations.

:meth:`Trainer.train` runs these phases:

1. **Split**: a seeded random ``validation_split`` share of the observations is held out.
2. **Claims**: every tendency's claims on every observation (built-in scorers, or an
   external :class:`~assembly_gym.agents.debate.claims.ClaimModel` with the scorers as
   fallback; it claims the held-out observations too unless its ``validate`` is off).
3. **Epoch loop**, for epoch t = 1 … ``max_epochs`` with learning rate
   η_t = ``initial_lr`` · ``lr_decay`` ^ (t − 1):

   a. *claims refreshed* through the claim command with the current allocations, from
      t = 2 on, when its ``refresh`` is on;
   b. *arena debate* on the training observations
      (:class:`~assembly_gym.agents.debate.arena.Arena`); allocations are projected into
      [``min_allocation``, ``max_allocation``] summing to 1 after every update;
   c. *convergence check*: an epoch is stable when its summed absolute allocation change
      Σ_k |Δw_k| is below ``convergence_threshold``; training has converged once
      ``patience`` consecutive epochs were stable and at least ``min_epochs`` have run;
   d. *learning-rate decay*: η ← η · ``lr_decay``;
   e. *validation* of the new allocations on the held-out observations
      (:class:`~assembly_gym.agents.debate.validator.Validator`; unlabelled texts are
      forecast one by one from the words of the tendencies' training claims,
      :class:`~assembly_gym.agents.debate.forecast.ClaimProfiles`), logged with the epoch's
      metrics;

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
from assembly_gym.agents.debate.forecast import ClaimProfiles
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
        validator = Validator(seed=self.seed)
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
                claims.current.take(held_out),
                outcomes[held_out],
                allocations,
                held_masks,
                forecast=None
                if profiles is None
                else profiles.log_likelihood(train_claims.relevance, allocations),
                relevance_source=claims.held_out_source,
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
            claim_batches=claims.batches,
            claim_failures=len(claims.errors),
            first_claim_error=str(claims.errors[0]) if claims.errors else None,
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
        everything = claim_model is None or claim_model.validate
        self.asked = (
            np.arange(len(observations))
            if everything
            else np.setdiff1d(np.arange(len(observations)), held_out)
        )
        self.refresh = claim_model is not None and claim_model.refresh
        self.held_out_source = (
            "claim command"
            if claim_model is not None and claim_model.validate
            else "built-in relevance"
        )

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
        probs, relevance = self.builtin.probs.copy(), self.builtin.relevance.copy()
        probs[:, self.asked], relevance[:, self.asked] = (
            report.claims.probs,
            report.claims.relevance,
        )
        self.current = ClaimSet(probs, relevance)
        self.errors.extend(report.errors)
        self.batches += report.batches


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
