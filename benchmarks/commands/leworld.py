"""``assembly-gym leworld``: train the LeWorld memory system phase by phase, or evaluate it.

Example:
    $ assembly-gym leworld train --difficulty medium --out runs/leworld
    $ assembly-gym leworld train --phases 1,2,3 --quick --out runs/leworld-quick
    $ assembly-gym leworld train --quick --pointer-chasing --threads 2 --out runs/lw-pointer
    $ assembly-gym leworld eval runs/leworld
    $ assembly-gym leworld train --device cuda --out runs/leworld-gpu
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch

from assembly_gym.benchmarks.commands.arguments import (
    POSITIVE_INT,
    SEED,
    THREADS,
    ArtifactFolder,
    check_logs_outside,
    device,
    output_folder,
)
from assembly_gym.core.errors import CheckpointError
from assembly_gym.envs.memory import DIFFICULTIES, POPULATIONS, MemoryWorld, MemoryWorldConfig
from assembly_gym.envs.memory.population import roll_call_experience
from assembly_gym.envs.memory.world import Episodes
from assembly_gym.world_models.checkpoint import (
    CHECKPOINT_KIND,
    MANIFEST,
    checkpoint_file,
    read_checkpoint,
)
from assembly_gym.world_models.leworld import (
    DEFAULT_PHASES,
    LeWorldConfig,
    LeWorldMetrics,
    LeWorldModel,
    LeWorldSystem,
    Progress,
    TrainingReport,
    ablation_table,
    count_params,
    evaluate_system,
    held_out_episodes,
    metrics_table,
    paired_difference,
    parse_phases,
    phase_ablation,
    sequence_mse,
    train_leworld,
)

RESULTS = "results.md"
PROGRESS = "progress.pt"
"""The counters of an unfinished training (:class:`Progress`), beside its checkpoint."""
QUICK_POINTER_WORDS = 16_384
"""Memory of ``--quick --pointer-chasing``: the request learns the pointer in half the epochs
it needs on 65,536 words."""


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``leworld`` subcommand with ``train`` and ``eval``."""
    parser = subparsers.add_parser(
        "leworld",
        help=help_text,
        description="The LeWorld system on the MemoryDynamics world: three training phases, "
        "then held-out MSE, per-horizon MSE, routing and address metrics.",
    )
    actions = parser.add_subparsers(dest="leworld_command", required=True, metavar="ACTION")
    train = actions.add_parser(
        "train",
        help="train phase by phase and print the evaluation table",
        description="Train the LeWorld system on a MemoryDynamics world, phase by phase, "
        "saving a checkpoint into --out after every phase; then print the held-out "
        "evaluation table and write it as results.md.",
    )
    train.add_argument(
        "--phases",
        type=_phases,
        default=DEFAULT_PHASES,
        help="phases to run: 1,2 (default), 1,2,3 (with the info request, which the "
        "ablation of `leworld eval` shows does not help) or e.g. 2",
    )
    train.add_argument(
        "--difficulty",
        choices=list(DIFFICULTIES),
        default="medium",
        help="1, 2 or 3 relevant regions (default medium)",
    )
    train.add_argument(
        "--out",
        type=ArtifactFolder(MANIFEST, CHECKPOINT_KIND),
        required=True,
        help="folder for the checkpoint and results.md (a new or empty folder, or an earlier "
        "checkpoint's)",
    )
    train.add_argument(
        "--quick",
        action="store_true",
        help="a tenth of the epochs of phases 2 and 3 (phase 1 whole): phases 1 and 2 take "
        "about 2.5 min on 2 cores; with --pointer-chasing also half of phase 1 and a "
        "16,384-word memory (unless --num-words): about 6 min",
    )
    train.add_argument(
        "--seed", type=SEED, default=0, help="seeds weights, data and shuffling (default 0)"
    )
    train.add_argument(
        "--population",
        choices=POPULATIONS,
        default="random",
        help="how the memory is filled (default random)",
    )
    train.add_argument(
        "--data",
        default=None,
        help="roll calls for --population experience: 'unvotes', a path (default: synthetic)",
    )
    train.add_argument(
        "--num-words", type=POSITIVE_INT, default=None, help="memory size (default 65,536)"
    )
    train.add_argument(
        "--pointer-chasing",
        action="store_true",
        help="regions chase pointers: a region's next page comes from what another region's "
        "window holds (MemoryWorldConfig.pointer_chasing; default: pages hop with t); trains "
        "with LeWorldConfig.for_pointer_chasing(): phase 1 with the info request "
        "(--set phase1_request=false: without)",
    )
    train.add_argument(
        "--train-sequences",
        type=POSITIVE_INT,
        default=None,
        help="training sequences per epoch (default 1,000)",
    )
    train.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a LeWorldConfig field, e.g. --set phase2_epochs=20 (repeatable)",
    )
    train.add_argument(
        "--tensorboard", type=output_folder, default=None, help="TensorBoard log folder"
    )
    train.add_argument(
        "--resume",
        action="store_true",
        help="go on with the training saved in --out after its last finished phase (a "
        "checkpoint is saved after every phase); the world, config and seed are the "
        "checkpoint's, the other options are ignored",
    )
    _common(train)
    train.set_defaults(run=run_train)
    evaluate = actions.add_parser(
        "eval",
        help="evaluate a saved system on its held-out sequences",
        description="Score a system saved by `leworld train` on its world's held-out "
        "sequences: MSE, per-horizon MSE, routing and address metrics.",
    )
    evaluate.add_argument(
        "folder", type=Path, metavar="MODEL_DIR", help="a folder written by `leworld train`"
    )
    _common(evaluate)
    evaluate.set_defaults(run=run_eval)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--threads",
        type=THREADS,
        default=1,
        help="torch threads (default 1: the small matrices run fastest on one)",
    )
    parser.add_argument(
        "--device",
        type=device,
        default="auto",
        help="where torch runs: auto (the GPU when there is one, else the CPU; default), "
        "cpu, cuda or cuda:N",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def _phases(text: str) -> tuple[int, ...]:
    try:
        return parse_phases(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


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
        if kind is bool:
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"--set {setting!r}: {name} is true or false")
            values[name] = text.lower() in ("true", "1")
        else:
            try:
                values[name] = kind(text)
            except ValueError:
                raise ValueError(f"--set {setting!r}: {name} must be a {kind.__name__}") from None
            if kind is not str and not math.isfinite(values[name]):
                raise ValueError(f"--set {setting!r}: {name} must be a finite number")
    return LeWorldConfig.from_dict(values)


@dataclass
class _Run:
    """What a training runs: fresh from the arguments, or resumed from ``--out``."""

    world: MemoryWorld
    config: LeWorldConfig
    seed: int
    phases: tuple[int, ...]
    quick: bool
    experience_data: str | None
    progress: Progress | None = None


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
    report = TrainingReport.from_dict(extra["report"], model.phase_states)
    progress = Progress.from_counters(report, checkpoint_file(checkpoint, PROGRESS))
    world = MemoryWorld(model.world_config, memory=model.memory)
    return _Run(
        world,
        model.system.config,
        int(extra["data_seed"]),
        tuple(extra["requested_phases"]),
        bool(extra["quick"]),
        extra.get("experience_data"),
        progress,
    )


def run_train(args: argparse.Namespace) -> int:
    """Train (or resume), print per-phase timings and the evaluation table, save the system.

    The folder ``--out`` holds a checkpoint after every phase; the last one adds
    ``results.md``.
    """
    check_logs_outside(args.tensorboard, args.out)
    try:  # the sizes and overrides together, before any work: one line, exit code 2
        run = _resumed_run(args.out) if args.resume else _fresh_run(args)
    except (ValueError, CheckpointError) as error:
        print(f"{args.prog}: error: {error}", file=sys.stderr)
        return 2
    if run.progress is not None:
        done = [p.phase for p in run.progress.report.phases]
        print(
            f"resuming {args.out}: phases {done} done, {[p for p in run.phases if p not in done]} "
            "to run (the world, config and seed are the checkpoint's)"
        )
    torch.set_num_threads(args.threads)
    world_config, config = run.world.config, run.config
    extra: dict[str, Any] = {
        "data_seed": run.seed,
        "quick": run.quick,
        "experience_data": run.experience_data,
        "requested_phases": list(run.phases),
    }

    def checkpoint(system: LeWorldSystem, progress: Progress) -> None:
        state = {**extra, "report": progress.report.to_dict(), "complete": False}
        LeWorldModel(system, phase_states=progress.report.states).save(
            args.out, extra=state, files={PROGRESS: progress.counters()}
        )

    started = time.perf_counter()
    system, report = train_leworld(
        run.world,
        config,
        phases=run.phases,
        seed=run.seed,
        progress=not args.quiet,
        log_dir=args.tensorboard,
        device=args.device,
        resume=run.progress,
        after_phase=checkpoint,
    )
    wall = time.perf_counter() - started
    ran_on = str(system.device)
    timings = ", ".join(
        f"phase {p.phase} {p.seconds / 60:.1f} min ({p.epochs} epochs, "
        f"{p.steps} steps, "
        + (f"best epoch {p.best_epoch})" if p.best_epoch else "kept its starting parameters)")
        for p in report.phases
    )
    lines = [
        f"LeWorld on MemoryDynamics ({world_config.difficulty}"
        + (", pointer chasing" if world_config.pointer_chasing else "")
        + f", {world_config.population} memory "
        f"of "
        f"{world_config.num_words} × {world_config.word_size} bits), seed {run.seed}, "
        f"{config.num_train_sequences} training sequences per epoch"
        + (" (fresh each epoch)" if config.resample_train else "")
        + f", {config.num_test_sequences} held-out sequences"
        + (" [--quick]" if run.quick else ""),
        f"wall time {wall / 60:.1f} min on {ran_on} ({args.threads} CPU thread(s)): {timings}",
        "",
        metrics_table(report.metrics),
    ]
    text = "\n".join(lines)
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
    rows: dict[str, LeWorldMetrics] = {"loaded": evaluate_system(system, test)}
    saved = model.extra.get("report", {}).get("metrics", {})
    for name, values in saved.items():
        rows[f"saved ({name})"] = LeWorldMetrics.from_dict(values)
    rows["oracle reads"] = evaluate_system(system, test, read_mode="oracle")
    rows["random reads"] = evaluate_system(system, test, read_mode="random")
    cfg = model.world_config
    print(
        f"LeWorld from {args.folder}: {cfg.difficulty}"
        + (", pointer chasing" if cfg.pointer_chasing else "")
        + f", {cfg.population} memory, "
        f"{len(test)} held-out sequences (seed {seed}); "
        f"noise floor {rows['loaded'].noise_floor:.4f}; on {system.device}"
    )
    print(metrics_table(rows))
    print()
    print(_ablation(model, test))
    loaded = rows["loaded"]
    print(
        json.dumps(
            {"mse": loaded.mse, "noise_floor": loaded.noise_floor, "device": str(system.device)}
        )
    )
    return 0


def _ablation(model: LeWorldModel, test: Episodes) -> str:
    """Paired ablations of the phases and the info request, and the parameter counts."""
    counts = ", ".join(f"{name} {value:,}" for name, value in count_params(model.system).items())
    lines = [f"Parameters: {counts}", ""]
    systems = model.phase_systems()
    if systems:
        comparisons = phase_ablation(systems, test)
    else:
        lines.append(
            "This checkpoint holds no per-phase parameters (written before they were saved): "
            "train again to compare the phases."
        )
        comparisons = {}
        if model.system.use_query:
            with_request = sequence_mse(model.system, test)
            comparisons["info request on vs off"] = paired_difference(
                with_request, sequence_mse(model.system, test, use_query=False)
            )
    if comparisons:
        lines += [
            f"Ablations: one-step MSE on the {len(test)} held-out sequences, paired by "
            "sequence (95 % t intervals; a − b < 0: a is better)",
            ablation_table(comparisons),
        ]
    return "\n".join(lines)
