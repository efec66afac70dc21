"""Readable rewards: what moves a country's votes, in words, with confidence intervals.

:func:`vote_effects` gives a ``RollCall-v0`` reward's effects on the vote probabilities
(docs/irl.md, section "Reading a reward") in words: for each feature x_j, the change in
P(yes), P(no) and P(abstain) when x_j moves from low (10th percentile) to high (90th),

    E_j = 1/N Σ_n [π(· | x_n, x_nj = high) − π(· | x_n, x_nj = low)],

with a 95% interval where the reward's kind gives one (the linear kind: by the delta
method). :func:`compare_effects` sets two countries' effects side by side (any kind),
:func:`compare_weights` their linear weights. :func:`deliberation_effects` reads a multi-step
``Deliberation-v0`` model's effects on the probability of each action at each stage.
:func:`feature_kind` groups features into preferences, alignment and habit;
:func:`describe_feature` says each name in words.

Example:
    >>> describe_feature("issue_nu")
    'Nuclear weapons and nuclear material (issue code)'
    >>> describe_feature("log_similar_yes"), feature_kind("log_similar_yes")
    ('its own yes votes on similar earlier roll calls (log scale)', 'habit')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data.schema import ABSENT, ISSUE_NAMES
from assembly_gym.envs.legislative.observation import REFERENCES, FeatureConfig, RollCallFeatures
from assembly_gym.irl.base import Z95, RewardModel, span

if TYPE_CHECKING:
    from assembly_gym.irl.linear import LinearRewardModel

__all__ = [
    "FeatureKind",
    "Z95",
    "action_grid",
    "compare_effects",
    "compare_weights",
    "country_decisions",
    "deliberation_effects",
    "describe_feature",
    "feature_kind",
    "vote_effects",
]

FeatureKind = Literal["bias", "preference", "alignment", "habit"]
_VOTES = {"yes": "yes", "no": "no", "abstain": "abstain"}
_PHRASES = {
    "bias": "a constant (the action's baseline)",
    "important": "the US State Department rated it an important vote",
    "amend": "a vote on an amendment",
    "para": "a vote on a single paragraph",
    "year": "the year (later roll calls)",
    "progress": "how late in its session the roll call comes",
    "similar_coverage": "how many of the similar earlier roll calls it voted on",
    "similar_top": "how closely the roll call resembles an earlier one",
    "own_cosponsor": "it cosponsored the draft",
    "support": "support so far (sponsor share; at the plenary, committee yes share)",
}
_HABIT_SHARES = ("similar_", "past_", "issue_")  # + yes | no | abstain
_LINEAGE = {
    **{f"lineage_{v}": f"its {v} vote on the resolution's latest earlier version" for v in _VOTES},
    "lineage_absent": "it cast no vote on the resolution's latest earlier version",
    "lineage_none": "the resolution has no earlier version",
    "lineage_age": "sessions since the resolution's latest earlier version",
}


def describe_feature(name: str) -> str:
    """A feature name in words; a name it does not know (e.g. ``"topic: …"``) as it is."""
    base, scale = (name[4:], " (log scale)") if name.startswith("log_") else (name, "")
    if base in _PHRASES:
        return _PHRASES[base] + scale
    if base.startswith("issue_") and base[6:] in ISSUE_NAMES:
        return f"{ISSUE_NAMES[base[6:]]} (issue code)"
    if base.startswith("text_") and base[5:].isdigit():
        return f"hashed word bucket {int(base[5:])} of its text (no readable meaning)"
    prefix, _, vote = base.rpartition("_")
    if vote in _VOTES and f"{prefix}_" in _HABIT_SHARES + ("consensus_",):
        where = {
            "similar": f"its own {vote} votes on similar earlier roll calls",
            "past": f"its {vote} share over all earlier roll calls",
            "issue": f"its {vote} share on earlier roll calls of the same issues",
            "consensus": f"the assembly's {vote} share on similar earlier roll calls",
        }[prefix]
        return where + scale
    if base.startswith("agree_"):
        return f"its agreement with {_reference(base[6:])} on similar earlier roll calls" + scale
    if base.startswith("allies_") and base[7:] in _VOTES:
        return f"how its closest allies voted {base[7:]} on similar earlier roll calls" + scale
    if base in _LINEAGE:
        return _LINEAGE[base]
    return name


def _reference(slug: str) -> str:
    """``"united_states"`` → ``"the United States"``; ``"majority"`` → the assembly's majority."""
    if slug == "majority":
        return "the assembly's majority"
    names = {name.lower().replace(" ", "_"): name for name in REFERENCES}
    name = names.get(slug, slug.replace("_", " ").title())
    return f"the {name}" if name == "United States" else name


def feature_kind(name: str) -> FeatureKind:
    """Which section a feature belongs to: bias, preference, alignment or habit."""
    base = name[4:] if name.startswith("log_") else name
    if base == "bias":
        return "bias"
    if base.startswith(("consensus_", "agree_", "allies_")):
        return "alignment"
    if base.startswith("lineage_"):
        return "habit"
    prefix, _, vote = base.rpartition("_")
    if base == "similar_coverage" or (vote in _VOTES and f"{prefix}_" in _HABIT_SHARES):
        return "habit"
    return "preference"


def country_decisions(
    model: RewardModel, countries: Sequence[str], *, features: RollCallFeatures | None = None
) -> dict[str, np.ndarray]:
    """The reward's inputs at every training vote of each country, name → (N_c, d).

    Args:
        model: a ``RollCall-v0`` reward model with its training history.
        countries: names, aliases or ISO codes the model knows.
        features: the history's features, if already built (they take a few seconds).

    Raises:
        DataError: a model without history, or an unknown country.
    """
    if model.history is None:
        raise DataError("reward model", "no training history saved: effects need the decisions")
    history = model.history
    if features is None:
        features = RollCallFeatures(
            history.roll_calls, history=history, config=model.feature_config or FeatureConfig()
        )
    if features.names != model.layout:
        raise DataError("reward model", "the feature map changed since the model was fitted")
    out = {}
    for country in countries:
        name = model.countries[model.country_index(country)]
        voted = history.votes[history.country_index(name)] != ABSENT
        out[name] = model.select(features.for_country(name)[voted]).astype(np.float64)
    return out


def vote_effects(model: RewardModel, country: str, obs: np.ndarray) -> pd.DataFrame:
    """Each feature's effect on the vote probabilities, in words, most important first.

    Args:
        model: the reward model, of any kind.
        country: a country it knows.
        obs: the country's decisions, the reward's inputs (N, d) (:func:`country_decisions`).

    Returns:
        :meth:`~assembly_gym.irl.base.RewardModel.effects`'s table (the bias is left out)
        with ``description`` and ``kind`` after the index: one row per feature, ``low`` and
        ``high`` (the values moved between), per action ``<a>`` the change in probability
        (fraction), ``<a>_se``, ``<a>_low`` and ``<a>_high`` (95% interval; NaN where the
        kind gives none), and ``importance`` = max_a |change|.

    Raises:
        DataError: an unknown country; ValueError: ``obs`` of another width or no row.
    """
    table = model.effects(country, obs)
    table.insert(0, "kind", [feature_kind(name) for name in table.index])
    table.insert(0, "description", [describe_feature(name) for name in table.index])
    return table


def action_grid(
    names: Sequence[str], actions: Sequence[str]
) -> tuple[tuple[str, ...], np.ndarray] | None:
    """Names that pair every action with the same labels, ``"<action>:<label>"`` or the other way.

    Linear weights are named ``"yes:issue_hr"``; the default profile ``"<rcid>:yes"``.

    Args:
        names: the names (k,).
        actions: the action names (A,).

    Returns:
        The labels (R,) and where each (action, label) is in ``names``, (A, R); None for names
        of another form.
    """
    for label_first in (False, True):
        pairs = {}
        for i, name in enumerate(names):
            first, _, second = name.rpartition(":") if label_first else name.partition(":")
            pairs[(second, first) if label_first else (first, second)] = i
        labels = tuple(dict.fromkeys(label for action, label in pairs if action == actions[0]))
        if len(pairs) == len(names) == len(actions) * len(labels) and all(
            (a, label) in pairs for a in actions for label in labels
        ):
            return labels, np.array([[pairs[a, label] for label in labels] for a in actions])
    return None


def compare_weights(
    model: LinearRewardModel, first: str, second: str, obs: np.ndarray | None = None
) -> pd.DataFrame:
    """Where two countries' linear rewards differ and agree: per feature, the weights' difference.

    Each action's weight difference θ_first − θ_second is multiplied by the feature's span
    (10th → 90th percentile of ``obs``, as in :func:`vote_effects`; 1 without ``obs``): the
    difference in how much that action's reward (log-odds, centred over actions) rises when
    the feature moves across its usual range. Its 95% interval adds both countries' variances
    (their fits are independent given the shared prior mean).

    Args:
        model: the linear reward model.
        first: a country it knows.
        second: another.
        obs: decisions (N, d) that set each feature's span, e.g. both countries' stacked.

    Returns:
        The table of :func:`compare_effects`, of scaled weights, the bias included (its span
        1), with ``span``; ``z`` is NaN without standard errors.

    Raises:
        DataError: an unknown country.
    """
    rows = [model.country_index(first), model.country_index(second)]
    features = ("bias", *model.obs_names)
    spans = np.ones(len(features))
    if obs is not None:
        spans[1:] = [high - low for low, high in map(span, np.asarray(obs, np.float64).T)]
    scaled = model.theta[rows] * spans  # (2, A, 1 + d)
    se = None if model.standard_errors is None else model.standard_errors[rows] * spans
    table = _comparison(model, rows, features, scaled, se)
    table.insert(2, "span", pd.Series(spans, index=features))  # aligned: the table is sorted
    return table


def compare_effects(model: RewardModel, first: str, second: str, obs: np.ndarray) -> pd.DataFrame:
    """Where two countries' rewards differ and agree: per feature, the difference of effects.

    Each country's :func:`vote_effects` on the same decisions ``obs`` (both countries'
    stacked, so that each feature moves over the same span for both): the change in each
    vote's probability, and its difference first − second, with a 95% interval from both
    effects' standard errors where the kind gives them.

    Args:
        model: a reward model of any kind.
        first: a country it knows.
        second: another.
        obs: the decisions (N, d) the effects are averaged over.

    Returns:
        One row per feature (index ``feature``): ``description``, ``kind``, per action
        ``<a>_<first>``, ``<a>_<second>`` (the values compared), ``<a>`` (their difference),
        ``<a>_low``, ``<a>_high`` (its 95% interval, NaN without one), ``z`` = the largest
        |difference / se| over actions (NaN without standard errors), ``largest`` = the
        largest |difference| and ``shared`` = how strongly the weaker of the two is moved by
        it (min over countries of max_a |value|); sorted by ``z`` (then ``largest``), largest
        first.

    Raises:
        DataError: an unknown country; ValueError: ``obs`` of another width or no row.
    """
    rows = [model.country_index(first), model.country_index(second)]
    tables = [model.effects(model.countries[row], obs).loc[list(model.obs_names)] for row in rows]
    actions = list(model.action_names)
    values = np.stack([table[actions].to_numpy(float).T for table in tables])  # (2, A, d)
    se = np.stack([t[[f"{a}_se" for a in actions]].to_numpy(float).T for t in tables])
    return _comparison(model, rows, model.obs_names, values, se)


def _comparison(
    model: RewardModel, rows: list[int], features: Sequence[str], values: np.ndarray,
    se: np.ndarray | None,
) -> pd.DataFrame:  # fmt: skip
    """The comparison table of two countries' values (2, A, F), standard errors alike or None."""
    names = [model.countries[r] for r in rows]
    difference = values[0] - values[1]
    error = np.full_like(difference, np.nan) if se is None else np.hypot(se[0], se[1])
    table = pd.DataFrame(index=pd.Index(features, name="feature"))
    table["description"] = [describe_feature(f) for f in features]
    table["kind"] = [feature_kind(f) for f in features]
    for a, action in enumerate(model.action_names):
        table[f"{action}_{names[0]}"] = values[0, a]
        table[f"{action}_{names[1]}"] = values[1, a]
        table[action] = difference[a]
        table[f"{action}_low"] = difference[a] - Z95 * error[a]
        table[f"{action}_high"] = difference[a] + Z95 * error[a]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(error > 0, np.abs(difference) / error, np.where(np.isnan(error), np.nan, 0))
    table["z"] = z.max(axis=0)
    table["largest"] = np.abs(difference).max(axis=0)
    table["shared"] = np.abs(values).max(axis=1).min(axis=0)
    return table.sort_values(["z", "largest"], ascending=False, kind="stable")


def deliberation_effects(
    model: LinearRewardModel, country: str | None = None
) -> tuple[str, pd.DataFrame]:
    """What moves a multi-step ``Deliberation-v0`` model's choices, in points of probability.

    Reads ``info["effects"]`` (:func:`~assembly_gym.irl.deliberation.fit_deliberation_rewards`
    computes it under the training dynamics): each stage's probability of each action, then
    the change in them when an input moves from low to high.

    Args:
        model: a model of ``fit_deliberation_rewards``.
        country: one country it knows (None: the mean and spread across countries).

    Returns:
        The text, and the changes: one row per (stage, input), one column per action (a
        country's), or ``<action>_mean`` and ``<action>_sd`` across countries.

    Raises:
        DataError: a model without effects, or an unknown country.
    """
    if "effects" not in model.info:
        raise DataError("reward model", "holds no multi-step effects (a Deliberation-v0 model "
                        "of `irl fit` on a trajectory folder has them)")  # fmt: skip
    saved = model.info["effects"]
    actions, stages = list(saved["actions"]), list(saved["stages"])
    changes = pd.DataFrame(**saved["changes"])
    keys = ["stage", "feature", "low", "high"]
    if country is None:
        probabilities = np.array(list(saved["probabilities"].values()))  # (C, 3, A)
        grouped = changes.groupby(keys, sort=False)[actions]
        parts = [grouped.mean().add_suffix("_mean"), grouped.std(ddof=0).add_suffix("_sd")]
        table = pd.concat(parts, axis=1)
        table = table[[f"{a}_{s}" for a in actions for s in ("mean", "sd")]].reset_index()
        who = f"the {len(model.countries)} countries (mean ± sd across them)"
        cell = "{:+.1f} ± {:.1f}"
    else:
        name = model.countries[model.country_index(country)]
        probabilities = np.array([saved["probabilities"][name]])
        table = changes[changes["country"] == name][keys + actions].reset_index(drop=True)
        who, cell = name, "{:+.1f}"
    lines = [f"What moves the decisions of {who}: the soft-optimal policy of the fitted reward "
             "under the training dynamics, one resolution per issue pattern. At each stage, the "
             "probability of each action, then its change in points when an input moves from "
             "low to high (the rest of the state as those resolutions reach it):"]  # fmt: skip
    for s, stage in enumerate(stages):
        valid = [a for i, a in enumerate(actions) if probabilities[:, s, i].max() > 0]
        mean, sd = probabilities[:, s].mean(axis=0), probabilities[:, s].std(axis=0)
        spread = {a: f" ± {sd[actions.index(a)]:.2f}" if country is None else "" for a in valid}
        shown = [f"{a} {mean[actions.index(a)]:.2f}{spread[a]}" for a in valid]
        lines.append(f"\n{stage}: {', '.join(shown)}")
        if len(valid) == 2:  # the draft: cosponsoring or not, one column says it
            valid = valid[:1]
        rows = table[table["stage"] == stage]
        spans = zip(rows["low"], rows["high"], strict=True)
        block = pd.DataFrame({
            "input": [describe_feature(f) for f in rows["feature"]],
            "from → to": [f"{low:.2f} → {high:.2f}" for low, high in spans],
        })  # fmt: skip
        for a in valid:
            columns = [f"{a}_mean", f"{a}_sd"] if country is None else [a]
            block[f"Δ P({a})"] = [cell.format(*row) for row in rows[columns].to_numpy(float) * 100]
        lines.append(block.to_string(index=False))
    return "\n".join(lines), table
