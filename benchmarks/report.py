"""Benchmark reports: Markdown tables, a JSON record, plots, and one HTML page.

Plots are matplotlib figures saved as PNG (Agg back end, no display needed): per-agent metric
bars with 95% bootstrap intervals and reliability diagrams; suites may add their own figures
(reward-weight heatmaps, dendrograms, debate allocations). The HTML page embeds every PNG,
so it is one file that opens anywhere.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from envs.persist import atomic_write_bytes, atomic_write_text  # noqa: E402

__all__ = [
    "calibration_figure",
    "figure_png",
    "markdown_table",
    "metric_bars_figure",
    "write_html",
]


def figure_png(figure: plt.Figure, path: str | Path | None = None, dpi: int = 110) -> bytes:
    """PNG bytes of a figure (written atomically to ``path`` when given); closes the figure."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(figure)
    data = buffer.getvalue()
    if path is not None:
        atomic_write_bytes(path, data)
    return data


def markdown_table(table: pd.DataFrame, digits: int = 3) -> str:
    """A results table as Markdown; interval columns (``(low, high)``) print as ``low–high``."""
    shown = table.copy()
    for column in shown.columns:
        values = shown[column]
        if values.map(lambda v: isinstance(v, tuple)).any():
            shown[column] = values.map(
                lambda v: f"{v[0]:.{digits}f}–{v[1]:.{digits}f}" if isinstance(v, tuple) else ""
            )
        elif pd.api.types.is_float_dtype(values):
            shown[column] = values.map(lambda v: "" if pd.isna(v) else f"{v:.{digits}f}")
    return shown.to_markdown(index=False)


def metric_bars_figure(
    table: pd.DataFrame, metrics: Sequence[str], title: str, *, agent_column: str = "agent"
) -> plt.Figure:
    """One panel per metric: a bar per agent with its 95% interval (columns ``<metric>_ci``)."""
    figure, axes = plt.subplots(1, len(metrics), figsize=(4.2 * len(metrics), 0.45 * len(table) + 1.6))
    axes = np.atleast_1d(axes)
    names = table[agent_column].tolist()
    positions = np.arange(len(names))
    for axis, metric in zip(axes, metrics, strict=True):
        values = table[metric].to_numpy(dtype=float)
        intervals = table.get(f"{metric}_ci")
        error = None
        if intervals is not None:
            low = np.array([ci[0] if isinstance(ci, tuple) else v for ci, v in zip(intervals, values, strict=True)])
            high = np.array([ci[1] if isinstance(ci, tuple) else v for ci, v in zip(intervals, values, strict=True)])
            error = np.vstack([values - low, high - values])
        axis.barh(positions, values, xerr=error, color="#4c72b0", ecolor="#333333", capsize=3)
        axis.set_yticks(positions, names if axis is axes[0] else [""] * len(names))
        axis.invert_yaxis()
        axis.set_title(metric.replace("_", " ") + (" (lower is better)" if metric in _LOWER else ""))
        axis.grid(axis="x", alpha=0.3)
    figure.suptitle(title)
    figure.tight_layout()
    return figure


_LOWER = {"log_loss", "brier", "ece"}


def calibration_figure(
    curves: Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray]], title: str
) -> plt.Figure:
    """Reliability diagram: accuracy against confidence per agent (marker size ∝ votes)."""
    figure, axis = plt.subplots(figsize=(5.2, 5.0))
    axis.plot([0, 1], [0, 1], color="#999999", linestyle="--", label="perfect calibration")
    for name, (confidence, accuracy, count) in curves.items():
        sizes = 12 + 60 * count / max(count.max(), 1)
        axis.plot(confidence, accuracy, marker=None, linewidth=1.2, label=name)
        axis.scatter(confidence, accuracy, s=sizes, alpha=0.7)
    axis.set_xlabel("confidence of the most likely action")
    axis.set_ylabel("share of votes it was right")
    axis.set_xlim(0, 1)
    axis.set_ylim(0, 1)
    axis.set_title(title)
    axis.legend(fontsize=7, loc="upper left")
    return figure


def write_html(path: str | Path, title: str, sections: Sequence[tuple[str, str, Sequence[bytes]]]) -> None:
    """Write one self-contained HTML page.

    Args:
        path: where to write it (atomically).
        title: page title.
        sections: (heading, Markdown/preformatted text, PNG images) per section.
    """
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "pre{background:#f6f8fa;padding:1em;overflow-x:auto;font-size:12px}"
        "img{max-width:100%;margin:0.5em 0}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    for heading, text, images in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2><pre>{html.escape(text)}</pre>")
        for image in images:
            encoded = base64.b64encode(image).decode("ascii")
            parts.append(f"<img alt='{html.escape(heading)}' src='data:image/png;base64,{encoded}'>")
    parts.append("</body></html>")
    atomic_write_text(path, "\n".join(parts) + "\n")
