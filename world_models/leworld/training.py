"""Training the LeWorld system: three phases, each its own optimiser and schedule.

What each phase trains is in docs/leworld.md, section "The model" (``training.py``); the
losses are :mod:`assembly_gym.world_models.leworld.losses`. Schedules: phase 1 AdamW at a
constant learning rate; phase 2 linear warm-up, then cosine annealing with warm restarts,
and the router temperature annealed τ = max(τ_min, exp(−rate · step)); phase 3 AdamW at a
constant learning rate. Each phase keeps the parameters that did best on validation, the
ones it started from included (as they were saved: without the info request if the phase
before ran without it), so no phase leaves a model worse than the one before it on
validation. All randomness comes from the ``seed`` argument (a
``torch.Generator`` for shuffling, NumPy generators for the data).

Devices: docs/leworld.md, section "Command line" (``--device``).
"""

from __future__ import annotations

import copy
import io
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from assembly_gym.core.device import resolve_device
from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import dataclass_from_dict
from assembly_gym.core.tensorboard import summary_writer
from assembly_gym.core.transitions import Transitions
from assembly_gym.envs.memory.layout import MemoryLayout
from assembly_gym.envs.memory.world import MemoryWorld
from assembly_gym.world_models.checkpoint import load_weights_only
from assembly_gym.world_models.leworld.batches import SequenceBatch, StepBatch
from assembly_gym.world_models.leworld.config import LeWorldConfig
from assembly_gym.world_models.leworld.datasets import Datasets, make_datasets, training_episodes
from assembly_gym.world_models.leworld.evaluation import LeWorldMetrics, evaluate_system
from assembly_gym.world_models.leworld.losses import (
    phase1_loss,
    phase1_request_loss,
    phase2_loss,
    phase3_loss,
)
from assembly_gym.world_models.leworld.system import LeWorldSystem

__all__ = [
    "PHASES",
    "PhaseReport",
    "Progress",
    "TrainingReport",
    "fit_residual_std",
    "fit_transitions",
    "parse_phases",
    "train_leworld",
    "train_phase",
]

PHASES = (1, 2, 3)
_EVAL_ROWS = 4096  # validation rows per forward pass


@dataclass
class PhaseReport:
    """What one phase did.

    Attributes:
        phase: 1, 2 or 3.
        epochs, steps: epochs run and optimiser steps taken.
        seconds: wall time.
        train_loss: mean training loss of each epoch.
        val_loss: validation loss after each epoch (the phase's own loss; phase 2 and 3:
            next-state MSE).
        initial_val_loss: validation loss of the parameters the phase started from.
        best_epoch: the epoch whose parameters were kept (1-based; 0: no epoch improved on
            the parameters the phase started from, which are kept).
    """

    phase: int
    epochs: int = 0
    steps: int = 0
    seconds: float = 0.0
    train_loss: list[float] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    initial_val_loss: float = math.nan
    best_epoch: int = 0


@dataclass
class TrainingReport:
    """Phases run, their reports and the held-out metrics after each.

    Attributes:
        phases: one report per phase run.
        metrics: held-out metrics, "untrained" and "phase N".
        seconds: wall time of the whole training.
        states: the system's parameters after each phase, "phase N" → state dict of CPU
            tensors (for the ablations of ``assembly-gym leworld eval``; not in
            :meth:`to_dict`).
    """

    phases: list[PhaseReport] = field(default_factory=list)
    metrics: dict[str, LeWorldMetrics] = field(default_factory=dict)
    seconds: float = 0.0
    states: dict[str, dict[str, torch.Tensor]] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {
            "phases": [asdict(p) for p in self.phases],
            "seconds": self.seconds,
            "metrics": {k: m.to_dict() for k, m in self.metrics.items()},
        }

    @classmethod
    def from_dict(
        cls, values: Any, states: dict[str, dict[str, torch.Tensor]], *, source: object
    ) -> TrainingReport:
        """Inverse of :meth:`to_dict`, with the parameters after each phase given apart.

        Raises:
            CheckpointError: ``values`` (read from the file ``source``) miss a field or hold
                one of another type.
        """
        report = dataclass_from_dict(cls, values, what="report", source=source)
        return replace(report, states=dict(states))


@dataclass
class Progress:
    """A training between two phases: all :func:`train_leworld` needs to go on with it.

    Resumed, the later phases give the parameters an uninterrupted run gives, bit for bit
    on the same device (the same shuffling, the same router temperature).

    Attributes:
        report: the phases run so far, with the parameters after each (``report.states``).
        global_step: optimiser steps taken so far (the router temperature's clock).
        generator_state: the shuffling generator's state (``torch.Generator.get_state()``).
        use_query: whether the system passes the info request by now.
    """

    report: TrainingReport
    global_step: int
    generator_state: torch.Tensor
    use_query: bool

    def counters(self) -> bytes:
        """Everything but the report, as bytes (``torch.save``; the report is JSON apart)."""
        buffer = io.BytesIO()
        names = ("global_step", "generator_state", "use_query")
        torch.save({name: getattr(self, name) for name in names}, buffer)
        return buffer.getvalue()

    @classmethod
    def from_counters(cls, report: TrainingReport, data: bytes, *, source: object) -> Progress:
        """Inverse of :meth:`counters`, given the report.

        Raises:
            CheckpointError: ``data`` (the file ``source``) is not what :meth:`counters` wrote.
        """
        values = load_weights_only(data, source)
        if not isinstance(values, dict):
            raise CheckpointError(f"{source}: corrupted training progress (not a dict)")
        values = {**values, "report": report}
        return dataclass_from_dict(cls, values, what="training progress", source=source)


# ---------------------------------------------------------------------- the loop


TrainData = SequenceBatch | StepBatch | Callable[[int], SequenceBatch | StepBatch]


def train_phase(
    system: LeWorldSystem,
    *,
    phase: int,
    train: TrainData,
    val: SequenceBatch | StepBatch,
    generator: torch.Generator,
    progress: bool = True,
    writer: Any = None,
    global_step: int = 0,
) -> PhaseReport:
    """Run one phase on the training data; keep the parameters of its best validation epoch.

    The system as it came competes too, as it was (whether it passed the info request
    included): if no epoch beats it on validation, the phase leaves it unchanged. Phase 3
    passes the request (:attr:`LeWorldSystem.use_query`) only if it keeps an epoch.

    Runs on the system's device (:attr:`LeWorldSystem.device`); ``train`` and ``val`` may lie
    anywhere (they are moved once per epoch and once per phase).

    Args:
        system: the system to train (in place).
        phase: 1, 2 or 3.
        train: sequences (phases 1–3) or, for phase 2 only, rows of steps; or a function
            of the epoch (0-based) that returns them (fresh data every epoch).
        val: validation data of the same kind.
        generator: shuffles the batches (a CPU generator: the same order on any device).
        progress: show a tqdm bar over the epochs.
        writer: a TensorBoard ``SummaryWriter`` or None.
        global_step: optimiser steps before this phase (for the temperature and the logs).
    """
    cfg = system.config
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {PHASES}, got {phase}")
    source = train if callable(train) else (lambda epoch: train)
    if phase == 1 and cfg.phase1_request:
        system.use_query = True
    sequential = phase == 3 or system.use_query
    if sequential and not isinstance(source(0), SequenceBatch):
        if phase == 2:  # rows of observations (fit_transitions): one step, no request
            sequential = False
        else:
            raise ValueError(
                f"phase {phase} needs whole sequences here (the info request passes between steps)"
            )
    epochs, batch_size = (getattr(cfg, f"phase{phase}_{name}") for name in ("epochs", "batch_size"))
    if isinstance(source(0), StepBatch):  # rows: a batch holds as many rows as its sequences would
        batch_size *= system.world_config.sequence_length
    steps_per_epoch = math.ceil(len(source(0)) / batch_size)
    optimizer, scheduler = _optimizer(system, phase, steps_per_epoch)
    loss_fn, val_fn = _phase_functions(system, phase, sequential=sequential, generator=generator)
    report = PhaseReport(phase)
    start, device = time.perf_counter(), system.device
    val = val.to(device)
    # The model as the phase found it competes too, as it was (phase 3: without the request),
    # so a phase that only hurts on validation keeps what it was given.
    report.initial_val_loss = val_fn(val)
    best = (report.initial_val_loss, copy.deepcopy(system.state_dict()), system.use_query)
    if phase == 3:
        system.use_query = True
    bar = tqdm(range(epochs), desc=f"phase {phase}", unit="epoch", disable=not progress, leave=True)
    system.train()
    system.blm.router_shapes_reads = phase == 1
    for epoch in bar:
        _freeze_slms(system, phase, epoch)
        losses, logged, train = [], [], source(epoch).to(device)
        order = torch.randperm(len(train), generator=generator).to(device)
        for rows in order.split(batch_size):
            if phase >= 2:
                system.temperature.fill_(_temperature(cfg, global_step))
            batch = train.select(rows)
            loss, parts = loss_fn(batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(system.parameters(), cfg.grad_clip)
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            losses.append(loss.detach())
            if writer is not None:
                logged.append(parts)
            global_step += 1
            report.steps += 1
        if writer is not None:
            _log_steps(writer, phase, logged, global_step - len(logged))
        val_loss = val_fn(val)
        report.train_loss.append(float(np.mean(torch.stack(losses).tolist())))
        report.val_loss.append(val_loss)
        if val_loss < best[0]:
            best = (val_loss, copy.deepcopy(system.state_dict()), system.use_query)
            report.best_epoch = epoch + 1
        if writer is not None:
            writer.add_scalar(f"phase{phase}/val_loss", val_loss, global_step)
        bar.set_postfix(
            loss=f"{report.train_loss[-1]:.4f}",
            val=f"{val_loss:.4f}",
            tau=f"{float(system.temperature):.2f}",
        )
    system.slms.requires_grad_(True)
    system.blm.info_head.requires_grad_(True)
    system.load_state_dict(best[1])
    system.use_query = best[2]
    system.eval()
    report.epochs, report.seconds = epochs, time.perf_counter() - start
    return report


def _freeze_slms(system: LeWorldSystem, phase: int, epoch: int) -> None:
    """Freeze the SLMs for phase 2's first ``phase2_freeze_slm_epochs``.

    Frozen with them is the info head that steers them (the reads stay those phase 1 taught),
    while the BLM's predictor, the router and the encoder adapt to them.
    """
    frozen = phase == 2 and epoch < system.config.phase2_freeze_slm_epochs
    system.slms.requires_grad_(not frozen)
    system.blm.info_head.requires_grad_(not frozen)


def _log_steps(
    writer: Any, phase: int, parts: list[dict[str, torch.Tensor]], first_step: int
) -> None:
    """Write an epoch's loss parts, step by step, read from the device at once."""
    if not parts:
        return
    names = list(parts[0])
    values = torch.stack([torch.stack([p[name] for name in names]) for p in parts]).tolist()
    for offset, row in enumerate(values, start=1):
        for name, value in zip(names, row, strict=True):
            writer.add_scalar(f"phase{phase}/{name}", value, first_step + offset)


def _steps(data: SequenceBatch | StepBatch) -> StepBatch:
    """Rows of steps."""
    return data.steps() if isinstance(data, SequenceBatch) else data


def _phase_functions(
    system: LeWorldSystem, phase: int, *, sequential: bool, generator: torch.Generator
) -> tuple[Callable[[Any], tuple[torch.Tensor, dict[str, torch.Tensor]]], Callable[[Any], float]]:
    """The phase's training loss and its validation loss (no gradient, in chunks).

    ``sequential``: the phase trains on whole sequences with the info request (phase 1 with
    ``phase1_request``, phase 2 of a system that uses the request, phase 3); otherwise on
    rows of steps. Phases 2 and 3 are validated by the next-state MSE of the system as it
    stands (with the request or without it). ``generator`` drops phase 1's reads
    (``phase1_gate_dropout``; never in validation).
    """
    loss_fn = {
        1: lambda b: (
            phase1_request_loss(system, b)
            if sequential
            else phase1_loss(system, _steps(b), generator)
        ),
        2: lambda b: phase2_loss(system, b if sequential else _steps(b)),
        3: lambda b: phase3_loss(system, b),
    }[phase]

    def validate(data: SequenceBatch | StepBatch) -> float:
        system.eval()
        with torch.no_grad():
            if phase == 1 and sequential and isinstance(data, SequenceBatch):
                value = float(phase1_request_loss(system, data)[0])
            elif phase == 1:
                rows = _steps(data)
                chunks = torch.arange(len(rows), device=rows.s.device).split(_EVAL_ROWS)
                value = sum(
                    float(phase1_loss(system, rows.select(c))[0]) * len(c) for c in chunks
                ) / len(rows)
            else:
                value = _mse(system, data)
        system.train()
        return value

    return loss_fn, validate


def _mse(system: LeWorldSystem, data: SequenceBatch | StepBatch) -> float:
    """Next-state MSE on sequences (with the system's info request, if it passes one) or rows."""
    if isinstance(data, StepBatch):
        chunks = torch.arange(len(data), device=data.s.device).split(_EVAL_ROWS)
        total = 0.0
        for chunk in chunks:
            rows = data.select(chunk)
            prediction = system.step(rows.s_prev, rows.s, rows.c, rows.step).prediction
            total += float(((prediction - rows.target) ** 2).sum())
        return total / (len(data) * data.s.shape[1])
    out = system.run(data)
    return float(((out.predictions - data.states[:, 1:]) ** 2).mean())


def _temperature(config: LeWorldConfig, step: int) -> float:
    return max(config.temperature_min, math.exp(-config.temperature_anneal_rate * step))


def _optimizer(
    system: LeWorldSystem, phase: int, steps_per_epoch: int
) -> tuple[torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler | None]:
    cfg = system.config
    lr = getattr(cfg, f"phase{phase}_lr")
    router = [*system.blm.router.parameters(), system.blm.router_bias]
    routing = {id(p) for p in router}
    groups = [
        {"params": [p for p in system.parameters() if id(p) not in routing]},
        {"params": router, "lr": lr * (cfg.router_lr_scale if phase > 1 else 1.0)},
    ]
    optimizer = torch.optim.AdamW(groups, lr=lr, weight_decay=cfg.weight_decay)
    if phase != 2:
        return optimizer, None
    cycle = max(1, cfg.phase2_restart_epochs * steps_per_epoch)
    cosine = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=cycle)
    if cfg.phase2_warmup_steps == 0:
        return optimizer, cosine
    warmup = torch.optim.lr_scheduler.LinearLR(
        optimizer,
        start_factor=1.0 / cfg.phase2_warmup_steps,
        total_iters=cfg.phase2_warmup_steps,
    )
    return optimizer, torch.optim.lr_scheduler.SequentialLR(
        optimizer, [warmup, cosine], milestones=[cfg.phase2_warmup_steps]
    )


# ---------------------------------------------------------------------- entry points


def fit_residual_std(system: LeWorldSystem, val: SequenceBatch) -> None:
    """Set the predictive standard deviation per state dimension from validation residuals."""
    val = val.to(system.device)
    with torch.no_grad():
        residuals = system.run(val).predictions - val.states[:, 1:]
    system.residual_std.copy_(residuals.reshape(-1, residuals.shape[-1]).std(dim=0).clamp_min(1e-4))


def train_leworld(
    world: MemoryWorld,
    config: LeWorldConfig | None = None,
    *,
    phases: Iterable[int] = PHASES,
    seed: int = 0,
    data: Datasets | None = None,
    progress: bool = True,
    log_dir: str | Path | None = None,
    evaluate: bool = True,
    device: str | torch.device = "auto",
    resume: Progress | None = None,
    after_phase: Callable[[LeWorldSystem, Progress], None] | None = None,
) -> tuple[LeWorldSystem, TrainingReport]:
    """Build a LeWorld system for a world and train it phase by phase.

    Args:
        world: the world: its description and memory build the system, and it draws the
            training episodes.
        config: the model's hyperparameters (default :class:`LeWorldConfig`).
        phases: which phases to run, in order (default all three; e.g. (1, 2) or (2,)).
        seed: seeds the weights, the data (unless ``data`` is given) and the shuffling.
        data: training, validation and test episodes (default :func:`make_datasets`).
        progress: tqdm bars per phase.
        log_dir: TensorBoard folder, or None.
        evaluate: compute the held-out metrics after each phase (and before any, as
            "untrained").
        device: where the system trains (:func:`~assembly_gym.core.device.resolve_device`);
            a seed gives the same initial weights, data and shuffling on every device.
        resume: go on with a training stopped between phases (the same world, config and
            seed): the phases it ran are skipped, and the system starts from the parameters
            the last of them left.
        after_phase: called after every phase with the system and the :class:`Progress`
            (e.g. to checkpoint it: ``assembly-gym leworld train`` saves after every phase).

    Returns:
        The trained system and a :class:`TrainingReport`.

    Raises:
        ValueError: unknown phases, or ``resume`` ran a phase later than one still to run.
    """
    config = config or LeWorldConfig()
    phases = list(parse_phases(phases))
    started = time.perf_counter()
    system = LeWorldSystem(world.config, world.memory, config, seed=seed)
    generator = torch.Generator().manual_seed(seed)
    report, global_step = TrainingReport(), 0
    if resume is not None:
        done = [p.phase for p in resume.report.phases]
        if done and any(p < done[-1] for p in phases if p not in done):
            raise ValueError(f"cannot resume after phase {done[-1]} with phases {phases} to run")
        report, global_step = copy.deepcopy(resume.report), resume.global_step
        if done:
            system.load_state_dict(report.states[f"phase {done[-1]}"])
        system.use_query = resume.use_query
        generator.set_state(resume.generator_state)
        phases = [p for p in phases if p not in done]
    system.to(resolve_device(device))
    data = data or make_datasets(world, config, seed)
    val = SequenceBatch.from_episodes(data.val).to(system.device)
    episodes = training_episodes(world, config, data.train, seed)
    fixed = SequenceBatch.from_episodes(data.train)

    def train(epoch: int) -> SequenceBatch:
        return fixed if epoch == 0 else SequenceBatch.from_episodes(episodes(epoch))

    writer = summary_writer(log_dir)
    if evaluate and resume is None:
        report.metrics["untrained"] = evaluate_system(system, data.test)
    for phase in phases:
        phase_report = train_phase(
            system,
            phase=phase,
            train=train,
            val=val,
            generator=generator,
            progress=progress,
            writer=writer,
            global_step=global_step,
        )
        global_step += phase_report.steps
        report.phases.append(phase_report)
        report.states[f"phase {phase}"] = {
            name: value.detach().cpu().clone() for name, value in system.state_dict().items()
        }
        if evaluate:
            report.metrics[f"phase {phase}"] = evaluate_system(system, data.test)
        if after_phase is not None:
            state = generator.get_state()
            after_phase(system, Progress(report, global_step, state, system.use_query))
    fit_residual_std(system, val)
    if writer is not None:
        writer.close()
    report.seconds += time.perf_counter() - started
    return system, report


def fit_transitions(
    system: LeWorldSystem,
    transitions: Transitions,
    *,
    seed: int = 0,
    progress: bool = False,
    validation_fraction: float = 0.2,
) -> PhaseReport:
    """Phase 2 (end to end) on transitions of ``MemoryDynamics-v0`` (no regions needed).

    Whole episodes go to validation (about ``validation_fraction`` of them). Runs on the
    system's device.
    """
    layout, steps = MemoryLayout(system.world_config), system.world_config.sequence_length
    train, val = transitions.split_by_episode(
        (1 - validation_fraction, validation_fraction), np.random.default_rng(seed)
    )
    if len(train) == 0 or len(val) == 0:
        raise ValueError("fit needs transitions of at least two episodes (train and validation)")
    train_rows, val_rows = (
        StepBatch.from_observations(layout, steps, t.obs, t.next_obs).to(system.device)
        for t in (train, val)
    )
    generator = torch.Generator().manual_seed(seed)
    report = train_phase(
        system, phase=2, train=train_rows, val=val_rows, progress=progress, generator=generator
    )
    with torch.no_grad():
        prediction = system.step(val_rows.s_prev, val_rows.s, val_rows.c, val_rows.step).prediction
    system.residual_std.copy_((prediction - val_rows.target).std(dim=0).clamp_min(1e-4))
    return report


def parse_phases(text: str | Iterable[int]) -> tuple[int, ...]:
    """Phases from "1,2,3" (or a sequence of ints), validated, sorted and without repeats.

    Raises:
        ValueError: no phase, or one that is not 1, 2 or 3.
    """
    values = [int(p) for p in (text.split(",") if isinstance(text, str) else text)]
    if not values or any(p not in PHASES for p in values):
        raise ValueError(f"phases must be a non-empty subset of 1,2,3, got {text!r}")
    return tuple(sorted(set(values)))
