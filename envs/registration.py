"""Registration of the ``assembly/`` environments with Gymnasium.

Runs on ``import envs`` and, through the ``gymnasium.envs`` entry point declared in
``pyproject.toml``, on a bare ``import gymnasium`` (Gymnasium 0.29 loads such plugins;
Gymnasium 1.x dropped the plugin hook, so there ``import envs`` is needed first).
"""

from __future__ import annotations

__all__ = ["ENV_IDS", "VECTOR_ENTRY_POINTS", "register_envs"]

ENV_IDS: dict[str, str] = {
    "assembly/RollCall-v0": "envs.legislative.rollcall:RollCallEnv",
    "assembly/Deliberation-v0": "envs.legislative.deliberation:DeliberationEnv",
    "assembly/Simulator-v0": "envs.simulator:SimulatorEnv",
    "assembly/MemoryDynamics-v0": "envs.memory.env:MemoryDynamicsEnv",
}

VECTOR_ENTRY_POINTS: dict[str, str] = {
    "assembly/RollCall-v0": "envs.legislative.vector:RollCallVectorEnv",
    "assembly/Deliberation-v0": "envs.legislative.vector:DeliberationVectorEnv",
}
"""Native batched versions, for ``gym.make_vec(id, num_envs, vectorization_mode="custom")``."""


def register_envs() -> None:
    """Register every ``assembly/`` id that is not registered yet (safe to call twice)."""
    # Imported here, not at the top: on a bare `import envs`, importing gymnasium runs its
    # plugin loader, which calls this function; a top-level import would find this module
    # only half initialised.
    from gymnasium.envs.registration import register, registry

    for env_id, entry_point in ENV_IDS.items():
        if env_id not in registry:
            register(
                id=env_id,
                entry_point=entry_point,
                vector_entry_point=VECTOR_ENTRY_POINTS.get(env_id),
            )
