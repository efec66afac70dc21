"""``assembly-gym experiment``: run one of the benchmark programs behind the guides' figures.

Example:
    $ assembly-gym experiment --list
    $ assembly-gym experiment throughput --seconds 1
    $ assembly-gym experiment irl_speed --help
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from assembly_gym.benchmarks import experiments
from assembly_gym.benchmarks.commands import flags
from assembly_gym.core.errors import AssemblyGymError


@dataclass(frozen=True, kw_only=True)
class Experiment:
    """Run a one-off benchmark program: assembly-gym experiment NAME [flags].

    Every experiment takes --seed, --threads, --out FILE and --quiet; NAME --help shows its own
    flags.
    """

    list: bool = flags.switch("list the experiments and exit")
    name: str | None = flags.positional("the experiment", nargs="?", default=None, metavar="NAME")
    rest: tuple[str, ...] = flags.positional(
        "the experiment's flags", nargs=argparse.REMAINDER, default=(), metavar="..."
    )


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``experiment`` subcommand."""
    flags.add_command(subparsers, "experiment", run, help_text, Experiment)


def run(args: argparse.Namespace) -> int:
    """List the experiments, or run one."""
    if args.list:
        width = max(map(len, experiments.EXPERIMENTS))
        for name in experiments.EXPERIMENTS:
            print(f"{name:<{width}}  {experiments.describe(name)}")
        return 0
    if args.name is None:
        raise AssemblyGymError("name an experiment (--list shows them)")
    experiments.load(args.name)  # an unknown name: an error of `assembly-gym experiment`
    args.prog = f"{args.prog} {args.name}"  # later errors are the experiment's (cli's one line)
    return experiments.main(args.name, args.rest)
