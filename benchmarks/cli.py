"""The ``assembly-gym`` command line.

Each subcommand is a module of :mod:`assembly_gym.benchmarks.commands` with
``register(subparsers)``, which adds its parser and sets ``run(args) -> int`` as the parser's
default.

Example:
    $ assembly-gym bench                              # synthetic default
    $ assembly-gym bench --data ../shared/data/unvotes
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

import assembly_gym.benchmarks.commands
from assembly_gym.core.errors import AssemblyGymError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The parser with every subcommand of :mod:`assembly_gym.benchmarks.commands`."""
    parser = argparse.ArgumentParser(
        prog="assembly-gym",
        description=(
            "Environments, world models, inverse RL and benchmarks "
            "of UN General Assembly behaviour."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in sorted(
        pkgutil.iter_modules(assembly_gym.benchmarks.commands.__path__), key=lambda m: m.name
    ):
        importlib.import_module(f"assembly_gym.benchmarks.commands.{module.name}").register(
            subparsers
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a subcommand; bad input ends with a one-line error and exit code 2."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except AssemblyGymError as error:
        print(f"assembly-gym {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
