"""Figures of what agents learned: reward-weight heatmap, country dendrogram, debate allocations.

The report's captions of these figures (by name) are
:data:`~assembly_gym.benchmarks.report.FIGURE_CAPTIONS`.

Work units return each fitted agent's learned parameters (:func:`learned_parameters`: the
reward weights of MaxEnt IRL agents, the training history ``history_`` of debate
allocators) beside its predictions; :func:`learned_figures` turns them into the report's
extra figures.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from assembly_gym.agents.debate.plots import allocations_figure
from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.phi import ActionFeatureMap
from assembly_gym.irl.analysis import dendrogram_figure, weights_heatmap_figure
from assembly_gym.irl.base import RewardModel

__all__ = ["learned_figures", "learned_parameters"]


def learned_parameters(agent: Any) -> dict[str, Any]:
    """What a fitted agent learned that the report can draw (empty when nothing).

    Its reward weights: a linear agent's ``theta_``, or its country's row of its reward
    model's :meth:`~assembly_gym.irl.base.RewardModel.profile` with their names, where that
    needs no training history (an agent's model has none); a debate allocator's ``history_``.
    """
    found: dict[str, Any] = {}
    if isinstance(getattr(agent, "theta_", None), np.ndarray):
        found["weights"] = agent.theta_
    model = getattr(agent, "model_", None)
    if isinstance(model, RewardModel):
        with contextlib.suppress(DataError):
            values, names = model.profile()
            row = model.country_index(agent.country_)
            found["weights"], found["weight_names"] = values[row], names
    if getattr(agent, "history_", None) is not None:
        found["history"] = agent.history_
    return found


def learned_figures(
    learned: Mapping[str, Mapping[str, Mapping[str, Any]]],
    obs_names: tuple[str, ...],
    action_names: tuple[str, ...],
) -> dict[str, Figure]:
    """Figures of the first agent (table order) with reward weights and the first debate agent.

    Args:
        learned: agent name → country → :func:`learned_parameters` of its fitted agent.
        obs_names: the task's observation names (to name the weights when they are θ·φ(s, a)
            over the env's :class:`~assembly_gym.envs.legislative.phi.ActionFeatureMap`).
        action_names: the task's action names.

    Returns:
        Figure name → figure: ``weights`` and ``dendrogram`` (≥ 2 countries), ``allocations``.
    """
    figures: dict[str, Figure] = {}
    for agent, by_country in learned.items():
        weights = {c: p["weights"] for c, p in by_country.items() if "weights" in p}
        if weights and "weights" not in figures:
            countries = list(weights)
            theta = np.stack([np.ravel(weights[c]) for c in countries])
            named = [p["weight_names"] for p in by_country.values() if "weight_names" in p]
            names = named[0] if named else ActionFeatureMap(obs_names, action_names).names
            if len(names) != theta.shape[1]:  # weights over another feature map
                names = tuple(f"w{j}" for j in range(theta.shape[1]))
            title = f"{agent}: learned reward weights"
            figures["weights"] = weights_heatmap_figure(theta, countries, names, title=title)
            if len(countries) > 1:
                figures["dendrogram"] = dendrogram_figure(theta, countries)
        histories = {c: p["history"] for c, p in by_country.items() if "history" in p}
        if histories and "allocations" not in figures:
            country, history = next(iter(histories.items()))
            if history.metrics:
                title = f"{agent}: tendency allocations of {country} over epochs"
                figures["allocations"] = allocations_figure(history, title=title)
    return figures
