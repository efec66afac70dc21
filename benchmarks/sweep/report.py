"""A sweep's report: the table, the plot, every trial as CSV, and the best flags as a file.

``--out`` is one artifact folder, written whole (:func:`write_sweep`; its files:
docs/ray.md, "Sweeps").
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np

from assembly_gym.benchmarks.commands.arguments import flags_document
from assembly_gym.benchmarks.sweep.run import SweepResult
from assembly_gym.core.artifact import write_artifact

__all__ = ["SWEEP_KIND", "SWEEP_MANIFEST", "best_document", "plot_scores", "sweep_table",
           "write_sweep"]  # fmt: skip

SWEEP_MANIFEST = "sweep.json"
"""The manifest of a sweep's folder."""
SWEEP_KIND = "assembly-gym sweep"
"""Its ``kind``."""
_VERSION = 1


def sweep_table(result: SweepResult) -> str:
    """The trials, best first, under a header naming the split, seeds, metric and search."""
    space, trials = result.space, result.trials
    best = "lowest" if space.mode == "min" else "highest"
    header = (
        f"Sweep `{space.name}` ({space.summary}): {len(trials)} trials × seeds "
        f"{list(result.seeds)}; {result.search}.\nScore: {space.metric} ({best} is best), mean ± "
        f"sd over seeds; data: {result.split}. Best flags → `{space.command} --config best.json`."
    )
    columns = [p.name for p in space.params] + ["score", "score_sd", "iterations",
                                                "stopped_early"]  # fmt: skip
    shown = trials[columns].copy()
    shown["score"] = [f"{m:.4f} ± {s:.4f}" for m, s in zip(shown["score"], shown["score_sd"],
                                                          strict=True)]  # fmt: skip
    shown = shown.drop(columns="score_sd")
    for param in space.params:
        if param.kind in ("log", "uniform"):
            shown[param.name] = [f"{v:.4g}" for v in shown[param.name]]
    shown.insert(0, "rank", range(1, len(shown) + 1))
    return f"{header}\n\n{shown.to_markdown(index=False)}\n"


def best_document(result: SweepResult) -> dict:
    """``best.json``: the best flags for the consuming command, with their score and split."""
    row = result.trials.iloc[0]
    return flags_document(
        result.space.command, {**result.space.fixed, **result.best}, space=result.space.name,
        score=float(row["score"]), score_sd=float(row["score_sd"]), metric=result.space.metric,
        split=result.split, seeds=list(result.seeds), search=result.search,
    )  # fmt: skip


def plot_scores(result: SweepResult) -> bytes:
    """PNG bytes: one panel per hyperparameter, score against its value, the best marked.

    A log-uniform hyperparameter gets a log axis; a choice, one tick per value.
    """
    from matplotlib.figure import Figure  # no pyplot: no global figure state, no back end

    params, trials = result.space.params, result.trials
    ok = trials[np.isfinite(trials["score"].astype(float))]
    figure = Figure(figsize=(4 * len(params), 3.4))
    axes = figure.subplots(1, len(params), squeeze=False)
    for axis, param in zip(axes[0], params, strict=True):
        if param.kind == "choice":
            labels = [str(c) for c in param.choices]
            x = np.array([labels.index(str(v)) for v in ok[param.name]], dtype=float)
            axis.set_xticks(range(len(labels)), labels)
        else:
            x = ok[param.name].to_numpy(dtype=float)
            if param.log:
                axis.set_xscale("log")
        axis.errorbar(x, ok["score"], yerr=ok["score_sd"], fmt="o", alpha=0.7, label="trials")
        if len(ok):
            axis.plot(x[:1], ok["score"].iloc[:1], "*", color="C3", markersize=14, label="best")
        axis.set_xlabel(param.name)
        axis.set_ylabel(result.space.metric)
    axes[0][0].legend(loc="best", fontsize="small")
    figure.suptitle(f"assembly-gym sweep {result.space.name}")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def write_sweep(folder: str | Path, result: SweepResult) -> str:
    """Write the report folder whole; returns the table (``sweep.md``)."""
    table = sweep_table(result)
    files = {
        "trials.csv": result.trials.to_csv(index=False).encode(),
        "best.json": (json.dumps(best_document(result), indent=2) + "\n").encode(),
        "sweep.md": table.encode(),
        "scores.png": plot_scores(result),
    }
    payload = {"space": result.space.name, "command": result.space.command}
    write_artifact(folder, files, manifest=SWEEP_MANIFEST, kind=SWEEP_KIND, version=_VERSION,
                   payload=payload)  # fmt: skip
    return table
