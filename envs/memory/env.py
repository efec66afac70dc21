"""``assembly/MemoryDynamics-v0``: choose which memory range to read to predict the next state."""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.core.render import RenderModes
from assembly_gym.core.rewards import RewardFn, checked_reward
from assembly_gym.envs.memory.config import MemoryWorldConfig
from assembly_gym.envs.memory.memory import PAGE_SIZE
from assembly_gym.envs.memory.render import MemoryPicture, MemoryView
from assembly_gym.envs.memory.world import Episodes, MemoryWorld, ReadPredictionReward
from assembly_gym.envs.options import OptionTypes, checked_options

__all__ = ["MemoryDynamicsEnv"]

_CHARS_PER_PAGE = 32  # render: one character per 8 words


class MemoryDynamicsEnv(RenderModes, gym.Env[np.ndarray, np.ndarray]):
    """The LeWorld world seen by one small model: each step, read one address range.

    ## Description
    A bit memory (default 65,536 words × 32 bits, built once per env from ``memory_seed``)
    and hidden relevant regions drive the state (the equations:
    :mod:`assembly_gym.envs.memory.world`). The agent plays a small model (SLM): from s_{t−1},
    s_t, the characteristics c (which encode where the regions are) and the content of its
    last read it chooses the next read. Reading the window of a relevant region makes its
    seed, hence s_{t+1}, predictable.

    ## Action Space
    ``MultiDiscrete([num_pages, 256, max_read_range])``, default ``[256, 256, 128]``:
    the page (high address byte), the offset in the page (low byte) and **length − 1**
    (0 reads one word, 127 reads 128 words). Reads that would pass the end of memory are
    clipped there. Every action is valid (``info["action_mask"]`` / :meth:`action_masks`,
    one block of booleans per component, are all True).

    ## Observation Space
    ``Box(float32)`` of ``2·state_dim + char_dim + word_size + 4`` values (196 by default):
    ``s_prev_*``, ``s_*``, ``c_*``, ``read_bit_*``, ``read_page``, ``read_offset``,
    ``read_length`` and ``step``, named and bounded as :attr:`layout`
    (:class:`~assembly_gym.envs.memory.layout.MemoryLayout`) lists them. Every observation
    lies in the box and is a fresh array.

    ## Rewards
    ``reward_fn(obs, action, next_obs, info)``, by default
    :class:`~assembly_gym.envs.memory.world.ReadPredictionReward`: minus the mean squared error of
    the analytic prediction the read allows (its seed stands for one of the K regions; the
    others count as unknown). A read of the relevant window earns the noise floor ≈ −σ²
    = −0.01 on easy; with K regions one read leaves (K − 1)/K of seed_t unknown.

    ## Starting State
    Regions, c, s_0 ~ N(0, 0.5² I) (clipped at ±4 standard deviations) and all noise are
    drawn from ``self.np_random``; s_{−1} is shown as s_0 and the read part as zeros.

    ## Episode End
    Terminated after ``sequence_length`` steps (default 20): the regions' windows are defined
    for these steps only. No truncation.

    ## Arguments
    ``config`` (a :class:`~assembly_gym.envs.memory.config.MemoryWorldConfig`) or its fields as
    keywords (``difficulty="easy"``, ``num_words=1024``, ``population="structured"``, …),
    ``world`` (a prebuilt :class:`~assembly_gym.envs.memory.world.MemoryWorld`, shares its memory),
    ``reward_fn``, ``render_mode`` ("ansi", "human" or "rgb_array").

    ## Info
    The same keys, each with one type, at reset and at every step (so that Minari's
    ``DataCollector(env, record_infos=True)`` records them):

    ===============  ===============  ======================================================
    key              type             value
    ===============  ===============  ======================================================
    ``action_mask``  bool (Σ nvec,)   valid values of each action component: all True
    ``noise_floor``  float            −mean ε_t² of the step: the reward of a perfect read
                                      on easy; 0.0 at reset
    ``hit``          bool             the read overlaps a relevant window; False at reset
    ``iou``          float            its best IoU with one; 0.0 at reset
    ``windows``      int64 (K, 2)     start and length of the relevant windows of the step
                                      just played; zeros at reset (nothing is revealed)
    ===============  ===============  ======================================================

    ## Rendering
    "rgb_array": a (480, 640, 3) uint8 picture of the memory, its relevant windows (hidden
    from the agent, not from the viewer) and the reads, described in docs/rendering.md.
    "human": that picture in a window (pygame). "ansi": the last read and the windows as text.

    ## Version History
    * v0: the behaviour of the first release (docs/architecture.md, "Versions").

    Example:
        >>> import gymnasium as gym, assembly_gym
        >>> env = gym.make("assembly/MemoryDynamics-v0", difficulty="easy", num_words=1024,
        ...                sequence_length=4)
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, env.action_space
        ((196,), MultiDiscrete([  4 256 128]))
        >>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    RESET_OPTIONS: OptionTypes = {}
    """What ``reset(options=…)`` takes: nothing (the world is fixed at construction)."""

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
        self.action_space: spaces.MultiDiscrete = spaces.MultiDiscrete(
            np.array([cfg.num_pages, PAGE_SIZE, cfg.max_read_range]), dtype=np.int64
        )
        self.observation_space = spaces.Box(world.layout.low, world.layout.high, dtype=np.float32)
        self.reward_fn: RewardFn = reward_fn or ReadPredictionReward(world)
        self._mask = np.ones(int(self.action_space.nvec.sum()), dtype=bool)
        self._mask.setflags(write=False)
        self._episode: Episodes | None = None
        self._t = 0
        self._obs = np.zeros(len(self.layout), dtype=np.float32)
        # The observation of each step t = 0 … T before its read: s_{t−1} (s_0 at t = 0), s_t,
        # c, zeros and t / T; the rows of an episode are built at reset from empty ones.
        self._rows = np.zeros((cfg.sequence_length + 1, len(self.layout)), dtype=np.float32)
        self._empty_rows = self._rows.copy()
        self._empty_rows[:, world.layout.slices["step"].start] = [
            t / cfg.sequence_length for t in range(cfg.sequence_length + 1)
        ]
        self._previous = np.maximum(np.arange(cfg.sequence_length + 1) - 1, 0)  # s_{t−1}'s row
        self._read_bits = world.layout.slices["read_bits"]
        self._read_address = world.layout.slices["read_address"]
        self._errors: np.ndarray | None = None  # (2, T, state_dim): see reset
        self._either = np.zeros((2, cfg.sequence_length, cfg.state_dim), dtype=bool)
        self._either[0] = True  # a read's seed +1 ([0]) or −1 ([1]) in every entry
        # Of the current episode, for every step t: the relevant windows (T, K, 2) and, as
        # Python numbers, those windows and the noise floor.
        self._windows = np.zeros((cfg.sequence_length, cfg.num_regions, 2), dtype=np.int64)
        self._window_list: list[list[tuple[int, int]]] = []
        self._floors: list[float] = []
        self._last: dict[str, Any] | None = None
        self._reads: list[dict[str, Any]] = []  # the episode's reads, for the picture

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Draw regions, characteristics and the initial state of a new episode.

        Raises:
            ValueError: ``options`` has a key (the env takes none).
        """
        checked_options(options, self.RESET_OPTIONS, "MemoryDynamics-v0")
        super().reset(seed=seed)
        cfg = self.config
        self._episode = episode = self.world.sample_episodes(1, self.np_random)
        starts, lengths = cfg.windows(episode.regions[0], np.arange(cfg.sequence_length))
        self._windows = np.stack(np.broadcast_arrays(starts, lengths), axis=-1)  # (T, K, 2)
        self._window_list = [  # as Python numbers
            [(start, length) for start, length in step] for step in self._windows.tolist()
        ]
        self._floors = (-np.mean(episode.noise[0] ** 2, axis=-1)).tolist()
        self._t = 0
        self._last = None
        self._reads = []
        parts, states = self.world.layout.slices, episode.states[0]
        rows = self._rows = self._empty_rows.copy()
        rows[:, parts["s_prev"]] = states[self._previous]
        rows[:, parts["s"]] = states
        rows[:, parts["c"]] = episode.c[0]
        self._obs = rows[0].copy()
        # The world's own reward: the squared errors of each step for either seed of a read
        self._errors, own = None, self.own_reward()
        if own is not None:
            context = self.world.context_term(episode.c[0])
            self._errors = own.squared_errors(self._either, states[:-1], context, states[1:])
        # The keys of a step's info, with placeholders: nothing has been read yet.
        info = {"action_mask": self._mask.copy(), "noise_floor": 0.0, "hit": False, "iou": 0.0,
                "windows": np.zeros((self.config.num_regions, 2), dtype=np.int64)}  # fmt: skip
        return self._obs.copy(), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Read the chosen range; the reward scores the prediction it allows.

        Raises:
            RewardFunctionError: ``reward_fn`` returned NaN or ±inf (the env has not moved).
        """
        if self._episode is None or self._t >= self.config.sequence_length:
            raise gym.error.ResetNeeded("call reset() before step() and after an episode ends")
        action = np.asarray(action)
        cfg = self.config
        page, offset, length_code = action.tolist() if action.shape == (3,) else (-1, 0, 0)
        if not (
            action.dtype.kind in "iu"
            and 0 <= page < cfg.num_pages
            and 0 <= offset < PAGE_SIZE
            and 0 <= length_code < cfg.max_read_range
        ):
            raise InvalidActionError(
                f"action {action!r} is not in {self.action_space}: give [page, offset, length - 1]"
            )
        start = page * PAGE_SIZE + offset
        length = min(length_code + 1, cfg.num_words - start)  # clipped at the end of memory
        t = self._t
        next_obs = self._rows[t + 1].copy()
        next_obs[self._read_bits] = self.world.memory.clipped_mean_bits(start, length)
        next_obs[self._read_address] = (
            page / cfg.num_pages, offset / PAGE_SIZE, length / cfg.max_read_range,
        )  # fmt: skip
        iou = max(_iou(start, length, *window) for window in self._window_list[t])
        info = {
            "action_mask": self._mask.copy(),
            "noise_floor": self._floors[t],
            "hit": iou > 0,
            "iou": iou,
            "windows": self._windows[t].copy(),
        }
        if self._errors is None or self.own_reward() is None:
            reward = float(self.reward_fn(self._obs, action, next_obs, info))
        else:  # the world's own reward, from the episode's table
            above = self.world.tile(next_obs[self._read_bits] > 0.5)
            reward = float(ReadPredictionReward.of_errors(np.where(above, *self._errors[:, t])))
        reward = checked_reward(self.reward_fn, reward)
        self._obs, self._t = next_obs, t + 1
        self._last = {"start": start, "length": length, "reward": reward, **info}
        self._reads.append(self._last)
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

    def render_frame(self) -> np.ndarray:
        """The memory with the regions and the reads, shape (480, 640, 3) uint8."""
        cfg, episode = self.config, self._episode
        title = f"MemoryDynamics-v0 · {cfg.difficulty} · {cfg.num_words:,} words"
        if episode is None:
            return self._picture.draw(
                MemoryView(
                    title,
                    ("not started (call reset())",),
                    np.zeros((0, cfg.state_dim)),
                    steps=cfg.sequence_length,
                )
            )
        t, reads = self._t, self._reads
        lines = [f"step {t} of {cfg.sequence_length}"]
        if reads:
            last = reads[-1]
            page, offset = divmod(last["start"], PAGE_SIZE)
            met = "hit" if last["hit"] else "miss"
            lines += [
                f"read page {page}, offset {offset}",
                f"{last['length']} words: {met}, IoU {last['iou']:.2f}",
                f"reward {last['reward']:+.4f}",
                f"noise floor {last['noise_floor']:+.4f}",
            ]
        else:
            lines.append("no read yet")
        starts, lengths = cfg.windows(episode.regions[0], np.arange(t))  # (t, K) each
        earlier = np.stack(np.broadcast_arrays(starts, lengths), axis=-1)
        return self._picture.draw(
            MemoryView(
                title=title,
                lines=tuple(lines),
                states=episode.states[0, : t + 1],
                steps=cfg.sequence_length,
                targets=self.relevant_windows() if t < cfg.sequence_length else np.zeros((0, 2)),
                earlier=earlier.reshape(-1, 2),
                reads=np.array([(r["start"], r["length"]) for r in reads]).reshape(-1, 2),
                hits=np.array([r["hit"] for r in reads], dtype=bool),
                rewards=np.array([(r["reward"], r["noise_floor"]) for r in reads]).reshape(-1, 2),
            )
        )

    def own_reward(self) -> ReadPredictionReward | None:
        """``reward_fn`` if it is the world's :class:`ReadPredictionReward`, else None."""
        reward_fn = self.reward_fn
        if type(reward_fn) is ReadPredictionReward and reward_fn.world is self.world:
            return reward_fn
        return None

    @functools.cached_property
    def _picture(self) -> MemoryPicture:
        """The memory as a picture, built at the first frame (the memory never changes)."""
        return MemoryPicture(self.world.memory.words, self.config.word_size)


def _iou(start: int, length: int, window_start: int, window_length: int) -> float:
    """IoU of a read and a window, in Python numbers (``read_iou``'s arithmetic)."""
    overlap = max(min(start + length, window_start + window_length) - max(start, window_start), 0)
    return overlap / (length + window_length - overlap)


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
