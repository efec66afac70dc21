"""The UN General Assembly envs, ``RollCall-v0`` and ``Deliberation-v0``, and their data.

The envs, their data and demonstrations are importable from here; the rest from its module
(the module map: docs/architecture.md, "What lives where").

Example:
    >>> from assembly_gym.envs.legislative import RollCallEnv, default_assembly
    >>> env = RollCallEnv(default_assembly(), country="Country 001", session=3)
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape
    (56,)
"""

from assembly_gym.envs.legislative.data import RollCallData
from assembly_gym.envs.legislative.deliberation import DeliberationEnv
from assembly_gym.envs.legislative.demonstrations import (
    deliberation_demonstrations,
    rollcall_demonstrations,
)
from assembly_gym.envs.legislative.observation import FeatureConfig
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.envs.legislative.sources import default_assembly, roll_call_data
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.legislative.vector import DeliberationVectorEnv, RollCallVectorEnv

__all__ = [
    "DeliberationEnv",
    "DeliberationVectorEnv",
    "FeatureConfig",
    "RollCallData",
    "RollCallEnv",
    "RollCallVectorEnv",
    "SyntheticConfig",
    "default_assembly",
    "deliberation_demonstrations",
    "generate_assembly",
    "roll_call_data",
    "rollcall_demonstrations",
]
