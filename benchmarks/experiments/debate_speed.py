"""Benchmark: seconds per debate epoch on 10,000 observations (goal: under 1 s).

The observations are the first 10,000 ``RollCall-v0`` decisions of a synthetic assembly
(real feature vectors, the seven legislative tendencies). Timed separately: computing the
claims (once per training run), one arena epoch (10 full-batch rounds; median of repeats
after a warm-up), one validation, and a whole default training run. ``--seed`` is the
synthetic assembly's (default 3).

Run: ``assembly-gym experiment debate_speed [--observations 10000] [--repeats 7]``
"""

from __future__ import annotations

import argparse
import os
import platform
import timeit

import numpy as np

from assembly_gym.agents.debate.arena import Arena
from assembly_gym.agents.debate.observations import observations_from_demonstrations
from assembly_gym.agents.debate.tendencies import compute_claims, tendency_agents
from assembly_gym.agents.debate.trainer import TrainConfig, Trainer
from assembly_gym.agents.debate.validator import Validator
from assembly_gym.benchmarks.commands.arguments import POSITIVE_INT
from assembly_gym.core.errors import AssemblyGymError
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.demonstrations import rollcall_demonstrations
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly

__all__ = ["add_arguments", "median_seconds", "run"]


def median_seconds(function, repeats: int) -> float:
    """Median wall time of ``function()`` over ``repeats`` calls, after one warm-up call."""
    function()
    return float(np.median(timeit.repeat(function, number=1, repeat=repeats)))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Observations and repeats; the assembly's seed."""
    parser.add_argument("--observations", type=POSITIVE_INT, default=10_000)
    parser.add_argument("--repeats", type=POSITIVE_INT, default=7)
    parser.set_defaults(seed=3)


def run(args: argparse.Namespace) -> None:
    """Print the timings."""
    assembly = generate_assembly(
        SyntheticConfig(n_countries=10, n_sessions=40, roll_calls_per_session=100, seed=args.seed)
    )
    demos = rollcall_demonstrations(assembly.data, with_infos=False)
    pooled = observations_from_demonstrations(demos, ObservationLayout(feature_names()))
    if len(pooled) < args.observations:
        raise AssemblyGymError(f"only {len(pooled)} observations available")
    observations = pooled.take(np.arange(args.observations))
    agents = tendency_agents()
    config = TrainConfig()
    arena = Arena()
    claims = compute_claims(observations, agents)
    start = np.full(len(agents), 1.0 / len(agents))

    claim_time = median_seconds(lambda: compute_claims(observations, agents), args.repeats)

    def epoch() -> None:
        arena.debate(claims, observations.actions, start, learning_rate=config.initial_lr,
                     lower=config.min_allocation, upper=config.max_allocation)  # fmt: skip

    epoch_time = median_seconds(epoch, args.repeats)
    validation_time = median_seconds(
        lambda: Validator().validate(claims, observations.actions, start), args.repeats
    )
    runs = []

    def train() -> None:
        history, _ = Trainer(config).train(observations, tendency_agents())
        runs.append(history.epochs_run)

    train_time = median_seconds(train, max(args.repeats // 2, 1))
    print(
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, NumPy {np.__version__}"
    )
    print(
        f"{len(observations):,} observations × {len(agents)} tendencies × 3 actions; "
        f"arena: {arena.rounds} full-batch rounds per epoch; median of {args.repeats} runs."
    )
    print()
    print("| step | seconds |")
    print("|---|---:|")
    print(f"| claims of 7 tendencies (once per run) | {claim_time:.4f} |")
    print(f"| one debate epoch (arena, {arena.rounds} rounds) | {epoch_time:.4f} |")
    print(f"| one validation (all observations) | {validation_time:.4f} |")
    print(
        f"| whole training run ({runs[-1]} epochs, 80% train / 20% validation) | {train_time:.4f} |"
    )
    print()
    print(
        f"Goal: an epoch on {len(observations):,} observations under 1 s: "
        f"{'met' if epoch_time < 1.0 else 'NOT met'} ({epoch_time:.3f} s)."
    )
