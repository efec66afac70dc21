"""The UN General Assembly envs, ``RollCall-v0`` and ``Deliberation-v0``, and their data.

Everything a user needs is importable from here; the modules, from the ground up:

* ``countries``: the country table (names, ISO codes, historical renamings);
* ``data`` (a package): :class:`RollCallData` and the loaders of real roll-call data;
  ``documents`` (a package): resolution trajectories from UN documents;
* ``synthetic``: the embedded synthetic assembly; ``sources``: what ``data=`` may be
  (synthetic, "unvotes", a path, data);
* ``spaces``: stages, actions, masks, support bins; ``observation``: what a country sees of
  a roll call; ``phi``: the reward feature maps φ(s, a); ``rewards``: reward functions;
* ``resolutions``: resolution records (sponsors, committee and plenary votes);
  ``backoff`` and ``dynamics``: the other countries' fitted behaviour in Deliberation-v0;
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

from assembly_gym.envs.legislative.countries import Country, CountryTable, default_country_table
from assembly_gym.envs.legislative.data import (
    ABSENT,
    ISSUE_CODES,
    RollCallData,
    Vote,
    load_roll_call_attributes,
    load_roll_calls,
    load_undl_votes,
    load_unvotes,
)
from assembly_gym.envs.legislative.deliberation import DeliberationEnv
from assembly_gym.envs.legislative.demonstrations import (
    Demonstration,
    deliberation_demonstrations,
    group_by_country,
    rollcall_demonstrations,
)
from assembly_gym.envs.legislative.documents import Trajectory, load_trajectories
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics
from assembly_gym.envs.legislative.observation import (
    FeatureConfig,
    RollCallFeatures,
    feature_names,
)
from assembly_gym.envs.legislative.phi import ActionFeatureMap, DeliberationFeatureMap
from assembly_gym.envs.legislative.resolutions import (
    NOT_RECORDED,
    ResolutionRecords,
    generate_resolution_records,
    records_from_roll_calls,
    records_from_trajectories,
)
from assembly_gym.envs.legislative.rewards import LinearReward, RewardFn, recorded_action_match
from assembly_gym.envs.legislative.rollcall import RollCallEnv
from assembly_gym.envs.legislative.sources import DataSpec, default_assembly, roll_call_data
from assembly_gym.envs.legislative.spaces import Action, Stage
from assembly_gym.envs.legislative.synthetic import (
    SyntheticAssembly,
    SyntheticConfig,
    generate_assembly,
)
from assembly_gym.envs.legislative.vector import DeliberationVectorEnv, RollCallVectorEnv

__all__ = [
    "ABSENT",
    "ISSUE_CODES",
    "NOT_RECORDED",
    "Action",
    "ActionFeatureMap",
    "Country",
    "CountryTable",
    "DataSpec",
    "DeliberationEnv",
    "DeliberationFeatureMap",
    "DeliberationVectorEnv",
    "Demonstration",
    "EmpiricalDynamics",
    "FeatureConfig",
    "LinearReward",
    "ResolutionRecords",
    "RewardFn",
    "RollCallData",
    "RollCallEnv",
    "RollCallFeatures",
    "RollCallVectorEnv",
    "Stage",
    "SyntheticAssembly",
    "SyntheticConfig",
    "Trajectory",
    "Vote",
    "default_assembly",
    "default_country_table",
    "deliberation_demonstrations",
    "feature_names",
    "generate_assembly",
    "generate_resolution_records",
    "group_by_country",
    "load_roll_call_attributes",
    "load_roll_calls",
    "load_trajectories",
    "load_undl_votes",
    "load_unvotes",
    "records_from_roll_calls",
    "records_from_trajectories",
    "recorded_action_match",
    "roll_call_data",
    "rollcall_demonstrations",
]
