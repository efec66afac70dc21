"""The LeWorld world: a bit memory, hidden relevant regions and the state dynamics they drive.

Each episode draws K relevant regions (K = 1, 2, 3 for easy, medium, hard), each inside one
page: a page h, an offset l (a multiple of ``region_alignment``) and a length L
(``min_region_length`` … ``max_region_length`` words, a multiple of the alignment). With
``hopping`` (the default) the regions hop from page to page: at step t region k covers the
window of words ``[(h_k XOR t)·256 + l_k, … + L_k)``, a different page every step inside an
aligned block of 2^⌈log2 T⌉ pages. The state follows

    s_{t+1} = 0.8·s_t + 0.15·seed_t + 0.05·tile(c) + ε_t,   ε_t ~ N(0, 0.1² I),
    seed_t  = (1/K) Σ_k tile(seed(memory[window_k(t)])),
    seed(words) = +1 where the mean of a bit position over the words is above 1/2, else −1,

where tile() repeats a vector cyclically to ``state_dim`` entries (the coefficients are
:class:`MemoryWorldConfig` fields). ``hopping=False`` keeps the regions still, as the issue
states the equation; hopping is the default because a still region is revealed by the states
themselves after one step (s_t − 0.8·s_{t−1} − 0.05·tile(c) = 0.15·seed + noise), so a model
without memory would predict as well as one that reads. With hopping every step needs new
memory content. (XOR rather than "+t": a small model learns h XOR t from the bits of h and
t with a handful of units, while h + t needs carries across the bits.)

The characteristics c (``char_dim`` values in [−1, 1]) tell *where* the regions are, never
*what* they hold: slot k (``page_bits + 2`` values) holds the bits of h_k as ±1 (least
significant first), then the offset and the length, each scaled to [−1, 1]; the remaining
values are free characteristics drawn uniformly from [−1, 1].
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from assembly_gym.core.layout import ObservationLayout
from assembly_gym.core.persist import dataclass_from_dict
from assembly_gym.envs.memory.memory import PAGE_SIZE, BitMemory, join_address, read_iou
from assembly_gym.envs.memory.population import POPULATIONS, build_memory

__all__ = [
    "DIFFICULTIES",
    "Episodes",
    "MemoryLayout",
    "MemoryWorld",
    "MemoryWorldConfig",
    "ReadPredictionReward",
]

DIFFICULTIES = {"easy": 1, "medium": 2, "hard": 3}
"""Number of relevant regions per difficulty."""


@dataclass(frozen=True)
class MemoryWorldConfig:
    """Everything that defines a LeWorld world (validated on construction).

    Attributes:
        difficulty: "easy", "medium" or "hard" (1, 2 or 3 relevant regions).
        num_words: memory size, a multiple of 256, at most 65,536.
        word_size: bits per word, 1 … 32.
        max_read_range: longest read in words (the action's third component has this many
            values).
        state_dim: size of the state s.
        char_dim: size of the characteristics c.
        sequence_length: steps per episode (T).
        population: how the memory is filled: "random", "structured" or "experience".
        memory_seed: seed of the memory's content (the memory is part of the world: the
            same for every episode of every env built with this config).
        noise_std: σ of the state noise.
        decay, memory_gain, context_gain: the coefficients 0.8, 0.15, 0.05 of the dynamics.
        hopping: regions hop to page h XOR t at step t (False: still regions).
        min_region_length, max_region_length: region lengths in words.
        region_alignment: offsets and lengths of regions are multiples of this.
        initial_std: standard deviation of the initial state s_0 ~ N(0, initial_std² I).
    """

    difficulty: str = "medium"
    num_words: int = 65_536
    word_size: int = 32
    max_read_range: int = 128
    state_dim: int = 64
    char_dim: int = 32
    sequence_length: int = 20
    population: str = "random"
    memory_seed: int = 0
    noise_std: float = 0.1
    decay: float = 0.8
    memory_gain: float = 0.15
    context_gain: float = 0.05
    hopping: bool = True
    min_region_length: int = 16
    max_region_length: int = 128
    region_alignment: int = 16
    initial_std: float = 0.5

    def __post_init__(self) -> None:
        if self.difficulty not in DIFFICULTIES:
            raise ValueError(
                f"difficulty must be one of {list(DIFFICULTIES)}, got {self.difficulty!r}"
            )
        if self.population not in POPULATIONS:
            raise ValueError(f"population must be one of {POPULATIONS}, got {self.population!r}")
        if self.num_words <= 0 or self.num_words % PAGE_SIZE or self.num_words > PAGE_SIZE**2:
            raise ValueError(
                f"num_words must be a multiple of {PAGE_SIZE} up to {PAGE_SIZE**2}, "
                f"got {self.num_words}"
            )
        for name in ("word_size", "state_dim", "char_dim", "sequence_length", "region_alignment"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.word_size > 32:
            raise ValueError(f"word_size must be at most 32 bits, got {self.word_size}")
        align = self.region_alignment
        if PAGE_SIZE % align or self.min_region_length % align or self.max_region_length % align:
            raise ValueError(
                f"region_alignment ({align}) must divide {PAGE_SIZE} and both region lengths"
            )
        if not align <= self.min_region_length <= self.max_region_length <= PAGE_SIZE:
            raise ValueError(
                f"need region_alignment ≤ min_region_length ≤ max_region_length ≤ {PAGE_SIZE}, got "
                f"{align}, {self.min_region_length}, {self.max_region_length}"
            )
        if not self.max_region_length <= self.max_read_range <= self.num_words:
            raise ValueError(
                f"max_read_range must lie in [max_region_length, num_words] so that one read can "
                f"cover a region, got {self.max_read_range}"
            )
        if self.noise_std < 0 or self.initial_std < 0:
            raise ValueError("noise_std and initial_std must be non-negative")
        if self.num_pages % self.hop_block:
            raise ValueError(
                f"regions hopping for {self.sequence_length} steps move inside blocks of "
                f"{self.hop_block} pages; the memory's {self.num_pages} pages must be a multiple "
                "(change num_words or sequence_length, or set hopping=False)"
            )
        if self.char_dim < self.num_regions * self.slot_width:
            raise ValueError(
                f"char_dim must be at least {self.num_regions * self.slot_width} to describe "
                f"{self.num_regions} region(s) of {self.slot_width} values each, "
                f"got {self.char_dim}"
            )

    @property
    def num_regions(self) -> int:
        """K, the relevant regions per episode."""
        return DIFFICULTIES[self.difficulty]

    @property
    def num_pages(self) -> int:
        """Pages of 256 words (values of the high address byte)."""
        return self.num_words // PAGE_SIZE

    @property
    def hop_block(self) -> int:
        """Pages of the aligned block a hopping region stays in: 2^⌈log2 T⌉ (1 when still)."""
        return 1 << max(0, (self.sequence_length - 1).bit_length()) if self.hopping else 1

    @property
    def page_bits(self) -> int:
        """Bits that describe a page in c."""
        return max(1, math.ceil(math.log2(self.num_pages)))

    @property
    def slot_width(self) -> int:
        """Values of c that describe one region: page bits, offset, length."""
        return self.page_bits + 2

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-serialisable dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> MemoryWorldConfig:
        """Inverse of :meth:`to_dict`; unknown keys raise ValueError naming the known ones."""
        return dataclass_from_dict(cls, values, what="world")


class MemoryLayout:
    """Named observation dimensions of ``MemoryDynamics-v0`` and the slices of each part.

    ===================  ==========  ===================================================
    names                count       meaning
    ===================  ==========  ===================================================
    ``s_prev_00`` …      state_dim   s_{t−1} (equal to s_0 at the first step)
    ``s_00`` …           state_dim   s_t
    ``c_00`` …           char_dim    characteristics c
    ``read_bit_00`` …    word_size   fraction of ones per bit position of the last read
    ``read_page``        1           page of the last read / number of pages
    ``read_offset``      1           offset of the last read / 256
    ``read_length``      1           words read (after clipping) / max_read_range
    ``step``             1           t / sequence_length
    ===================  ==========  ===================================================

    The read part is all zeros before the first read.
    """

    def __init__(self, config: MemoryWorldConfig) -> None:
        def named(prefix: str, count: int) -> list[str]:
            return [f"{prefix}_{i:02d}" for i in range(count)]

        parts = {
            "s_prev": named("s_prev", config.state_dim),
            "s": named("s", config.state_dim),
            "c": named("c", config.char_dim),
            "read_bits": named("read_bit", config.word_size),
            "read_address": ["read_page", "read_offset", "read_length"],
            "step": ["step"],
        }
        self.names = ObservationLayout([n for names in parts.values() for n in names])
        self.slices: dict[str, slice] = {}
        start = 0
        for part, names in parts.items():
            self.slices[part] = slice(start, start + len(names))
            start += len(names)
        low = np.zeros(len(self.names), dtype=np.float32)
        high = np.ones(len(self.names), dtype=np.float32)
        for part in ("s_prev", "s"):
            low[self.slices[part]], high[self.slices[part]] = -np.inf, np.inf
        low[self.slices["c"]] = -1.0
        self.low, self.high = low, high

    def __len__(self) -> int:
        return len(self.names)

    def part(self, obs: np.ndarray, name: str) -> np.ndarray:
        """One part of a batch of observations (…, d), e.g. ``layout.part(obs, "s")``."""
        return obs[..., self.slices[name]]


@dataclass(frozen=True)
class Episodes:
    """A batch of episodes of the world, generated by :meth:`MemoryWorld.sample_episodes`.

    Attributes:
        c: characteristics, shape (n, char_dim) float32.
        regions: page, offset and length of each relevant region at step 0, shape
            (n, K, 3) int64.
        states: s_0 … s_T, shape (n, T + 1, state_dim) float32.
        memory_terms: seed_t of every step, shape (n, T, state_dim) float32.
        noise: ε_t of every step, shape (n, T, state_dim) float32.
    """

    c: np.ndarray
    regions: np.ndarray
    states: np.ndarray
    memory_terms: np.ndarray
    noise: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.c)
        for name in ("regions", "states", "memory_terms", "noise"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} has {len(getattr(self, name))} episodes, expected {n}")
        if self.states.shape[1] != self.noise.shape[1] + 1:
            raise ValueError("states must hold one more step than noise (s_0 … s_T)")

    def __len__(self) -> int:
        return len(self.c)

    @property
    def sequence_length(self) -> int:
        """T, the transitions per episode."""
        return self.noise.shape[1]

    def select(self, rows: np.ndarray | slice) -> Episodes:
        """The episodes at the given rows."""
        return Episodes(
            self.c[rows],
            self.regions[rows],
            self.states[rows],
            self.memory_terms[rows],
            self.noise[rows],
        )


class MemoryWorld:
    """A world: its config, its memory (built once, from ``memory_seed``) and its dynamics.

    Args:
        config: the world's definition.
        memory: a prebuilt memory (default: built from the config's population and seed).
        experience: feature vectors for the ``"experience"`` population.

    Example:
        >>> world = MemoryWorld(MemoryWorldConfig(difficulty="easy", num_words=1024,
        ...                                       sequence_length=4))
        >>> episodes = world.sample_episodes(2, np.random.default_rng(0))
        >>> episodes.states.shape
        (2, 5, 64)
    """

    def __init__(
        self,
        config: MemoryWorldConfig | None = None,
        *,
        memory: BitMemory | None = None,
        experience: np.ndarray | None = None,
    ) -> None:
        self.config = config = config or MemoryWorldConfig()
        if memory is None:
            memory = build_memory(
                config.population,
                num_words=config.num_words,
                word_size=config.word_size,
                seed=config.memory_seed,
                experience=experience,
            )
        if (memory.num_words, memory.word_size) != (config.num_words, config.word_size):
            raise ValueError(
                f"memory of {memory.num_words} × {memory.word_size} bits does not match the "
                f"config's {config.num_words} × {config.word_size}"
            )
        self.memory = memory
        self.layout = MemoryLayout(config)

    # ------------------------------------------------------------------ the equations

    def tile(self, values: np.ndarray) -> np.ndarray:
        """Repeat the last axis cyclically to ``state_dim`` entries."""
        return values[..., np.arange(self.config.state_dim) % values.shape[-1]]

    @staticmethod
    def seed(mean_bits: np.ndarray) -> np.ndarray:
        """The seed of reads: +1 where a bit's mean over the words is above 1/2, else −1."""
        return np.where(mean_bits > 0.5, 1.0, -1.0)

    def transition_mean(self, s: np.ndarray, memory_term: np.ndarray, c: np.ndarray) -> np.ndarray:
        """E[s_{t+1}] = decay·s_t + memory_gain·memory_term + context_gain·tile(c)."""
        cfg = self.config
        return cfg.decay * s + cfg.memory_gain * memory_term + cfg.context_gain * self.tile(c)

    def single_read_term(self, mean_bits: np.ndarray) -> np.ndarray:
        """What one read tells about seed_t: its tiled seed / K (other regions: expected 0)."""
        return self.tile(self.seed(mean_bits)) / self.config.num_regions

    def windows(self, regions: np.ndarray, step: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
        """Start and length of the relevant windows at a step.

        Args:
            regions: (…, K, 3) page, offset, length at step 0.
            step: t, broadcast against regions[..., 0].

        Returns:
            (starts, lengths), each shape (…, K) int64.
        """
        pages = self.window_pages(regions[..., 0], np.asarray(step)[..., None])
        return join_address(pages, regions[..., 1]), regions[..., 2]

    def window_pages(self, pages: Any, step: Any) -> Any:
        """Page of a region at step t: h XOR t when hopping, else h (NumPy or torch ints)."""
        return pages ^ step if self.config.hopping else pages + 0 * step

    def read_quality(
        self, starts: np.ndarray, lengths: np.ndarray, regions: np.ndarray, step: np.ndarray | int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Whether each read overlaps a relevant window, and its best IoU with one.

        Args:
            starts: first word of each read, shape (…,).
            lengths: words of each read, shape (…,).
            regions: (…, K, 3) regions of the episode of each read.
            step: t of each read, broadcast against ``starts``.

        Returns:
            (hit bool, iou float64), each shape (…,).
        """
        w_starts, w_lengths = self.windows(regions, np.asarray(step))
        return self.quality_against(starts, lengths, w_starts, w_lengths)

    @staticmethod
    def quality_against(
        starts: np.ndarray, lengths: np.ndarray, w_starts: np.ndarray, w_lengths: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`read_quality` against known windows (…, K): a read hits iff its IoU is > 0."""
        iou = read_iou(starts[..., None], lengths[..., None], w_starts, w_lengths).max(axis=-1)
        return iou > 0, iou

    # ------------------------------------------------------------------ episodes

    def encode_regions(self, regions: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Characteristics c describing regions (n, K, 3); free values from ``rng``."""
        cfg = self.config
        n, k, _ = regions.shape
        c = rng.uniform(-1.0, 1.0, size=(n, cfg.char_dim))
        bits = (regions[..., :1] >> np.arange(cfg.page_bits)) & 1
        offset_levels = PAGE_SIZE // cfg.region_alignment - 1
        length_levels = (cfg.max_region_length - cfg.min_region_length) // cfg.region_alignment
        offset = regions[..., 1] / cfg.region_alignment / max(offset_levels, 1)
        length = (
            (regions[..., 2] - cfg.min_region_length) / cfg.region_alignment / max(length_levels, 1)
        )
        slots = np.concatenate(
            [2.0 * bits - 1.0, 2.0 * offset[..., None] - 1.0, 2.0 * length[..., None] - 1.0],
            axis=-1,
        )
        c[:, : k * cfg.slot_width] = slots.reshape(n, k * cfg.slot_width)
        return c

    def sample_regions(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """K regions for each of n episodes, shape (n, K, 3): page, offset, length."""
        cfg = self.config
        k, align = cfg.num_regions, cfg.region_alignment
        pages = rng.integers(0, cfg.num_pages, size=(n, k))
        n_lengths = (cfg.max_region_length - cfg.min_region_length) // align + 1
        lengths = cfg.min_region_length + align * rng.integers(0, n_lengths, size=(n, k))
        n_offsets = (PAGE_SIZE - lengths) // align + 1
        offsets = align * np.floor(rng.random((n, k)) * n_offsets).astype(np.int64)
        return np.stack([pages, offsets, lengths], axis=-1).astype(np.int64)

    def memory_terms(self, regions: np.ndarray) -> np.ndarray:
        """seed_t for every step, shape (n, T, state_dim): mean of the regions' seeds, tiled."""
        cfg = self.config
        steps = np.arange(cfg.sequence_length)[None, :, None]
        starts, lengths = self.windows(regions[:, None], steps[..., 0])
        lengths = np.broadcast_to(lengths, starts.shape)
        bits = self.memory.mean_bits(starts.ravel(), lengths.ravel())
        seeds = self.seed(bits).reshape(*starts.shape, cfg.word_size).mean(axis=2)
        return self.tile(seeds)

    def sample_episodes(self, n: int, rng: np.random.Generator) -> Episodes:
        """N independent episodes (vectorised): regions, c, states, memory terms and noise."""
        cfg = self.config
        regions = self.sample_regions(n, rng)
        c = self.encode_regions(regions, rng)
        terms = self.memory_terms(regions)
        noise = rng.normal(0.0, cfg.noise_std, size=(n, cfg.sequence_length, cfg.state_dim))
        states = np.empty((n, cfg.sequence_length + 1, cfg.state_dim))
        states[:, 0] = rng.normal(0.0, cfg.initial_std, size=(n, cfg.state_dim))
        for t in range(cfg.sequence_length):
            states[:, t + 1] = self.transition_mean(states[:, t], terms[:, t], c) + noise[:, t]
        return Episodes(
            c.astype(np.float32),
            regions,
            states.astype(np.float32),
            terms.astype(np.float32),
            noise.astype(np.float32),
        )


class ReadPredictionReward:
    """The env's reward: minus the MSE of the next-state prediction one read allows.

    prediction = decay·s_t + memory_gain·single_read_term(read bits) + context_gain·tile(c),
    scored against s_{t+1}; everything comes from the observations (the read's bits are in
    ``next_obs``), so the same function scores a learned simulator. A read that covers the
    only relevant window (easy) earns the noise floor −mean(ε_t²) ≈ −σ².

    Args:
        world: the world whose coefficients and layout to use.
    """

    def __init__(self, world: MemoryWorld) -> None:
        self.world = world

    def batch(self, obs: np.ndarray, next_obs: np.ndarray) -> np.ndarray:
        """Rewards of a batch: obs and next_obs (N, d) → shape (N,)."""
        layout, world = self.world.layout, self.world
        term = world.single_read_term(layout.part(next_obs, "read_bits"))
        prediction = world.transition_mean(layout.part(obs, "s"), term, layout.part(obs, "c"))
        return -np.mean((prediction - layout.part(next_obs, "s")) ** 2, axis=-1)

    def __call__(
        self, obs: np.ndarray, action: Any, next_obs: np.ndarray, info: dict[str, Any]
    ) -> float:
        """Reward of one step (``reward_fn`` signature)."""
        return float(self.batch(obs[None], next_obs[None])[0])
