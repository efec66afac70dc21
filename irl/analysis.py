"""Comparing countries' rewards: distances, clustering, heatmap, dendrogram, effects over time.

Rewards are compared on their standardisable part: each country's weights (A, 1 + d)
flattened, optionally restricted to some features, z-scored per weight across countries so
that no feature dominates by its scale. Clustering is scipy's hierarchical (Ward) linkage.

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

import numpy as np
import pandas as pd
from matplotlib.figure import Figure  # no pyplot: no global figure state, no backend switch
from scipy.cluster.hierarchy import dendrogram, fcluster, leaves_list, linkage
from scipy.spatial.distance import pdist, squareform

from assembly_gym.core.persist import atomic_write_bytes

__all__ = [
    "cluster_rewards",
    "dendrogram_figure",
    "effects_over_time_figure",
    "plot_dendrogram",
    "plot_effects_over_time",
    "plot_weights_heatmap",
    "reward_correlations",
    "reward_distances",
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


def weights_heatmap_figure(
    theta: np.ndarray,
    countries: Sequence[str],
    weight_names: Sequence[str],
    *,
    max_countries: int = 60,
) -> Figure:
    """Heatmap of weights (rows: countries, columns: named weights).

    Countries are ordered by the dendrogram so that similar rewards sit together.
    """
    rows = np.asarray(theta, dtype=np.float64).reshape(len(theta), -1)[:max_countries]
    names = list(countries)[:max_countries]
    order = leaves_list(linkage(_rows(rows, True), "ward")) if len(rows) > 1 else [0]
    limit = float(np.percentile(np.abs(rows), 98)) or 1.0
    figure = Figure(figsize=(min(2 + 0.12 * rows.shape[1], 40), 2 + 0.18 * len(rows)))
    axis = figure.subplots()
    image = axis.imshow(rows[order], aspect="auto", cmap="RdBu_r", vmin=-limit, vmax=limit)
    axis.set_yticks(range(len(order)), [names[i] for i in order], fontsize=6)
    axis.set_xticks(range(rows.shape[1]), list(weight_names), rotation=90, fontsize=5)
    figure.colorbar(image, ax=axis, label="weight")
    axis.set_title("Learned reward weights")
    figure.tight_layout()
    return figure


def dendrogram_figure(theta: np.ndarray, countries: Sequence[str]) -> Figure:
    """Dendrogram of countries' rewards (Ward linkage on z-scored weights)."""
    if len(theta) < 2:
        raise ValueError("a dendrogram needs at least two countries")
    tree = linkage(_rows(theta, True), method="ward")
    figure = Figure(figsize=(max(6, 0.12 * len(theta)), 5))
    axis = figure.subplots()
    dendrogram(tree, labels=list(countries), ax=axis, leaf_font_size=6)
    axis.set_ylabel("Ward distance (z-scored weights)")
    axis.set_title("Countries clustered by learned reward")
    figure.tight_layout()
    return figure


def plot_weights_heatmap(
    theta: np.ndarray,
    countries: Sequence[str],
    weight_names: Sequence[str],
    path: str | Path,
    *,
    max_countries: int = 60,
) -> Path:
    """:func:`weights_heatmap_figure` written as a PNG, atomically."""
    figure = weights_heatmap_figure(theta, countries, weight_names, max_countries=max_countries)
    return _save_png(figure, path, dpi=120)


def plot_dendrogram(theta: np.ndarray, countries: Sequence[str], path: str | Path) -> Path:
    """:func:`dendrogram_figure` written as a PNG, atomically."""
    return _save_png(dendrogram_figure(theta, countries), path, dpi=120)


def _save_png(figure: Figure, path: str | Path, dpi: int) -> Path:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
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
    axes[0].set_ylabel("change in probability, points (95% CI)")
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
    return _save_png(effects_over_time_figure(table, country, features, actions), path, dpi=120)
