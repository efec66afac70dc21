"""Benchmark reports: Markdown tables, a JSON record, plots, and one HTML page.

Plots are matplotlib figures saved as PNG (Agg back end, no display needed): per-agent metric
bars with 95% bootstrap intervals and reliability diagrams; suites may add their own figures
(reward-weight heatmaps, dendrograms, debate allocations). The HTML page embeds every PNG,
so it is one file that opens anywhere.

A report folder is one artifact (:mod:`assembly_gym.core.artifact`): written whole and swapped
in at once, ``results.json`` its manifest (with the report's id and every file's checksum), and
the id in the last line of ``results.md`` and ``report.html``, so that files of two runs are
never taken for one report.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from assembly_gym.core.artifact import new_artifact_id, write_artifact  # noqa: E402

__all__ = [
    "RESULTS",
    "calibration_figure",
    "figure_png",
    "html_page",
    "markdown_table",
    "metric_bars_figure",
    "write_report",
]

RESULTS = "results.json"
"""The report folder's manifest: the run's options and every suite's results."""


def figure_png(figure: plt.Figure, dpi: int = 110) -> bytes:
    """PNG bytes of a figure; closes the figure."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()


_HEADERS = {
    "macro_f1": "macro-F1", "log_loss": "log-loss", "ece": "ECE", "true_reward": "true reward",
    "reward_corr": "reward corr", "epic": "EPIC", "log_loss_diff": "Δ log-loss vs best",
    "p_value": "p", "fit_seconds": "fit s", "predict_seconds": "predict s",
    "reward": "reward / step", "hit_rate": "hit rate", "next_state_mse": "next-state MSE",
    "next_state_mse_diff": "Δ MSE vs best",
}  # fmt: skip


def markdown_table(table: pd.DataFrame, digits: int = 3) -> str:
    """A results table as Markdown: each metric with its interval, ``0.751 (0.712–0.780)``."""
    shown = pd.DataFrame({"agent": table["agent"]}) if "agent" in table else pd.DataFrame()
    for column in table.columns:
        if column == "agent" or column.endswith("_ci") or column == "vs_best_baseline":
            continue
        values = table[column]
        if f"{column}_ci" in table:
            shown[column] = [
                f"{v:.{digits}f} ({ci[0]:.{digits}f}–{ci[1]:.{digits}f})"
                if isinstance(ci, tuple | list)
                else ("" if pd.isna(v) else f"{v:.{digits}f}")
                for v, ci in zip(values, table[f"{column}_ci"], strict=True)
            ]
        elif pd.api.types.is_float_dtype(values):
            places = 2 if column.endswith("seconds") else digits
            shown[column] = values.map(lambda v, p=places: "" if pd.isna(v) else f"{v:.{p}f}")
        else:
            shown[column] = values
    return shown.rename(columns=_HEADERS).to_markdown(index=False)


def metric_bars_figure(
    table: pd.DataFrame, metrics: Sequence[str], title: str, *, agent_column: str = "agent"
) -> plt.Figure:
    """One panel per metric: a bar per agent with its 95% interval (columns ``<metric>_ci``)."""
    figure, axes = plt.subplots(
        1, len(metrics), figsize=(4.2 * len(metrics), 0.45 * len(table) + 1.6)
    )
    axes = np.atleast_1d(axes)
    names = table[agent_column].tolist()
    positions = np.arange(len(names))
    for axis, metric in zip(axes, metrics, strict=True):
        values = table[metric].to_numpy(dtype=float)
        intervals = table.get(f"{metric}_ci")
        error = None
        if intervals is not None:
            low = np.array(
                [
                    ci[0] if isinstance(ci, tuple) else v
                    for ci, v in zip(intervals, values, strict=True)
                ]
            )
            high = np.array(
                [
                    ci[1] if isinstance(ci, tuple) else v
                    for ci, v in zip(intervals, values, strict=True)
                ]
            )
            # clipped: a bootstrap mean of a constant can differ from it in the last bit
            error = np.clip(np.vstack([values - low, high - values]), 0.0, None)
        axis.barh(positions, values, xerr=error, color="#4c72b0", ecolor="#333333", capsize=3)
        axis.set_yticks(positions, names if axis is axes[0] else [""] * len(names))
        axis.invert_yaxis()
        axis.set_title(
            metric.replace("_", " ") + (" (lower is better)" if metric in _LOWER else "")
        )
        axis.grid(axis="x", alpha=0.3)
    figure.suptitle(title)
    figure.tight_layout()
    return figure


_LOWER = {"log_loss", "brier", "ece", "next_state_mse"}


def calibration_figure(
    curves: Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray]], title: str
) -> plt.Figure:
    """Reliability diagram: accuracy against confidence per agent (marker size ∝ votes)."""
    figure, axis = plt.subplots(figsize=(5.2, 5.0))
    axis.plot([0, 1], [0, 1], color="#999999", linestyle="--", label="perfect calibration")
    colours = matplotlib.color_sequences["tab20"]
    for index, (name, (confidence, accuracy, count)) in enumerate(curves.items()):
        colour = colours[index % len(colours)]
        sizes = 12 + 60 * count / max(count.max(), 1)
        axis.plot(confidence, accuracy, color=colour, linewidth=1.2, label=name)
        axis.scatter(confidence, accuracy, s=sizes, color=colour, alpha=0.7)
    axis.set_xlabel("confidence of the most likely action")
    axis.set_ylabel("share of votes it was right")
    axis.set_xlim(0, 1)
    axis.set_ylim(0, 1)
    axis.set_title(title)
    axis.legend(fontsize=7, loc="upper left")
    return figure


def html_page(
    title: str, sections: Sequence[tuple[str, str, Sequence[bytes]]], footer: str = ""
) -> str:
    """One self-contained HTML page.

    Args:
        title: page title.
        sections: (heading, Markdown/preformatted text, PNG images) per section.
        footer: a last line of small print (empty: none).
    """
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;"
        "padding:0 1em}pre{background:#f6f8fa;padding:1em;overflow-x:auto;font-size:12px}"
        "img{max-width:100%;margin:0.5em 0}footer{color:#666;font-size:12px}</style>"
        "</head><body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    for heading, text, images in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2><pre>{html.escape(text)}</pre>")
        for image in images:
            encoded = base64.b64encode(image).decode("ascii")
            parts.append(
                f"<img alt='{html.escape(heading)}' src='data:image/png;base64,{encoded}'>"
            )
    if footer:
        parts.append(f"<footer>{html.escape(footer)}</footer>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(
    results: Sequence[Any], out: str | Path, *, options: Mapping[str, Any], kind: str, version: int
) -> dict[str, Path]:
    """Write results.json, results.md, report.html and PNG figures as one report folder.

    The folder is written whole and swapped in at once (an earlier report there is replaced);
    ``results.json`` is its manifest, and ``results.md`` and ``report.html`` end with the
    report's id (the ``artifact_id`` of ``results.json``).

    Args:
        results: :class:`~assembly_gym.benchmarks.suites.SuiteResult` objects.
        out: the report folder (created if needed).
        options: the run's settings (recorded in results.json, so the run can be repeated).
        kind: the results.json ``kind`` tag.
        version: the results.json format version.

    Returns:
        Name → path of everything written.

    Raises:
        CheckpointError: ``out`` is a file, or a folder of other files.
    """
    out = Path(out)
    report_id = new_artifact_id()
    files: dict[str, bytes] = {}
    sections, markdown = [], []
    for result in results:
        figures = []
        metrics = [m for m in result.plot_metrics if m in result.table]
        plots = [
            (
                "metrics",
                metric_bars_figure(
                    result.table, metrics, f"{result.suite}: held-out scores (95% CI)"
                ),
            )
        ]
        if result.calibration:  # suites scored by class labels
            plots.append(
                (
                    "calibration",
                    calibration_figure(result.calibration, f"{result.suite}: reliability"),
                )
            )
        for name, figure in (*plots, *result.extras.get("figures", {}).items()):
            png = figure_png(figure)
            files[f"{result.suite}_{name}.png"] = png
            figures.append(png)
        text = result.to_markdown()
        markdown.append(f"## {result.suite}\n\n{text}\n")
        sections.append((result.suite, text, figures))
    payload = {
        "options": dict(options),
        "suites": [
            {
                "suite": r.suite, "description": r.description, "split": r.split, "data": r.source,
                "countries": list(r.countries), "class_balance": r.class_balance,
                "results": _records(r.table), "not_run": r.skipped,
            }
            for r in results
        ],
    }  # fmt: skip
    footer = f"Report {report_id} (the artifact_id of {RESULTS})"
    title = "assembly-gym benchmark"
    body = "\n".join(markdown)
    files["results.md"] = f"# {title}\n\n{body}\n---\n\n{footer}\n".encode()
    files["report.html"] = html_page(title, sections, footer).encode()
    write_artifact(out, files, manifest=RESULTS, payload=payload, kind=kind, version=version,
                   artifact_id=report_id)  # fmt: skip
    return {name: out / name for name in (*files, RESULTS)}


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """Table rows as JSON-ready dicts (intervals as [low, high], numpy scalars as floats)."""
    rows = []
    for row in table.to_dict(orient="records"):
        rows.append({str(k): _json_value(v) for k, v in row.items()})  # str: the column names
    return rows


def _json_value(value: Any) -> Any:
    """An interval as [low, high], a numpy scalar as a Python number, NaN (no score) as None."""
    if isinstance(value, tuple):
        return list(value)
    value = value.item() if hasattr(value, "item") else value
    return None if isinstance(value, float) and math.isnan(value) else value
