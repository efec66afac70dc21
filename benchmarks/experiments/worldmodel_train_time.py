"""Train time of each world model on all real transitions of sessions 1–69.

Every model fits on every real transition (``Deliberation-v0``: the plenary step of every
member on every whole resolution; ``RollCall-v0``: every vote); the ensemble holds out 20 %
for early stopping as its ``fit`` does. Wall-clock seconds of building and of ``fit``.

Run: ``assembly-gym experiment worldmodel_train_time [--env all] [--threads 1] [--data DIR]``
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from assembly_gym.benchmarks.experiments import add_data_argument, add_model_arguments, real_votes
from assembly_gym.world_models.empirical import EmpiricalModel
from assembly_gym.world_models.mlp import MLPEnsemble
from assembly_gym.world_models.transitions import env_transitions, modelled_envs

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The env, the data and the ensemble's epoch limit."""
    envs = modelled_envs("assembly")  # the envs of the UN roll calls
    parser.add_argument("--env", default="Deliberation-v0", choices=(*envs, "all"))
    add_data_argument(parser)
    add_model_arguments(parser)


def run(args: argparse.Namespace) -> None:
    """Print transitions, build time, and fit time and epochs of each model."""
    folder = real_votes(args)
    print(f"machine: {os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.1f}; torch "
          f"{args.threads or torch.get_num_threads()} thread(s); seed {args.seed}")  # fmt: skip
    print(
        f"{'env':<16} {'model':<15} {'transitions':>12} {'build s':>8} {'fit s':>8} {'epochs':>7}"
    )
    for env in modelled_envs("assembly") if args.env == "all" else (args.env,):
        start = time.perf_counter()
        transitions = env_transitions(env, folder)
        built = time.perf_counter() - start
        for model in (EmpiricalModel(seed=args.seed),
                      MLPEnsemble(seed=args.seed, threads=args.threads,
                                  max_epochs=args.max_epochs)):  # fmt: skip
            start = time.perf_counter()
            model.fit(transitions)
            seconds = time.perf_counter() - start
            epochs = len(getattr(model, "history", [])) or "-"
            print(f"{env:<16} {type(model).__name__:<15} {len(transitions):>12,} "
                  f"{built:>8.1f} {seconds:>8.1f} {epochs:>7}", flush=True)  # fmt: skip
