"""Render modes of the ``assembly/`` envs and the drawing tools their pictures share.

The three modes every env renders in ("rgb_array", "human", "ansi"): docs/rendering.md.

The pictures are drawn with Pillow on a light background: :func:`font`, :func:`draw_text`,
:func:`fit_text`, :func:`line_plot` and :func:`bar_chart` are what more than one env family
draws with; :func:`state_picture` pictures any named state.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from PIL import Image, ImageDraw, ImageFont

__all__ = [
    "BACKGROUND",
    "FRAME_SHAPE",
    "GRID",
    "INK",
    "MUTED",
    "PALETTE",
    "RenderModes",
    "bar_chart",
    "draw_text",
    "fit_text",
    "font",
    "line_plot",
    "state_picture",
    "text_width",
]

FRAME_SHAPE = (480, 640, 3)
"""Height, width and channels of every "rgb_array" frame, in pixels."""

Colour = tuple[int, int, int]
BACKGROUND: Colour = (250, 249, 246)
INK: Colour = (33, 37, 41)
MUTED: Colour = (110, 116, 124)
GRID: Colour = (222, 222, 218)
PALETTE: tuple[Colour, ...] = (
    (31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40),
    (148, 103, 189), (140, 86, 75), (227, 119, 194), (23, 190, 207),
)  # fmt: skip
"""Line colours of plots (matplotlib's "tab10", first eight)."""


class RenderModes(gym.Env[Any, Any]):
    """Base of the envs: ``render()`` in each mode, from ``render_text`` and ``render_frame``."""

    _window: Any = None  # "human" mode's pygame display surface, opened by the first frame
    _clock: Any = None

    def _checked_render_mode(self, render_mode: str | None) -> str | None:
        """``render_mode`` if the env's ``metadata["render_modes"]`` has it (or it is None).

        Raises:
            ValueError: another mode; the message lists the modes there are.
        """
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        return render_mode

    def render_text(self) -> str:
        """The current state as text (implemented by the env)."""
        raise NotImplementedError

    def render_frame(self) -> np.ndarray:
        """The current state as a picture, shape :data:`FRAME_SHAPE` uint8 (by the env)."""
        raise NotImplementedError

    # Any, not str | np.ndarray | None: Gymnasium 0.29 types Env.render with an unbound
    # TypeVar, which no narrower return type of this mixin's render can match.
    def render(self) -> Any:
        """A frame ("rgb_array"), the state as text ("ansi"), or show the frame ("human")."""
        if self.render_mode is None:
            gym.logger.warn(
                "render() called without a render_mode; pass render_mode='rgb_array' or 'ansi'"
            )
            return None
        if self.render_mode == "rgb_array":
            return self.render_frame()
        if self.render_mode == "human":
            self._show_frame()
            return None
        return self.render_text()

    def _show_step(self) -> None:
        """Show the state after a reset or step in "human" mode (Gymnasium's convention)."""
        if self.render_mode == "human":
            self._show_frame()

    def _show_frame(self) -> None:
        """Draw the current frame in the pygame window (opened on first use), at the env's fps."""
        import pygame  # a dependency, imported only by "human" mode

        frame = self.render_frame()
        if self._window is None:
            pygame.init()
            pygame.display.set_caption(type(self).__name__)
            self._window = pygame.display.set_mode((frame.shape[1], frame.shape[0]))
            self._clock = pygame.time.Clock()
        pygame.surfarray.blit_array(self._window, frame.swapaxes(0, 1))
        pygame.event.pump()
        pygame.display.flip()
        self._clock.tick(self.metadata["render_fps"])

    def close(self) -> None:
        """Close the "human" window, if one is open."""
        if self._window is not None:
            import pygame

            pygame.display.quit()
            pygame.quit()
            self._window = None
        super().close()


@functools.lru_cache(maxsize=1024)
def text_width(text: str, size: int, bold: bool = False) -> float:
    """Width of ``text`` at ``size`` pixels, in pixels (cached)."""
    return font(size, bold).getlength(text)


@functools.lru_cache(maxsize=32)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans at ``size`` pixels, else Pillow's built-in font (without bold).

    DejaVu Sans ships with matplotlib (a dependency) and covers the accented names of the
    member states ("Côte d’Ivoire", "Türkiye"), which Pillow's built-in font does not;
    ``find_spec`` locates matplotlib without importing it.
    """
    spec = importlib.util.find_spec("matplotlib")
    if spec is not None and spec.submodule_search_locations:
        name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
        path = Path(spec.submodule_search_locations[0], "mpl-data", "fonts", "ttf", name)
        if path.is_file():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size=size)


def draw_text(
    image: Image.Image,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: Colour,
    anchor: str = "la",
    *,
    bold: bool = False,
) -> None:
    """``ImageDraw.text`` of ``text`` at ``xy`` (``anchor`` as Pillow's), in ``fill``.

    The rendered string is cached and pasted: labels repeat from frame to frame, and pasting
    a cached string is about 15 times faster than rendering it again.
    """
    mask, left, top = _text_mask(text, size, anchor, bold)
    image.paste(fill, (round(xy[0]) + left, round(xy[1]) + top), mask)


@functools.lru_cache(maxsize=512)  # at most a few MB of masks
def _text_mask(text: str, size: int, anchor: str, bold: bool) -> tuple[Image.Image, int, int]:
    """The coverage mask of a rendered string and its offset from the anchor point."""
    face = font(size, bold)
    left, top, right, bottom = (int(v) for v in face.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(right - left, 1), max(bottom - top, 1)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=face, fill=255, anchor=anchor)
    return mask, left, top


@functools.lru_cache(maxsize=1024)
def fit_text(text: str, size: int, width: float, bold: bool = False) -> str:
    """``text``, cut and ended with "…" so that it is at most ``width`` pixels wide at ``size``."""
    face = font(size, bold)
    if face.getlength(text) <= width:
        return text
    low, high = 0, len(text)  # longest prefix that fits with the ellipsis: binary search
    while low < high:
        middle = (low + high + 1) // 2
        if face.getlength(text[:middle].rstrip() + "…") <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + "…"


def line_plot(
    image: Image.Image,
    box: tuple[int, int, int, int],
    series: np.ndarray,
    *,
    x_max: int,
    title: str,
    colours: Sequence[Colour] = PALETTE,
    reference: float | None = None,
) -> None:
    """Lines of ``series`` (T, k) against steps 0 … T − 1, in ``box`` (left, top, right, bottom).

    The x axis runs to ``x_max`` steps so that the plot does not rescale as an episode grows;
    the y axis fits the values (and ``reference``, drawn as a grey line, when given).
    """
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = box
    draw_text(image, (left, top), title, 12, MUTED)
    top += 16
    draw.rectangle((left, top, right, bottom), outline=GRID)
    series = np.asarray(series, dtype=np.float64)
    finite = series[np.isfinite(series)]
    if not len(finite):
        return
    series = series.reshape(len(series), -1)
    values = finite if reference is None else np.append(finite, reference)
    low, high = float(values.min()), float(values.max())
    pad = max(high - low, 1e-6) * 0.1
    low, high = low - pad, high + pad

    def y(value: float) -> float:
        return bottom - 2 - (value - low) / (high - low) * (bottom - top - 4)

    def x(step: float) -> float:
        return left + 2 + step / max(x_max, 1) * (right - left - 4)

    if reference is not None:
        draw.line((left, y(reference), right, y(reference)), fill=MUTED, width=1)
    for k in range(series.shape[1]):
        points = [(x(t), y(v)) for t, v in enumerate(series[:, k]) if np.isfinite(v)]
        colour = colours[k % len(colours)]
        if len(points) > 1:
            draw.line(points, fill=colour, width=2, joint="curve")
        for px, py in points[-1:]:
            draw.ellipse((px - 2, py - 2, px + 2, py + 2), fill=colour)
    draw_text(image, (right - 3, top + 2), f"{high - pad:.2g}", 10, MUTED, "ra")
    draw_text(image, (right - 3, bottom - 2), f"{low + pad:.2g}", 10, MUTED, "rd")


def bar_chart(
    image: Image.Image,
    box: tuple[int, int, int, int],
    names: Sequence[str],
    values: np.ndarray,
    *,
    colours: Sequence[Colour] = PALETTE,
) -> None:
    """Horizontal bars of named ``values`` (n,) in ``box``, from a zero line, labelled.

    The scale is the largest absolute value, so bars of values of both signs fit; bar k has
    ``colours[k]`` (cycled), the colour of line k in :func:`line_plot`.
    """
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = box
    values = np.nan_to_num(np.asarray(values, dtype=np.float64))
    row = (bottom - top) / max(len(names), 1)
    label_width = 0.4 * (right - left)
    signed = 0.5 if (values < 0).any() else 0.0  # the zero line in the middle: bars both ways
    zero_x = left + label_width + signed * (right - left - label_width)
    scale = (right - zero_x - 44) / max(float(np.abs(values).max()), 1e-9)
    size = int(min(12, max(8, row - 3)))
    half = max(row * 0.32, 1)
    for i, (name, value) in enumerate(zip(names, values, strict=True)):
        middle = top + (i + 0.5) * row
        draw_text(image, (left, middle), fit_text(name, size, label_width - 6), size, INK, "lm")
        end = zero_x + value * scale
        draw.rectangle((min(zero_x, end), middle - half, max(zero_x, end), middle + half),
                       fill=colours[i % len(colours)])  # fmt: skip
        draw_text(image, (max(zero_x, end) + 4, middle), f"{value:.2f}", size, MUTED, "lm")
    draw.line((zero_x, top, zero_x, bottom), fill=MUTED)


def state_picture(
    title: str,
    subtitle: str,
    names: Sequence[str],
    trace: np.ndarray | None,
    *,
    x_max: int,
    footer: str = "",
) -> np.ndarray:
    """A frame of named state values: bars of the latest, lines of their trace over steps.

    Args:
        title: first line.
        subtitle: second line.
        names: the dimensions' names, (n,).
        trace: their values at steps 0 … t, shape (t + 1, n); None before an episode.
        x_max: the trace's x axis runs to this step.
        footer: a last line.

    Returns:
        A fresh array of shape :data:`FRAME_SHAPE`, uint8.
    """
    height, width = FRAME_SHAPE[:2]
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw_text(image, (16, 12), fit_text(title, 19, width - 32, bold=True), 19, INK, bold=True)
    draw_text(image, (16, 38), fit_text(subtitle, 14, width - 32), 14, MUTED)
    if trace is not None and len(trace):
        draw_text(image, (16, 68), "now", 12, MUTED)
        bar_chart(image, (16, 88, 312, height - 40), names, trace[-1])
        line_plot(image, (336, 68, width - 16, height - 40), trace, x_max=x_max,
                  title="over the episode")  # fmt: skip
    if footer:
        draw_text(image, (width - 16, height - 22), footer, 13, MUTED, "ra")
    return np.array(image)
