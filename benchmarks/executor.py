"""Where benchmark work runs: in this process, on local cores (joblib), or on Ray.

Suites describe *what* to compute as independent work units; an :class:`Executor` decides
*where*, and ships the one large value all units share (the suite's task) its own way, never
pickled per unit: as is in this process, not at all to joblib workers (they rebuild it from
the unit's descriptor, cached per process), once into Ray's object store
(:mod:`assembly_gym.benchmarks.ray_executor`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from joblib import Parallel, delayed

__all__ = ["Executor", "LocalExecutor", "UnitFailure", "run_units"]

Item = TypeVar("Item")
Result = TypeVar("Result")


@dataclass(frozen=True)
class UnitFailure:
    """A work unit that failed on every try: what an executor that retries returns for it.

    Attributes:
        unit: which unit, in a few words (``str`` of the unit).
        error: the exception's type name, e.g. ``"ValueError"``.
        message: the exception's message.
        tries: how many times the unit was run.
    """

    unit: str
    error: str
    message: str
    tries: int

    def __str__(self) -> str:
        tries = "1 try" if self.tries == 1 else f"{self.tries} tries"
        return f"failed: {self.error}: {self.message} (unit: {self.unit}), after {tries}"


class Executor(Protocol):
    """Runs a function over independent units and returns the results in unit order."""

    def map(
        self, function: Callable[[Any, Any], Any], items: Sequence[Any], shared: Any = None,
        *, desc: str = "", progress: bool = False,
    ) -> list[Any]:  # fmt: skip
        """``[function(item, shared) for item in items]``, possibly in parallel.

        Args:
            function: runs one unit; its second argument is ``shared``, or None where the
                executor does not ship it (the function then rebuilds it from the unit).
            items: the units.
            shared: a value every unit needs (None: nothing shared).
            desc: the label of the progress bar.
            progress: show a progress bar that advances as units finish.

        Returns:
            One result per unit, in unit order; an executor that retries failed units
            returns a :class:`UnitFailure` for a unit that failed on every try.
        """
        ...


class LocalExecutor:
    """Local execution: sequential for ``jobs=1``, else joblib worker processes.

    A failing unit raises (no retries): the first error ends the run.

    Args:
        jobs: number of worker processes (``-1``: one per core).
    """

    def __init__(self, jobs: int = 1) -> None:
        if jobs == 0 or jobs < -1:
            raise ValueError(f"jobs must be ≥ 1 or -1 (all cores), got {jobs}")
        self.jobs = jobs

    def map(
        self, function: Callable[[Any, Any], Any], items: Sequence[Any], shared: Any = None,
        *, desc: str = "", progress: bool = False,
    ) -> list[Any]:  # fmt: skip
        """Apply ``function`` to every item, in order (see :meth:`Executor.map`).

        Sequentially, ``shared`` is passed as is and a tqdm bar shows progress; joblib
        workers get None for ``shared`` and no bar.
        """
        from tqdm.auto import tqdm

        if self.jobs == 1 or len(items) <= 1:
            return [function(item, shared) for item in tqdm(items, desc=desc, disable=not progress)]
        return Parallel(n_jobs=self.jobs)(delayed(function)(item, None) for item in items)


def run_units(
    function: Callable[[Item, Any], Result],
    units: Sequence[Item],
    executor: Executor | None = None,
    *,
    shared: Any = None,
    desc: str = "",
    progress: bool = True,
) -> list[Result | UnitFailure]:
    """Run a suite's work units on an executor, in unit order.

    Args:
        function: runs one unit: ``function(unit, shared)``, rebuilding the shared value from
            the unit when it gets None.
        units: the work units.
        executor: where they run (None: sequentially in this process).
        shared: the value every unit needs (the suite's task), shipped once per executor.
        desc: the label of the progress bar.
        progress: show a progress bar over the units (sequential and Ray runs).

    Returns:
        One result per unit; a :class:`UnitFailure` where a retrying executor gave up.
    """
    executor = executor or LocalExecutor(1)
    return executor.map(function, units, shared, desc=desc, progress=progress)
