"""The bit memory of the LeWorld world and its address arithmetic.

Addresses are 16-bit at most: a *page* (the high byte, 256 values for the default 65,536
words) and an *offset* inside the page (the low byte, always 256 values). A read is a
start address and a length of 1 … ``max_read_range`` words; a read that would run past the
end of memory is clipped there (it is never wrapped around).

The memory is stored compactly, one ``np.uint32`` per word (the low ``word_size`` bits are
used). Reads count ones with a table of running counts per bit position, built at the first
read (int32, 4·word_size bytes per word: 8 MiB for the default memory), so that a read of
any length costs two rows of it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "MAX_WORDS",
    "PAGE_SIZE",
    "BitMemory",
    "clip_read",
    "join_address",
    "match_windows",
    "read_iou",
    "split_address",
]

PAGE_SIZE = 256
"""Words per page: the number of values of the low address byte."""
MAX_WORDS = PAGE_SIZE * PAGE_SIZE
"""Largest memory: 65,536 words, addressed by two bytes."""


def join_address(page: np.ndarray | int, offset: np.ndarray | int) -> np.ndarray:
    """Start address of (page, offset): ``page * 256 + offset``, int64."""
    return np.asarray(page, dtype=np.int64) * PAGE_SIZE + np.asarray(offset, dtype=np.int64)


def split_address(address: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """(page, offset) of an address: its high and low byte, int64 each."""
    address = np.asarray(address, dtype=np.int64)
    return address // PAGE_SIZE, address % PAGE_SIZE


def clip_read(
    start: np.ndarray | int, length: np.ndarray | int, num_words: int
) -> tuple[np.ndarray, np.ndarray]:
    """A read clipped at the end of memory: (start, length) with ``start + length ≤ num_words``.

    Args:
        start: first word of each read, in [0, num_words).
        length: requested number of words, ≥ 1.
        num_words: size of the memory.

    Raises:
        ValueError: a start outside the memory or a length below 1.
    """
    start = np.asarray(start, dtype=np.int64)
    length = np.asarray(length, dtype=np.int64)
    if np.any(start < 0) or np.any(start >= num_words):
        raise ValueError(f"read start outside the memory of {num_words} words: {start}")
    if np.any(length < 1):
        raise ValueError(f"read lengths must be at least 1 word, got {length}")
    return start, np.minimum(length, num_words - start)


def read_iou(
    start_a: np.ndarray, length_a: np.ndarray, start_b: np.ndarray, length_b: np.ndarray
) -> np.ndarray:
    """Intersection over union of [start_a, start_a + length_a) and [start_b, …), in [0, 1]."""
    low = np.maximum(start_a, start_b)
    high = np.minimum(np.asarray(start_a) + length_a, np.asarray(start_b) + length_b)
    overlap = np.maximum(high - low, 0)
    return overlap / (np.asarray(length_a) + length_b - overlap)


def match_windows(
    starts: np.ndarray, lengths: np.ndarray, w_starts: np.ndarray, w_lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """How reads (…,) meet their windows (…, K): a read hits iff its best IoU is positive.

    Returns:
        (hit bool, best IoU float64), each shape (…,).
    """
    iou = read_iou(starts[..., None], lengths[..., None], w_starts, w_lengths).max(axis=-1)
    return iou > 0, iou


@dataclass(frozen=True)
class BitMemory:
    """``num_words`` words of ``word_size`` bits, one ``np.uint32`` per word.

    Attributes:
        words: the words, shape (num_words,) uint32, read-only; num_words is a multiple of
            256 (whole pages) and at most 65,536.
        word_size: bits per word, 1 … 32 (bit b of a word is ``(word >> b) & 1``).

    Example:
        >>> memory = BitMemory(np.arange(256, dtype=np.uint32), word_size=8)
        >>> memory.mean_bits(np.array([0]), np.array([2]))[0, :2]  # words 0 and 1
        array([0.5, 0. ])
    """

    words: np.ndarray
    word_size: int

    def __post_init__(self) -> None:
        words = self.words
        if words.dtype != np.uint32 or words.ndim != 1:
            raise ValueError(f"words must be a 1-D uint32 array, got {words.dtype} {words.shape}")
        if len(words) == 0 or len(words) % PAGE_SIZE or len(words) > MAX_WORDS:
            raise ValueError(
                f"a memory holds whole pages of {PAGE_SIZE} words, at most {MAX_WORDS} words; "
                f"got {len(words)}"
            )
        if not 1 <= self.word_size <= 32:
            raise ValueError(f"word_size must be 1 … 32 bits, got {self.word_size}")
        if self.word_size < 32 and np.any(words >> np.uint32(self.word_size)):
            raise ValueError(f"words have bits set above word_size={self.word_size}")
        if words.flags.writeable:
            words = words.copy()
            words.setflags(write=False)
            object.__setattr__(self, "words", words)

    @property
    def num_words(self) -> int:
        """Number of words."""
        return len(self.words)

    @property
    def num_pages(self) -> int:
        """Number of pages of 256 words (values of the high address byte)."""
        return len(self.words) // PAGE_SIZE

    def unpack(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Bits of the words [start, stop), shape (stop - start, word_size) uint8."""
        return _unpack(self.words[start:stop], self.word_size)

    def mean_bits(self, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Fraction of ones of every bit position over each read, vectorised.

        Args:
            starts: first word of each read, shape (N,), in [0, num_words).
            lengths: words per read, shape (N,), ≥ 1; clipped at the end of memory.

        Returns:
            Shape (N, word_size) float64 in [0, 1].
        """
        starts, lengths = clip_read(np.ravel(starts), np.ravel(lengths), self.num_words)
        return self.clipped_mean_bits(starts, lengths)

    def clipped_mean_bits(self, starts: Any, lengths: Any) -> np.ndarray:
        """:meth:`mean_bits` of reads already clipped (:func:`clip_read`), unchecked.

        Args:
            starts: first word of each read, an int or an int array of any shape.
            lengths: words per read, ≥ 1 with ``start + length ≤ num_words``, broadcast
                against ``starts``.

        Returns:
            Shape starts.shape + (word_size,) float64 in [0, 1].
        """
        return self.count_ones(starts, lengths) / np.asarray(lengths, dtype=np.int64)[..., None]

    def count_ones(self, starts: Any, lengths: Any) -> np.ndarray:
        """Ones of every bit position over reads already clipped, as :meth:`clipped_mean_bits`.

        Returns:
            Shape broadcast(starts, lengths).shape + (word_size,) int32.
        """
        counts = self._counts
        return counts[starts + lengths] - counts[starts]

    @functools.cached_property
    def _counts(self) -> np.ndarray:
        """Ones per bit position in the words [0, i), shape (num_words + 1, word_size) int32."""
        counts = np.zeros((self.num_words + 1, self.word_size), dtype=np.int32)
        np.cumsum(self.unpack(), axis=0, dtype=np.int32, out=counts[1:])
        return counts

    def __getstate__(self) -> dict[str, Any]:
        """The fields only: the running counts are rebuilt where they are needed."""
        return {"words": self.words, "word_size": self.word_size}

    def __deepcopy__(self, memo: dict[int, Any]) -> BitMemory:
        """The memory itself: it is immutable, so copies of an env share it (and its counts)."""
        return self


def _unpack(words: np.ndarray, word_size: int) -> np.ndarray:
    """Bits of uint32 words, shape words.shape + (word_size,) uint8 (least significant first)."""
    shifts = np.arange(word_size, dtype=np.uint32)
    return ((words[..., None] >> shifts) & np.uint32(1)).astype(np.uint8)
