"""Registration of the ``assembly/`` environments with Gymnasium.

Runs on ``import assembly_gym`` (or ``gym.register_envs(assembly_gym)``) and, through the
``gymnasium.envs`` entry point declared in ``pyproject.toml``, on a bare ``import gymnasium``
(Gymnasium 0.29 loads such plugins; 1.x dropped the plugin hook). Where only the id string
travels (SB3's spawned ``SubprocVecEnv`` workers, RLlib, CleanRL scripts), the form
``gym.make("assembly_gym:assembly/RollCall-v0")`` imports the package first, on every stack.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ENV_IDS", "VECTOR_ENTRY_POINTS", "make_native_vec", "register_envs"]

ENV_IDS: dict[str, str] = {
    "assembly/RollCall-v0": "assembly_gym.envs.legislative.rollcall:RollCallEnv",
    "assembly/Deliberation-v0": "assembly_gym.envs.legislative.deliberation:DeliberationEnv",
    "assembly/Simulator-v0": "assembly_gym.world_models.simulator:SimulatorEnv",
    "assembly/MemoryDynamics-v0": "assembly_gym.envs.memory.env:MemoryDynamicsEnv",
}

VECTOR_ENTRY_POINTS: dict[str, str] = {
    "assembly/RollCall-v0": "assembly_gym.envs.legislative.vector:RollCallVectorEnv",
    "assembly/Deliberation-v0": "assembly_gym.envs.legislative.vector:DeliberationVectorEnv",
    "assembly/MemoryDynamics-v0": "assembly_gym.envs.memory.vector:MemoryDynamicsVectorEnv",
    "assembly/Simulator-v0": "assembly_gym.world_models.simulator_vector:SimulatorVectorEnv",
}
"""Native batched versions, built by ``gym.make_vec`` (see :func:`make_native_vec`)."""


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


def make_native_vec(env_id: str, num_envs: int, **kwargs: Any) -> Any:
    """``gym.make_vec`` of an env's native batched version, on Gymnasium 0.29 and 1.x alike.

    Gymnasium 0.29 calls this mode "custom" and hands the env only ``vector_kwargs``;
    1.x calls it "vector_entry_point" and hands it the keyword arguments themselves
    (:func:`assembly_gym.envs.vector_api.native_make_vec_arguments` says which).

    Args:
        env_id: a registered id with a native version (see ``VECTOR_ENTRY_POINTS``).
        num_envs: number of sub-envs N.
        **kwargs: the env's arguments, and ``autoreset_mode`` (a rule or its name, e.g.
            ``"SameStep"``; 1.x's default is ``NEXT_STEP``, 0.29 knows ``SAME_STEP`` only).

    Example:
        >>> import assembly_gym
        >>> vec = make_native_vec("assembly/RollCall-v0", 8, country="Country 001")
        >>> vec.reset(seed=0)[0].shape
        (8, 56)
    """
    import gymnasium as gym

    from assembly_gym.envs.vector_api import native_make_vec_arguments

    return gym.make_vec(env_id, num_envs=num_envs, **native_make_vec_arguments(kwargs))
