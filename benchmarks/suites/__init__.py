"""Benchmark suites: declarative (data, split, env, agents, metrics), run by one harness.

Example:
    >>> from benchmarks.suites import SUITES, Options, run_suite
    >>> result = run_suite(SUITES["synthetic"], Options(quick=True, n_bootstrap=50), progress=False)
    >>> "maxent-irl (linear)" in set(result.table["agent"])
    True
"""

from benchmarks.suites.base import AgentSpec, Options, Suite, SuiteResult, Task, Truth, run_suite
from benchmarks.suites.deliberation import DELIBERATION
from benchmarks.suites.episodic import EpisodeScores, EpisodicAgent, EpisodicRunner
from benchmarks.suites.memory import MEMORY
from benchmarks.suites.rollcall import SYNTHETIC, UNVOTES

SUITES: dict[str, Suite] = {
    suite.name: suite for suite in (SYNTHETIC, UNVOTES, DELIBERATION, MEMORY)
}
"""Every suite, by name."""

__all__ = [
    "SUITES",
    "AgentSpec",
    "EpisodeScores",
    "EpisodicAgent",
    "EpisodicRunner",
    "Options",
    "Suite",
    "SuiteResult",
    "Task",
    "Truth",
    "run_suite",
]
