"""The ``assembly/`` env families, and their registration with Gymnasium.

Each family (:class:`~assembly_gym.envs.family.EnvFamily`) names its entry points and parts
as ``"module:attribute"`` strings, so that registering imports none of the envs (nor, for
``Simulator-v0``, anything from ``world_models``). :func:`register_envs` runs on
``import assembly_gym`` (or ``gym.register_envs(assembly_gym)``) and, through the
``gymnasium.envs`` entry point declared in ``pyproject.toml``, on a bare ``import gymnasium``
(Gymnasium 0.29 loads such plugins; 1.x dropped the hook). Where only the id string travels,
the ``"assembly_gym:assembly/RollCall-v0"`` form imports the package first (docs/ecosystem.md,
"Set-up").
"""

from __future__ import annotations

from typing import Any

from assembly_gym.envs.family import EntryPoint, EnvFamily, register_family

__all__ = ["BUILTIN_FAMILIES", "ENV_IDS", "VECTOR_ENTRY_POINTS", "make_native_vec", "register_envs"]

_LEGISLATIVE = "assembly_gym.envs.legislative"
_SUITES = "assembly_gym.benchmarks.suites"

BUILTIN_FAMILIES = (
    EnvFamily(
        "assembly/RollCall-v0",
        entry_point=f"{_LEGISLATIVE}.rollcall:RollCallEnv",
        vector_entry_point=f"{_LEGISLATIVE}.vector:RollCallVectorEnv",
        transitions=f"{_LEGISLATIVE}.transitions:rollcall_transitions",
        demonstrations=f"{_LEGISLATIVE}.demonstrations:rollcall_demonstrations",
        feature_map=f"{_LEGISLATIVE}.phi:ActionFeatureMap",
        suites={
            "synthetic": f"{_SUITES}.rollcall:SYNTHETIC",
            "unvotes": f"{_SUITES}.rollcall:UNVOTES",
            "masked": f"{_SUITES}.masked:MASKED",
        },
    ),
    EnvFamily(
        "assembly/Deliberation-v0",
        entry_point=f"{_LEGISLATIVE}.deliberation:DeliberationEnv",
        vector_entry_point=f"{_LEGISLATIVE}.vector:DeliberationVectorEnv",
        declaration=f"{_LEGISLATIVE}.deliberation:STATE_DECLARATION",
        transitions=f"{_LEGISLATIVE}.transitions:deliberation_transitions",
        demonstrations=f"{_LEGISLATIVE}.demonstrations:deliberation_demonstrations",
        feature_map=f"{_LEGISLATIVE}.phi:DeliberationFeatureMap",
        suites={"deliberation": f"{_SUITES}.deliberation:DELIBERATION"},
    ),
    EnvFamily(
        "assembly/MemoryDynamics-v0",
        entry_point="assembly_gym.envs.memory.env:MemoryDynamicsEnv",
        vector_entry_point="assembly_gym.envs.memory.vector:MemoryDynamicsVectorEnv",
        suites={"memory": f"{_SUITES}.memory:MEMORY"},
    ),
    EnvFamily(  # its state is the one of the family its model learned
        "assembly/Simulator-v0",
        entry_point="assembly_gym.world_models.simulator:SimulatorEnv",
        vector_entry_point="assembly_gym.world_models.simulator_vector:SimulatorVectorEnv",
    ),
)
"""The families of this package, registered by :func:`register_envs`."""

ENV_IDS: dict[str, EntryPoint] = {family.env_id: family.entry_point for family in BUILTIN_FAMILIES}
"""Every id of this package → its entry point."""

VECTOR_ENTRY_POINTS: dict[str, EntryPoint] = {
    family.env_id: family.vector_entry_point
    for family in BUILTIN_FAMILIES
    if family.vector_entry_point is not None
}
"""Native batched versions, built by ``gym.make_vec`` (see :func:`make_native_vec`)."""


def register_envs() -> None:
    """Register every family of this package that is not registered yet (safe to call twice)."""
    for family in BUILTIN_FAMILIES:
        register_family(family)


def make_native_vec(env_id: str, num_envs: int, **kwargs: Any) -> Any:
    """``gym.make_vec`` of an env's native batched version, on Gymnasium 0.29 and 1.x alike.

    The two stacks name this mode and pass the arguments differently
    (:func:`assembly_gym.envs.vector_api.native_make_vec_arguments`).

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
