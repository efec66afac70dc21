"""What every variant of ``assembly_v0`` shares: metadata, one space object per agent, renders."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.envs.legislative.data import Vote
from assembly_gym.envs.options import OptionTypes, checked_options

__all__ = ["AssemblyEnvBase", "checked_actions", "tally_text"]


class AssemblyEnvBase(ParallelEnv):
    """A parallel env of the whole assembly; subclasses set the spaces and the two renders."""

    metadata: dict[str, Any] = {
        "name": "assembly_v0",
        "render_modes": ["ansi", "rgb_array"],
        "is_parallelizable": True,
        "render_fps": 4,
    }
    agents: list[str]
    possible_agents: list[str]
    RESET_OPTIONS: OptionTypes
    """What ``reset(options=…)`` takes (the constructor's arguments of the same names)."""
    _observation_space: spaces.Dict
    _action_space: spaces.Discrete

    def _start(self, n_observation: int, n_actions: int) -> None:
        """The spaces every agent shares, an empty feature cache, no episode, a fresh generator.

        Args:
            n_observation: length of an agent's observation vector.
            n_actions: size of an agent's ``Discrete`` action space (and of its mask).
        """
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (n_observation,), np.float32),
                "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(n_actions)
        self._cache: dict[int, np.ndarray] = {}
        self._episode: dict[str, Any] | None = None
        self.np_random, _ = seeding.np_random()

    def _check_render_mode(self, render_mode: str | None) -> None:
        """Raises ValueError: a render mode other than :attr:`metadata`'s."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")

    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation space of every agent (one object, as PettingZoo requires)."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """The action space of every agent (one object)."""
        return self._action_space

    def reset_options(self, options: Any) -> dict[str, Any]:
        """The reset options this env takes, with their types checked.

        Other keys are warned about, not refused as the single-agent envs do: PettingZoo's own
        API tests reset with an option no env takes.

        Raises:
            TypeError: ``options`` is not a dict, or a known option has another type.
        """
        if options is None:
            return {}
        if not isinstance(options, dict):
            raise TypeError(f"assembly_v0: reset options must be a dict, got {options!r}")
        unknown = sorted(set(options) - set(self.RESET_OPTIONS), key=str)
        if unknown:
            warnings.warn(
                f"assembly_v0: reset options {unknown} ignored; accepted: "
                f"{sorted(self.RESET_OPTIONS)}",
                stacklevel=3,
            )
        known = {key: value for key, value in options.items() if key in self.RESET_OPTIONS}
        return checked_options(known, self.RESET_OPTIONS, "assembly_v0")

    def _per_agent(
        self, agents: list[str], rewards: np.ndarray, terminated: bool, truncated: bool
    ) -> tuple[dict[str, float], dict[str, bool], dict[str, bool]]:
        """Rewards (N,), and the episode's end, as PettingZoo's per-agent dicts.

        When the episode ends, every agent leaves (``self.agents`` becomes empty).
        """
        if terminated or truncated:
            self.agents = []
        return (
            dict(zip(agents, rewards.tolist(), strict=True)),
            dict.fromkeys(agents, terminated),
            dict.fromkeys(agents, truncated),
        )

    def render(self) -> Any:
        """The state as text ("ansi") or a hemicycle (480, 640, 3) uint8 ("rgb_array")."""
        if self.render_mode == "rgb_array":
            return self.render_frame()
        if self.render_mode == "ansi":
            return self.render_text()
        return None

    def render_text(self) -> str:
        """The episode's state as text."""
        raise NotImplementedError

    def render_frame(self) -> np.ndarray:
        """The episode's state as a hemicycle, (480, 640, 3) uint8."""
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release."""


def tally_text(counts: np.ndarray) -> str:
    """Counts (3,) as text: yes 120 / no 10 / abstain 30."""
    return " / ".join(f"{vote.name.lower()} {int(c)}" for vote, c in zip(Vote, counts, strict=True))


def checked_actions(actions: dict[str, Any], agents: list[str], n: int) -> np.ndarray:
    """The agents' actions in their order, shape (N,) int64.

    Raises:
        InvalidActionError: an agent without an action, or an action outside ``Discrete(n)``.
    """
    try:
        given = np.asarray([actions[agent] for agent in agents])
    except KeyError as error:
        raise InvalidActionError(f"no action for agent {error.args[0]!r}") from None
    wrong = (given < 0) | (given >= n) if given.dtype.kind in "iu" else given == given
    if given.shape != (len(agents),) or wrong.any():
        bad = agents[int(np.flatnonzero(wrong)[0])] if wrong.any() else agents[0]
        raise InvalidActionError(f"action {actions[bad]!r} of {bad} is not in Discrete({n})")
    return given.astype(np.int64)
