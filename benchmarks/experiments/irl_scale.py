"""Scale: every country on every real vote of sessions 1–69 in one MaxEnt fit.

Loads the real ``unvotes`` data (``--data``), builds every country's ``RollCall-v0``
observations and fits all countries in one :func:`assembly_gym.irl.rollcall.fit_reward_model`
call with ``irl fit``'s configuration on real data; prints the wall time of each stage and
the process's peak resident memory.

Run: ``assembly-gym experiment irl_scale [--l2 10] [--standard-errors] [--data DIR]``
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from assembly_gym.benchmarks.commands.arguments import NON_NEGATIVE
from assembly_gym.benchmarks.commands.irl import DEFAULT_REAL_L2
from assembly_gym.benchmarks.experiments import add_data_argument, real_votes
from assembly_gym.envs.legislative.data import load_unvotes
from assembly_gym.envs.legislative.observation import FeatureConfig
from assembly_gym.irl.rollcall import fit_reward_model

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The prior, standard errors and the data."""
    parser.add_argument("--l2", type=NON_NEGATIVE, default=DEFAULT_REAL_L2,
                        help="prior precision (default %(default)s)")  # fmt: skip
    parser.add_argument(
        "--standard-errors", action="store_true",
        help="also compute Laplace standard errors (as `irl fit` does)",
    )  # fmt: skip
    add_data_argument(parser)


def run(args: argparse.Namespace) -> None:
    """Load, fit, print times and peak memory."""
    folder = real_votes(args)
    began = time.perf_counter()
    data = load_unvotes(folder)
    loaded = time.perf_counter()
    model = fit_reward_model(
        data,
        feature_config=FeatureConfig(log_shares=True),
        l2=args.l2,
        shrinkage="global",
        standard_errors=args.standard_errors,
    )
    done = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    votes = sum(model.info["n_votes"].values())
    fit_seconds = model.info["fit_seconds"]
    print(
        f"Real data {folder}: sessions {model.info['sessions'][0]}–{model.info['sessions'][1]}, "
        f"{len(model.countries)} countries, {votes} votes, {len(model.weight_names)} weights each; "
        f"{os.cpu_count()} cores."
    )
    other = "features + demonstrations" + (" + standard errors" if args.standard_errors else "")
    print(
        f"load {loaded - began:.1f} s | {other} {done - loaded - fit_seconds:.1f} s | "
        f"MaxEnt fit {fit_seconds:.1f} s (converged: {model.info['converged']}) | "
        f"total {done - began:.1f} s (goal: under 60 s)"
    )
    print(f"peak resident memory {peak:.0f} MiB")
