"""The torch parts on one device: LeWorld's default run, an MLP ensemble's fit, Simulator-v0 ×4,096.

Three timings on ``--device`` (``auto``: the GPU when there is one), after the device and
the machine:

* **LeWorld**, the default configuration and world, all three phases: ``--leworld epoch``
  (default) trains one epoch of each phase and estimates the run from them (epoch time ×
  the phase's epochs); ``full`` trains and times the whole run (about half an hour on 2
  CPU cores); ``skip`` leaves it out.
* **MLP ensemble**: ``MLPEnsemble.fit`` on every real ``Deliberation-v0`` transition
  (``--data``), ``--max-epochs`` at most; wall time of the fit alone.
* **Simulator-v0 batched**: :class:`SimulatorVectorEnv` of that ensemble at ``--num-envs``
  sub-envs playing NO_ACTION; steps per second over ``--seconds`` beside issue 16's goal.

Run: ``assembly-gym experiment devices [--device auto] [--leworld epoch|full|skip]``
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace

import numpy as np
import torch

from assembly_gym.benchmarks.commands.arguments import POSITIVE, POSITIVE_INT, device
from assembly_gym.benchmarks.experiments import add_data_argument, add_model_arguments, real_votes
from assembly_gym.core.device import resolve_device
from assembly_gym.envs.legislative.spaces import Action
from assembly_gym.envs.memory import MemoryWorld, MemoryWorldConfig
from assembly_gym.world_models.leworld.config import LeWorldConfig
from assembly_gym.world_models.leworld.training import train_leworld
from assembly_gym.world_models.mlp import MLPEnsemble
from assembly_gym.world_models.simulator_vector import SimulatorVectorEnv
from assembly_gym.world_models.transitions import env_transitions

__all__ = ["SIMULATOR_GOAL", "add_arguments", "run"]

SIMULATOR_GOAL = 5_000_000
"""Issue 16's goal for batched Simulator-v0 at 4,096 sub-envs on one GPU, steps per second."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The device, how much of LeWorld runs, the data and the vector env's size."""
    parser.add_argument(
        "--device", type=device, default="auto", help="auto (default), cpu, cuda or cuda:N"
    )
    parser.add_argument("--leworld", choices=("epoch", "full", "skip"), default="epoch",
                        help="one epoch per phase and the default run estimated (default), the "
                        "whole default run, or none")  # fmt: skip
    parser.add_argument("--leworld-sequences", type=POSITIVE_INT, default=None, metavar="N",
                        help="training, validation and held-out sequences (default: the "
                        "configuration's)")  # fmt: skip
    add_data_argument(parser)
    add_model_arguments(parser)
    parser.add_argument(
        "--num-envs", type=POSITIVE_INT, default=4096, help="sub-envs of Simulator-v0"
    )
    parser.add_argument(
        "--seconds", type=POSITIVE, default=3.0, help="wall time of the Simulator-v0 loop"
    )


def run(args: argparse.Namespace) -> None:
    """Print the device, then the three timings."""
    args.device = resolve_device(args.device)
    where = str(args.device)
    if args.device.type == "cuda":
        where += f" ({torch.cuda.get_device_name(args.device)})"
    print(f"device {where}; machine: {os.cpu_count()} CPU cores, load average "
          f"{os.getloadavg()[0]:.1f}; torch {torch.__version__}, "
          f"{torch.get_num_threads()} CPU thread(s); seed {args.seed}\n")  # fmt: skip
    if args.leworld != "skip":
        _leworld(args)
    model = _fit_ensemble(args)
    _simulate(args, model)


def _leworld(args: argparse.Namespace) -> None:
    """Train LeWorld's default configuration (one epoch per phase, or all) and print times."""
    config = LeWorldConfig()
    if args.leworld_sequences is not None:
        n = args.leworld_sequences
        config = replace(config, num_train_sequences=n, num_val_sequences=n, num_test_sequences=n)
    epochs = {phase: getattr(config, f"phase{phase}_epochs") for phase in (1, 2, 3)}
    if args.leworld == "epoch":
        config = replace(config, phase1_epochs=1, phase2_epochs=1, phase3_epochs=1)
    world = MemoryWorld(MemoryWorldConfig())
    _, report = train_leworld(
        world, config, phases=(1, 2, 3), seed=args.seed, progress=not args.quiet, evaluate=False,
        device=args.device,
    )  # fmt: skip
    print(f"LeWorld, default configuration, {config.num_train_sequences} training sequences "
          f"per epoch, on {args.device}:")  # fmt: skip
    if args.leworld == "full":
        for p in report.phases:
            print(f"  phase {p.phase}: {p.seconds:,.1f} s ({p.epochs} epochs)")
        print(f"  the default three-phase run: {report.seconds / 60:.1f} min (measured)\n")
        return
    estimate = 0.0
    for p in report.phases:
        estimate += p.seconds * epochs[p.phase]
        print(f"  phase {p.phase}: {p.seconds:,.2f} s for one epoch × {epochs[p.phase]} epochs")
    print(f"  the default three-phase run: {estimate / 60:.1f} min (estimated from one epoch "
          "per phase; --leworld full measures it)\n")  # fmt: skip


def _fit_ensemble(args: argparse.Namespace) -> MLPEnsemble:
    """Fit the ensemble on every real Deliberation-v0 transition; print the time."""
    transitions = env_transitions("Deliberation-v0", real_votes(args))
    model = MLPEnsemble(seed=args.seed, max_epochs=args.max_epochs, device=args.device)
    start = time.perf_counter()
    model.fit(transitions)
    seconds = time.perf_counter() - start
    print(f"MLP ensemble ({model.members} members): fit on {len(transitions):,} real "
          f"Deliberation-v0 transitions in {seconds:,.1f} s ({len(model.history)} epoch(s), "
          f"at most {args.max_epochs}) on {args.device}\n")  # fmt: skip
    return model


def _simulate(args: argparse.Namespace, model: MLPEnsemble) -> None:
    """Step Simulator-v0 batched at ``--num-envs`` for ``--seconds``; print steps per second."""
    venv = SimulatorVectorEnv(args.num_envs, model=model, device=args.device)
    venv.reset(seed=args.seed)
    actions = np.full(args.num_envs, Action.NO_ACTION)
    steps, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < args.seconds:
        venv.step(actions)
        steps += args.num_envs
    venv.close()
    rate = steps / elapsed
    met = "met" if rate >= SIMULATOR_GOAL else "NOT met"
    print(f"Simulator-v0 batched (SimulatorVectorEnv ×{args.num_envs:,}, the ensemble on "
          f"{args.device}): {rate:,.0f} steps/s; goal ≥ {SIMULATOR_GOAL:,} at 4,096 sub-envs "
          f"on one GPU: {met}")  # fmt: skip
