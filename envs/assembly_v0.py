"""``assembly_v0``: the General Assembly as a PettingZoo env, named as PettingZoo's envs are.

``variant="rollcall"`` (default): every member votes on each roll call of a session;
``variant="deliberation"``: every member acts at each stage of a resolution (draft, committee
vote, plenary vote), as in ``Deliberation-v0``. See :mod:`assembly_gym.envs.multiagent`.
``vector_env``: N roll-call assemblies batched in arrays
(:mod:`assembly_gym.envs.multiagent.vector`).

Example:
    >>> from assembly_gym.envs import assembly_v0
    >>> env = assembly_v0.parallel_env(session=3)
    >>> observations, infos = env.reset(seed=0)
    >>> len(env.agents), observations[env.agents[0]]["observation"].shape
    (40, (60,))
"""

from typing import Any

from assembly_gym.envs.multiagent.assembly import env, parallel_env, raw_env
from assembly_gym.envs.multiagent.vector import AgentSlotsVectorEnv, AssemblyVectorEnv

__all__ = ["env", "parallel_env", "raw_env", "vector_env"]


def vector_env(
    num_envs: int = 8, agent_slots: bool = False, **kwargs: Any
) -> AssemblyVectorEnv | AgentSlotsVectorEnv:
    """N roll-call assemblies stepped together: observations (N, C, d), actions (N, C).

    Args:
        num_envs: number of assemblies N.
        agent_slots: a Gymnasium vector env of the N × C agent slots instead (a shared
            policy's batch: observations (N × C, d), actions (N × C,); SB3 trains on it).
        **kwargs: the arguments of :func:`parallel_env`'s roll-call variant (no
            ``render_mode``).
    """
    if agent_slots:
        return AgentSlotsVectorEnv(num_envs, **kwargs)
    return AssemblyVectorEnv(num_envs, **kwargs)
