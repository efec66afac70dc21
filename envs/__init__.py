"""Gymnasium environments of the UN General Assembly and of memory-driven dynamics.

Importing :mod:`assembly_gym` (or this package) registers the ``assembly/…`` ids.

Example:
    >>> import gymnasium as gym
    >>> import assembly_gym
    >>> env = gym.make("assembly/RollCall-v0")
"""

from assembly_gym.envs.registration import ENV_IDS, make_native_vec, register_envs

register_envs()

__all__ = ["ENV_IDS", "make_native_vec", "register_envs"]
