"""Fixtures of the memory world's tests: a tiny world and a reference count of bits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from assembly_gym.envs.memory import BitMemory, MemoryWorld, MemoryWorldConfig


@pytest.fixture(scope="session")
def tiny() -> dict[str, Any]:
    """Options of a tiny world: easy, 1,024 words, 4 steps."""
    return {"difficulty": "easy", "num_words": 1024, "sequence_length": 4}


@pytest.fixture(scope="session")
def tiny_world(tiny) -> Callable[..., MemoryWorld]:
    """Factory of tiny worlds: ``tiny_world(hopping=False)``."""

    def build(**options: Any) -> MemoryWorld:
        return MemoryWorld(MemoryWorldConfig(**{**tiny, **options}))

    return build


@pytest.fixture(scope="session")
def explicit_mean_bits() -> Callable[[BitMemory, int, int], np.ndarray]:
    """Mean bits of a read, counted word by word and bit by bit (the reference)."""

    def count(memory: BitMemory, start: int, length: int) -> np.ndarray:
        stop = min(start + length, memory.num_words)
        words = memory.words[start:stop]
        bits = [[(w >> b) & 1 for b in range(memory.word_size)] for w in words]
        return np.array(bits).mean(axis=0)

    return count
