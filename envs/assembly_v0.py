"""``assembly_v0``: the General Assembly as a PettingZoo env, named as PettingZoo's envs are.

``variant="rollcall"`` (default): every member votes on each roll call of a session;
``variant="deliberation"``: every member acts at each stage of a resolution (draft, committee
vote, plenary vote), as in ``Deliberation-v0``. See :mod:`assembly_gym.envs.multiagent`.

Example:
    >>> from assembly_gym.envs import assembly_v0
    >>> env = assembly_v0.parallel_env(session=3)
    >>> observations, infos = env.reset(seed=0)
    >>> len(env.agents), observations[env.agents[0]]["observation"].shape
    (40, (60,))
"""

from assembly_gym.envs.multiagent.assembly import env, parallel_env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]
