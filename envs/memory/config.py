"""What defines a LeWorld world: sizes, difficulty, dynamics and where its regions lie.

:class:`MemoryWorldConfig` is the world's immutable description. Besides the sizes of the
memory, the state and the characteristics, it knows the geometry of the relevant regions:
where region k lies at step t (:meth:`MemoryWorldConfig.windows`) and how well a read
covers one (:meth:`MemoryWorldConfig.read_quality`). The memory's content is not part of
it: that is a :class:`~assembly_gym.envs.memory.memory.BitMemory`, built from
``population`` and ``memory_seed`` by :class:`~assembly_gym.envs.memory.world.MemoryWorld`
or passed explicitly.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from assembly_gym.core.persist import dataclass_from_dict
from assembly_gym.envs.memory.memory import PAGE_SIZE, join_address, match_windows
from assembly_gym.envs.memory.population import POPULATIONS

__all__ = ["CLIP_SIGMAS", "DIFFICULTIES", "MemoryWorldConfig"]

DIFFICULTIES = {"easy": 1, "medium": 2, "hard": 3}
"""Number of relevant regions per difficulty."""

CLIP_SIGMAS = 4.0
"""The state noise ε_t and the initial state s_0 are clipped at this many standard deviations
(a value changes with probability 6·10⁻⁵), so that every state lies in a finite box."""


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
        noise_std: σ of the state noise (clipped at ±:data:`CLIP_SIGMAS` σ).
        decay, memory_gain, context_gain: the coefficients 0.8, 0.15, 0.05 of the dynamics.
        hopping: regions hop to page h XOR t at step t (False: still regions).
        min_region_length, max_region_length: region lengths in words.
        region_alignment: offsets and lengths of regions are multiples of this.
        initial_std: standard deviation of the initial state s_0 ~ N(0, initial_std² I)
            (clipped at ±:data:`CLIP_SIGMAS` standard deviations).
        pointer_chasing: region k's page at step t + 1 is h_k XOR the first ``page_bits``
            bits of the seed of region k + 1's window (mod K) at step t, so where to read
            next depends on what was read, not only on c and t (replaces ``hopping``; needs
            a power-of-two number of pages and ``word_size ≥ page_bits``). Regions then
            carry their pages at every step: shape (…, K, 3 + T).
        decoy_regions: regions that c describes like the relevant ones but that no step
            depends on (drawn after them; 0: none). A model that reads every described
            region wastes those reads: LeWorld's router should learn to skip them
            (docs/leworld.md, "Routing"). Not with ``pointer_chasing``.
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
    pointer_chasing: bool = False
    decoy_regions: int = 0

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
        if self.pointer_chasing and (
            self.num_pages & (self.num_pages - 1) or self.word_size < self.page_bits
        ):
            raise ValueError(
                "pointer_chasing needs a power-of-two number of pages and word_size ≥ "
                f"{self.page_bits} (the page bits), got {self.num_pages} pages and "
                f"word_size {self.word_size}"
            )
        if self.decoy_regions < 0 or (self.decoy_regions and self.pointer_chasing):
            raise ValueError(
                f"decoy_regions must be non-negative and 0 with pointer_chasing, "
                f"got {self.decoy_regions}"
            )
        if self.char_dim < self.described_regions * self.slot_width:
            raise ValueError(
                f"char_dim must be at least {self.described_regions * self.slot_width} to "
                f"describe {self.described_regions} region(s) of {self.slot_width} values each, "
                f"got {self.char_dim}"
            )

    @property
    def num_regions(self) -> int:
        """K, the relevant regions per episode."""
        return DIFFICULTIES[self.difficulty]

    @property
    def described_regions(self) -> int:
        """Regions c describes: the K relevant ones, then the decoys."""
        return self.num_regions + self.decoy_regions

    @property
    def num_pages(self) -> int:
        """Pages of 256 words (values of the high address byte)."""
        return self.num_words // PAGE_SIZE

    @property
    def hop_block(self) -> int:
        """Pages of the aligned block a hopping region stays in: 2^⌈log2 T⌉ (else 1)."""
        if not self.hopping or self.pointer_chasing:
            return 1
        return 1 << max(0, (self.sequence_length - 1).bit_length())

    @property
    def page_bits(self) -> int:
        """Bits that describe a page in c."""
        return max(1, math.ceil(math.log2(self.num_pages)))

    @property
    def slot_width(self) -> int:
        """Values of c that describe one region: page bits, offset, length."""
        return self.page_bits + 2

    @property
    def state_bound(self) -> float:
        """The largest |s_t| the dynamics can reach, over the ``sequence_length`` steps.

        |s_0| ≤ :data:`CLIP_SIGMAS`·initial_std, and since seed_t and c lie in [−1, 1] and
        |ε_t| ≤ :data:`CLIP_SIGMAS`·noise_std, |s_{t+1}| ≤ |decay|·|s_t| + |memory_gain| +
        |context_gain| + :data:`CLIP_SIGMAS`·noise_std (2.99 with the defaults). Computed with
        the dynamics' own floating-point operations, so that no state rounds past it.
        """
        step_bound = largest = CLIP_SIGMAS * self.initial_std
        for _ in range(self.sequence_length):
            step_bound = (
                abs(self.decay) * step_bound
                + abs(self.memory_gain)
                + abs(self.context_gain)
                + CLIP_SIGMAS * self.noise_std
            )
            largest = max(largest, step_bound)
        return largest

    # ------------------------------------------------------------------ where the regions are

    def region_pages(self, regions: Any, step: Any) -> Any:
        """Page of each region at step t, NumPy or torch ints.

        Args:
            regions: (…, K, 3) page, offset, length at step 0; with ``pointer_chasing``
                (…, K, 3 + T), its last T columns the page at each step.
            step: t, broadcast against regions[..., 0].

        Returns:
            Shape of ``regions[..., 0]`` and ``step`` broadcast: h XOR t when hopping, else h.
        """
        if not self.pointer_chasing:
            pages = regions[..., 0]
            return pages ^ step if self.hopping else pages + 0 * step
        route = regions[..., 3:]
        shape = np.broadcast_shapes(tuple(route.shape[:-1]), tuple(np.shape(step)))
        if isinstance(route, np.ndarray):
            index = np.broadcast_to(step, shape)[..., None]
            full = np.broadcast_to(route, (*shape, route.shape[-1]))
            return np.take_along_axis(full, index, axis=-1)[..., 0]
        index = step.expand(shape).unsqueeze(-1)  # torch
        return route.expand(*shape, route.shape[-1]).gather(-1, index).squeeze(-1)

    def windows(self, regions: np.ndarray, step: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
        """Start and length of the relevant windows at a step (decoys left out).

        Args:
            regions: (…, K + decoys, 3) page, offset, length at step 0 (…, K, 3 + T with
                ``pointer_chasing``: :meth:`region_pages`).
            step: t, broadcast against regions[..., 0].

        Returns:
            (starts, lengths), each shape (…, K) int64.
        """
        regions = regions[..., : self.num_regions, :]
        pages = self.region_pages(regions, np.asarray(step)[..., None])
        return join_address(pages, regions[..., 1]), regions[..., 2]

    def read_quality(
        self, starts: np.ndarray, lengths: np.ndarray, regions: np.ndarray, step: np.ndarray | int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Whether each read overlaps a relevant window, and its best IoU with one.

        Args:
            starts: first word of each read, shape (…,).
            lengths: words of each read, shape (…,).
            regions: (…, K + decoys, 3) regions of the episode of each read.
            step: t of each read, broadcast against ``starts``.

        Returns:
            (hit bool, iou float64), each shape (…,).
        """
        return match_windows(starts, lengths, *self.windows(regions, np.asarray(step)))

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-serialisable dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> MemoryWorldConfig:
        """Inverse of :meth:`to_dict`; unknown keys raise ValueError naming the known ones."""
        return dataclass_from_dict(cls, values, what="world")
