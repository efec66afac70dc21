"""Distances, correlations, clustering and plots of countries' rewards."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from assembly_gym.irl.analysis import (
    cluster_rewards,
    plot_dendrogram,
    plot_weights_heatmap,
    reward_correlations,
    reward_distances,
)


def _blocs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    centres = rng.normal(size=(3, 3, 5)) * 3
    blocs = np.repeat(np.arange(3), 6)
    return centres[blocs] + rng.normal(size=(18, 3, 5)) * 0.3, blocs


def test_clustering_finds_planted_blocs() -> None:
    theta, blocs = _blocs(np.random.default_rng(0))
    assert adjusted_rand_score(blocs, cluster_rewards(theta, 3)) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="n_clusters must be"):
        cluster_rewards(theta, 0)


def test_distances_and_correlations() -> None:
    theta, _ = _blocs(np.random.default_rng(1))
    distances = reward_distances(theta)
    np.testing.assert_allclose(distances, distances.T)
    assert (np.diag(distances) == 0).all()
    np.testing.assert_allclose(reward_correlations(theta, 2 * theta + 1), 1.0)
    with pytest.raises(ValueError, match="differ in shape"):
        reward_correlations(theta, theta[:, :2])


def test_plots_are_written(tmp_path) -> None:
    theta, _ = _blocs(np.random.default_rng(2))
    names = [f"C{i}" for i in range(len(theta))]
    weight_names = [f"w{i}" for i in range(15)]
    heatmap = plot_weights_heatmap(theta, names, weight_names, tmp_path / "heatmap.png")
    tree = plot_dendrogram(theta, names, tmp_path / "dendrogram.png")
    assert heatmap.read_bytes()[:4] == b"\x89PNG" and tree.stat().st_size > 1000
