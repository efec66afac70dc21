"""Ray, started or joined once per process: the one place that calls ``ray.init``.

The bench executor, ``assembly-gym sweep`` and the RLlib helpers all call
:func:`connect_ray`; a process that already holds a Ray connection (a user's own
``ray.init``, a test session's local Ray) keeps it. A local Ray listens on 127.0.0.1
only and starts no dashboard; joining a cluster exposes what that cluster exposes
(docs/ray.md).
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
            None starts a local Ray on this machine, every server of it (the GCS, the
            raylet, the driver's and the workers') on 127.0.0.1 only.
        num_cpus: CPUs of a local Ray (None: all cores); ignored when joining a cluster.
        purpose: what Ray is needed for, for the error when the extra is missing.

    Returns:
        The ``ray`` module.

    Raises:
        MissingDependencyError: Ray is not installed (``pip install 'assembly-gym[ray]'``).
    """
    ray = require("ray", extra="ray", purpose=purpose)
    if ray.is_initialized():
        return ray
    settings = {"include_dashboard": False, "log_to_driver": False, "logging_level": "warning"}
    if address:
        ray.init(address=address, **settings)
        return ray
    # Ray binds its servers to the node's IP, which is this machine's routable address
    # unless Ray clusters are off (its default on macOS and Windows,
    # RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0): then the node is 127.0.0.1 and every server
    # listens there only. The switch is read when the node starts, so it is off for the start.
    from ray._private import ray_constants

    clusters = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        ray.init(num_cpus=num_cpus, **settings)
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = clusters
    return ray
