"""Benchmark reports: Markdown tables, a JSON record, PNG plots, and one self-contained HTML page.

Plots: per-agent metric bars with 95% intervals, reliability diagrams, and the suites' own
figures. A report folder is one artifact (:mod:`assembly_gym.core.artifact`), written whole;
``results.json`` is its manifest, and its id ends ``results.md`` and ``report.html``, so
that files of two runs are never taken for one report.
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

from assembly_gym.benchmarks.options import RESULTS  # noqa: E402
from assembly_gym.core.artifact import new_artifact_id, write_artifact  # noqa: E402
from assembly_gym.irl.analysis import TOP_COUNTRIES  # noqa: E402

__all__ = [
    "FIGURE_CAPTIONS",
    "RESULTS",
    "calibration_figure",
    "figure_png",
    "figure_texts",
    "html_figure",
    "html_page",
    "html_table",
    "markdown_table",
    "metric_bars_figure",
    "write_report",
]


def figure_png(figure: plt.Figure, dpi: int = 110) -> bytes:
    """PNG bytes of a figure; closes the figure."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()


_HEADERS = {
    "macro_f1": "macro-F1", "log_loss": "log-loss", "ece": "ECE", "true_reward": "true reward",
    "reward_corr": "reward corr", "epic": "EPIC", "accuracy_diff": "Δ accuracy",
    "macro_f1_diff": "Δ macro-F1", "log_loss_diff": "Δ log-loss", "p_value": "p",
    "fit_seconds": "fit s", "predict_seconds": "predict s", "reward": "reward / step",
    "hit_rate": "hit rate", "next_state_mse": "next-state MSE",
    "next_state_mse_diff": "Δ MSE vs best",
}  # fmt: skip
_HIDDEN = ("vs_best_baseline", "reference")
"""Columns named in the text above a table, not shown in it."""


def _cells(table: pd.DataFrame, digits: int) -> dict[str, list[tuple[Any, Any, str]]]:
    """The shown columns, named as in the report: per row (raw value, value shown, note).

    Metrics with an interval (``<metric>_ci``) and floats get ``digits`` places (timings 2);
    the note is the interval, ``"0.712–0.780"``. A paired difference (``<metric>_diff``) is
    signed, its note its p-value (``<metric>_p``), ``"p=0.004"``. Else the note is empty.
    """
    columns: dict[str, list[tuple[Any, Any, str]]] = {}
    for column in table.columns:
        if column.endswith(("_ci", "_p")) or column in _HIDDEN:
            continue
        values = table[column].tolist()
        places = 2 if column.endswith("seconds") else digits
        numeric = f"{column}_ci" in table or pd.api.types.is_float_dtype(table[column])
        sign = "+" if column.endswith("_diff") else ""
        notes = [""] * len(values)
        if f"{column}_ci" in table:
            notes = [_interval(ci, digits) for ci in table[f"{column}_ci"]]
        elif (p_column := f"{column.removesuffix('_diff')}_p") in table:
            notes = ["" if pd.isna(p) else f"p={p:.{digits}f}" for p in table[p_column]]
        columns[_HEADERS.get(column, column)] = [
            (v, ("" if pd.isna(v) else f"{v:{sign}.{places}f}") if numeric else v, note)
            for v, note in zip(values, notes, strict=True)
        ]
    return columns


def _interval(ci: Any, digits: int) -> str:
    """``"0.712–0.780"`` of a (low, high) pair; empty for no interval."""
    return f"{ci[0]:.{digits}f}–{ci[1]:.{digits}f}" if isinstance(ci, tuple | list) else ""


def markdown_table(table: pd.DataFrame, digits: int = 3) -> str:
    """A results table as Markdown: each value with its note (:func:`_cells`).

    A metric with its interval, ``0.751 (0.712–0.780)``; a paired difference with its
    p-value, ``-0.012 (p=0.004)``.
    """
    shown = {
        name: [f"{text} ({note})" if note else text for _, text, note in cells]
        for name, cells in _cells(table, digits).items()
    }
    return pd.DataFrame(shown).to_markdown(index=False)


def html_table(table: pd.DataFrame, caption: str, digits: int = 3) -> str:
    """A results table as an HTML ``<table>`` in a sideways-scrolling box, sortable by a click.

    Intervals and p-values sit under their values; numbers carry their value (``data-v``)
    for sorting.
    """
    cells = _cells(table, digits)
    head = "".join(f"<th scope='col'>{html.escape(str(name))}</th>" for name in cells)
    rows = []
    for row in zip(*cells.values(), strict=True):
        tds = []
        for raw, text, interval in row:
            shown = "" if text is None or (isinstance(text, float) and math.isnan(text)) else text
            below = f"<span class='ci'>{html.escape(interval)}</span>" if interval else ""
            if _is_number(raw):
                key = "" if math.isnan(float(raw)) else f" data-v='{float(raw):.12g}'"
                tds.append(f"<td class='num'{key}>{html.escape(str(shown))}{below}</td>")
            else:
                tds.append(f"<td>{html.escape(str(shown))}{below}</td>")
        rows.append("<tr>" + "".join(tds) + "</tr>")
    return (
        f"<div class='scroll'><table class='sortable'><caption>{html.escape(caption)} "
        "<span class='hint'>(click a column's name to sort by it)</span></caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _is_number(value: Any) -> bool:
    """An int or float (numpy's included), not a bool."""
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def metric_bars_figure(table: pd.DataFrame, metrics: Sequence[str], title: str) -> plt.Figure:
    """One panel per metric: a bar per agent with its 95% interval (columns ``<metric>_ci``)."""
    figure, axes = plt.subplots(
        1, len(metrics), figsize=(4.2 * len(metrics), 0.45 * len(table) + 1.6)
    )
    axes = np.atleast_1d(axes)
    names = table["agent"].tolist()
    positions = np.arange(len(names))
    for axis, metric in zip(axes, metrics, strict=True):
        values = table[metric].to_numpy(dtype=float)
        intervals = table.get(f"{metric}_ci")
        error = None
        if intervals is not None:
            pairs = [
                ci if isinstance(ci, tuple) else (v, v)
                for ci, v in zip(intervals, values, strict=True)
            ]
            low, high = np.array(pairs, dtype=float).reshape(-1, 2).T
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
    """Reliability diagrams: accuracy against confidence (area ∝ votes), a panel per agent."""
    columns = min(4, len(curves))
    rows = math.ceil(len(curves) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(2.6 * columns + 0.6, 2.5 * rows + 0.9),
                                sharex=True, sharey=True, squeeze=False)  # fmt: skip
    largest = max(max(count.max(), 1) for _, _, count in curves.values())
    panels = zip(axes.flat[: len(curves)], curves.items(), strict=True)
    for axis, (name, (confidence, accuracy, count)) in panels:
        axis.plot([0, 1], [0, 1], color="#999999", linestyle="--", linewidth=1)
        axis.plot(confidence, accuracy, color="#4c72b0", linewidth=1.2)
        axis.scatter(confidence, accuracy, s=10 + 70 * count / largest, color="#4c72b0")
        axis.set_title(name, fontsize=10)
        axis.set_xlim(0, 1)
        axis.set_ylim(0, 1)
        axis.grid(alpha=0.3)
    for axis in axes.flat[len(curves) :]:
        axis.set_visible(False)
    figure.supxlabel("confidence of the most likely action")
    figure.supylabel("share of votes it was right")
    figure.suptitle(title + " (dashed: perfect calibration)")
    figure.tight_layout()
    return figure


FIGURE_CAPTIONS = {
    "metrics": (
        "Horizontal bar charts, one panel per metric, one bar per agent with a whisker for its "
        "95% interval.",
        "Held-out scores, one panel per metric. A bar is an agent's score, its whisker the 95% "
        "bootstrap interval over roll calls: agents whose whiskers overlap are not clearly "
        "different. Higher is better unless the panel says lower is better.",
    ),
    "calibration": (
        "Small scatter-and-line panels, one per agent: accuracy against confidence, with a "
        "dashed diagonal.",
        "Reliability, one panel per agent on the same axes. Each point is a bin of votes: how "
        "confident the agent was in its most likely action (x) and how often that action was "
        "the vote cast (y); larger points hold more votes. On the dashed diagonal the agent is "
        "calibrated; below it, over-confident; above it, under-confident.",
    ),
    "weights": (
        "Heatmap of learned reward weights: one panel per action, a row per feature in words, "
        "a column per country, red positive and blue negative.",
        "What the first agent with reward weights learned (its name in the title): one panel "
        "per action, a row per feature, a column per country. Red: the feature makes the "
        "action more attractive to that country; blue: less; white: no effect. Countries are "
        f"ordered by clustering, similar rewards side by side; at most {TOP_COUNTRIES} are "
        "drawn, those with the largest weight norms (the title says how many of how many; "
        "`irl explain --plots --plot-countries 0` draws them all).",
    ),
    "dendrogram": (
        "Dendrogram: a tree joining countries, one row per country, by the distance between "
        "their learned rewards.",
        "Countries clustered by their learned reward weights (Ward linkage on weights z-scored "
        "across countries). Branches that join close to the names (left) hold countries with "
        "similar rewards; the further right two branches join, the more their rewards differ.",
    ),
    "allocations": (
        "Small line charts, one per debate tendency: its share of the allocation over training "
        "epochs, the other tendencies in grey.",
        "How the debate allocator shared its attention among tendencies while it trained (one "
        "country, named in the title): one panel per tendency on the same axes, its "
        "allocation in percent per epoch in colour, the other tendencies in grey for "
        "comparison.",
    ),
}
"""Figure name → (alt text: what it looks like, caption: what it shows and how to read it)."""


def figure_texts(name: str, figure: plt.Figure, suite: str) -> tuple[str, str]:
    """The alt text (ended by the figure's title) and caption of a report figure, by name."""
    alt, caption = FIGURE_CAPTIONS.get(
        name,
        (
            f"A figure of the {suite} suite named '{name}'.",
            f"'{name}': a figure the {suite} suite added; this report has no description of it, "
            "so read it by its own title and axis labels.",
        ),
    )
    titles = [figure.get_suptitle(), *(axis.get_title() for axis in figure.axes[:1])]
    title = next((t for t in titles if t), "")
    return (f"{alt} Title: {title}." if title else alt), caption


def html_figure(png: bytes, alt: str, caption: str) -> str:
    """A PNG embedded in a ``<figure>`` with its alt text and ``<figcaption>``."""
    encoded = base64.b64encode(png).decode("ascii")
    return (
        f"<figure><img alt='{html.escape(alt, quote=True)}' "
        f"src='data:image/png;base64,{encoded}'>"
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;"
    "line-height:1.45;color:#222}p{overflow-wrap:anywhere}"
    ".scroll{overflow-x:auto;max-width:100%;margin:0.5em 0 1.5em}"
    "table{border-collapse:collapse;font-size:12px}"
    "caption{caption-side:top;text-align:left;font-weight:600;padding:0.3em 0}"
    ".hint{font-weight:normal;color:#666;font-size:12px}"
    "th,td{padding:0.25em 0.4em;border-bottom:1px solid #ddd;vertical-align:top}"
    "th{background:#f6f8fa;cursor:pointer;text-align:left;user-select:none}"
    "th[aria-sort=ascending]::after{content:' \\25B2'}"
    "th[aria-sort=descending]::after{content:' \\25BC'}"
    "td:first-child{white-space:nowrap}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    ".ci{display:block;font-size:0.8em;color:#666}"
    "figure{margin:1.5em 0}figure img{max-width:100%;height:auto;display:block}"
    "figcaption{font-size:14px;color:#444;max-width:80ch}footer{color:#666;font-size:12px}"
)
# A click on a column's name sorts the rows by it (numbers by data-v, empty ones last).
_SORT = (
    "document.querySelectorAll('table.sortable th').forEach(function(th){"
    "th.addEventListener('click',function(){"
    "var t=th.closest('table'),b=t.tBodies[0],i=th.cellIndex,"
    "up=th.getAttribute('aria-sort')!=='ascending';"
    "t.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort')});"
    "th.setAttribute('aria-sort',up?'ascending':'descending');"
    "function key(r){var c=r.cells[i];return c.dataset.v===undefined?c.textContent:+c.dataset.v}"
    "Array.from(b.rows).sort(function(x,y){var p=key(x),q=key(y);"
    "if(p===''||q==='')return (p==='')-(q==='');"
    "var d=typeof p==='number'&&typeof q==='number'?p-q:String(p).localeCompare(String(q));"
    "return up?d:-d}).forEach(function(r){b.appendChild(r)})})});"
)


def html_page(title: str, sections: Sequence[tuple[str, str]], footer: str = "") -> str:
    """One self-contained HTML page (inline style and script, images as data URLs).

    Args:
        title: page title.
        sections: (heading, body HTML) per section.
        footer: a last line of small print (empty: none).
    """
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width,initial-scale=1'>",
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    parts.extend(f"<h2>{html.escape(heading)}</h2>\n{body}" for heading, body in sections)
    if footer:
        parts.append(f"<footer>{html.escape(footer)}</footer>")
    parts.append(f"<script>{_SORT}</script></body></html>")
    return "\n".join(parts) + "\n"


def _prose(result: Any) -> str:
    """The suite's text around its tables (header, agents not run) as HTML paragraphs."""
    paragraphs = [*result.header_text().split("\n\n"), *result.not_run()]
    return "".join(
        "<p>" + "<br>".join(html.escape(line) for line in p.splitlines()) + "</p>"
        for p in paragraphs
        if p.strip()
    )


def write_report(
    results: Sequence[Any], out: str | Path, *, options: Mapping[str, Any], kind: str, version: int
) -> dict[str, Path]:
    """Write results.json (the manifest), results.md, report.html and PNGs as one folder.

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
    sections: list[tuple[str, str]] = []
    markdown: list[str] = []
    for result in results:
        parts = [_prose(result)]
        parts.extend(html_table(table, caption) for caption, table in result.tables())
        metrics = [m for m in result.plot_metrics if m in result.table]
        title = f"{result.suite}: held-out scores (95% CI)"
        plots = {"metrics": metric_bars_figure(result.table, metrics, title)}
        if result.calibration:  # suites scored by class labels
            title = f"{result.suite}: reliability"
            plots["calibration"] = calibration_figure(result.calibration, title)
        for name, figure in {**plots, **result.extras.get("figures", {})}.items():
            alt, caption = figure_texts(name, figure, result.suite)
            png = figure_png(figure)
            files[f"{result.suite}_{name}.png"] = png
            parts.append(html_figure(png, alt, caption))
        markdown.append(f"## {result.suite}\n\n{result.to_markdown()}\n")
        sections.append((result.suite, "\n".join(parts)))
    payload = {
        "options": dict(options),
        "suites": [
            {
                "suite": r.suite, "description": r.description, "split": r.split, "data": r.source,
                "countries": list(r.countries), "class_balance": r.class_balance,
                "results": _records(r.table), "not_run": r.skipped,
                "common_subset": None if r.common is None else {
                    "caption": r.common.caption, "countries": list(r.common.countries),
                    "n": r.common.n, "results": _records(r.common.table),
                },
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
    """Table rows as JSON-ready dicts (names as text, intervals as [low, high], numbers plain)."""
    rows = table.to_dict(orient="records")
    return [{str(k): _json_value(v) for k, v in row.items()} for row in rows]


def _json_value(value: Any) -> Any:
    """An interval as [low, high], a numpy scalar as a Python number, NaN (no score) as None."""
    if isinstance(value, tuple):
        return list(value)
    value = value.item() if hasattr(value, "item") else value
    return None if isinstance(value, float) and math.isnan(value) else value
