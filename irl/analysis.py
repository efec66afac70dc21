"""Comparing countries' rewards: distances, clustering, heatmap, dendrogram, effects over time.

Rewards are compared on their standardisable part: each country's weights (A, 1 + d)
flattened, or any values that describe its reward (``RewardModel.profile``), z-scored per
value across countries so that no feature dominates by its scale. Clustering is scipy's
hierarchical (Ward) linkage.

Example:
    >>> import numpy as np
    >>> theta = np.concatenate([np.zeros((3, 3, 2)), np.ones((3, 3, 2))])
    >>> cluster_rewards(theta, n_clusters=2).tolist()
    [1, 1, 1, 2, 2, 2]
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure  # no pyplot: no global figure state, no backend switch
from scipy.cluster.hierarchy import dendrogram, fcluster, leaves_list, linkage
from scipy.spatial.distance import pdist, squareform

from assembly_gym.core.persist import atomic_write_bytes
from assembly_gym.irl.explanation import action_grid, describe_feature

__all__ = [
    "TOP_COUNTRIES",
    "cluster_rewards",
    "dendrogram_figure",
    "effects_over_time_figure",
    "plot_dendrogram",
    "plot_effects_over_time",
    "plot_weights_heatmap",
    "reward_correlations",
    "reward_distances",
    "save_png",
    "top_countries",
    "weights_heatmap_figure",
]


def _rows(theta: np.ndarray, standardise: bool) -> np.ndarray:
    """(C, …) weights → (C, D) rows, z-scored per column across countries if asked."""
    rows = np.asarray(theta, dtype=np.float64).reshape(len(theta), -1)
    if standardise and len(rows) > 1:
        spread = rows.std(axis=0)
        rows = (rows - rows.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
    return rows


def reward_distances(theta: np.ndarray, *, standardise: bool = True) -> np.ndarray:
    """Euclidean distances between countries' weights, shape (C, C)."""
    return squareform(pdist(_rows(theta, standardise)))


def reward_correlations(learned: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Pearson correlation of each country's learned and reference weights, shape (C,).

    Args:
        learned: weights (C, …).
        reference: weights of the same shape (e.g. the planted ones).
    """
    a = np.asarray(learned, dtype=np.float64).reshape(len(learned), -1)
    b = np.asarray(reference, dtype=np.float64).reshape(len(reference), -1)
    if a.shape != b.shape:
        raise ValueError(f"learned {a.shape} and reference {b.shape} weights differ in shape")
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.where(norms > 0, (a * b).sum(axis=1) / np.maximum(norms, 1e-300), 0.0)


def cluster_rewards(theta: np.ndarray, n_clusters: int, *, standardise: bool = True) -> np.ndarray:
    """Ward hierarchical clustering of countries' weights into ``n_clusters``; labels (C,) 1…k."""
    if not 1 <= n_clusters <= len(theta):
        raise ValueError(f"n_clusters must be in 1..{len(theta)}, got {n_clusters}")
    if len(theta) == 1:
        return np.ones(1, dtype=np.int64)
    tree = linkage(_rows(theta, standardise), method="ward")
    return fcluster(tree, t=n_clusters, criterion="maxclust").astype(np.int64)


TOP_COUNTRIES = 30
"""Countries a heatmap shows by default: those with the largest weight norms."""


def top_countries(theta: np.ndarray, max_countries: int | None = TOP_COUNTRIES) -> np.ndarray:
    """Indices of the ``max_countries`` countries with the largest weight norms, in input order.

    Args:
        theta: weights (C, …).
        max_countries: how many to keep (None: all).

    Returns:
        Sorted indices (K,), K = min(C, max_countries).
    """
    norms = np.linalg.norm(np.asarray(theta, dtype=np.float64).reshape(len(theta), -1), axis=1)
    keep = len(norms) if max_countries is None else max_countries
    return np.sort(np.argsort(-norms, kind="stable")[:keep])


def weights_heatmap_figure(
    theta: np.ndarray,
    countries: Sequence[str],
    weight_names: Sequence[str],
    *,
    actions: Sequence[str] | None = None,
    max_countries: int | None = TOP_COUNTRIES,
    title: str = "Learned reward weights",
    label: str = "weight (red: favours the action)",
) -> Figure:
    """Heatmap of reward weights, or other values per country: one panel per action.

    Values named ``"<action>:<label>"`` (or ``"<label>:<action>"``) are drawn one panel per
    action (rows: the labels, described by
    :func:`~assembly_gym.irl.explanation.describe_feature`); other names in one panel.
    Countries are ordered by the dendrogram so that similar rewards sit together.

    Args:
        theta: values (C, …), flattened per country in ``weight_names`` order.
        countries: the C countries' names.
        weight_names: one name per flattened value.
        actions: the action names (None: the names' prefixes, as ``"<action>:<feature>"``).
        max_countries: draw only the countries with the largest norms (None: all).
        title: the figure's title (the selection of countries is added to it).
        label: what the colour shows.
    """
    rows = np.asarray(theta, dtype=np.float64).reshape(len(theta), -1)
    kept = top_countries(rows, max_countries)
    rows = rows[kept]
    order = leaves_list(linkage(_rows(rows, True), "ward")) if len(rows) > 1 else np.zeros(1, int)
    names = [str(countries[kept[i]]) for i in order]
    actions = actions or list(dict.fromkeys(n.partition(":")[0] for n in weight_names))
    grid = action_grid(weight_names, actions)
    if grid is None:  # one panel of every value
        actions, grid = [""], (tuple(weight_names), np.arange(len(weight_names))[None])
    features, where = grid
    values = rows[order][:, where]  # (countries, panels, features)
    limit = float(np.percentile(np.abs(values), 98)) or 1.0
    signed = bool((values < 0).any())  # else white is 0, e.g. for probabilities
    height = 0.16 * len(features) + 1.6  # inches per panel: a row of 8-point text per feature
    width = 0.2 * len(names) + 0.3  # inches per panel: a column per country
    side = len(actions) * width <= 9  # panels side by side while that stays narrow
    shape = (1, len(actions)) if side else (len(actions), 1)
    figure = Figure(
        figsize=(4.6 + width * shape[1] + 1.0, height * shape[0] + 0.8), layout="constrained"
    )
    axes = np.atleast_1d(figure.subplots(*shape, sharex=True, sharey=True)).ravel()
    for index, (axis, action) in enumerate(zip(axes, actions, strict=True)):
        image = axis.imshow(values[:, index, :].T, aspect="auto", cmap="RdBu_r" if signed else
                            "Reds", vmin=-limit if signed else 0.0, vmax=limit,
                            interpolation="nearest")  # fmt: skip
        axis.set_yticks(range(len(features)), [describe_feature(f) for f in features], fontsize=8)
        axis.set_xticks(range(len(names)), names, rotation=90, fontsize=8)
        axis.tick_params(labelbottom=True, labelleft=index == 0 or not side)
        if action:
            axis.set_title(f"action '{action}'", fontsize=10)
    shown = f"the {len(kept)} of {len(theta)} countries with the largest norms"
    shown = f"all {len(theta)} countries" if len(kept) == len(theta) else shown
    figure.suptitle(f"{title} ({shown})", fontsize=11)
    figure.colorbar(image, ax=list(axes), label=label,
                    shrink=min(1.0, 6 / (height * shape[0])), pad=0.02)  # fmt: skip
    return figure


def dendrogram_figure(theta: np.ndarray, countries: Sequence[str]) -> Figure:
    """Dendrogram of countries' rewards (Ward linkage on z-scored values), one row per country.

    The figure's height grows with the number of countries so that every name stays legible.
    """
    if len(theta) < 2:
        raise ValueError("a dendrogram needs at least two countries")
    tree = linkage(_rows(theta, True), method="ward")
    figure = Figure(figsize=(7.5, 1.4 + 0.2 * len(theta)))
    axis = figure.subplots()
    dendrogram(tree, labels=list(countries), ax=axis, orientation="right", leaf_font_size=8)
    axis.set_xlabel("Ward distance (each value z-scored across countries)")
    axis.set_title("Countries clustered by learned reward")
    figure.tight_layout()
    return figure


def plot_weights_heatmap(
    theta: np.ndarray,
    countries: Sequence[str],
    weight_names: Sequence[str],
    path: str | Path,
    **options: Any,
) -> Path:
    """:func:`weights_heatmap_figure` (``options``: its keywords) written as a PNG, atomically."""
    figure = weights_heatmap_figure(theta, countries, weight_names, **options)
    return save_png(figure, path, dpi=110)


def plot_dendrogram(theta: np.ndarray, countries: Sequence[str], path: str | Path) -> Path:
    """:func:`dendrogram_figure` written as a PNG, atomically."""
    return save_png(dendrogram_figure(theta, countries), path, dpi=110)


def save_png(figure: Figure, path: str | Path, dpi: int) -> Path:
    """Write a figure as a PNG (``dpi`` dots per inch, tight bounds), atomically."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    atomic_write_bytes(path, buffer.getvalue())
    return Path(path)


def effects_over_time_figure(
    table: pd.DataFrame, country: str, features: Sequence[str], actions: Sequence[str]
) -> Figure:
    """How a country's feature effects moved across periods: one panel per action.

    Args:
        table: rows (period, feature) with columns ``period`` (label), ``feature``,
            ``description`` and, per action, ``<a>``, ``<a>_low``, ``<a>_high`` (changes in
            probability, fractions), e.g. stacked
            :func:`~assembly_gym.irl.explanation.vote_effects`.
        country: the country's name (for the title).
        features: which features to draw, one line each.
        actions: which actions, one panel each.
    """
    periods = list(dict.fromkeys(table["period"]))
    figure = Figure(figsize=(5 * len(actions), 4.5))
    axes = np.atleast_1d(figure.subplots(1, len(actions), sharey=True))
    x = np.arange(len(periods))
    for axis, action in zip(axes, actions, strict=True):
        for feature in features:
            rows = table[table["feature"] == feature].set_index("period").reindex(periods)
            centre = 100 * rows[action].to_numpy(dtype=float)
            error = 100 * (rows[f"{action}_high"] - rows[f"{action}_low"]).to_numpy(float) / 2
            label = str(rows["description"].dropna().iloc[0])[:48]
            axis.errorbar(x, centre, yerr=error, marker="o", capsize=3, label=label)
        axis.axhline(0.0, color="grey", linewidth=0.8)
        axis.set_xticks(x, periods, rotation=45, ha="right", fontsize=8)
        axis.set_xlabel("period (sessions' years)")
        axis.set_title(f"P({action})")
    axes[0].set_ylabel("change in probability, points (bars: 95% CI, where given)")
    axes[-1].legend(fontsize=7, loc="best")
    figure.suptitle(
        f"{country}: effect of each feature (10th → 90th percentile) on its votes, by period"
    )
    figure.tight_layout()
    return figure


def plot_effects_over_time(
    table: pd.DataFrame,
    country: str,
    features: Sequence[str],
    actions: Sequence[str],
    path: str | Path,
) -> Path:
    """:func:`effects_over_time_figure` written as a PNG, atomically."""
    return save_png(effects_over_time_figure(table, country, features, actions), path, dpi=120)
