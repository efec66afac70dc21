"""Readable rewards: what moves a country's votes, in words, with confidence intervals.

:func:`vote_effects` turns a ``RollCall-v0`` reward's weights into effects on the vote
probabilities (docs/irl.md, section "Reading a reward"): for each feature x_j, the change in
P(yes), P(no) and P(abstain) when x_j moves from low (10th percentile) to high (90th),

    E_j = 1/N Σ_n [π(· | x_n, x_nj = high) − π(· | x_n, x_nj = low)],

with a delta-method 95% interval, Var E_j = J Σ_j Jᵀ, J = ∂E_j/∂θ_{·,j}: with three actions
centred, Σ_j follows from the three Laplace standard errors (Cov(a, b) = (s_c² − s_a² −
s_b²) / 2). :func:`feature_kind` groups features into preferences, alignment and habit;
:func:`describe_feature` says each name in words.

Example:
    >>> describe_feature("issue_nu")
    'Nuclear weapons and nuclear material (issue code)'
    >>> describe_feature("log_similar_yes"), feature_kind("log_similar_yes")
    ('its own yes votes on similar earlier roll calls (log scale)', 'habit')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd
from scipy.special import softmax

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data.schema import ABSENT, ISSUE_NAMES
from assembly_gym.envs.legislative.observation import REFERENCES, FeatureConfig, RollCallFeatures
from assembly_gym.irl.reward_model import RewardModel

__all__ = [
    "FeatureKind",
    "Z95",
    "compare_weights",
    "country_decisions",
    "describe_feature",
    "feature_kind",
    "vote_effects",
]

FeatureKind = Literal["bias", "preference", "alignment", "habit"]
Z95 = 1.959963984540054
"""The standard normal's 97.5th percentile: a 95% interval is ± Z95 standard errors."""
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


def _centred_covariance(se: np.ndarray) -> np.ndarray:
    """Covariance (A, A) of weights centred over actions, from their standard errors (A,).

    Exact for three actions (the centred weights span a plane); diagonal otherwise.
    """
    variance = se**2
    if len(se) != 3:
        return np.diag(variance)
    covariance = np.diag(variance)
    for a, b, c in ((0, 1, 2), (0, 2, 1), (1, 2, 0)):
        covariance[a, b] = covariance[b, a] = (variance[c] - variance[a] - variance[b]) / 2
    return covariance


def _span(values: np.ndarray) -> tuple[float, float]:
    """10th → 90th percentile; the smallest → the largest value where those coincide."""
    low, high = np.percentile(values, [10, 90])
    if low == high:
        low, high = values.min(), values.max()
    return float(low), float(high)


def vote_effects(model: RewardModel, country: str, obs: np.ndarray) -> pd.DataFrame:
    """Each feature's effect on the vote probabilities, with 95% intervals, most important first.

    Args:
        model: the reward model.
        country: a country it knows.
        obs: the country's decisions, the reward's inputs (N, d) (:func:`country_decisions`).

    Returns:
        One row per feature (index ``feature``; the bias is left out): ``description``,
        ``kind``, ``low`` and ``high`` (the values moved between), per action ``<a>`` the
        change in probability (fraction), ``<a>_se``, ``<a>_low`` and ``<a>_high`` (95%
        interval; NaN without standard errors), and ``importance`` = max_a |change|.

    Raises:
        DataError: an unknown country; ValueError: ``obs`` of another width or no row.
    """
    row = model.country_index(country)
    obs = np.atleast_2d(np.asarray(obs, dtype=np.float64))
    if obs.shape[1] != len(model.obs_names) or not len(obs):
        raise ValueError(f"obs has shape {obs.shape}, expected (N ≥ 1, {len(model.obs_names)})")
    theta = model.theta[row]  # (A, 1 + d)
    errors = model.standard_errors[row] if model.standard_errors is not None else None
    logits = theta[:, 0] + obs @ theta[:, 1:].T  # (N, A)
    actions = model.action_names
    rows = []
    for j, name in enumerate(model.obs_names):
        low, high = _span(obs[:, j])
        weights = theta[:, j + 1]
        moved = {}
        jacobian = np.zeros((len(actions), len(actions)))
        for value, sign in ((low, -1.0), (high, 1.0)):
            shift = value - obs[:, j]  # (N,)
            p = softmax(logits + shift[:, None] * weights[None, :], axis=1)
            moved[sign] = p.mean(axis=0)
            # ∂p_a/∂θ_b = shift · p_a (δ_ab − p_b), averaged over decisions.
            outer = np.einsum("n,na,nb->ab", shift, p, p) / len(p)
            jacobian += sign * (np.diag((shift[:, None] * p).mean(axis=0)) - outer)
        effect = moved[1.0] - moved[-1.0]
        if errors is None:
            se = np.full(len(actions), np.nan)
        else:
            covariance = _centred_covariance(errors[:, j + 1])
            se = np.sqrt(np.maximum(np.einsum("ab,bc,ac->a", jacobian, covariance, jacobian), 0))
        entry = {"feature": name, "description": describe_feature(name),
                 "kind": feature_kind(name), "low": low, "high": high}  # fmt: skip
        for a, action in enumerate(actions):
            entry |= {action: effect[a], f"{action}_se": se[a],
                      f"{action}_low": effect[a] - Z95 * se[a],
                      f"{action}_high": effect[a] + Z95 * se[a]}  # fmt: skip
        entry["importance"] = float(np.abs(effect).max())
        rows.append(entry)
    table = pd.DataFrame(rows).set_index("feature")
    return table.sort_values("importance", ascending=False, kind="stable")


def compare_weights(
    model: RewardModel, first: str, second: str, obs: np.ndarray | None = None
) -> pd.DataFrame:
    """Where two countries' rewards differ and agree: per feature, the difference of weights.

    Each action's weight difference θ_first − θ_second is multiplied by the feature's span
    (10th → 90th percentile of ``obs``, as in :func:`vote_effects`; 1 without ``obs``): the
    difference in how much that action's reward (log-odds, centred over actions) rises when
    the feature moves across its usual range. Its 95% interval adds both countries' variances
    (their fits are independent given the shared prior mean).

    Args:
        model: the reward model.
        first: a country it knows.
        second: another.
        obs: decisions (N, d) that set each feature's span, e.g. both countries' stacked.

    Returns:
        One row per feature (index ``feature``, bias included): ``description``, ``kind``,
        ``span``, per action ``<a>_<first>``, ``<a>_<second>`` (scaled weights), ``<a>``
        (difference), ``<a>_low``, ``<a>_high``, ``z`` = the largest |difference / se| over
        actions (NaN without standard errors), ``largest`` = the largest |difference| and
        ``shared`` = how strongly the weaker of the two weighs it (min over countries of
        max_a |scaled weight|); sorted by ``z`` (then ``largest``), largest first.

    Raises:
        DataError: an unknown country.
    """
    rows = [model.country_index(first), model.country_index(second)]
    names = [model.countries[r] for r in rows]
    features = ("bias", *model.obs_names)
    spans = np.ones(len(features))
    if obs is not None:
        spans[1:] = [high - low for low, high in map(_span, np.asarray(obs, np.float64).T)]
    scaled = model.theta[rows] * spans  # (2, A, 1 + d)
    difference = scaled[0] - scaled[1]
    if model.standard_errors is None:
        se = np.full_like(difference, np.nan)
    else:
        se = np.hypot(*(model.standard_errors[rows] * spans))
    table = pd.DataFrame(index=pd.Index(features, name="feature"))
    table["description"] = [describe_feature(f) for f in features]
    table["kind"] = [feature_kind(f) for f in features]
    table["span"] = spans
    for a, action in enumerate(model.action_names):
        table[f"{action}_{names[0]}"] = scaled[0, a]
        table[f"{action}_{names[1]}"] = scaled[1, a]
        table[action] = difference[a]
        table[f"{action}_low"] = difference[a] - Z95 * se[a]
        table[f"{action}_high"] = difference[a] + Z95 * se[a]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, np.abs(difference) / se, 0.0)
    table["z"] = z.max(axis=0) if model.standard_errors is not None else np.nan
    table["largest"] = np.abs(difference).max(axis=0)
    table["shared"] = np.abs(scaled).max(axis=1).min(axis=0)
    return table.sort_values(["z", "largest"], ascending=False, kind="stable")
