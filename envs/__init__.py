"""Gymnasium environments of the UN General Assembly; importing this registers ``assembly/…``.

Example:
    >>> import gymnasium as gym
    >>> import envs
    >>> env = gym.make("assembly/RollCall-v0")
"""

from envs.errors import AssemblyGymError, CheckpointError, DataError, InvalidActionError
from envs.registration import ENV_IDS, register_envs

register_envs()

__all__ = [
    "ENV_IDS",
    "AssemblyGymError",
    "CheckpointError",
    "DataError",
    "InvalidActionError",
    "register_envs",
]
