"""Gymnasium environments of the UN General Assembly and of memory-driven dynamics.

Importing :mod:`assembly_gym` (or this package) registers the ``assembly/…`` ids. Each env
is a family (:class:`EnvFamily`); a new one is added by :func:`register_family`.

Example:
    >>> import gymnasium as gym
    >>> import assembly_gym
    >>> env = gym.make("assembly/RollCall-v0")
    >>> family_of("assembly/RollCall-v0").name
    'rollcall'
"""

from assembly_gym.envs.family import FAMILIES, EnvFamily, family_of, register_family
from assembly_gym.envs.registration import ENV_IDS, make_native_vec, register_envs

register_envs()

__all__ = [
    "ENV_IDS",
    "FAMILIES",
    "EnvFamily",
    "family_of",
    "make_native_vec",
    "register_envs",
    "register_family",
]
