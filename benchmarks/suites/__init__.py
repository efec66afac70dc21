"""Benchmark suites: declarative (data, split, env, agents, metrics), run by one harness.

Example:
    >>> from assembly_gym.benchmarks.suites import SUITES, Options, run_suite
    >>> result = run_suite(SUITES["synthetic"], Options(quick=True, n_bootstrap=50), progress=False)
    >>> "maxent-irl (linear)" in set(result.table["agent"])
    True
"""

from assembly_gym.benchmarks.suites.base import (
    AgentSpec,
    Options,
    Suite,
    SuiteResult,
    Task,
    Truth,
    run_suite,
)
from assembly_gym.benchmarks.suites.deliberation import DELIBERATION
from assembly_gym.benchmarks.suites.episodic import EpisodicRunner, EpisodicSpec
from assembly_gym.benchmarks.suites.memory import MEMORY
from assembly_gym.benchmarks.suites.rollcall import SYNTHETIC, UNVOTES

SUITES: dict[str, Suite] = {
    suite.name: suite for suite in (SYNTHETIC, UNVOTES, DELIBERATION, MEMORY)
}
"""Every suite, by name."""

__all__ = [
    "SUITES",
    "AgentSpec",
    "EpisodicRunner",
    "EpisodicSpec",
    "Options",
    "Suite",
    "SuiteResult",
    "Task",
    "Truth",
    "run_suite",
]
