"""Benchmarks: every agent scored on the same held-out data, and the ``assembly-gym`` CLI.

The top floor of the package: it may import every other one (its modules:
docs/architecture.md). The harness and the suites are importable from here. They are imported
on first use (PEP 562), so that the command line starts without torch: ``assembly-gym --help``
imports this package but none of the suites.

Example:
    >>> from assembly_gym.benchmarks import SUITES, TemporalSplit
    >>> sorted(SUITES)
    ['deliberation', 'memory', 'synthetic', 'unvotes']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assembly_gym.benchmarks.harness import (
        AgentFactory,
        TemporalSplit,
        default_agents,
        eligible_countries,
        evaluate,
    )
    from assembly_gym.benchmarks.suites import SUITES, Options, Suite, SuiteResult, run_suite

_HOMES = {
    "AgentFactory": "harness",
    "TemporalSplit": "harness",
    "default_agents": "harness",
    "eligible_countries": "harness",
    "evaluate": "harness",
    "SUITES": "suites",
    "Options": "suites",
    "Suite": "suites",
    "SuiteResult": "suites",
    "run_suite": "suites",
}
"""The module of this package that defines each public name."""

__all__ = [
    "SUITES",
    "AgentFactory",
    "Options",
    "Suite",
    "SuiteResult",
    "TemporalSplit",
    "default_agents",
    "eligible_countries",
    "evaluate",
    "run_suite",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (then cached in this module)."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazy public ones included."""
    return sorted({*globals(), *__all__})
