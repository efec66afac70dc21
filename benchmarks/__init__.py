"""Benchmarks: every agent scored on the same held-out data, and the ``assembly-gym`` CLI.

The top floor of the package: it may import every other one. Its parts:

* :mod:`~assembly_gym.benchmarks.suites`: declarative suites (task, agents, metrics) and
  :func:`~assembly_gym.benchmarks.suites.run_suite`, the harness that fits and scores them;
* :mod:`~assembly_gym.benchmarks.harness`: :func:`~assembly_gym.benchmarks.harness.evaluate`,
  your own agents on a temporal split, scored as the suites are;
* :mod:`~assembly_gym.benchmarks.statistics`, :mod:`~assembly_gym.benchmarks.splits`,
  :mod:`~assembly_gym.benchmarks.report`, :mod:`~assembly_gym.benchmarks.executor`: intervals
  and tests, splits, tables and plots, where the work runs;
* :mod:`~assembly_gym.benchmarks.cli` and :mod:`~assembly_gym.benchmarks.commands`: the
  ``assembly-gym`` command line, one module per subcommand;
* :mod:`~assembly_gym.benchmarks.experiments`: the one-off programs behind the guides'
  figures, ``assembly-gym experiment NAME``.

The harness and the suites are importable from here.

Example:
    >>> from assembly_gym.benchmarks import SUITES, TemporalSplit
    >>> sorted(SUITES)
    ['deliberation', 'memory', 'synthetic', 'unvotes']
"""

from assembly_gym.benchmarks.harness import (
    AgentFactory,
    TemporalSplit,
    default_agents,
    eligible_countries,
    evaluate,
)
from assembly_gym.benchmarks.suites import SUITES, Options, Suite, SuiteResult, run_suite

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
