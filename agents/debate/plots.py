"""Plots of debate training: allocation trajectories over epochs (PNG)."""

from __future__ import annotations

import io
from pathlib import Path

from matplotlib.figure import Figure  # no pyplot: no global figure state, no backend switch

from assembly_gym.agents.debate.history import TrainHistory
from assembly_gym.core.persist import atomic_write_bytes

__all__ = ["allocations_figure", "plot_allocations"]


def allocations_figure(
    history: TrainHistory,
    *,
    bounds: tuple[float, float] | None = None,
    title: str | None = None,
) -> Figure:
    """Every tendency's allocation per epoch.

    Epoch 0 is the starting allocation (the first epoch's allocation minus its change).

    Args:
        history: a training history with at least one epoch.
        bounds: (min_allocation, max_allocation) drawn as dashed lines, if given.
        title: figure title.
    """
    if not history.metrics:
        raise ValueError("the history has no epoch to plot")
    first = history.metrics[0]
    epochs = [0, *(m.epoch for m in history.metrics)]
    figure = Figure(figsize=(7, 4), dpi=110)
    axes = figure.subplots()
    for name, start in first.allocations.items():
        values = [
            start - first.allocation_changes[name],
            *(m.allocations[name] for m in history.metrics),
        ]
        axes.plot(epochs, [100 * v for v in values], marker="o", markersize=3, label=name)
    if bounds is not None:
        for bound in bounds:
            axes.axhline(100 * bound, color="grey", linestyle="--", linewidth=0.8)
    axes.set_xlabel("epoch")
    axes.set_ylabel("allocation (%)")
    axes.set_title(title or "Tendency allocations during debate")
    axes.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    figure.tight_layout()
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
