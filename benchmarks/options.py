"""The settings of a benchmark run, the names ``bench --help`` lists, the report's manifest.

Kept apart from :mod:`~assembly_gym.benchmarks.suites` (which imports every learner, torch
included) so that ``bench``'s flags are made, and its help shown, without importing them.
:class:`Options` is also importable as ``assembly_gym.benchmarks.suites.Options``.
``tests/benchmarks/test_cli_startup.py`` checks that the names below are those of the suites.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assembly_gym.benchmarks.commands.arguments import device as device_flag

__all__ = ["RESULTS", "SUITE_NAMES", "SYNTHETIC_AGENTS", "Options"]

RESULTS = "results.json"
"""A report folder's manifest: the run's options and every suite's results (``--out``)."""

SUITE_NAMES = ("deliberation", "memory", "synthetic", "unvotes")
"""The suites' names (``--suite NAME``), sorted: the keys of ``suites.SUITES``."""
SYNTHETIC_AGENTS = (
    "random", "always-yes", "majority", "issue-majority", "last-similar-vote",
    "logistic (sklearn)", "maxent-irl (linear)", "maxent-irl (neural)", "imitation MCE-IRL",
    "debate allocator", "imitation BC", "planted (oracle)",
)  # fmt: skip
"""The synthetic suite's agents (``--agents NAME``), in table order, at default options."""


@dataclass(frozen=True)
class Options:
    """Settings of one benchmark run: each field is a flag of ``assembly-gym bench``.

    A field's metadata documents it: ``help`` is the help text of its flag (``--field-name``,
    or metadata ``flag``); ``minimum`` and ``maximum`` bound a number; ``type`` parses and
    checks a flag's text. The flags are made from
    the fields by :func:`~assembly_gym.benchmarks.commands.add_dataclass_flags`.
    """

    data: str | None = field(default=None, metadata={
        "help": "real data: an unvotes folder or a UN Digital Library CSV, or (deliberation) "
        "a folder of trajectory files (default: the suite's synthetic assembly)",
    })  # fmt: skip
    seed: int = field(default=0, metadata={
        "help": "seed of every random choice (data, agents, bootstrap)",
        "minimum": 0, "maximum": 2**32 - 1,
    })  # fmt: skip
    last_train_session: int | None = field(default=None, metadata={
        "help": "last training session (default: 60 on real data)", "minimum": 1,
    })  # fmt: skip
    folds: int | None = field(default=None, metadata={
        "help": "K-fold cross-validation by resolution (seeded): K runs, each testing on one "
        "fold of the resolutions, then the mean and spread across folds (deliberation suite)",
        "metavar": "K", "minimum": 2,
    })  # fmt: skip
    fold: int | None = field(default=None, metadata={
        "help": "with --folds: run only this fold (0 … K − 1)", "metavar": "I", "minimum": 0,
    })  # fmt: skip
    countries: tuple[str, ...] | None = field(default=None, metadata={
        "help": "countries to evaluate (default: all with votes in both periods)",
        "metavar": "NAME",
    })  # fmt: skip
    n_bootstrap: int = field(default=1000, metadata={
        "help": "bootstrap resamples for the confidence intervals", "flag": "--bootstrap",
        "metavar": "N", "minimum": 10,
    })  # fmt: skip
    quick: bool = field(default=False, metadata={
        "help": "tiny sizes (tiny data, few epochs): a smoke test of the whole pipeline",
    })  # fmt: skip
    neural_width: int = field(default=32, metadata={
        "help": "hidden units of the neural MaxEnt IRL reward (`assembly-gym sweep "
        "neural-reward` tunes it)", "minimum": 1,
    })  # fmt: skip
    neural_weight_decay: float = field(default=10.0, metadata={
        "help": "weight decay of the neural MaxEnt IRL reward, per demonstrated step",
        "minimum": 0,
    })  # fmt: skip
    device: str = field(default="auto", metadata={
        "help": "where the neural MaxEnt IRL reward trains: auto (the GPU when there is one), "
        "cpu, cuda or cuda:N", "type": device_flag,
    })  # fmt: skip
