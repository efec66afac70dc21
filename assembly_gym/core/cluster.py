"""Ray, started or joined once per process: the one place that calls ``ray.init``.

The bench executor, ``assembly-gym sweep`` and the RLlib helpers all call
:func:`connect_ray`; a process that already holds a Ray connection (a user's own
``ray.init``, a test session's local Ray) keeps it.
"""

from __future__ import annotations

from types import ModuleType

from assembly_gym.core.optional import require

__all__ = ["connect_ray"]


def connect_ray(
    address: str | None = None, *, num_cpus: int | None = None, purpose: str = "Ray"
) -> ModuleType:
    """Start a local Ray, or join a running cluster, unless this process is connected already.

    Args:
        address: a cluster to join (``"auto"``, ``"HOST:6379"``, ``"ray://HOST:10001"``);
            None starts a local Ray on this machine.
        num_cpus: CPUs of a local Ray (None: all cores); ignored when joining a cluster.
        purpose: what Ray is needed for, for the error when the extra is missing.

    Returns:
        The ``ray`` module.

    Raises:
        MissingDependencyError: Ray is not installed (``pip install 'assembly-gym[ray]'``).
    """
    ray = require("ray", extra="ray", purpose=purpose)
    if not ray.is_initialized():
        ray.init(
            address=address,
            num_cpus=None if address else num_cpus,
            include_dashboard=False,
            log_to_driver=False,
            logging_level="warning",
        )
    return ray
