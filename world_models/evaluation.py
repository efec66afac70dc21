"""Held-out evaluation of world models: one-step accuracy, likelihood, rollouts, distributions.

:func:`evaluate_world_model` scores any :class:`~assembly_gym.world_models.base.WorldModel` on test
transitions (episodes the model never saw); the metrics are listed in docs/world_models.md,
section "Evaluation". Details not there: outcome accuracy counts the steps that reach the
terminal stage, vote-share errors the steps where a vote happens; rollouts start from each
test episode's first state, with the recorded actions, for the recorded length; the
distribution match compares final states of up to 10 rollouts per group (resolution, each
from another country's episode) with the one true outcome of every group, the KS p-value by
:func:`scipy.stats.ks_2samp` and KL(real ‖ simulated) over 20 equal bins (half a
pseudo-count per bin, at the real sample's size). The metrics of a part that a family does
not declare, or that its layout lacks, are left out.

Per episode (:attr:`Evaluation.episodes`): the mean NLL of its transitions and the RMSE of
its rollout over its steps and the changing dims, summarised by their median, 90th
percentile and worst episode. Diversity: the distance of two trajectories is the RMS
difference of their states over the steps both run and the changing dims; up to 100 test
episodes are rolled out 4 times each, and the mean distance between rollouts from the same
start is put beside their mean distance to the real trajectory (equal for a model whose
rollouts vary as much as reality does around them; smaller: the model is too sure), and
the mean distance between the rollouts of different episodes beside that between their
real trajectories.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from assembly_gym.core.metrics import expected_calibration_error
from assembly_gym.core.state import StateDeclaration, VoteGroup
from assembly_gym.core.transitions import Transitions
from assembly_gym.world_models.base import WorldModel

__all__ = ["Evaluation", "METRIC_LABELS", "evaluate_world_model", "evaluation_table"]

METRIC_LABELS: dict[str, str] = {
    "transitions": "test transitions",
    "nll": "NLL (nats / transition)",
    "rmse": "RMSE, changing dims",
    "stage_accuracy": "stage accuracy",
    "outcome_accuracy": "outcome (adopted) accuracy",
    "outcome_ece": "adopted ECE",
    "ece": "ECE, all heads (top class)",
    "vote_share_mae_pp": "vote-share MAE (pp)",
    "count_mae": "vote-count MAE (votes)",
    "count_within_1": "vote count within ±1",
    "count_within_5": "vote count within ±5",
    "episode_nll_median": "per-episode NLL, median (nats / transition)",
    "episode_nll_p90": "per-episode NLL, 90th percentile",
    "episode_nll_worst": "per-episode NLL, worst episode",
    "episode_rmse_median": "per-episode rollout RMSE, median",
    "episode_rmse_p90": "per-episode rollout RMSE, 90th percentile",
    "episode_rmse_worst": "per-episode rollout RMSE, worst episode",
    "spread_same_start": "distance between rollouts from one start",
    "spread_to_real": "distance of those rollouts to the real one",
    "spread_between_sim": "distance between episodes, simulated",
    "spread_between_real": "distance between episodes, real",
    "adoption_real_pct": "adoption rate, real (%)",
    "adoption_sim_pct": "adoption rate, simulated (%)",
    "adoption_gap_pp": "adoption gap (pp)",
    "adoption_gap_se_pp": "adoption gap, s.e. of the real rate (pp)",
    "yes_share_real_pct": "mean yes share, real (%)",
    "yes_share_sim_pct": "mean yes share, simulated (%)",
    "yes_share_gap_pp": "yes-share gap (pp)",
    "yes_share_gap_se_pp": "yes-share gap, s.e. of the real mean (pp)",
    "yes_share_ks_p": "yes-share KS p-value",
    "yes_share_kl": "yes-share KL(real‖sim) (nats)",
    "outcome_consistency": "simulated outcome agrees with tally",
    "groups_simulated": "resolutions simulated",
    "rollouts_simulated": "rollouts simulated",
}
"""Row labels of :func:`evaluation_table` (rollout rows are ``rollout_rmse_h<k>``)."""

_TABLE_HORIZONS = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500)
"""Rollout horizons :func:`evaluation_table` shows, with the longest (the metrics hold all)."""


@dataclass(frozen=True)
class Evaluation:
    """The scores of one model on one test set.

    Attributes:
        metrics: name → value (see :data:`METRIC_LABELS`; NaN where a metric does not apply).
        per_dim_rmse: one-step RMSE of every dimension that changes in the test data.
        per_head_nll: mean negative log-likelihood of every head's true class (nats).
        episodes: one row per test episode: ``episode`` (its id), ``group``, ``steps``,
            ``nll`` (mean over its transitions, nats; NaN without ``log_prob``) and
            ``rollout_rmse`` (NaN for an episode not rolled out).
    """

    metrics: dict[str, float]
    per_dim_rmse: dict[str, float] = field(default_factory=dict)
    per_head_nll: dict[str, float] = field(default_factory=dict)
    episodes: pd.DataFrame = field(default_factory=pd.DataFrame)


def evaluate_world_model(
    model: WorldModel,
    test: Transitions,
    *,
    seed: int = 0,
    tolerances: Sequence[int] = (1, 5),
    max_rollouts: int = 5000,
    rollouts_per_group: int = 10,
) -> Evaluation:
    """Score a model on held-out transitions (see the module docstring).

    Args:
        model: any world model; ``log_prob`` and a ``schema`` are used where present.
        test: held-out transitions with ``obs_names`` (extras ``voters`` enable counts)
            and their family's declaration.
        seed: seed of the rollouts' samples and of the episodes chosen.
        tolerances: k of "vote count within ±k".
        max_rollouts: at most this many episodes are rolled out for the rollout error.
        rollouts_per_group: simulated episodes per group for the distribution match.
    """
    if len(test) == 0:
        raise ValueError("no test transitions")
    names = test.obs_names or tuple(model.obs_names)
    index = {name: i for i, name in enumerate(names)}
    declaration = test.declaration
    if declaration == StateDeclaration():  # transitions that do not say their family's
        declaration = getattr(model, "state_declaration", declaration)
    stages, rule = declaration.stages, declaration.outcome
    obs, nxt = test.obs, test.next_obs
    prediction = model.predict(obs, test.acts)
    dists = prediction.distributions
    changing = np.flatnonzero((obs != nxt).any(axis=0))
    error = prediction.mean[:, changing] - nxt[:, changing]
    metrics: dict[str, float] = {"transitions": float(len(test))}
    nll = (
        -model.log_prob(obs, test.acts, nxt) if hasattr(model, "log_prob")
        else np.full(len(test), np.nan)
    )  # fmt: skip
    metrics["nll"] = float(np.mean(nll))
    metrics["rmse"] = float(np.sqrt(np.mean(error**2))) if len(changing) else 0.0
    per_dim = dict(
        zip([names[j] for j in changing], np.sqrt(np.mean(error**2, axis=0)).tolist(), strict=True)
    )

    if "stage" in dists and stages is not None and set(stages.dims) <= set(index):
        stage_dims = [index[n] for n in stages.dims]
        metrics["stage_accuracy"] = float(
            np.mean(dists["stage"].argmax(1) == nxt[:, stage_dims].argmax(1))
        )
    if rule is not None and rule.outcome in dists and rule.outcome in index:
        terminal = stages.dims[stages.labels.index(stages.terminal)] if stages else ""
        revealed = nxt[:, index[terminal]] > 0.5 if terminal in index else np.ones(len(nxt), bool)
        p_outcome = dists[rule.outcome][revealed, 1]
        truth = nxt[revealed, index[rule.outcome]] > 0.5
        metrics["outcome_accuracy"] = float(np.mean((p_outcome > 0.5) == truth))
        metrics["outcome_ece"] = expected_calibration_error(p_outcome, truth)
    metrics |= _vote_metrics(
        prediction.mean, obs, nxt, index, declaration.votes, test.extras.get("voters"),
        tolerances,
    )  # fmt: skip
    per_head, calibration = _head_scores(model, dists, nxt, test.dones)
    if calibration is not None:
        metrics["ece"] = expected_calibration_error(*calibration)
    rng = np.random.default_rng(seed)
    horizons, rollout_rmse = _rollout_errors(model, test, changing, max_rollouts, rng)
    episodes = _episodes(test, nll, rollout_rmse)
    metrics |= horizons | _summary(episodes, "nll") | _summary(episodes, "rollout_rmse")
    metrics |= _distribution_match(model, test, index, declaration, rollouts_per_group, rng)
    metrics |= _diversity(model, test, changing, rng)
    return Evaluation(metrics, per_dim, per_head, episodes)


def evaluation_table(
    results: Mapping[str, Evaluation], extra: Mapping[str, Mapping[str, float]] | None = None
) -> str:
    """A Markdown table: one row per metric, one column per model.

    Args:
        results: model name → its evaluation.
        extra: more rows, label → {model name → value} (e.g. fit seconds).
    """
    keys = list(METRIC_LABELS)
    horizons = sorted({int(k.removeprefix("rollout_rmse_h")) for r in results.values()
                       for k in r.metrics if k.startswith("rollout_rmse_h")})  # fmt: skip
    rollout = [f"rollout_rmse_h{h}" for h in horizons if h in _TABLE_HORIZONS or h == horizons[-1]]
    keys[keys.index("episode_nll_median") : keys.index("episode_nll_median")] = rollout
    rows = {}
    for key in keys:
        values = {name: r.metrics.get(key, np.nan) for name, r in results.items()}
        if all(np.isnan(v) for v in values.values()):
            continue
        label = METRIC_LABELS.get(key) or f"rollout RMSE, step {key.removeprefix('rollout_rmse_h')}"
        rows[label] = values
    for label, row in (extra or {}).items():
        rows[label] = dict(row)
    table = pd.DataFrame(rows).T[list(results)]
    return table.to_markdown(floatfmt=".4g")


# ---------------------------------------------------------------------------- helpers


def _head_scores(
    model: WorldModel, dists: Mapping[str, np.ndarray], nxt: np.ndarray, dones: np.ndarray
) -> tuple[dict[str, float], tuple[np.ndarray, np.ndarray] | None]:
    """Per-head NLL and pooled (confidence, correct) of the top class, for models with a schema."""
    schema = getattr(model, "schema", None)
    if schema is None:
        return {}, None
    targets = schema.targets(nxt, dones)
    per_head, confidence, correct = {}, [], []
    for name, (classes, valid) in targets.items():
        if name not in dists or not valid.any():
            continue
        probs = dists[name][valid]
        truth = classes[valid]
        per_head[name] = float(
            -np.mean(np.log(np.clip(probs[np.arange(len(truth)), truth], 1e-12, None)))
        )
        confidence.append(probs.max(axis=1))
        correct.append(probs.argmax(axis=1) == truth)
    return per_head, (np.concatenate(confidence), np.concatenate(correct))


def _vote_metrics(
    mean: np.ndarray, obs: np.ndarray, nxt: np.ndarray, index: Mapping[str, int],
    votes: Sequence[VoteGroup], voters: np.ndarray | None, tolerances: Sequence[int],
) -> dict[str, float]:  # fmt: skip
    """Share MAE and count accuracy of the declared ``votes`` where one happens (0 → filled)."""
    errors, counts_true, counts_pred = [], [], []
    for vote in votes:
        if not set(vote.dims) <= set(index):
            continue
        dims = [index[name] for name in vote.dims]
        happens = (obs[:, dims].sum(1) == 0) & (nxt[:, dims].sum(1) > 0)
        errors.append(np.abs(mean[happens][:, dims] - nxt[happens][:, dims]))
        if voters is not None:
            n = voters[happens][:, None]
            counts_true.append(np.rint(nxt[happens][:, dims] * n))
            counts_pred.append(np.rint(mean[happens][:, dims] * n))
    if not errors or not sum(len(e) for e in errors):
        return {}
    out = {"vote_share_mae_pp": float(100 * np.mean(np.concatenate(errors)))}
    if counts_true:
        gap = np.abs(np.concatenate(counts_pred) - np.concatenate(counts_true))
        out["count_mae"] = float(gap.mean())
        out |= {f"count_within_{k}": float(np.mean(gap <= k)) for k in tolerances}
    return out


def _simulate(
    model: WorldModel, test: Transitions, episodes: np.ndarray, rng: np.random.Generator
) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Roll the chosen episodes out with their recorded actions.

    Returns the simulated and true states after each step (lists over steps of (n_h, d)
    arrays for the episodes still running) and each episode's length.
    """
    starts = test.episode_starts()
    lengths = np.diff(np.r_[starts, len(test)])
    first, length = starts[episodes], lengths[episodes]
    state = test.obs[first].copy()
    simulated, truth = [], []
    for h in range(int(length.max())):
        running = np.flatnonzero(length > h)
        rows = first[running] + h
        state[running] = model.sample(state[running], test.acts[rows], rng)
        simulated.append(state[running].copy())
        truth.append(test.next_obs[rows])
    return simulated, truth, length


def _rollout_errors(
    model: WorldModel, test: Transitions, changing: np.ndarray, max_rollouts: int,
    rng: np.random.Generator,
) -> tuple[dict[str, float], np.ndarray]:  # fmt: skip
    """RMSE of sampled rollouts to the true states over the changing dims.

    Returns:
        The RMSE per horizon, and per episode over its steps, (n_episodes,): NaN for the
        episodes not rolled out.
    """
    n_episodes = len(test.episode_starts())
    chosen = np.sort(rng.choice(n_episodes, min(max_rollouts, n_episodes), replace=False))
    simulated, truth, length = _simulate(model, test, chosen, rng)
    per_episode = np.full(n_episodes, np.nan)
    if not len(changing):
        return {}, per_episode
    squares = [
        ((s[:, changing] - t[:, changing]) ** 2).sum(1)
        for s, t in zip(simulated, truth, strict=True)
    ]
    total = np.zeros(len(chosen))
    for h, square in enumerate(squares):
        total[length > h] += square
    per_episode[chosen] = np.sqrt(total / (length * len(changing)))
    horizons = {
        f"rollout_rmse_h{h + 1}": float(np.sqrt(square.mean() / len(changing)))
        for h, square in enumerate(squares)
    }
    return horizons, per_episode


def _episodes(test: Transitions, nll: np.ndarray, rollout_rmse: np.ndarray) -> pd.DataFrame:
    """:attr:`Evaluation.episodes` from per-transition NLL (N,) and per-episode RMSE."""
    starts = test.episode_starts()
    steps = np.diff(np.r_[starts, len(test)])
    return pd.DataFrame({
        "episode": test.episodes[starts], "group": test.split_units[starts], "steps": steps,
        "nll": np.add.reduceat(nll, starts) / steps, "rollout_rmse": rollout_rmse,
    })  # fmt: skip


def _summary(episodes: pd.DataFrame, column: str) -> dict[str, float]:
    """Median, 90th percentile and worst of a per-episode score (none where all are NaN)."""
    values = episodes[column].dropna().to_numpy()
    if not len(values):
        return {}
    name = "episode_" + column.removeprefix("rollout_")
    median, p90 = np.percentile(values, [50, 90])
    return {f"{name}_median": median, f"{name}_p90": p90, f"{name}_worst": values.max()}


def _diversity(
    model: WorldModel, test: Transitions, changing: np.ndarray, rng: np.random.Generator,
    n_episodes: int = 100, per_start: int = 4,
) -> dict[str, float]:  # fmt: skip
    """Mean trajectory distances: same start, to the real one, between episodes (both)."""
    n = len(test.episode_starts())
    if not len(changing) or n < 2:
        return {}
    chosen = np.sort(rng.choice(n, min(n_episodes, n), replace=False))
    simulated, truth, length = _simulate(model, test, np.repeat(chosen, per_start), rng)
    owner = np.r_[np.repeat(np.arange(len(chosen)), per_start), np.arange(len(chosen))]
    real = np.r_[np.zeros(len(chosen) * per_start, bool), np.ones(len(chosen), bool)]
    length = np.r_[length, length[::per_start]]
    squares, counts = np.zeros((len(owner), len(owner))), np.zeros((len(owner), len(owner)))
    for h, (s, t) in enumerate(zip(simulated, truth, strict=True)):
        running = np.flatnonzero(length > h)
        states = np.concatenate([s, t[::per_start]])[:, changing].astype(np.float64)
        norms = (states**2).sum(1)
        gram = norms[:, None] + norms[None] - 2 * states @ states.T
        squares[np.ix_(running, running)] += np.maximum(gram, 0)
        counts[np.ix_(running, running)] += 1
    distance = np.sqrt(squares / (counts * len(changing)))
    same = owner[:, None] == owner[None]
    pair = np.triu(np.ones_like(same), 1)
    sims = ~real[:, None] & ~real[None]
    return {
        "spread_same_start": float(distance[pair & same & sims].mean()),
        "spread_to_real": float(distance[same & ~real[:, None] & real[None]].mean()),
        "spread_between_sim": float(distance[pair & ~same & sims].mean()),
        "spread_between_real": float(distance[pair & real[:, None] & real[None]].mean()),
    }


def _distribution_match(
    model: WorldModel, test: Transitions, index: Mapping[str, int],
    declaration: StateDeclaration, per_group: int, rng: np.random.Generator,
) -> dict[str, float]:  # fmt: skip
    """Final simulated vs true outcome and yes share of the declared outcome's vote.

    The real sample has one value per group (a resolution has one outcome); the simulated
    one has ``per_group`` rollouts per group (episodes of different countries, chosen at
    random), so that the simulated distribution is estimated with less noise.
    """
    rule = declaration.outcome
    if rule is None:
        return {}
    vote = declaration.vote(rule.votes)
    outcome, yes = rule.outcome, vote.dims[0]
    if outcome not in index and yes not in index:
        return {}
    starts = test.episode_starts()
    units = test.split_units[starts]
    order = rng.permutation(len(starts))
    ranked = order[np.argsort(units[order], kind="stable")]  # by group, random within
    group_start = np.r_[0, np.flatnonzero(np.diff(units[ranked])) + 1]
    rank = np.arange(len(ranked)) - np.repeat(group_start, np.diff(np.r_[group_start, len(ranked)]))
    chosen = np.sort(ranked[rank < per_group])
    simulated, truth, length = _simulate(model, test, chosen, rng)
    final_sim = np.empty((len(chosen), test.obs.shape[1]), dtype=np.float32)
    final_true = np.empty_like(final_sim)
    for h, (s, t) in enumerate(zip(simulated, truth, strict=True)):
        running = np.flatnonzero(length > h)
        final_sim[running], final_true[running] = s, t
    one_per_group = np.unique(units[chosen], return_index=True)[1]
    out = {"groups_simulated": float(len(one_per_group)), "rollouts_simulated": float(len(chosen))}
    if outcome in index:
        adopted_real = final_true[one_per_group, index[outcome]] > 0.5
        adopted_sim = final_sim[:, index[outcome]] > 0.5
        rate = adopted_real.mean()
        out |= {
            "adoption_real_pct": 100 * rate,
            "adoption_sim_pct": 100 * adopted_sim.mean(),
            "adoption_gap_pp": 100 * (adopted_sim.mean() - rate),
            "adoption_gap_se_pp": 100 * np.sqrt(rate * (1 - rate) / len(adopted_real)),
        }
        if {*vote.dims[:2], *rule.veto_dims} <= set(index):
            passed = rule.from_state(final_sim, tuple(index), vote)
            out["outcome_consistency"] = float(np.mean(passed == adopted_sim))
    if yes in index:
        real = final_true[one_per_group, index[yes]]
        sim = final_sim[:, index[yes]]
        edges = np.linspace(0, 1, 21)
        p = np.histogram(real, edges)[0] / len(real)
        q = np.histogram(sim, edges)[0] / len(sim)
        smooth = 0.5 / len(real)  # half a pseudo-count per bin, at the real sample's size
        p, q = (p + smooth) / (1 + 20 * smooth), (q + smooth) / (1 + 20 * smooth)
        out |= {
            "yes_share_real_pct": 100 * float(real.mean()),
            "yes_share_sim_pct": 100 * float(sim.mean()),
            "yes_share_gap_pp": 100 * float(sim.mean() - real.mean()),
            "yes_share_gap_se_pp": 100 * float(real.std() / np.sqrt(len(real))),
            "yes_share_ks_p": float(stats.ks_2samp(real, sim).pvalue),
            "yes_share_kl": float(np.sum(p * np.log(p / q))),
        }
    return {k: float(v) for k, v in out.items()}
