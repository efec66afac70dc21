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
from assembly_gym.benchmarks.suites.episodic import EpisodicRunner, EpisodicSpec
from assembly_gym.envs.family import FAMILIES, resolve

SUITES: dict[str, Suite] = {
    name: resolve(suite) for family in FAMILIES.values() for name, suite in family.suites.items()
}
"""Every suite, by name: those the env families name
(:attr:`~assembly_gym.envs.family.EnvFamily.suites`)."""

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
