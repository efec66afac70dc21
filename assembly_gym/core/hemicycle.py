"""The picture of an assembly's envs: a hemicycle, one seat per member.

What a frame shows: docs/rendering.md, "The legislative envs".

The geometry (seat centres, the antialiased pixels of every seat) is computed once per
:class:`Hemicycle`; a frame only blends the seats' colours into a copy of the cached
background and draws the few lines of text, so recording an episode costs little.

Example:
    >>> hemicycle = Hemicycle(5)
    >>> seats = np.array([Seat.YES, Seat.YES, Seat.NO, Seat.ABSTAIN, Seat.ABSENT])
    >>> frame = hemicycle.draw(AssemblyView("A vote", "five countries", seats, acting=2))
    >>> frame.shape, frame.dtype.name
    ((480, 640, 3), 'uint8')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np
from PIL import Image, ImageDraw

from assembly_gym.core.render import (
    BACKGROUND,
    FRAME_SHAPE,
    GRID,
    INK,
    MUTED,
    draw_text,
    fit_text,
    text_width,
)
from assembly_gym.core.state import ABSENT, Vote

__all__ = [
    "AssemblyView",
    "Hemicycle",
    "SEAT_COLOURS",
    "Seat",
    "seat_order",
    "share_seats",
    "sponsor_seats",
    "vote_seats",
]


class Seat(IntEnum):
    """What a seat shows (YES, NO and ABSTAIN have the values of :class:`Vote`)."""

    YES = 0
    NO = 1
    ABSTAIN = 2
    ABSENT = 3
    SPONSOR = 4
    NON_SPONSOR = 5
    PENDING = 6


SEAT_COLOURS = np.array(
    [
        (46, 139, 87),  # YES: green
        (200, 55, 55),  # NO: red
        (236, 170, 40),  # ABSTAIN: amber
        (196, 196, 192),  # ABSENT: grey
        (48, 104, 184),  # SPONSOR: blue
        (208, 218, 232),  # NON_SPONSOR: pale blue
        (232, 231, 226),  # PENDING: barely there
    ],
    dtype=np.float32,
)
"""RGB colour of each :class:`Seat` value, shape (7, 3)."""
_RGB = [tuple(int(c) for c in colour) for colour in SEAT_COLOURS]  # as Pillow's fill
_LABELS = ("yes", "no", "abstain", "did not vote", "sponsor", "not sponsoring", "not yet")
_PASSED, _FAILED = (46, 139, 87), (200, 55, 55)
_FLOOR = (241, 239, 232)
_FLOOR_F = np.array(_FLOOR, dtype=np.float32)
_LEVELS = 16  # antialiasing: a pixel is covered by a seat in 0 … 16 sixteenths
_COVERAGE = np.linspace(0, 1, _LEVELS + 1, dtype=np.float32)[:, None]

# Geometry of the 640 × 480 frame, in pixels.
_HEIGHT, _WIDTH = FRAME_SHAPE[:2]
_CENTRE = (_WIDTH / 2, 372.0)
_INNER, _OUTER = 104.0, 270.0
_TALLY_TOP = 390
_LEGEND_Y = 432
_FOOTER_Y = 458


def vote_seats(codes: np.ndarray) -> np.ndarray:
    """Seats of vote codes (:class:`Vote` values or ``ABSENT``), same shape, int64."""
    codes = np.asarray(codes)
    return np.where(codes == ABSENT, Seat.ABSENT, codes).astype(np.int64)


def sponsor_seats(sponsored: np.ndarray) -> np.ndarray:
    """Seats of sponsorship flags (1 sponsored, 0 did not), same shape, int64."""
    return np.where(np.asarray(sponsored) == 1, Seat.SPONSOR, Seat.NON_SPONSOR).astype(np.int64)


def share_seats(shares: dict[Seat, float], n_seats: int) -> np.ndarray:
    """``n_seats`` seats split among kinds by their shares, in the order given, int64.

    Counts are rounded by largest remainder, so they add up to ``n_seats`` when the shares
    add up to 1 (the rest of the seats is ``PENDING`` when they add up to less).
    """
    kinds = list(shares)
    exact = np.clip(np.array([shares[k] for k in kinds], dtype=np.float64), 0, None) * n_seats
    counts = np.floor(exact).astype(np.int64)
    missing = min(int(round(exact.sum())), n_seats) - int(counts.sum())
    counts[np.argsort(counts - exact)[: max(missing, 0)]] += 1
    seats = np.repeat(np.array(kinds, dtype=np.int64), counts)
    return np.concatenate([seats, np.full(n_seats - len(seats), Seat.PENDING, np.int64)])


def seat_order(votes: np.ndarray) -> np.ndarray:
    """Seat of each member: ordered by (yes − no / 2) / votes cast, from left to right.

    Those that abstain sit between the yes and the no voters, so that blocs show as wedges.

    Args:
        votes: vote codes, shape (C, R): :class:`Vote` values, ``ABSENT`` and any other
            negative code for "no vote".

    Returns:
        The seat of each member, shape (C,) int64 (a permutation of 0 … C − 1).
    """
    votes = np.asarray(votes)
    cast = (votes >= 0).sum(axis=1)
    yes = (votes == Vote.YES).sum(axis=1) - 0.5 * (votes == Vote.NO).sum(axis=1)
    order = np.argsort(-yes / np.maximum(cast, 1), kind="stable")
    seats = np.empty(len(order), dtype=np.int64)
    seats[order] = np.arange(len(order))
    return seats


@dataclass(frozen=True)
class AssemblyView:
    """What one frame of an assembly env shows.

    Attributes:
        title: first line (env, member, session …).
        subtitle: second line (the resolution or roll call).
        seats: what each seat shows, shape (n_seats,) :class:`Seat` values.
        caption: what the seats show (e.g. "plenary vote"), above the outcome.
        acting: the seat of the acting member (ringed), or None.
        acting_label: what the acting member did, shown beside the legend.
        stages: the stages of an episode, shown in order with ``stage`` highlighted.
        stage: index of the current stage in ``stages``.
        progress: (done, total) steps, shown as a bar where there are no stages.
        outcome: the outcome's word (``ADOPTED``), empty while there is none.
        passed: whether the outcome is a success (green) or not (red).
        unit: unit of the tally's numbers ("" for members, "%" for shares of the vote).
        footer: a last line (the reward).
    """

    title: str
    subtitle: str
    seats: np.ndarray
    caption: str = ""
    acting: int | None = None
    acting_label: str = ""
    stages: tuple[str, ...] = ()
    stage: int = 0
    progress: tuple[int, int] | None = None
    outcome: str = ""
    passed: bool = False
    unit: str = ""
    footer: str = ""


class Hemicycle:
    """A hemicycle of ``n_seats`` seats in rows, drawn into 480 × 640 frames.

    Args:
        n_seats: number of seats, ≥ 1.

    Attributes:
        centres: seat centres in pixels (x, y), shape (n_seats, 2), left to right.
        radius: radius of a seat in pixels.

    Raises:
        ValueError: no seats.
    """

    def __init__(self, n_seats: int) -> None:
        if n_seats < 1:
            raise ValueError(f"a hemicycle needs at least one seat, got {n_seats}")
        self.n_seats = n_seats
        self.centres, self.radius = _seat_centres(n_seats)
        image = Image.new("RGB", FRAME_SHAPE[1::-1], BACKGROUND)
        draw = ImageDraw.Draw(image)
        x, y = _CENTRE
        reach, below = _OUTER + self.radius + 8, y + self.radius + 4
        draw.pieslice((x - reach, y - reach, x + reach, y + reach), 180, 360, fill=_FLOOR)
        draw.rectangle((x - reach, y, x + reach, below), fill=_FLOOR)
        draw.line((x - reach, below, x + reach, below), fill=GRID, width=2)
        self._background = np.array(image)
        # A frame's seats are one gather from a colour table: every pixel of the seats' box
        # has a code, seat × coverage level for a seat's pixels, else a plain colour's index.
        owner, level, ys, xs = _seat_pixels(self.centres, self.radius)
        self._box = (ys.min(), ys.max() + 1, xs.min(), xs.max() + 1)
        top, bottom, left, right = self._box
        plain, codes = np.unique(
            self._background[top:bottom, left:right].reshape(-1, 3), axis=0, return_inverse=True
        )
        self._plain = plain
        self._codes = (codes.reshape(bottom - top, right - left) + n_seats * (_LEVELS + 1)).astype(
            np.intp
        )
        self._codes[ys - top, xs - left] = owner * (_LEVELS + 1) + level

    def draw(self, view: AssemblyView) -> np.ndarray:
        """The frame of ``view``: a fresh array of shape (480, 640, 3), uint8.

        Raises:
            ValueError: ``view.seats`` has another length than the hemicycle.
        """
        seats = np.asarray(view.seats)
        if seats.shape != (self.n_seats,):
            raise ValueError(f"{self.n_seats} seats to show, got seats of shape {seats.shape}")
        colours = SEAT_COLOURS[seats][:, None, :]  # (n, 1, 3) over coverage levels (L + 1,)
        shades = _FLOOR_F + (colours - _FLOOR_F) * _COVERAGE + 0.5
        table = np.concatenate([shades.astype(np.uint8).reshape(-1, 3), self._plain])
        frame = self._background.copy()
        top, bottom, left, right = self._box
        frame[top:bottom, left:right] = np.take(table, self._codes, axis=0)
        image = Image.fromarray(frame)
        counts = np.bincount(seats, minlength=len(Seat))
        self._header(image, view)
        self._centre(image, view, counts)
        _tally(image, counts, view.unit)
        self._legend(image, view, counts)
        if view.footer:
            draw_text(image, (_WIDTH - 16, _FOOTER_Y), view.footer, 13, MUTED, "ra")
        return np.array(image)

    def _header(self, image: Image.Image, view: AssemblyView) -> None:
        title = fit_text(view.title, 19, _WIDTH - 32, bold=True)
        draw_text(image, (16, 12), title, 19, INK, bold=True)
        draw_text(image, (16, 38), fit_text(view.subtitle, 14, _WIDTH - 32), 14, MUTED)
        if view.stages:
            _stage_chips(image, view.stages, view.stage)
        elif view.progress is not None:
            done, total = view.progress
            draw = ImageDraw.Draw(image)
            draw.rounded_rectangle((16, 66, _WIDTH - 16, 72), 3, fill=GRID)
            if done:
                end = 16 + (_WIDTH - 32) * min(done / max(total, 1), 1.0)
                draw.rounded_rectangle((16, 66, end, 72), 3, fill=MUTED)
            draw_text(image, (16, 78), f"{done} of {total} done", 12, MUTED)

    def _centre(self, image: Image.Image, view: AssemblyView, counts: np.ndarray) -> None:
        """The outcome in the middle of the hemicycle, and the ring of the acting member."""
        x, y = _CENTRE
        if view.caption:
            draw_text(image, (x, y - 66), view.caption, 13, MUTED, "ms")
        if view.outcome:
            colour = _PASSED if view.passed else _FAILED
            draw_text(image, (x, y - 34), view.outcome, 26, colour, "ms", bold=True)
        votes = [kind for kind in (Seat.YES, Seat.NO, Seat.ABSTAIN) if counts[kind]]
        if votes:
            numbers = " : ".join(f"{counts[k]}{view.unit}" for k in votes)
            draw_text(image, (x, y - 8), numbers, 18, INK, "ms")
        if view.acting is not None:
            cx, cy = self.centres[view.acting]
            r = self.radius + 4
            ImageDraw.Draw(image).ellipse((cx - r, cy - r, cx + r, cy + r), outline=INK, width=3)

    def _legend(self, image: Image.Image, view: AssemblyView, counts: np.ndarray) -> None:
        draw = ImageDraw.Draw(image)
        x = 16.0
        for kind in Seat:
            if not counts[kind]:
                continue
            draw.ellipse((x, _LEGEND_Y - 6, x + 12, _LEGEND_Y + 6), fill=_RGB[kind])
            draw_text(image, (x + 17, _LEGEND_Y), _LABELS[kind], 13, INK, "lm")
            x += 17 + text_width(_LABELS[kind], 13) + 16
        if view.acting is not None:
            draw.ellipse((x, _LEGEND_Y - 7, x + 14, _LEGEND_Y + 7), outline=INK, width=3)
            label = fit_text(view.acting_label, 13, _WIDTH - 16 - (x + 20))
            draw_text(image, (x + 20, _LEGEND_Y), label, 13, INK, "lm")


def _seat_centres(n_seats: int) -> tuple[np.ndarray, float]:
    """Seat centres (n, 2) ordered left to right, and the seat radius, in pixels.

    Rows are concentric half circles between the inner and the outer radius; each row gets
    seats in proportion to its length (largest remainder), and the number of rows makes the
    gap between rows about the gap between seats in a row.
    """
    width = _OUTER - _INNER
    rows = int(np.clip(round(np.sqrt(n_seats * width / (np.pi * (_INNER + _OUTER) / 2))), 1, 12))
    radii = _INNER + width * (np.arange(rows) + 0.5) / rows if rows > 1 else np.array([_OUTER])
    exact = n_seats * radii / radii.sum()
    per_row = np.floor(exact).astype(np.int64)
    per_row[np.argsort(per_row - exact)[: n_seats - per_row.sum()]] += 1
    angles, rings = [], []
    for radius, count in zip(radii, per_row, strict=True):
        angles.append(np.pi * (1 - (np.arange(count) + 0.5) / max(count, 1)))
        rings.append(np.full(count, radius))
    angle, ring = np.concatenate(angles), np.concatenate(rings)
    order = np.lexsort((ring, -angle))  # left to right, inner row first at equal angles
    angle, ring = angle[order], ring[order]
    centres = np.stack([_CENTRE[0] + ring * np.cos(angle), _CENTRE[1] - ring * np.sin(angle)], 1)
    gap_in_row = np.min(np.pi * radii[per_row > 0] / per_row[per_row > 0])
    gap = min(gap_in_row, width / rows if rows > 1 else gap_in_row)
    return centres, float(min(0.42 * gap, 26.0))


def _seat_pixels(
    centres: np.ndarray, radius: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pixels the seats cover: owning seat, coverage level 1 … L, row and column, (P,) each.

    Coverage is the antialiasing weight: how far a pixel's centre lies inside the seat's
    edge, over one pixel, in :data:`_LEVELS` steps.
    """
    reach = int(np.ceil(radius + 1))
    dy, dx = np.mgrid[-reach : reach + 1, -reach : reach + 1]
    owners, levels, rows, columns = [], [], [], []
    for seat, (cx, cy) in enumerate(centres):
        xs, ys = int(round(cx)) + dx, int(round(cy)) + dy
        cover = np.clip(radius + 0.5 - np.hypot(xs + 0.5 - cx, ys + 0.5 - cy), 0.0, 1.0)
        level = np.round(cover * _LEVELS).astype(np.int64)
        inside = (level > 0) & (xs >= 0) & (xs < _WIDTH) & (ys >= 0) & (ys < _HEIGHT)
        owners.append(np.full(int(inside.sum()), seat))
        levels.append(level[inside])
        rows.append(ys[inside])
        columns.append(xs[inside])
    return (np.concatenate(owners), np.concatenate(levels), np.concatenate(rows),
            np.concatenate(columns))  # fmt: skip


def _stage_chips(image: Image.Image, stages: tuple[str, ...], current: int) -> None:
    """The stages as chips left to right: done ones grey, the current one dark."""
    draw = ImageDraw.Draw(image)
    x = 16.0
    for i, label in enumerate(stages):
        width = text_width(label, 12) + 20
        box = (x, 62, x + width, 84)
        if i == current:
            draw.rounded_rectangle(box, 11, fill=INK)
            colour = BACKGROUND
        else:
            draw.rounded_rectangle(box, 11, outline=GRID if i > current else MUTED, width=2)
            colour = MUTED if i < current else (160, 160, 156)
        draw_text(image, (x + width / 2, 73), label, 12, colour, "mm")
        x += width
        if i < len(stages) - 1:
            draw_text(image, (x + 9, 73), "›", 16, MUTED, "mm")
            x += 18


def _tally(image: Image.Image, counts: np.ndarray, unit: str) -> None:
    """A bar split by seat kind, each part with its count, under the hemicycle."""
    draw = ImageDraw.Draw(image)
    total = int(counts.sum())
    left, right = 16.0, _WIDTH - 16.0
    top, bottom = _TALLY_TOP, _TALLY_TOP + 22
    x = left
    for kind in Seat:
        if not counts[kind]:
            continue
        width = (right - left) * counts[kind] / total
        draw.rectangle((x, top, x + width, bottom), fill=_RGB[kind])
        text = f"{counts[kind]}{unit}"
        if kind != Seat.PENDING and text_width(text, 13) + 8 < width:
            ink = (255, 255, 255) if kind in _DARK else INK
            draw_text(image, (x + width / 2, (top + bottom) / 2), text, 13, ink, "mm")
        x += width


_DARK = (Seat.YES, Seat.NO, Seat.SPONSOR)  # kinds whose numbers are written in white
