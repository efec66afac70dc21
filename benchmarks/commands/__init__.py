"""Subcommands of ``assembly-gym``: one module each, discovered by :mod:`benchmarks.cli`."""
