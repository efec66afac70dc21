"""Subcommands of ``assembly-gym``, one module each (found by :mod:`assembly_gym.benchmarks.cli`).

Each command's flags are the fields of a settings dataclass (:mod:`.flags`); their values are
checked as they are parsed (:mod:`.arguments`).
"""

__all__ = []  # nothing here: the commands are imported by name, one at a time
