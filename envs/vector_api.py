"""The Gymnasium vector API on both supported stacks: the one place where 0.29 and 1.x differ.

Gymnasium 1.x vector envs declare ``metadata["autoreset_mode"]``: ``NEXT_STEP`` (its
default; a finished sub-env is reset by the step *after* its last one, which returns reward 0
and ignores the action) or ``SAME_STEP`` (reset inside the step that ends the episode, whose
last observation goes in ``infos["final_obs"]`` and last info, batched, in
``infos["final_info"]``). Gymnasium 0.29's stable vector API has one rule, same-step, with
``infos["final_observation"]`` and ``infos["final_info"]`` an object array of per-sub-env
dicts; its ``RecordEpisodeStatistics`` takes vector envs, where 1.x has a vector version in
``gymnasium.wrappers.vector``. The rest of the project uses the names below and never looks at
the version.

Example:
    >>> autoreset_mode(None) == AUTORESET_MODES[0]  # the stack's default rule
    True
    >>> autoreset_mode("SameStep") == SAME_STEP
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector.utils import batch_space

__all__ = [
    "AUTORESET_MODES",
    "FINAL_OBS",
    "GYMNASIUM_1",
    "NEXT_STEP",
    "SAME_STEP",
    "VectorEnvBase",
    "VectorEpisodeStatistics",
    "autoreset_mode",
    "batched_info",
    "dict_info",
    "native_make_vec_arguments",
    "sub_env_generators",
    "sync_vector_env",
]

GYMNASIUM_1 = int(gym.__version__.split(".")[0]) >= 1

# mypy checks both branches against one stack: each ignore below is for the other stack's names
# (mypy.ini lets them go unused).
if GYMNASIUM_1:
    from gymnasium.vector import AutoresetMode, VectorEnv  # type: ignore[attr-defined]
    from gymnasium.wrappers.vector import (  # type: ignore[import-not-found]
        RecordEpisodeStatistics as VectorEpisodeStatistics,
    )

    NEXT_STEP: Any = AutoresetMode.NEXT_STEP
    SAME_STEP: Any = AutoresetMode.SAME_STEP
    AUTORESET_MODES: tuple[Any, ...] = (NEXT_STEP, SAME_STEP)  # the default first
    FINAL_OBS = "final_obs"

    class VectorEnvBase(VectorEnv):
        """1.x's ``VectorEnv`` with 0.29's constructor, which sets the spaces."""

        def __init__(self, num_envs: int, observation_space: gym.Space, action_space: gym.Space):
            self.num_envs = num_envs
            self.single_observation_space = observation_space
            self.single_action_space = action_space
            self.observation_space = batch_space(observation_space, num_envs)
            self.action_space = batch_space(action_space, num_envs)

    def native_make_vec_arguments(kwargs: dict[str, Any]) -> dict[str, Any]:
        """``gym.make_vec``'s arguments for an env's ``vector_entry_point`` with ``kwargs``."""
        return {"vectorization_mode": "vector_entry_point", **kwargs}

    def dict_info(values: dict[str, Any], envs: np.ndarray, num_envs: int) -> Any:
        """A dict-valued info key (e.g. ``final_info``) of the sub-envs ``envs``: batched too."""
        return batched_info(values, envs, num_envs)

    def sync_vector_env(env_fns: Sequence[Callable[[], gym.Env]], mode: Any) -> Any:
        """Gymnasium's ``SyncVectorEnv`` under the autoreset rule ``mode``."""
        return gym.vector.SyncVectorEnv(env_fns, autoreset_mode=mode)  # type: ignore[call-arg]

else:  # Gymnasium 0.29: the stable VectorEnv, same-step autoreset only
    from gymnasium.vector import VectorEnv as VectorEnvBase  # type: ignore[assignment]  # noqa: N814
    from gymnasium.wrappers import (  # type: ignore[assignment]
        RecordEpisodeStatistics as VectorEpisodeStatistics,
    )

    NEXT_STEP = "NextStep"  # 1.x's names of the rules, so that portable code can name them
    SAME_STEP = "SameStep"
    AUTORESET_MODES = (SAME_STEP,)
    FINAL_OBS = "final_observation"

    def native_make_vec_arguments(kwargs: dict[str, Any]) -> dict[str, Any]:
        """``gym.make_vec``'s arguments for an env's vector entry point with ``kwargs``."""
        return {"vectorization_mode": "custom", "vector_kwargs": kwargs}

    def dict_info(values: dict[str, Any], envs: np.ndarray, num_envs: int) -> Any:
        """A dict-valued info key (e.g. ``final_info``) of the sub-envs ``envs``: one dict each."""
        infos = np.full(num_envs, None, dtype=object)
        for j, i in enumerate(envs):
            infos[i] = _row(values, j)
        return infos

    def _row(values: dict[str, Any], j: int) -> dict[str, Any]:
        return {k: _row(v, j) if isinstance(v, dict) else v[j] for k, v in values.items()}

    def sync_vector_env(env_fns: Sequence[Callable[[], gym.Env]], mode: Any) -> Any:
        """Gymnasium's ``SyncVectorEnv`` (``mode`` is same-step, its only rule)."""
        return gym.vector.SyncVectorEnv(env_fns)


def autoreset_mode(mode: Any = None) -> Any:
    """The autoreset rule named by ``mode``: a rule, its name (e.g. ``"SameStep"``) or None.

    None gives the stack's default (``NEXT_STEP`` on 1.x, ``SAME_STEP`` on 0.29).

    Raises:
        ValueError: the stack has no such rule (0.29 has only ``SAME_STEP``; ``DISABLED`` is
            not supported).
    """
    if mode is None:
        return AUTORESET_MODES[0]
    name = getattr(mode, "value", mode)  # 1.x's rules are an Enum of their names
    for rule in AUTORESET_MODES:
        if name == getattr(rule, "value", rule):
            return rule
    names = [getattr(rule, "value", rule) for rule in AUTORESET_MODES]
    raise ValueError(
        f"autoreset_mode must be one of {names} on Gymnasium {gym.__version__}, got {mode!r}"
    )


def sub_env_generators(
    seed: int | Sequence[int | None] | None, num_envs: int
) -> list[np.random.Generator]:
    """One generator per sub-env, each seeded as a single env reset with its seed.

    Args:
        seed: sub-env i gets ``seed + i``; or one seed per sub-env; None: fresh entropy.
        num_envs: number of sub-envs N.

    Raises:
        ValueError: a list of seeds whose length is not N.
    """
    if seed is None or isinstance(seed, (int, np.integer)):
        seeds = [None if seed is None else int(seed) + i for i in range(num_envs)]
    else:
        seeds = list(seed)
        if len(seeds) != num_envs:
            raise ValueError(f"got {len(seeds)} seeds for {num_envs} sub-envs")
    return [seeding.np_random(s)[0] for s in seeds]


def batched_info(values: dict[str, Any], envs: np.ndarray, num_envs: int) -> dict[str, Any]:
    """Per-sub-env info values in the batched form of the stack's ``SyncVectorEnv``.

    Hand-written: Gymnasium builds this one sub-env at a time (``VectorEnv._add_info``); the
    native envs have every value of a key in one array already.

    Args:
        values: info key → values of the sub-envs ``envs``, shape (len(envs), ...), or a dict
            of such (a dict-valued key, batched by :func:`dict_info`).
        envs: the sub-envs that have these keys, sorted, shape (k,).
        num_envs: number of sub-envs N.

    Returns:
        key → array of shape (N, ...) (0 or None where a sub-env lacks it) and ``"_" + key`` → the
        mask (N,) of the sub-envs that have it; empty when ``envs`` is.
    """
    if len(envs) == 0:
        return {}
    infos: dict[str, Any] = {}
    for key, value in values.items():
        mask = np.zeros(num_envs, dtype=bool)
        mask[envs] = True
        if isinstance(value, dict):
            full = dict_info(value, envs, num_envs)
        elif len(envs) == num_envs:  # every sub-env: the array as it is
            full = value
        else:
            blank = None if value.dtype == object else 0  # as Gymnasium leaves them
            full = np.full((num_envs, *value.shape[1:]), blank, dtype=value.dtype)
            full[envs] = value
        infos[key], infos[f"_{key}"] = full, mask
    return infos
