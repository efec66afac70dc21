"""Scale: every country on every real vote of sessions 1–69 in one fit of a reward kind.

Loads the real ``unvotes`` data (``--data``), builds every country's ``RollCall-v0``
observations and fits all countries in one :func:`assembly_gym.irl.rollcall.fit_reward_model`
call with ``irl fit``'s default configuration (or ``--kind``'s defaults); prints the wall
time of each stage and the process's peak resident memory. The goal: under 60 s on 2 cores.

Run: ``assembly-gym experiment irl_scale [--kind linear] [--data DIR]``
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from assembly_gym.benchmarks.experiments import add_data_argument, real_votes
from assembly_gym.envs.legislative.data import load_unvotes
from assembly_gym.envs.legislative.demonstrations import rollcall_demonstrations
from assembly_gym.irl.base import reward_kinds
from assembly_gym.irl.rollcall import DEFAULT_FEATURES, DEFAULT_KIND, fit_reward_model

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The kind and the data."""
    parser.add_argument("--kind", choices=reward_kinds(), default=DEFAULT_KIND,
                        help="the reward kind (default: %(default)s, irl fit's)")  # fmt: skip
    add_data_argument(parser)


def run(args: argparse.Namespace) -> None:
    """Load, describe, fit; print times and peak memory."""
    folder = real_votes(args)
    began = time.perf_counter()
    data = load_unvotes(folder)
    loaded = time.perf_counter()
    # The features alone, timed apart (fit_reward_model builds them again, as irl fit does).
    rollcall_demonstrations(data, feature_config=DEFAULT_FEATURES, with_infos=False)
    described = time.perf_counter()
    model = fit_reward_model(data, kind=args.kind)
    done = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    votes = sum(model.info["n_votes"].values())
    first, last = model.info["sessions"]
    print(f"Real data {folder}: sessions {first}–{last}, {len(model.countries)} countries, "
          f"{votes} votes; {os.cpu_count()} cores; kind {args.kind}.")  # fmt: skip
    print(f"load {loaded - began:.1f} s | features {described - loaded:.1f} s | "
          f"fit_reward_model (features + fit) {done - described:.1f} s, "
          f"goal: under 60 s")  # fmt: skip
    print(f"peak resident memory {peak:.0f} MiB")
