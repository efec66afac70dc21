"""Subcommands of ``assembly-gym``: one module each, discovered by :mod:`assembly_gym.benchmarks.cli`."""

from __future__ import annotations

import argparse

__all__ = ["add_data_source"]


def add_data_source(parser: argparse.ArgumentParser, data_help: str) -> argparse._ActionsContainer:
    """``--data DIR | --synthetic``, exclusive; returns the group so a command can add a source."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--data", default=None, metavar="DIR", help=data_help)
    source.add_argument(
        "--synthetic", action="store_true", help="the embedded synthetic assembly (the default)"
    )
    return source
