"""``assembly-gym leworld``: train the LeWorld memory system phase by phase, or evaluate it.

Example:
    $ assembly-gym leworld train --difficulty medium --out runs/leworld
    $ assembly-gym leworld train --phases 1,2 --quick --out runs/leworld-quick
    $ assembly-gym leworld train --quick --pointer-chasing --threads 2 --out runs/lw-pointer
    $ assembly-gym leworld eval runs/leworld
    $ assembly-gym leworld train --device cuda --out runs/leworld-gpu
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch

from assembly_gym.benchmarks.commands import arguments, flags
from assembly_gym.core.errors import AssemblyGymError, CheckpointError
from assembly_gym.envs.memory.config import DIFFICULTIES, MemoryWorldConfig
from assembly_gym.envs.memory.population import POPULATIONS, roll_call_experience
from assembly_gym.envs.memory.world import Episodes, MemoryWorld
from assembly_gym.world_models.checkpoint import (
    CHECKPOINT_KIND,
    MANIFEST,
    checkpoint_file,
    read_checkpoint,
)
from assembly_gym.world_models.leworld import evaluation, training
from assembly_gym.world_models.leworld.config import LeWorldConfig
from assembly_gym.world_models.leworld.datasets import held_out_episodes
from assembly_gym.world_models.leworld.model import LeWorldModel
from assembly_gym.world_models.leworld.system import LeWorldSystem, count_params

RESULTS = "results.md"
PROGRESS = "progress.pt"
"""The counters of an unfinished training (``training.Progress``), beside its checkpoint."""
QUICK_POINTER_WORDS = 16_384
"""Memory of ``--quick --pointer-chasing``: the request learns the pointer in half the epochs
it needs on 65,536 words."""


def _phases(text: str) -> tuple[int, ...]:
    try:
        return training.parse_phases(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


@dataclass(frozen=True, kw_only=True)
class Train:
    """Train the LeWorld system on a MemoryDynamics world, phase by phase.

    A checkpoint is saved into --out after every phase; then the held-out evaluation table is
    printed and written as results.md.
    """

    phases: tuple[int, ...] = flags.option(
        "phases to run: 1,2,3 (default), or a part of them, e.g. 1,2", training.PHASES,
        type=_phases, nargs=None,
    )  # fmt: skip
    difficulty: str = flags.option("1, 2 or 3 relevant regions (default medium)", "medium",
                                   choices=list(DIFFICULTIES))  # fmt: skip
    out: Path = flags.out(
        arguments.ArtifactFolder(MANIFEST, CHECKPOINT_KIND),
        "folder for the checkpoint and results.md (a new or empty folder, or an earlier "
        "checkpoint's)",
    )  # fmt: skip
    quick: bool = flags.switch(
        "a tenth of the epochs of phases 2 and 3 (phase 1 whole): about 7 min on one thread of "
        "the loaded 2-core machine; with --pointer-chasing also half of phase 1 and a 16,384-word "
        "memory (unless --num-words): about 12 min"
    )
    seed: int = flags.seed("the weights, data and shuffling")
    population: str = flags.option("how the memory is filled (default random)", "random",
                                   choices=POPULATIONS)  # fmt: skip
    data: str | None = flags.data(
        "roll calls for --population experience: 'unvotes', a path (default: synthetic)",
        group=None,
    )  # fmt: skip
    num_words: int | None = flags.option("memory size (default 65,536)", minimum=1)
    pointer_chasing: bool = flags.switch(
        "regions chase pointers: a region's next page comes from what another region's window "
        "holds (MemoryWorldConfig.pointer_chasing; default: pages hop with t); trains with "
        "LeWorldConfig.for_pointer_chasing(): phase 1 with the info request (--set "
        "phase1_request=false: without)"
    )
    decoy_regions: int = flags.option(
        "regions c describes that no step depends on (default 0; c grows to describe them): "
        "a world where some SLMs are not needed, for the router to skip", 0, minimum=0,
    )  # fmt: skip
    train_sequences: int | None = flags.option(
        "training sequences per epoch (default 1,000)", minimum=1
    )
    set: tuple[str, ...] = flags.option(
        "override a LeWorldConfig field, e.g. --set phase2_epochs=20 (repeatable)", (),
        action="append", metavar="NAME=VALUE",
    )  # fmt: skip
    tensorboard: Path | None = flags.option("TensorBoard log folder", type=arguments.output_folder)
    resume: bool = flags.switch(
        "go on with the training saved in --out after its last finished phase (a checkpoint is "
        "saved after every phase); the world, config and seed are the checkpoint's, the other "
        "options are ignored"
    )


@dataclass(frozen=True, kw_only=True)
class Eval:
    """Score a system saved by `leworld train` on its world's held-out sequences.

    MSE, per-horizon MSE, routing and address metrics.
    """

    folder: Path = flags.positional("a folder written by `leworld train`", metavar="MODEL_DIR")


@dataclass(frozen=True, kw_only=True)
class Runtime:
    """Where and how torch runs (both actions)."""

    threads: int = flags.option(
        "torch threads (default 1: the small matrices run fastest on one)", 1, minimum=1
    )
    device: str = flags.device()
    quiet: bool = flags.quiet()


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``leworld`` subcommand with ``train`` and ``eval``."""
    actions = flags.add_actions(
        subparsers, "leworld", help_text, "The LeWorld system on the MemoryDynamics world: three "
        "training phases, then held-out MSE, per-horizon MSE, routing and address metrics.",
    )  # fmt: skip
    flags.add_command(actions, "train", run_train, "train phase by phase and print the evaluation "
                      "table", Train, Runtime)  # fmt: skip
    flags.add_command(
        actions, "eval", run_eval, "evaluate a saved system on its held-out sequences",
        Eval, Runtime,
    )  # fmt: skip


def _override(config: LeWorldConfig, settings: list[str]) -> LeWorldConfig:
    """Apply ``NAME=VALUE`` overrides, each parsed as the type of the field's default."""
    values = config.to_dict()
    for setting in settings:
        name, sep, text = setting.partition("=")
        if not sep or name not in values:
            raise ValueError(
                f"--set {setting!r}: expected NAME=VALUE with NAME one of {sorted(values)}"
            )
        kind = type(values[name])
        try:
            values[name] = _TRUTH[text.lower()] if kind is bool else kind(text)
        except (KeyError, ValueError):
            what = "true or false" if kind is bool else f"a {kind.__name__}"
            raise ValueError(f"--set {setting!r}: {name} must be {what}") from None
        if kind in (int, float) and not math.isfinite(values[name]):
            raise ValueError(f"--set {setting!r}: {name} must be a finite number")
    return LeWorldConfig.from_dict(values)


_TRUTH = {"true": True, "1": True, "false": False, "0": False}
"""The words ``--set NAME=VALUE`` takes for a bool field."""


@dataclass
class _Run:
    """What a training runs: fresh from the arguments, or resumed from ``--out``."""

    world: MemoryWorld
    config: LeWorldConfig
    seed: int
    phases: tuple[int, ...]
    quick: bool
    experience_data: str | None
    progress: training.Progress | None = None


def _fresh_run(args: argparse.Namespace) -> _Run:
    """The world and config the arguments describe (ValueError: a bad size or override)."""
    options: dict[str, Any] = {"difficulty": args.difficulty, "population": args.population}
    config = LeWorldConfig()
    if args.pointer_chasing:
        options["pointer_chasing"] = True
        config = config.for_pointer_chasing()
        if args.quick:
            options["num_words"] = QUICK_POINTER_WORDS
    if args.num_words is not None:
        options["num_words"] = args.num_words
    if args.decoy_regions:
        plain = MemoryWorldConfig(**options)
        described = plain.num_regions + args.decoy_regions
        options.update(decoy_regions=args.decoy_regions,
                       char_dim=max(plain.char_dim, described * plain.slot_width))  # fmt: skip
    if args.quick:
        config = config.quick()
    if args.train_sequences is not None:
        config = replace(config, num_train_sequences=args.train_sequences)
    world_config = MemoryWorldConfig(**options)
    config = _override(config, args.set)
    experience = roll_call_experience(args.data) if args.population == "experience" else None
    world = MemoryWorld(world_config, experience=experience)
    return _Run(world, config, args.seed, args.phases, args.quick, args.data)


def _resumed_run(folder: Path) -> _Run:
    """The training saved in ``folder`` after its last finished phase.

    Raises:
        CheckpointError: no checkpoint there, or one whose training finished.
    """
    checkpoint = read_checkpoint(folder)
    model = LeWorldModel.from_checkpoint(checkpoint, device="cpu")
    extra = model.extra
    if extra.get("complete", True):
        raise CheckpointError(f"{folder}: its training finished, there is nothing to resume")
    source = checkpoint.folder / MANIFEST
    report = training.TrainingReport.from_dict(extra.get("report"), model.phase_states,
                                               source=source)  # fmt: skip
    progress = training.Progress.from_counters(report, checkpoint_file(checkpoint, PROGRESS),
                                               source=checkpoint.folder / PROGRESS)  # fmt: skip
    world = MemoryWorld(model.world_config, memory=model.memory)
    return _Run(world, model.system.config, int(extra["data_seed"]),
                tuple(extra["requested_phases"]), bool(extra["quick"]),
                extra.get("experience_data"), progress)  # fmt: skip


def run_train(args: argparse.Namespace) -> int:
    """Train (or resume), print per-phase timings and the evaluation table, save the system.

    The folder ``--out`` holds a checkpoint after every phase; the last one adds
    ``results.md``.
    """
    arguments.check_logs_outside(args.tensorboard, args.out)
    try:  # the sizes and overrides together, before any work: one line, exit code 2
        run = _resumed_run(args.out) if args.resume else _fresh_run(args)
    except ValueError as error:
        raise AssemblyGymError(str(error)) from None
    if run.progress is not None:
        done = [p.phase for p in run.progress.report.phases]
        print(
            f"resuming {args.out}: phases {done} done, {[p for p in run.phases if p not in done]} "
            "to run (the world, config and seed are the checkpoint's)"
        )
    torch.set_num_threads(args.threads)
    world_config, config = run.world.config, run.config
    extra: dict[str, Any] = {"data_seed": run.seed, "quick": run.quick,
                             "experience_data": run.experience_data,
                             "requested_phases": list(run.phases)}  # fmt: skip

    def checkpoint(system: LeWorldSystem, progress: training.Progress) -> None:
        state = {**extra, "report": progress.report.to_dict(), "complete": False}
        LeWorldModel(system, phase_states=progress.report.states).save(
            args.out, extra=state, files={PROGRESS: progress.counters()}
        )

    started = time.perf_counter()
    system, report = training.train_leworld(
        run.world, config, phases=run.phases, seed=run.seed, progress=not args.quiet,
        log_dir=args.tensorboard, device=args.device, resume=run.progress, after_phase=checkpoint,
    )  # fmt: skip
    wall = time.perf_counter() - started
    ran_on = str(system.device)
    timings = ", ".join(
        f"phase {p.phase} {p.seconds / 60:.1f} min ({p.epochs} epochs, {p.steps} steps, "
        + (f"best epoch {p.best_epoch})" if p.best_epoch else "kept its starting parameters)")
        for p in report.phases
    )
    text = (
        f"LeWorld on MemoryDynamics ({_world(world_config)} memory of {world_config.num_words} × "
        f"{world_config.word_size} bits), seed {run.seed}, {config.num_train_sequences} training "
        "sequences per epoch" + (" (fresh each epoch)" if config.resample_train else "")
        + f", {config.num_test_sequences} held-out sequences" + (" [--quick]" if run.quick else "")
        + f"\nwall time {wall / 60:.1f} min on {ran_on} ({args.threads} CPU thread(s)): "
        f"{timings}\n\n{evaluation.metrics_table(report.metrics)}"
    )  # fmt: skip
    print(text)
    final = {**extra, "report": report.to_dict(), "wall_seconds": wall, "device": ran_on}
    LeWorldModel(system, phase_states=report.states).save(
        args.out, extra={**final, "complete": True}, files={RESULTS: (text + "\n").encode()}
    )
    print(f"saved to {args.out}")
    return 0


def run_eval(args: argparse.Namespace) -> int:
    """Evaluate a saved system on the held-out sequences it was judged on after training."""
    torch.set_num_threads(args.threads)
    model = LeWorldModel.load(args.folder, device=args.device)
    system = model.system
    seed = int(model.extra.get("data_seed", 0))
    test = held_out_episodes(model.world, system.config, seed)
    loaded = evaluation.evaluate_system(system, test)
    saved = model.extra.get("report", {}).get("metrics", {})
    rows = {"loaded": loaded} | {
        f"saved ({name})": evaluation.LeWorldMetrics.from_dict(values)
        for name, values in saved.items()
    }
    rows["always-open router"] = evaluation.evaluate_system(evaluation.always_open(system), test)
    for reads in ("oracle", "random"):
        rows[f"{reads} reads"] = evaluation.evaluate_system(system, test, read_mode=reads)
    print(f"LeWorld from {args.folder}: {_world(model.world_config)} memory, {len(test)} "
          f"held-out sequences (seed {seed}); noise floor {loaded.noise_floor:.4f}; on "
          f"{system.device}")  # fmt: skip
    print(f"{evaluation.metrics_table(rows)}\n\n{_ablation(model, test)}")
    print(json.dumps({"mse": loaded.mse, "noise_floor": loaded.noise_floor,
                      "device": str(system.device)}))  # fmt: skip
    return 0


def _world(config: MemoryWorldConfig) -> str:
    """The world in a few words: ``medium, pointer chasing, random`` or ``medium, 2 decoys, …``."""
    chasing = ", pointer chasing" if config.pointer_chasing else ""
    decoys = f", {config.decoy_regions} decoys" if config.decoy_regions else ""
    return f"{config.difficulty}{chasing}{decoys}, {config.population}"


def _ablation(model: LeWorldModel, test: Episodes) -> str:
    """Paired ablations of the phases and the info request, and the parameter counts."""
    counts = ", ".join(f"{name} {value:,}" for name, value in count_params(model.system).items())
    lines = [f"Parameters: {counts}", ""]
    systems = model.phase_systems()
    if not systems:  # the info request on vs off only, when the system passes it
        lines.append("This checkpoint holds no per-phase parameters (saved without them): "
                     "train again to compare the phases.")  # fmt: skip
    comparisons = evaluation.phase_ablation(systems or {"loaded": model.system}, test)
    if comparisons:
        lines += [
            f"Ablations: one-step MSE on the {len(test)} held-out sequences, paired by "
            "sequence (95 % t intervals; a − b < 0: a is better)",
            evaluation.ablation_table(comparisons),
        ]
    return "\n".join(lines)
