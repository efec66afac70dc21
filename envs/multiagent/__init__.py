"""Multi-agent envs of the General Assembly (PettingZoo): every member state an agent.

* ``assembly``: the roll-call variant :class:`AssemblyParallelEnv` and the ``env`` /
  ``parallel_env`` / ``raw_env`` constructors (``variant=``) that
  :mod:`assembly_gym.envs.assembly_v0` names the PettingZoo way;
* ``deliberation``: the deliberation variant :class:`DeliberationParallelEnv`;
* ``base``: what both variants share (metadata, spaces, renders, action checks);
* ``rewards``: every country's reward evaluated batched.
"""

from assembly_gym.envs.multiagent.assembly import AssemblyParallelEnv, env, parallel_env, raw_env
from assembly_gym.envs.multiagent.deliberation import DeliberationParallelEnv
from assembly_gym.envs.multiagent.rewards import BatchedRewards, CountryRewards

__all__ = [
    "AssemblyParallelEnv",
    "BatchedRewards",
    "CountryRewards",
    "DeliberationParallelEnv",
    "env",
    "parallel_env",
    "raw_env",
]
