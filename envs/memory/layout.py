"""The named observation dimensions of ``assembly/MemoryDynamics-v0``."""

from __future__ import annotations

import numpy as np

from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.memory.config import MemoryWorldConfig

__all__ = ["MemoryLayout"]


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

    The read part is all zeros before the first read. Bounds (:attr:`low`, :attr:`high`):
    ``s_prev_*`` and ``s_*`` in ±``config.state_bound`` (the largest |s_t| the dynamics can
    reach: 2.99 by default, see
    :attr:`~assembly_gym.envs.memory.config.MemoryWorldConfig.state_bound`), ``c_*`` in
    [−1, 1], the rest in [0, 1].
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
        bound = config.state_bound
        for part in ("s_prev", "s"):
            low[self.slices[part]], high[self.slices[part]] = -bound, bound
        low[self.slices["c"]] = -1.0
        self.low, self.high = low, high

    def __len__(self) -> int:
        return len(self.names)

    def part(self, obs: np.ndarray, name: str) -> np.ndarray:
        """One part of a batch of observations (…, d), e.g. ``layout.part(obs, "s")``."""
        return obs[..., self.slices[name]]
