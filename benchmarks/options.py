"""The settings of a benchmark run, the names ``bench --help`` lists, the report's manifest.

Kept apart from :mod:`~assembly_gym.benchmarks.suites` (which imports every learner, torch
included) so that ``bench``'s flags are made, and its help shown, without importing them.
:class:`Options` is also importable as ``assembly_gym.benchmarks.suites.Options``.
``tests/benchmarks/test_cli_startup.py`` checks that the names below are those of the suites.
"""

from __future__ import annotations

from dataclasses import dataclass

from assembly_gym.benchmarks.commands import flags
from assembly_gym.envs.family import FAMILIES

__all__ = ["AGENTS", "RESULTS", "SUITE_NAMES", "Options"]

RESULTS = "results.json"
"""A report folder's manifest: the run's options and every suite's results (``--out``)."""

SUITE_NAMES = tuple(sorted(name for family in FAMILIES.values() for name in family.suites))
"""The suites' names (``--suite NAME``), sorted: those the env families name, the keys of
``suites.SUITES``."""
_BASELINES = (
    "random", "always-yes", "majority", "issue-majority", "last-similar-vote",
    "text kNN (tuned)", "logistic (sklearn)",
)  # fmt: skip
AGENTS: dict[str, tuple[str, ...]] = {
    "synthetic": (
        *_BASELINES, "maxent-irl (mixture)", "maxent-irl (trees)", "maxent-irl (linear)",
        "maxent-irl (neural)", "maxent-irl (ideal)", "imitation MCE-IRL", "debate allocator",
        "imitation BC", "planted (oracle)",
    ),
    "unvotes": (
        *_BASELINES, "maxent-irl (mixture)", "maxent-irl (trees)", "maxent-irl (linear)",
        "maxent-irl (neural)", "maxent-irl (ideal)", "debate allocator", "imitation BC",
    ),
    "masked": (
        *_BASELINES, "roll-call shares", "maxent-irl (mixture)", "ideal points (1-D)",
        "ideal points",
    ),
    "deliberation": (
        *_BASELINES, "imitation BC", "maxent-irl (multi-step)", "imitation GAIL",
        "imitation AIRL", "MaskablePPO in Simulator-v0 (learned reward)",
    ),
    "memory": (
        "random reads", "memory-less MLP", "SB3 PPO (1,024 steps)", "SB3 PPO (50,000 steps)",
        "LeWorld (trained in-suite)", "oracle reads (noise floor)",
    ),
}  # fmt: skip
"""Each suite's agents (``--agents NAME``), in table order: every name it may run (the data
may leave some out, e.g. a draft-only trajectory folder the multi-step learners), so that
``bench --agents`` is checked before any data is read."""


@dataclass(frozen=True)
class Options:
    """Settings of one benchmark run: each field is a flag of ``assembly-gym bench``.

    Each field's metadata documents its flag (:mod:`assembly_gym.benchmarks.commands.flags`).
    """

    data: str | None = flags.option(
        "real data: an unvotes folder or a UN Digital Library CSV, or (deliberation) a folder of "
        "trajectory files (default: the suite's synthetic assembly)"
    )
    seed: int = flags.seed("every random choice (data, agents, bootstrap)")
    last_train_session: int | None = flags.option(
        "last training session (default: 60 on real data)", minimum=1
    )
    folds: int | None = flags.option(
        "K-fold cross-validation by resolution (seeded): K runs, each testing on one fold of the "
        "resolutions, then the mean and spread across folds (deliberation suite)",
        metavar="K", minimum=2,
    )  # fmt: skip
    fold: int | None = flags.option(
        "with --folds: run only this fold (0 … K − 1)", metavar="I", minimum=0
    )
    countries: tuple[str, ...] | None = flags.option(
        "countries to evaluate (default: all with votes in both periods)", metavar="NAME"
    )
    n_bootstrap: int = flags.option(
        "bootstrap resamples for the confidence intervals", 1000, flags=("--bootstrap",),
        metavar="N", minimum=10,
    )  # fmt: skip
    quick: bool = flags.switch(
        "tiny sizes (tiny data, few epochs): a smoke test of the whole pipeline"
    )
    neural_width: int = flags.option(
        "hidden units of the neural MaxEnt IRL reward (`assembly-gym sweep neural-reward` "
        "tunes it)", 32, minimum=1,
    )  # fmt: skip
    neural_weight_decay: float = flags.option(
        "weight decay of the neural MaxEnt IRL reward, per demonstrated step", 10.0, minimum=0
    )
    device: str = flags.device("the neural MaxEnt IRL reward trains")
