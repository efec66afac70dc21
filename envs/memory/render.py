"""The picture of ``MemoryDynamics-v0``: the memory, its relevant regions, the reads, the state.

What the picture shows: docs/rendering.md. The memory map is 256 × 256 shades for the default
65,536 × 32 bits, scaled to the panel once per env.

Example:
    >>> words = np.arange(1024, dtype=np.uint32)
    >>> picture = MemoryPicture(words, word_size=10)
    >>> view = MemoryView("MemoryDynamics-v0", ("no read yet",), np.zeros((1, 2)), steps=4)
    >>> picture.draw(view).shape
    (480, 640, 3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw

from assembly_gym.core.render import (
    BACKGROUND,
    FRAME_SHAPE,
    INK,
    MUTED,
    PALETTE,
    draw_text,
    fit_text,
    line_plot,
)
from assembly_gym.envs.memory.memory import PAGE_SIZE

__all__ = ["MemoryPicture", "MemoryView"]

# Geometry of the 640 × 480 frame, in pixels: the map on the left, text and plots right.
_MAP = (44, 80, 396, 432)  # left, top, right, bottom
_PANEL = 416
_RIGHT = FRAME_SHAPE[1] - 16
_LEGEND_Y = 458
_DARK, _LIGHT = np.array((52, 58, 84.0)), np.array((228, 231, 238.0))  # shade of 0 and 1 bits
_TARGET = (148, 60, 190)  # relevant windows: purple
_EARLIER = (190, 160, 214)
_HIT, _MISS = (40, 160, 70), (240, 120, 20)
_STATE_LINES = 6  # state dimensions plotted
_MIN_ROW = 7  # pixels: ranges are drawn at least this tall, so that one page shows
_MAX_READ_ROW = 14  # pixels: reads are drawn at most this tall, so that the memory shows


@dataclass(frozen=True)
class MemoryView:
    """What one frame of ``MemoryDynamics-v0`` shows.

    Attributes:
        title: the first line.
        lines: text beside the map (the last read, its reward).
        states: the state trace so far, s_0 … s_t, shape (t + 1, state_dim).
        steps: T, the steps of an episode (the plots' x axis).
        targets: start and length of the relevant windows of the coming step, (K, 2).
        earlier: those of the steps already played, (M, 2).
        reads: start and length of the reads so far, (n, 2).
        hits: whether each read met a relevant window, (n,) bool.
        rewards: reward and noise floor of each read, (n, 2).
    """

    title: str
    lines: tuple[str, ...]
    states: np.ndarray
    steps: int
    targets: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    earlier: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    reads: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    hits: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    rewards: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))


class MemoryPicture:
    """A memory drawn as a map of pages, into 480 × 640 frames with a view's overlays.

    Args:
        words: the memory, one word per entry, shape (num_words,) uint32 (whole pages).
        word_size: bits per word (the low bits of each entry).

    Raises:
        ValueError: the memory is not a whole number of pages.
    """

    def __init__(self, words: np.ndarray, word_size: int) -> None:
        words = np.asarray(words)
        if words.ndim != 1 or not len(words) or len(words) % PAGE_SIZE:
            raise ValueError(
                f"the memory must be whole pages of {PAGE_SIZE} words, got {words.shape}"
            )
        self.num_pages = len(words) // PAGE_SIZE
        ones = np.unpackbits(words.astype("<u4").view(np.uint8)).reshape(len(words), 32).sum(1)
        # Shades stretched over the middle of the range: random words hold about half ones.
        share = np.clip((ones / word_size - 0.2) / 0.6, 0, 1).reshape(self.num_pages, PAGE_SIZE)
        shades = (_DARK + (_LIGHT - _DARK) * share[..., None]).astype(np.uint8)
        left, top, right, bottom = _MAP
        memory = Image.fromarray(shades).resize(
            (right - left, bottom - top), Image.Resampling.NEAREST
        )
        image = Image.new("RGB", FRAME_SHAPE[1::-1], BACKGROUND)
        image.paste(memory, (left, top))
        draw_text(image, (left, top - 6), "memory: a row per page, a column per word "
                  "(shade: share of 1 bits)", 12, MUTED, "ld")  # fmt: skip
        draw_text(image, (left - 6, top), "0", 11, MUTED, "ra")
        draw_text(image, (left - 6, bottom), str(self.num_pages - 1), 11, MUTED, "rd")
        draw_text(image, (left - 6, (top + bottom) / 2), "page", 11, MUTED, "rm")
        for kind, colour, x in (("relevant now", _TARGET, 16), ("earlier", _EARLIER, 150),
                                ("read: hit", _HIT, 250), ("read: miss", _MISS, 360)):  # fmt: skip
            box = (x, _LEGEND_Y - 6, x + 18, _LEGEND_Y + 6)
            if kind.startswith("read"):
                ImageDraw.Draw(image).rectangle(box, fill=colour)
            else:
                ImageDraw.Draw(image).rectangle(box, outline=colour, width=2)
            draw_text(image, (x + 24, _LEGEND_Y), kind, 12, INK, "lm")
        self._background = np.array(image)

    def draw(self, view: MemoryView) -> np.ndarray:
        """The frame of ``view``: a fresh array of shape (480, 640, 3), uint8."""
        image = Image.fromarray(self._background)
        draw = ImageDraw.Draw(image)
        draw_text(image, (16, 12), fit_text(view.title, 19, _RIGHT - 16, bold=True), 19, INK,
                  bold=True)  # fmt: skip
        for start, length in view.earlier:
            for box in self._boxes(start, length):
                draw.rectangle(box, outline=_EARLIER, width=1)
        for i, ((start, length), hit) in enumerate(zip(view.reads, view.hits, strict=True)):
            last = i == len(view.reads) - 1
            for box in self._boxes(start, length, _MAX_READ_ROW):
                draw.rectangle(box, fill=_HIT if hit else _MISS, outline=INK if last else None)
        for start, length in view.targets:
            for left, top, right, bottom in self._boxes(start, length):
                draw.rectangle((left - 2, top - 2, right + 2, bottom + 2), outline=_TARGET, width=2)
        y = _MAP[1] - 4
        for line in view.lines:
            draw_text(image, (_PANEL, y), fit_text(line, 13, _RIGHT - _PANEL), 13, INK)
            y += 19
        states = np.asarray(view.states)[:, :_STATE_LINES]
        title = f"state s_t (first {states.shape[1]} of {view.states.shape[1]})"
        line_plot(image, (_PANEL, 196, _RIGHT, 314), states, x_max=view.steps, title=title)
        rewards = np.asarray(view.rewards, dtype=np.float64).reshape(-1, 2)
        rewards = np.vstack([np.full((1, 2), np.nan), rewards])  # the reward of read k at step k
        line_plot(image, (_PANEL, 324, _RIGHT, 432), rewards, x_max=view.steps,
                  title="reward, noise floor", colours=(PALETTE[0], MUTED))  # fmt: skip
        return np.array(image)

    def _boxes(
        self, start: int, length: int, tallest: float = np.inf
    ) -> list[tuple[float, float, float, float]]:
        """The rectangles of a word range on the map, one per page it touches.

        Each is a page's row, at least :data:`_MIN_ROW` and at most ``tallest`` pixels tall.
        """
        left, top, right, bottom = _MAP
        width, height = (right - left) / PAGE_SIZE, (bottom - top) / self.num_pages
        boxes = []
        for page in range(int(start) // PAGE_SIZE, (int(start) + int(length) - 1) // PAGE_SIZE + 1):
            first = max(int(start) - page * PAGE_SIZE, 0)
            end = min(int(start) + int(length) - page * PAGE_SIZE, PAGE_SIZE)
            middle, half = top + (page + 0.5) * height, min(max(height, _MIN_ROW), tallest) / 2
            x0, x1 = left + first * width, left + end * width - 1
            boxes.append((x0, middle - half, x1, middle + half))
        return boxes
