"""Where benchmark work runs: in this process, on local cores (joblib), or elsewhere.

Suites describe *what* to compute as independent work items; an :class:`Executor` decides
*where*. A cluster back end (for example Ray) only needs a ``map`` with the same meaning:
no suite changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from joblib import Parallel, delayed

__all__ = ["Executor", "LocalExecutor", "make_executor", "run_units"]

Item = TypeVar("Item")
Result = TypeVar("Result")


class Executor(Protocol):
    """Runs a function over independent items and returns the results in item order."""

    def map(self, function: Callable[[Item], Result], items: Iterable[Item]) -> list[Result]:
        """``[function(item) for item in items]``, possibly in parallel."""
        ...


class LocalExecutor:
    """Local execution: sequential for ``jobs=1``, else joblib worker processes.

    Args:
        jobs: number of worker processes (``-1``: one per core).
    """

    def __init__(self, jobs: int = 1) -> None:
        if jobs == 0 or jobs < -1:
            raise ValueError(f"jobs must be ≥ 1 or -1 (all cores), got {jobs}")
        self.jobs = jobs

    def map(self, function: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """Apply ``function`` to every item, in order."""
        items = list(items)
        if self.jobs == 1 or len(items) <= 1:
            return [function(item) for item in items]
        return Parallel(n_jobs=self.jobs)(delayed(function)(item) for item in items)


def make_executor(jobs: int = 1) -> Executor:
    """The executor for ``--jobs N``."""
    return LocalExecutor(jobs)


def run_units(
    function: Callable[[Item], Result],
    units: Sequence[Item],
    executor: Executor | None = None,
    *,
    desc: str = "",
    progress: bool = True,
) -> list[Result]:
    """Run a suite's work units on an executor, in unit order.

    Args:
        function: runs one unit.
        units: the work units.
        executor: where they run (None: sequentially in this process).
        desc: the label of the progress bar.
        progress: show a tqdm bar over the units (only when they run in this process).
    """
    from tqdm.auto import tqdm

    executor = executor or LocalExecutor(1)
    if isinstance(executor, LocalExecutor) and executor.jobs == 1:
        return [function(unit) for unit in tqdm(units, desc=desc, disable=not progress)]
    return executor.map(function, units)
