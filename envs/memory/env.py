"""``assembly/MemoryDynamics-v0``: choose which memory range to read to predict the next state."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.core.render import TextRender
from assembly_gym.core.state import StateDeclaration
from assembly_gym.envs.legislative.rewards import RewardFn
from assembly_gym.envs.memory.config import MemoryWorldConfig
from assembly_gym.envs.memory.memory import PAGE_SIZE, clip_read, join_address, match_windows
from assembly_gym.envs.memory.world import Episodes, MemoryWorld, ReadPredictionReward

__all__ = ["STATE_DECLARATION", "MemoryDynamicsEnv"]

STATE_DECLARATION = StateDeclaration()
"""No stages (an episode ends after ``sequence_length`` steps) and no grouped dimensions."""

_CHARS_PER_PAGE = 32  # render: one character per 8 words


class MemoryDynamicsEnv(TextRender, gym.Env[np.ndarray, np.ndarray]):
    """The LeWorld world seen by one small model: each step, read one address range.

    ## Description
    A bit memory (default 65,536 words × 32 bits, built once per env from ``memory_seed``)
    and hidden relevant regions drive the state (see :mod:`assembly_gym.envs.memory.world` for the
    equations): s_{t+1} = 0.8·s_t + 0.15·seed_t + 0.05·tile(c) + ε_t. The agent plays a
    small model (SLM): from s_{t−1}, s_t, the characteristics c (which encode where the
    regions are) and the content of its last read it chooses the next read. Reading the
    window of a relevant region makes its seed, hence s_{t+1}, predictable.

    ## Action Space
    ``MultiDiscrete([num_pages, 256, max_read_range])``, default ``[256, 256, 128]``:
    the page (high address byte), the offset in the page (low byte) and **length − 1**
    (0 reads one word, 127 reads 128 words). Reads that would pass the end of memory are
    clipped there. Every action is valid (``info["action_mask"]`` / :meth:`action_masks`,
    one block of booleans per component, are all True).

    ## Observation Space
    ``Box(float32)`` of ``2·state_dim + char_dim + word_size + 4`` values (196 by default),
    named by :attr:`layout` (a :class:`~assembly_gym.envs.memory.layout.MemoryLayout`): ``s_prev_*``
    (s_{t−1}; unbounded), ``s_*`` (s_t; unbounded), ``c_*`` (in [−1, 1]), ``read_bit_*``
    (fraction of ones per bit position of the last read), ``read_page``, ``read_offset``,
    ``read_length`` (normalised to [0, 1]) and ``step`` (t / sequence_length).

    ## Rewards
    ``reward_fn(obs, action, next_obs, info)``, by default
    :class:`~assembly_gym.envs.memory.world.ReadPredictionReward`: minus the mean squared error of
    the analytic prediction the read allows (its seed stands for one of the K regions; the
    others count as unknown). A read of the relevant window earns the noise floor ≈ −σ²
    = −0.01 on easy; with K regions one read leaves (K − 1)/K of seed_t unknown.

    ## Starting State
    Regions, c, s_0 ~ N(0, 0.5² I) and all noise are drawn from ``self.np_random``;
    s_{−1} is shown as s_0 and the read part as zeros.

    ## Episode End
    Terminated after ``sequence_length`` steps (default 20): the regions' windows are defined
    for these steps only. No truncation.

    ## Arguments
    ``config`` (a :class:`~assembly_gym.envs.memory.config.MemoryWorldConfig`) or its fields as
    keywords (``difficulty="easy"``, ``num_words=1024``, ``population="structured"``, …),
    ``world`` (a prebuilt :class:`~assembly_gym.envs.memory.world.MemoryWorld`, shares its memory),
    ``reward_fn``, ``render_mode`` ("ansi" or "human").

    ## Info
    ``action_mask``; after a step also ``noise_floor`` (−mean ε_t², the reward of a perfect
    read on easy), ``hit`` (the read overlaps a relevant window), ``iou`` (its best IoU with
    one) and ``windows`` ((K, 2) start and length of the relevant windows of that step).

    ## Version History
    * v0: initial version.

    Example:
        >>> import gymnasium as gym, assembly_gym
        >>> env = gym.make("assembly/MemoryDynamics-v0", difficulty="easy", num_words=1024,
        ...                sequence_length=4)
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, env.action_space
        ((196,), MultiDiscrete([  4 256 128]))
        >>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        config: MemoryWorldConfig | None = None,
        *,
        world: MemoryWorld | None = None,
        reward_fn: RewardFn | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.render_mode = self._checked_render_mode(render_mode)
        if world is not None and (config is not None or options):
            raise ValueError("pass either world or config/options, not both")
        if world is None:
            if config is not None and options:
                raise ValueError("pass either config or its fields as keywords, not both")
            world = MemoryWorld(config or MemoryWorldConfig.from_dict(options))
        self.world = world
        cfg = self.config = world.config
        self.layout = world.layout.names
        self.action_space = spaces.MultiDiscrete(
            np.array([cfg.num_pages, PAGE_SIZE, cfg.max_read_range]), dtype=np.int64
        )
        self.observation_space = spaces.Box(world.layout.low, world.layout.high, dtype=np.float32)
        self.reward_fn: RewardFn = reward_fn or ReadPredictionReward(world)
        self._mask = np.ones(int(self.action_space.nvec.sum()), dtype=bool)
        self._mask.setflags(write=False)
        self._episode: Episodes | None = None
        self._t = 0
        self._obs = np.zeros(len(self.layout), dtype=np.float32)
        self._last: dict[str, Any] | None = None

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Draw regions, characteristics and the initial state of a new episode."""
        super().reset(seed=seed)
        self._episode = self.world.sample_episodes(1, self.np_random)
        self._t = 0
        self._last = None
        s0 = self._episode.states[0, 0]
        self._obs = self._observation(s0, s0, np.zeros(self.config.word_size), (0, 0, 0))
        return self._obs.copy(), {"action_mask": self._mask.copy()}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Read the chosen range; the reward scores the prediction it allows."""
        if self._episode is None or self._t >= self.config.sequence_length:
            raise gym.error.ResetNeeded("call reset() before step() and after an episode ends")
        action = np.asarray(action)
        if (
            action.shape != (3,)
            or not np.issubdtype(action.dtype, np.integer)
            or not self.action_space.contains(action.astype(np.int64))
        ):
            raise InvalidActionError(
                f"action {action!r} is not in {self.action_space}: give [page, offset, length - 1]"
            )
        page, offset, length_code = (int(a) for a in action)
        start, length = clip_read(
            join_address(page, offset), length_code + 1, self.config.num_words
        )
        bits = self.world.memory.mean_bits(start[None], length[None])[0]
        t, episode = self._t, self._episode
        states = episode.states[0]
        next_obs = self._observation(
            states[t], states[t + 1], bits, (page, offset, int(length)), step=t + 1
        )
        obs, self._obs = self._obs, next_obs
        w_starts, w_lengths = self.config.windows(episode.regions[0], t)
        hit, iou = match_windows(start, length, w_starts, w_lengths)
        info = {
            "action_mask": self._mask.copy(),
            "noise_floor": -float(np.mean(episode.noise[0, t] ** 2)),
            "hit": bool(hit),
            "iou": float(iou),
            "windows": np.stack([w_starts, w_lengths], axis=-1),
        }
        reward = float(self.reward_fn(obs, action, next_obs, info))
        self._t = t + 1
        self._last = {"start": int(start), "length": int(length), "reward": reward, **info}
        self._show_step()
        return next_obs.copy(), reward, self._t == self.config.sequence_length, False, info

    def action_masks(self) -> np.ndarray:
        """Valid values of each action component, concatenated: all True."""
        return self._mask.copy()

    def relevant_windows(self) -> np.ndarray:
        """The answer key of the current step: (K, 2) start and length of the relevant windows.

        Hidden from the agent (not in the observation); for oracles and evaluation.
        """
        if self._episode is None:
            raise gym.error.ResetNeeded("call reset() first")
        step = min(self._t, self.config.sequence_length - 1)
        starts, lengths = self.config.windows(self._episode.regions[0], step)
        return np.stack([starts, lengths], axis=-1)

    # ------------------------------------------------------------------ helpers

    def render_text(self) -> str:
        """The last read, the relevant windows of that step and a strip of their pages."""
        cfg = self.config
        if self._episode is None:
            return "MemoryDynamics-v0: not started (call reset())"
        head = f"MemoryDynamics-v0 | {cfg.difficulty} | step {self._t}/{cfg.sequence_length}"
        if self._last is None:
            return head + " | no read yet"
        last = self._last
        lines = [
            head + f" | reward {last['reward']:+.4f} (noise floor {last['noise_floor']:+.4f})",
            f"  read      {_describe(last['start'], last['length'])}  "
            f"hit {'yes' if last['hit'] else 'no'}, IoU {last['iou']:.2f}",
        ]
        ranges = [(last["start"], last["length"])]
        for k, (start, length) in enumerate(last["windows"]):
            lines.append(f"  region {k + 1}  {_describe(int(start), int(length))}")
            ranges.append((int(start), int(length)))
        pages = sorted({start // PAGE_SIZE for start, _ in ranges})
        lines.append(
            f"  pages ({PAGE_SIZE // _CHARS_PER_PAGE} words per character; "
            "R read, # region, * both):"
        )
        for page in pages:
            lines.append(f"  {page:>5} |{_strip(page, ranges[0], ranges[1:])}|")
        return "\n".join(lines)

    def _observation(
        self,
        s_prev: np.ndarray,
        s: np.ndarray,
        bits: np.ndarray,
        read: tuple[int, int, int],
        step: int = 0,
    ) -> np.ndarray:
        cfg = self.config
        address = np.array(
            [read[0] / cfg.num_pages, read[1] / PAGE_SIZE, read[2] / cfg.max_read_range]
        )
        parts = [s_prev, s, self._episode.c[0], bits, address, [step / cfg.sequence_length]]
        return np.concatenate(parts).astype(np.float32)


def _describe(start: int, length: int) -> str:
    page, offset = divmod(start, PAGE_SIZE)
    return (
        f"page {page:>3} offset {offset:>3} length {length:>3} (words {start}–{start + length - 1})"
    )


def _strip(page: int, read: tuple[int, int], regions: list[tuple[int, int]]) -> str:
    """One character per group of words of a page: R read, # region, * both, . neither."""
    width = PAGE_SIZE // _CHARS_PER_PAGE
    cells = page * PAGE_SIZE + np.arange(_CHARS_PER_PAGE) * width

    def covers(start: int, length: int) -> np.ndarray:
        return (cells + width > start) & (cells < start + length)

    in_read = covers(*read)
    in_region = np.any([covers(*r) for r in regions], axis=0)
    chars = np.where(
        in_read & in_region, "*", np.where(in_read, "R", np.where(in_region, "#", "."))
    )
    return "".join(chars)
