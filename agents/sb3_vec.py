"""Stable-Baselines3's ``VecEnv`` over a Gymnasium vector env: SB3 trains on the native envs.

SB3's ``VecEnv`` resets a finished sub-env inside the step that ends it, so the adapter takes
a vector env under the same-step rule and passes each finished episode's ``info["episode"]``
on to SB3's logger. PPO, and MaskablePPO through :meth:`SB3VecEnv.action_masks`, learn on it.

Example:
    >>> import assembly_gym
    >>> from stable_baselines3 import PPO
    >>> venv = assembly_gym.make_native_vec("assembly/RollCall-v0", 8, autoreset_mode="SameStep")
    >>> model = PPO("MlpPolicy", SB3VecEnv(venv), n_steps=32, batch_size=64, device="cpu")
    >>> _ = model.learn(total_timesteps=256)
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices

from assembly_gym.envs.vector_api import FINAL_OBS, SAME_STEP

__all__ = ["SB3VecEnv"]


class SB3VecEnv(VecEnv):
    """One Gymnasium vector env (wrapped or not) as an SB3 ``VecEnv``.

    The sub-envs of a native env are rows of one batched env, not separate envs: attributes
    are shared (``get_attr`` gives every index the same value, ``set_attr`` sets it for all)
    and ``env_method`` calls the method once and hands each index its row.

    Args:
        venv: a Gymnasium vector env whose ``metadata["autoreset_mode"]`` is same-step, e.g.
            ``make_native_vec(env_id, n, autoreset_mode="SameStep")``, possibly wrapped
            (``RecordEpisodeStatistics`` fills SB3's episode statistics).

    Raises:
        ValueError: the env resets on another rule than SB3's.
    """

    def __init__(self, venv: Any) -> None:
        mode = venv.metadata.get("autoreset_mode")
        if mode != SAME_STEP:
            raise ValueError(
                f"SB3 resets a finished sub-env within the step that ends it; this env's "
                f"autoreset_mode is {mode!r}: make it with autoreset_mode='SameStep'"
            )
        self.venv = venv
        native = venv.unwrapped
        super().__init__(
            native.num_envs, native.single_observation_space, native.single_action_space
        )
        self._actions = np.zeros(native.num_envs, dtype=np.int64)

    def reset(self) -> np.ndarray:
        """Reset every sub-env with the seeds and options set since the last reset.

        Returns:
            Observations, shape (N, d).

        Raises:
            ValueError: the sub-envs were given different options (they share one dict).
        """
        seeds = None if all(s is None for s in self._seeds) else self._seeds
        options = self._options[0]
        if any(other != options for other in self._options):
            raise ValueError("the sub-envs of a batched env share one options dict")
        obs, infos = self.venv.reset(seed=seeds, options=options or None)
        self.reset_infos = _info_dicts(infos, self.num_envs)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the actions, shape (N,), for :meth:`step_wait`."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every sub-env.

        Returns:
            Observations (N, d) (of the next episode where one ended), rewards (N,) float32,
            dones (N,) and one info dict per sub-env: where an episode ended, that of its
            last step with ``terminal_observation`` and ``TimeLimit.truncated`` (the next
            episode's first info goes in ``reset_infos``).
        """
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        dones = terminated | truncated
        info_dicts = _info_dicts(infos, self.num_envs)
        if dones.any():  # as SB3's own VecEnvs: the last step's info, the reset's kept aside
            finals = infos["final_info"]  # batched (1.x) or one dict per sub-env (0.29)
            finals = _info_dicts(finals, self.num_envs) if isinstance(finals, dict) else finals
            for i in np.flatnonzero(dones):
                self.reset_infos[i] = info_dicts[i]
                info_dicts[i] = {
                    **info_dicts[i], **finals[i],  # wrappers' keys (episode) stay
                    "terminal_observation": infos[FINAL_OBS][i],
                    "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                }  # fmt: skip
        return obs, rewards.astype(np.float32), dones, info_dicts

    def action_masks(self) -> np.ndarray:
        """Valid actions of every sub-env, shape (N, A) bool (what MaskablePPO reads)."""
        return self.venv.unwrapped.action_masks()

    def close(self) -> None:
        """Close the vector env."""
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The vector env's attribute, once per index (shared by its sub-envs)."""
        value = getattr(self.venv.unwrapped, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the vector env, which all its sub-envs share.

        Raises:
            ValueError: ``indices`` name only some sub-envs.
        """
        if len(list(self._get_indices(indices))) != self.num_envs:
            raise ValueError("the sub-envs of a batched env share their attributes: set all")
        setattr(self.venv.unwrapped, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:  # fmt: skip
        """Call a batched method of the vector env once; each index gets its row.

        Raises:
            ValueError: the method does not return one row per sub-env.
        """
        result = getattr(self.venv.unwrapped, method_name)(*method_args, **method_kwargs)
        if not (isinstance(result, np.ndarray) and result.shape[:1] == (self.num_envs,)):
            raise ValueError(
                f"{method_name}() must return one row per sub-env ({self.num_envs}) to be "
                f"called through env_method, got {type(result).__name__}"
            )
        return [result[i] for i in self._get_indices(indices)]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        """False for every index: the sub-envs are rows of one env, not wrapped envs."""
        return [False for _ in self._get_indices(indices)]


def _info_dicts(infos: dict[str, Any], num_envs: int) -> list[dict[str, Any]]:
    """Gymnasium's batched infos (arrays with ``_key`` masks) as one dict per sub-env.

    Hand-written rather than Gymnasium's wrapper (``DictInfoToList`` on 1.x,
    ``VectorListInfo`` on 0.29): one function reads both stacks' infos. The final
    observation and info of a finished episode are left out (:meth:`SB3VecEnv.step_wait`
    hands them on as SB3 expects).
    """
    dicts: list[dict[str, Any]] = [{} for _ in range(num_envs)]
    for key, value in infos.items():
        if key.startswith("_") or key in (FINAL_OBS, "final_info"):
            continue
        mask = infos.get(f"_{key}", np.ones(num_envs, dtype=bool))
        rows = _info_dicts(value, num_envs) if isinstance(value, dict) else value
        for i in np.flatnonzero(mask):
            dicts[i][key] = rows[i]
    return dicts
