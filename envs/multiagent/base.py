"""What every variant of ``assembly_v0`` shares: metadata, one space object per agent, renders."""

from __future__ import annotations

import numbers
import reprlib
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.envs.legislative.data import Vote
from assembly_gym.envs.options import OptionTypes, checked_options

__all__ = ["AssemblyEnvBase", "checked_actions", "tally_text"]

_PETTINGZOO_PROBE = "options"
"""The reset option PettingZoo's API tests send (``{"options": 1}``) to see that ``reset``
takes the argument: ignored, the one key no variant takes that is not refused."""


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
        """The reset options, checked as the single-agent envs check theirs.

        Only ``"options"`` passes without being one: PettingZoo's API tests reset with
        ``{"options": 1}`` to see that ``reset`` takes the argument; it is ignored.

        Raises:
            TypeError: ``options`` is not a dict, or an option has another type.
            ValueError: an option this variant does not take (the message lists those it does).
        """
        if isinstance(options, Mapping):
            options = {key: value for key, value in options.items() if key != _PETTINGZOO_PROBE}
        return checked_options(options, self.RESET_OPTIONS, "assembly_v0")

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


def checked_actions(actions: Any, agents: list[str], n: int) -> np.ndarray:
    """The agents' actions in their order, shape (N,) int64.

    Each action is one integer (Python's, NumPy's, or a 0-d integer array) in ``Discrete(n)``.

    Raises:
        InvalidActionError: ``actions`` is not a dict, an agent has no action, or an agent's
            action is not such an integer (NaN, a float, an array, a string…); names the agent.
    """
    if not isinstance(actions, Mapping):
        raise InvalidActionError(
            f"actions must be a dict of agent → action, got {type(actions).__name__}"
        )
    missing = [agent for agent in agents if agent not in actions]
    if missing:
        raise InvalidActionError(f"no action for agent {missing[0]!r}")
    given = [actions[agent] for agent in agents]
    try:  # all at once: the common case
        chosen = np.asarray(given)
    except ValueError:  # arrays of different lengths
        chosen = np.asarray(given, dtype=object)
    if chosen.shape == (len(agents),) and chosen.dtype.kind in "iu":
        if ((chosen >= 0) & (chosen < n)).all():
            return chosen.astype(np.int64)
    chosen = np.empty(len(agents), dtype=np.int64)
    for i, action in enumerate(given):  # one at a time: which agent's action is wrong
        value = action.item() if isinstance(action, np.ndarray) and action.shape == () else action
        if not isinstance(value, numbers.Integral) or not 0 <= int(value) < n:
            shown = " ".join(reprlib.repr(action).split())  # short, on one line
            raise InvalidActionError(f"action {shown} of {agents[i]} is not in Discrete({n})")
        chosen[i] = value
    return chosen
