"""Population strategies that fill a :class:`~assembly_gym.envs.memory.memory.BitMemory`.

* ``"random"``: independent fair bits (the content of a region cannot be guessed without
  reading it, nor memorised by a model: 2 Mbit for the default memory).
* ``"structured"``: four quarters of patterns: cyclic single-bit dynamics (each block of
  64 words walks a random base pattern through single-bit flips, one bit position after
  another), seeded context patterns (each block of 64 words holds noisy copies of a random
  pattern, 5 % of the bits flipped), binary counters (consecutive words count up from a
  random start), and XOR associations of the first two quarters, word by word.
* ``"experience"``: observed feature vectors quantised at their median (bit = feature above
  its column's median), each vector packed into consecutive words, vectors repeated in turn
  until the memory is full. :func:`roll_call_experience` supplies the content features of
  real or synthetic roll calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from assembly_gym.core.errors import DataError
from assembly_gym.envs.memory.memory import PAGE_SIZE, BitMemory

if TYPE_CHECKING:
    from assembly_gym.envs.legislative.sources import DataSpec

__all__ = [
    "POPULATIONS",
    "build_memory",
    "from_experience",
    "random_bits",
    "roll_call_experience",
    "structured_patterns",
]

POPULATIONS = ("random", "structured", "experience")
_BLOCK = 64  # words per pattern block of the structured quarters
_CONTEXT_FLIP = 0.05  # bit-flip probability of the noisy context copies


def random_bits(num_words: int, word_size: int, rng: np.random.Generator) -> BitMemory:
    """Independent fair bits."""
    words = rng.integers(0, 1 << word_size, size=num_words, dtype=np.uint64).astype(np.uint32)
    return BitMemory(words, word_size)


def structured_patterns(num_words: int, word_size: int, rng: np.random.Generator) -> BitMemory:
    """Four quarters: single-bit dynamics, context patterns, counters, XOR of the first two."""
    quarter = num_words // 4
    mask = np.uint32((1 << word_size) - 1)
    position = np.arange(quarter)
    blocks = -(-quarter // _BLOCK)

    def block_patterns() -> np.ndarray:
        patterns = rng.integers(0, 1 << word_size, size=blocks, dtype=np.uint64).astype(np.uint32)
        return patterns[position // _BLOCK]

    # Cyclic single-bit dynamics: word j of a block flips bit (j mod word_size) of its base.
    flips = np.left_shift(np.uint32(1), (position % word_size).astype(np.uint32))
    dynamics = block_patterns() ^ flips
    # Seeded context patterns: noisy copies of each block's pattern.
    noise = rng.random((quarter, word_size)) < _CONTEXT_FLIP
    noise_words = (noise.astype(np.uint32) << np.arange(word_size, dtype=np.uint32)).sum(
        axis=1, dtype=np.uint32
    )
    context = block_patterns() ^ noise_words
    counter_start = int(rng.integers(0, 1 << word_size))
    counters = ((counter_start + position) % (1 << word_size)).astype(np.uint32)
    association = dynamics ^ context
    words = np.concatenate([dynamics, context, counters, association]) & mask
    return BitMemory(words.astype(np.uint32), word_size)


def from_experience(features: np.ndarray, num_words: int, word_size: int) -> BitMemory:
    """Feature vectors quantised at their column medians and packed into words.

    Args:
        features: observed vectors, shape (n, d), finite; n ≥ 1, d ≥ 1.
        num_words: memory size (a multiple of 256).
        word_size: bits per word.

    Raises:
        DataError: an empty, non-2-D or non-finite feature matrix.
    """
    features = np.asarray(features, dtype=np.float64)
    if features.ndim != 2 or features.size == 0:
        raise DataError("experience", f"expected a non-empty (n, d) matrix, got {features.shape}")
    if not np.isfinite(features).all():
        raise DataError("experience", "features contain NaN or infinite values")
    bits = features > np.median(features, axis=0)
    words_per_row = -(-bits.shape[1] // word_size)
    padded = np.zeros((len(bits), words_per_row * word_size), dtype=np.uint32)
    padded[:, : bits.shape[1]] = bits
    weights = np.uint32(1) << np.arange(word_size, dtype=np.uint32)
    rows = (padded.reshape(len(bits), words_per_row, word_size) * weights).sum(
        axis=2, dtype=np.uint32
    )
    stream = rows.ravel()
    words = np.resize(stream, num_words).astype(np.uint32)
    return BitMemory(words, word_size)


def roll_call_experience(data: DataSpec = None) -> np.ndarray:
    """Content features of roll calls (issues, flags, year, text), shape (R, d) float64.

    Args:
        data: anything :func:`assembly_gym.envs.legislative.sources.roll_call_data` accepts:
            None (the synthetic assembly), ``"unvotes"`` (the real votes), a path or data.
    """
    from assembly_gym.envs.legislative.observation import content_features
    from assembly_gym.envs.legislative.sources import roll_call_data

    return content_features(roll_call_data(data).roll_calls)


def build_memory(
    population: str,
    *,
    num_words: int,
    word_size: int,
    seed: int,
    experience: np.ndarray | None = None,
) -> BitMemory:
    """A memory filled by a population strategy, the same for the same arguments.

    Args:
        population: one of :data:`POPULATIONS`.
        num_words: a multiple of 256, at most 65,536.
        word_size: bits per word, 1 … 32.
        seed: seed of the random strategies.
        experience: feature vectors for ``"experience"`` (default: the synthetic roll calls).

    Raises:
        ValueError: an unknown population or a size that is not whole pages.
    """
    if population not in POPULATIONS:
        raise ValueError(f"unknown population {population!r}; choose from {POPULATIONS}")
    if num_words <= 0 or num_words % PAGE_SIZE:
        raise ValueError(f"num_words must be a positive multiple of {PAGE_SIZE}, got {num_words}")
    rng = np.random.default_rng(seed)
    if population == "random":
        return random_bits(num_words, word_size, rng)
    if population == "structured":
        return structured_patterns(num_words, word_size, rng)
    if experience is None:
        experience = roll_call_experience()
    return from_experience(experience, num_words, word_size)
