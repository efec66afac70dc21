"""Simulated sessions against what really happened, counterfactuals against their baseline.

Scores of a :class:`~assembly_gym.benchmarks.simulation.Simulation` on the real votes of the
same roll calls (:data:`SCORES`, each with a 95% bootstrap interval over roll calls:
docs/simulation.md, "How a session is played"). Figures are matplotlib ``Figure`` objects
(no pyplot state).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import ks_2samp

from assembly_gym.benchmarks.report import figure_png, markdown_table
from assembly_gym.benchmarks.simulation import Simulation, count_votes, yes_shares
from assembly_gym.benchmarks.statistics import (
    bootstrap_intervals,
    bootstrap_weights,
    percentile_interval,
)
from assembly_gym.core.errors import DataError
from assembly_gym.core.metrics import GroupedScores
from assembly_gym.envs.legislative.data import ABSENT, ADOPTION, RollCallData, Vote

__all__ = [
    "SCORES",
    "SimulationReport",
    "compare",
    "counterfactual_figure",
    "country_scores",
    "distribution_figure",
    "real_votes",
    "report_simulation",
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
    right = (ADOPTION(real.votes.T) == simulation.adopted)[voted].astype(float)
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
        row[f"{name}_ci"] = percentile_interval(values)
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


@dataclass(frozen=True)
class SimulationReport:
    """A play of learned rewards scored beside the majority play: what ``simulate`` shows.

    Attributes:
        scores: one row per play (``policy``), :data:`SCORES` with their intervals.
        text: Markdown: the scores, the speed, and the counterfactual if there is one.
        files: file name → bytes: PNG plots, ``roll_calls.csv`` and ``countries.csv``.
        counterfactual: :func:`compare` of the play and the intervened one, or None.
    """

    scores: pd.DataFrame
    text: str
    files: dict[str, bytes]
    counterfactual: dict[str, Any] | None


def report_simulation(
    real: RollCallData, played: Simulation, majority: Simulation,
    intervened: Simulation | None = None, *, n_resamples: int, rng: np.random.Generator,
    title: str = "",
) -> SimulationReport:  # fmt: skip
    """Score ``played`` and ``majority`` on ``real``, draw them, and the counterfactual.

    Args:
        real: the real votes of the simulated roll calls (read only to score).
        played: the play of the learned rewards.
        majority: the play of each country's historical majority vote.
        intervened: the same draws as ``played`` under interventions described by ``title``.
        n_resamples: bootstrap resamples (over roll calls) of the intervals.
        rng: the bootstrap's generator.
        title: the interventions, in words.
    """
    plays = {"learned rewards": played, "historical majority": majority}
    scores = pd.DataFrame(
        [{"policy": name} | score(play, real, n_resamples, rng) for name, play in plays.items()]
    )
    seconds = played.policy_seconds + played.decision_seconds
    parts = [
        markdown_table(scores.drop(columns=["votes", "roll_calls"]).rename(columns=_HEADERS)),
        f"{played.votes.size} agent-decisions: policies {played.policy_seconds:.2f} s (features "
        f"and softmax), batched draws and tallies {played.decision_seconds * 1e3:.2f} ms = "
        f"{played.decisions_per_second:,.0f} agent-decisions/s ({played.votes.size / seconds:,.0f}"
        "/s with the policies)",
    ]  # fmt: skip
    real_share = yes_shares(count_votes(real.votes))
    shares = {name: play.yes_share for name, play in plays.items()}
    files = {"yes_share.png": figure_png(yes_share_figure(real_share, shares)),
             "yes_share_distributions.png": figure_png(distribution_figure(real_share, shares))}
    frame = pd.DataFrame({"rcid": played.roll_calls["rcid"],
                          "session": played.roll_calls["session"], "real_yes_share": real_share,
                          "simulated_yes_share": played.yes_share,
                          "simulated_adopted": played.adopted,
                          "majority_yes_share": majority.yes_share})  # fmt: skip
    change = None
    if intervened is not None:
        change = compare(played, intervened)
        parts.append(_counterfactual_text(change, title, played.seed))
        files["counterfactual.png"] = figure_png(
            counterfactual_figure(played, intervened, f"{title} (seed {played.seed})")
        )
        frame["intervened_yes_share"] = intervened.yes_share
        frame["intervened_adopted"] = intervened.adopted
    files["roll_calls.csv"] = frame.to_csv(index=False, float_format="%.6f").encode()
    files["countries.csv"] = country_scores(played, real).to_csv(
        index=False, float_format="%.6f"
    ).encode()
    return SimulationReport(scores, "\n\n".join(parts), files, change)


_HEADERS = {
    f"{name}{suffix}": f"{label}{suffix}"
    for name, label in (("outcome_accuracy", "outcome acc."), ("yes_share_mae", "yes-share MAE"),
                        ("ks", "KS"))
    for suffix in ("", "_ci")
}  # fmt: skip
"""Column headers of the scores table (the intervals' columns follow their metric's)."""


def _counterfactual_text(change: dict[str, Any], title: str, seed: int) -> str:
    """The counterfactual's table of mean tallies and outcomes (:func:`compare`'s ``change``)."""
    rows = [
        f"| mean {name} votes per roll call | {a:.2f} | {b:.2f} | {b - a:+.2f} |"
        for name, (a, b) in change["mean_tally"].items()
    ]
    (a, b), n = change["adopted"], change["roll_calls"]
    share_a, share_b = change["mean_yes_share"]
    rows += [
        f"| mean yes share | {share_a:.3f} | {share_b:.3f} | {share_b - share_a:+.3f} |",
        f"| roll calls adopted | {a}/{n} | {b}/{n} | {b - a:+d} |",
    ]
    return "\n".join([
        f"Counterfactual {title} (seed {seed}: the baseline's draws)", "",
        "| | baseline | intervened | change |", "| --- | --- | --- | --- |", *rows, "",
        f"outcomes flipped: {len(change['flipped_to_rejected'])} adopted → rejected, "
        f"{len(change['flipped_to_adopted'])} rejected → adopted; "
        f"{change['votes_changed']:.1%} of votes changed",
    ])  # fmt: skip
