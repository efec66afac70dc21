"""assembly-gym: Gymnasium environments, world models, inverse RL and benchmarks of the UN assembly.

Importing the package registers every ``assembly/…`` environment with Gymnasium.

Its subpackages and the floors they stand on: docs/architecture.md.

Example:
    >>> import gymnasium as gym
    >>> import assembly_gym
    >>> env = gym.make("assembly/RollCall-v0")
    >>> env.observation_space.shape
    (56,)
"""

from importlib.metadata import PackageNotFoundError, version

from assembly_gym.core.errors import (
    AssemblyGymError,
    CheckpointError,
    DataError,
    InvalidActionError,
    MissingDependencyError,
    RewardFunctionError,
)
from assembly_gym.envs.registration import ENV_IDS, make_native_vec, register_envs

try:
    __version__ = version("assembly-gym")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

register_envs()

__all__ = [
    "ENV_IDS",
    "AssemblyGymError",
    "CheckpointError",
    "DataError",
    "InvalidActionError",
    "MissingDependencyError",
    "RewardFunctionError",
    "__version__",
    "make_native_vec",
    "register_envs",
]
