"""Simulated sessions against what really happened, counterfactuals against their baseline.

Scores of a :class:`~assembly_gym.benchmarks.simulation.Simulation` on the real votes of the
same roll calls:

- per-vote accuracy, macro-F1 and log-loss (nats) of each voter's policy on the votes it
  really cast (:class:`~assembly_gym.core.metrics.GroupedScores`, the package's metrics);
- outcome accuracy: the share of roll calls whose simulated outcome (adopted: yes > no
  among the votes cast) is the real one, the real one counted over every real voter;
- yes-share MAE: mean |simulated − real| share of yes per roll call;
- KS: the Kolmogorov–Smirnov distance between the simulated and the real distributions of
  the yes share per roll call (``scipy.stats.ks_2samp``).

Each score comes with a 95% percentile bootstrap interval over roll calls (resampled as
clusters, :mod:`assembly_gym.benchmarks.statistics`). Figures are matplotlib ``Figure``
objects (no pyplot state); :func:`~assembly_gym.benchmarks.report.figure_png` saves them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import ks_2samp

from assembly_gym.benchmarks.simulation import Simulation, adoption, count_votes, yes_shares
from assembly_gym.benchmarks.statistics import bootstrap_intervals, bootstrap_weights
from assembly_gym.core.errors import DataError
from assembly_gym.core.metrics import GroupedScores
from assembly_gym.envs.legislative.data import ABSENT, RollCallData, Vote

__all__ = [
    "SCORES",
    "compare",
    "counterfactual_figure",
    "country_scores",
    "distribution_figure",
    "real_votes",
    "score",
    "yes_share_figure",
]

SCORES = ("accuracy", "macro_f1", "log_loss", "outcome_accuracy", "yes_share_mae", "ks")
"""The columns of :func:`score`, each with a ``<name>_ci`` interval."""
_VOTE_SCORES = SCORES[:3]


def real_votes(simulation: Simulation, real: RollCallData) -> np.ndarray:
    """The real votes of the simulated voters on the simulated roll calls, (C, R) int8.

    A voter the real data lacks did not vote (:data:`ABSENT`).

    Raises:
        DataError: the real roll calls are not the simulated ones, in the same order.
    """
    simulated = simulation.roll_calls["rcid"].to_numpy()
    if not np.array_equal(simulated, real.roll_calls["rcid"].to_numpy()):
        raise DataError(real.source, "the real roll calls are not the simulated ones")
    known = set(real.country_names)
    rows = [
        real.votes[real.country_index(c)] if c in known else np.full(len(simulated), ABSENT)
        for c in simulation.countries
    ]
    return np.stack(rows).astype(np.int8)


def score(
    simulation: Simulation, real: RollCallData, n_resamples: int, rng: np.random.Generator
) -> dict[str, Any]:
    """Every score of :data:`SCORES` with its 95% interval, and the counts scored.

    Raises:
        DataError: no real vote of a simulated voter on these roll calls.
    """
    actual = real_votes(simulation, real)
    cast = actual != ABSENT
    if not cast.any():
        raise DataError(real.source, "no simulated voter really voted on these roll calls")
    roll_call = np.broadcast_to(np.arange(actual.shape[1]), actual.shape)
    votes = GroupedScores.from_predictions(
        actual[cast], simulation.probs[cast], groups=roll_call[cast]
    )
    row: dict[str, Any] = {name: float(votes.metrics()[name][0]) for name in _VOTE_SCORES}
    row |= {f"{k}_ci": v for k, v in bootstrap_intervals(votes, n_resamples, rng).items()
            if k in _VOTE_SCORES}  # fmt: skip
    real_tallies = count_votes(real.votes)
    voted = real_tallies.sum(axis=1) > 0  # roll calls with a real vote
    real_share, simulated_share = yes_shares(real_tallies)[voted], simulation.yes_share[voted]
    right = (adoption(real_tallies) == simulation.adopted)[voted].astype(float)
    error = np.abs(simulated_share - real_share)
    weights = bootstrap_weights(len(right), n_resamples, rng)
    resampled = {
        "outcome_accuracy": weights @ right / len(right),
        "yes_share_mae": weights @ error / len(right),
        "ks": np.array([_ks(simulated_share, real_share, w) for w in weights]),
    }
    row |= {
        "outcome_accuracy": float(right.mean()),
        "yes_share_mae": float(error.mean()),
        "ks": _ks(simulated_share, real_share, np.ones(len(right))),
    }
    for name, values in resampled.items():
        row[f"{name}_ci"] = (float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5)))
    return row | {"votes": int(cast.sum()), "roll_calls": int(voted.sum())}


def _ks(simulated: np.ndarray, real: np.ndarray, counts: np.ndarray) -> float:
    """KS distance of two samples paired by roll call, each roll call taken ``counts`` times."""
    take = np.repeat(np.arange(len(real)), counts.astype(np.int64))
    return float(ks_2samp(simulated[take], real[take]).statistic)


def country_scores(simulation: Simulation, real: RollCallData) -> pd.DataFrame:
    """Accuracy, macro-F1 and log-loss of each voter on its real votes (voters who voted)."""
    actual = real_votes(simulation, real)
    cast = actual != ABSENT
    who = np.broadcast_to(np.arange(actual.shape[0])[:, None], actual.shape)[cast]
    scores = GroupedScores.from_predictions(actual[cast], simulation.probs[cast], groups=who)
    voted = np.unique(who)
    metrics = scores.metrics(np.eye(len(voted)))
    table = pd.DataFrame({"country": [simulation.countries[i] for i in voted]})
    for name in _VOTE_SCORES:
        table[name] = metrics[name]
    table["votes"] = np.bincount(who)[voted]
    return table


def compare(baseline: Simulation, intervened: Simulation) -> dict[str, Any]:
    """How tallies and outcomes move from ``baseline`` to ``intervened`` (same draws).

    Returns:
        ``mean_tally`` (action → [baseline, intervened] mean votes per roll call),
        ``adopted`` ([baseline, intervened] counts), ``roll_calls``, ``flipped_to_rejected``
        and ``flipped_to_adopted`` (rcids), ``votes_changed`` (share of all votes).
    """
    if baseline.votes.shape != intervened.votes.shape or baseline.seed != intervened.seed:
        raise ValueError("compare runs of the same voters, roll calls and seed")
    before, after = baseline.tallies, intervened.tallies
    rcids = baseline.roll_calls["rcid"].to_numpy()
    return {
        "mean_tally": {
            name: [float(before[:, v].mean()), float(after[:, v].mean())]
            for name, v in zip(("yes", "no", "abstain"), Vote, strict=True)
        },
        "mean_yes_share": [float(baseline.yes_share.mean()), float(intervened.yes_share.mean())],
        "adopted": [int(baseline.adopted.sum()), int(intervened.adopted.sum())],
        "roll_calls": len(rcids),
        "flipped_to_rejected": rcids[baseline.adopted & ~intervened.adopted].tolist(),
        "flipped_to_adopted": rcids[~baseline.adopted & intervened.adopted].tolist(),
        "votes_changed": float((baseline.votes != intervened.votes).mean()),
    }


def yes_share_figure(real: np.ndarray, simulated: Mapping[str, np.ndarray]) -> Figure:
    """Simulated against real yes share, one point per roll call and panel per simulation."""
    figure = Figure(figsize=(4.4 * len(simulated), 4.2))
    axes = figure.subplots(1, len(simulated))
    for axis, (name, shares) in zip(np.atleast_1d(axes), simulated.items(), strict=True):
        axis.plot([0, 1], [0, 1], color="#999999", linestyle="--", linewidth=1)
        axis.scatter(real, shares, s=8, alpha=0.4, color="#4c72b0")
        axis.set(xlim=(0, 1), ylim=(0, 1), xlabel="real yes share", title=name)
        axis.set_ylabel("simulated yes share")
    figure.suptitle("Yes share per roll call")
    figure.tight_layout()
    return figure


def distribution_figure(real: np.ndarray, simulated: Mapping[str, np.ndarray]) -> Figure:
    """Histograms of the yes share per roll call: the real one and each simulation's."""
    figure = Figure(figsize=(6.0, 3.8))
    axis = figure.subplots()
    bins = np.linspace(0, 1, 41).tolist()
    axis.hist(real, bins=bins, color="#333333", alpha=0.35, label="real")
    for name, shares in simulated.items():
        axis.hist(shares, bins=bins, histtype="step", linewidth=1.6, label=name)
    axis.set(xlabel="yes share of a roll call", ylabel="roll calls")
    axis.set_title("Distribution of the yes share")
    axis.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    return figure


def counterfactual_figure(baseline: Simulation, intervened: Simulation, title: str) -> Figure:
    """Yes share per roll call, baseline against intervened (flipped outcomes marked)."""
    figure = Figure(figsize=(5.0, 4.6))
    axis = figure.subplots()
    flipped = baseline.adopted != intervened.adopted
    axis.plot([0, 1], [0, 1], color="#999999", linestyle="--", linewidth=1)
    axis.scatter(baseline.yes_share[~flipped], intervened.yes_share[~flipped], s=8, alpha=0.4,
                 color="#4c72b0", label="same outcome")  # fmt: skip
    axis.scatter(baseline.yes_share[flipped], intervened.yes_share[flipped], s=14,
                 color="#c44e52", label=f"outcome flipped ({int(flipped.sum())})")  # fmt: skip
    axis.set(xlim=(0, 1), ylim=(0, 1), xlabel="baseline yes share")
    axis.set_ylabel("intervened yes share")
    axis.set_title(title, fontsize=9)
    axis.legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    return figure
