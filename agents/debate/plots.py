"""Plots of debate training: allocation trajectories over epochs, a panel per tendency (PNG)."""

from __future__ import annotations

import io
import math
import textwrap
from pathlib import Path

from matplotlib.figure import Figure  # no pyplot: no global figure state, no backend switch

from assembly_gym.agents.debate.trainer import TrainHistory
from assembly_gym.core.persist import atomic_write_bytes

__all__ = ["allocations_figure", "plot_allocations"]


def allocations_figure(
    history: TrainHistory,
    *,
    bounds: tuple[float, float] | None = None,
    title: str | None = None,
) -> Figure:
    """Each tendency's allocation (%) per epoch, one small panel each on shared axes.

    Epoch 0 is the starting allocation (the first epoch's allocation minus its change); every
    panel draws the other tendencies in grey, so that lines that would overlap stay apart.

    Args:
        history: a training history with at least one epoch.
        bounds: (min_allocation, max_allocation) drawn as dashed lines, if given.
        title: figure title.
    """
    if not history.metrics:
        raise ValueError("the history has no epoch to plot")
    first = history.metrics[0]
    epochs = [0, *(m.epoch for m in history.metrics)]
    series = {
        name: [100 * (start - first.allocation_changes[name])]
        + [100 * m.allocations[name] for m in history.metrics]
        for name, start in first.allocations.items()
    }
    columns = min(4, len(series))
    rows = math.ceil(len(series) / columns)
    figure = Figure(figsize=(2.7 * columns + 0.6, 2.3 * rows + 0.8), layout="constrained")
    axes = figure.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
    panels = zip(axes.flat[: len(series)], series.items(), strict=True)
    for index, (axis, (name, values)) in enumerate(panels):
        for other in series.values():
            axis.plot(epochs, other, color="#cccccc", linewidth=0.8)
        axis.plot(epochs, values, color=f"C{index}", linewidth=2, marker="o", markersize=3)
        axis.annotate(f"{values[-1]:.1f}%", (epochs[-1], values[-1]), fontsize=8,
                      textcoords="offset points", xytext=(-4, 5), ha="right")  # fmt: skip
        for bound in bounds or ():
            axis.axhline(100 * bound, color="grey", linestyle="--", linewidth=0.8)
        axis.set_title(textwrap.fill(name, 28), fontsize=9)
        axis.grid(alpha=0.3)
    for axis in axes.flat[len(series) :]:
        axis.set_visible(False)
    figure.supxlabel("epoch")
    figure.supylabel("allocation (%)")
    figure.suptitle(title or "Tendency allocations during debate")
    return figure


def plot_allocations(
    history: TrainHistory,
    path: str | Path,
    *,
    bounds: tuple[float, float] | None = None,
    title: str | None = None,
) -> Path:
    """:func:`allocations_figure` written as a PNG to ``path``, atomically; returns the path."""
    figure = allocations_figure(history, bounds=bounds, title=title)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    atomic_write_bytes(path, buffer.getvalue())
    return Path(path)
