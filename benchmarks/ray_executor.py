"""The Ray executor: a suite's work units as Ray tasks, on this machine or a cluster.

``assembly-gym bench --executor ray [--address ADDR]`` runs on it. How the suite's task (once,
in Ray's object store) and the units' small descriptors travel: docs/ray.md. Requires the
``[ray]`` extra (``pip install 'assembly-gym[ray]'``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from assembly_gym.benchmarks.executor import UnitFailure
from assembly_gym.core.cluster import connect_ray

__all__ = ["RayExecutor"]


class RayExecutor:
    """Runs work units as Ray tasks (one CPU each); connects to Ray when made.

    Args:
        address: a running cluster to join (``"auto"``, ``"HOST:6379"``,
            ``"ray://HOST:10001"``); None starts a local Ray, or keeps this process's
            running one.
        num_cpus: CPUs of a local Ray (None: all cores); a cluster's are its own.
        retries: how many more times a failing unit is run (a unit runs at most
            ``1 + retries`` times).

    Raises:
        MissingDependencyError: Ray is not installed.
    """

    def __init__(
        self, address: str | None = None, *, num_cpus: int | None = None, retries: int = 1
    ) -> None:
        if retries < 0:
            raise ValueError(f"retries must be ≥ 0, got {retries}")
        self.ray = connect_ray(address, num_cpus=num_cpus, purpose="bench --executor ray")
        self.retries = retries

    def map(
        self, function: Callable[[Any, Any], Any], items: Sequence[Any], shared: Any = None,
        *, desc: str = "", progress: bool = False,
    ) -> list[Any]:  # fmt: skip
        """Run ``function(item, shared)`` as one Ray task per item; results in item order.

        ``shared`` is put in the object store once; the bar advances as tasks finish, in
        whatever order they do.

        Returns:
            Each item's result, or a :class:`~assembly_gym.benchmarks.executor.UnitFailure`
            for an item that failed on every try.
        """
        from tqdm.auto import tqdm

        ray = self.ray
        remote = ray.remote(function).options(
            num_cpus=1, max_retries=self.retries, retry_exceptions=True
        )
        reference = ray.put(shared)
        pending = [remote.remote(item, reference) for item in items]
        refs = list(pending)
        with tqdm(total=len(refs), desc=desc, disable=not progress) as bar:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                bar.update(len(done))
        return [self._result(ref, item) for ref, item in zip(refs, items, strict=True)]

    def _result(self, ref: Any, item: Any) -> Any:
        """A finished task's value, or the failure it ended with."""
        from ray.exceptions import RayError, RayTaskError

        try:
            return self.ray.get(ref)
        except RayError as error:
            cause = error.cause if isinstance(error, RayTaskError) else error
            message = str(cause).strip().splitlines()
            return UnitFailure(
                str(item), type(cause).__name__, message[0] if message else "", 1 + self.retries
            )
