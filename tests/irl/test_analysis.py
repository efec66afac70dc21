"""Distances, correlations, clustering and plots of countries' rewards."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from assembly_gym.envs.legislative.phi import ActionFeatureMap
from assembly_gym.irl.analysis import (
    TOP_COUNTRIES,
    cluster_rewards,
    dendrogram_figure,
    plot_dendrogram,
    plot_weights_heatmap,
    reward_correlations,
    reward_distances,
    top_countries,
    weights_heatmap_figure,
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


def test_the_heatmap_shows_the_strongest_countries_by_default_and_all_on_request() -> None:
    rng = np.random.default_rng(3)
    names = ActionFeatureMap(("text_03", "log_similar_yes"), ("yes", "no")).names
    theta = rng.normal(size=(TOP_COUNTRIES + 5, len(names)))
    theta[7] *= 100  # the strongest reward: always drawn
    countries = [f"C{i}" for i in range(len(theta))]
    kept = top_countries(theta)
    assert len(kept) == TOP_COUNTRIES and 7 in kept and (np.diff(kept) > 0).all()
    figure = weights_heatmap_figure(theta, countries, names)
    panels = [axis for axis in figure.axes if axis.get_label() != "<colorbar>"]
    assert [axis.get_title() for axis in panels] == ["action 'yes'", "action 'no'"]
    shown = {t.get_text() for t in panels[0].get_xticklabels()}
    assert len(shown) == TOP_COUNTRIES and "C7" in shown
    assert [t.get_text() for t in panels[0].get_yticklabels()] == [
        "a constant (the action's baseline)",
        "hashed word bucket 3 of its text (no readable meaning)",
        "its own yes votes on similar earlier roll calls (log scale)",
    ]
    assert f"the {TOP_COUNTRIES} of {len(theta)} countries" in figure.get_suptitle()
    every = weights_heatmap_figure(theta, countries, names, max_countries=None)
    assert len(every.axes[0].get_xticklabels()) == len(theta)
    assert "all 35 countries" in every.get_suptitle()


def test_the_dendrogram_grows_with_the_countries() -> None:
    theta, _ = _blocs(np.random.default_rng(4))
    small = dendrogram_figure(theta[:6], [f"C{i}" for i in range(6)])
    large = dendrogram_figure(theta, [f"C{i}" for i in range(len(theta))])
    assert large.get_figheight() > small.get_figheight()
    assert len(large.axes[0].get_yticklabels()) == len(theta)  # a row per country


def test_the_heatmap_finds_the_action_after_the_label() -> None:
    names = ("7:yes", "7:no", "9:yes", "9:no")  # the default profile: vote probabilities
    values = np.random.default_rng(5).uniform(size=(4, len(names)))
    figure = weights_heatmap_figure(values, list("ABCD"), names, actions=("yes", "no"),
                                    title="Profiles", label="probability")  # fmt: skip
    panels = [axis for axis in figure.axes if axis.get_label() != "<colorbar>"]
    assert [axis.get_title() for axis in panels] == ["action 'yes'", "action 'no'"]
    assert [t.get_text() for t in panels[0].get_yticklabels()] == ["7", "9"]
    assert figure.get_suptitle().startswith("Profiles (all 4 countries)")
