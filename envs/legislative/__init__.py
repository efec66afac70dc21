"""The UN General Assembly envs, ``RollCall-v0`` and ``Deliberation-v0``, and their data.

The envs, their data and demonstrations are importable from here; the rest from its module.
The modules, from the ground up:

* ``countries``: the country table (names, ISO codes, historical renamings);
* ``data`` (a package): :class:`RollCallData` and the loaders of real roll-call data;
  ``documents`` (a package): resolution trajectories from UN documents;
* ``synthetic``: the embedded synthetic assembly; ``sources``: what ``data=`` may be
  (synthetic, "unvotes", a path, data);
* ``spaces``: stages, actions, masks, support bins; ``observation``: what a country sees of
  a roll call; ``phi``: the reward feature maps φ(s, a); ``rewards``: reward functions;
* ``resolutions``: resolution records (sponsors, committee and plenary votes);
  ``dynamics``: the other countries' fitted behaviour in Deliberation-v0;
* ``rollcall``, ``deliberation``: the envs; ``vector``: their native batched versions;
* ``demonstrations``: the recorded behaviour as expert trajectories; ``minari_datasets``:
  Minari export (extra ``minari``, imported from its module).

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
