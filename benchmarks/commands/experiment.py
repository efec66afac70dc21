"""``assembly-gym experiment``: run one of the benchmark programs behind the guides' figures.

Example:
    $ assembly-gym experiment --list
    $ assembly-gym experiment throughput --seconds 1
    $ assembly-gym experiment irl_speed --help
"""

from __future__ import annotations

import argparse

from assembly_gym.benchmarks import experiments
from assembly_gym.core.errors import AssemblyGymError


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``experiment`` subcommand."""
    parser = subparsers.add_parser(
        "experiment",
        help=help_text,
        description="Run a one-off benchmark program: assembly-gym experiment NAME [flags]. "
        "Every experiment takes --seed, --threads, --out FILE and --quiet; "
        "NAME --help shows its own flags.",
    )
    parser.add_argument("--list", action="store_true", help="list the experiments and exit")
    parser.add_argument("name", nargs="?", metavar="NAME", help="the experiment")
    parser.add_argument(
        "flags", nargs=argparse.REMAINDER, metavar="...", help="the experiment's flags"
    )
    parser.set_defaults(run=run)


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
    return experiments.main(args.name, args.flags)
