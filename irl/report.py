"""Fitted reward models read out for people, as ``assembly-gym irl explain`` and ``compare`` do.

Text of a :class:`~assembly_gym.irl.base.RewardModel` of any kind: :func:`fit_summary` says
what was fitted; the tables (:func:`effects_text` by section of :data:`SECTIONS`,
:func:`profile_text`, :func:`comparison_text`, :func:`over_time_text`, and the linear kind's
:func:`weights_text`) come with the whole table they show (for a CSV). docs/irl.md, section
"Reading a reward", says what each shows.

Example:
    >>> from assembly_gym.envs.legislative.sources import default_assembly
    >>> [name for name, _, _ in period_blocks(default_assembly().data, 10)]
    ['sessions-01-10', 'sessions-11-20']
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.irl.base import MODEL_FILE, RewardModel
from assembly_gym.irl.explanation import (
    Z95,
    FeatureKind,
    action_grid,
    compare_effects,
    compare_weights,
    country_decisions,
    vote_effects,
)
from assembly_gym.irl.linear import LinearRewardModel

__all__ = [
    "PERIOD_PREFIX",
    "SECTIONS",
    "EffectsOverTime",
    "comparison_text",
    "effects_over_time",
    "effects_text",
    "fit_summary",
    "has_decisions",
    "over_time_text",
    "period_blocks",
    "period_models",
    "profile_text",
    "weights_text",
]

SECTIONS: tuple[tuple[FeatureKind, str], ...] = (
    ("preference", "What it wants: the roll call's content"),
    ("alignment", "Whom it follows: other countries' earlier votes on similar roll calls"),
    ("habit", "Habit: its own earlier votes (apart: they say it repeats itself, not what "
              "it wants)"),
)  # fmt: skip
"""The sections of a country's effects: each kind of feature and its title."""


def fit_summary(model: RewardModel, source: object = None) -> str:
    """What was fitted, in a sentence: countries, kind, data, votes or decisions, settings, time.

    Args:
        model: a model of ``fit_reward_model`` (any kind: its ``info["settings"]``, the
            linear kind's ``l2`` and ``shrinkage``) or of ``fit_deliberation_rewards``.
        source: the data's name to show (default: the model's ``info["source"]``).
    """
    info = model.info
    source = info["source"] if source is None else source
    if "prior" in info:  # a multi-step Deliberation-v0 model
        settings = {f"prior ({part})": precision for part, precision in info["prior"].items()}
    elif isinstance(model, LinearRewardModel):
        settings = {"l2": info["l2"], "shrinkage": info["shrinkage"]}
    elif "members" in info:  # a mixture
        settings = {"members": " + ".join(f"{m['kind']} {m['weight']:g}" for m in info["members"])}
    else:
        settings = info.get("settings", {})
    seconds = [f"{info['fit_seconds']:.1f} s"] if "fit_seconds" in info else []
    details = ", ".join([*(f"{k}={v}" for k, v in settings.items()), *seconds])
    if model.env_id == "assembly/Deliberation-v0":
        return (
            f"Fitted {len(model.countries)} countries' Deliberation-v0 rewards on {source} "
            f"({info['resolutions']} resolutions, {sum(info['n_decisions'].values())} recorded "
            f"decisions, {info['n_partial']} partial episodes; {details}, log-likelihood "
            f"{info['log_likelihood']:.3f} nats per decision)."
        )
    first, last = info["sessions"]
    history = model.require_history()  # the votes fitted
    rows = [history.country_index(country) for country in model.countries]
    votes = int((history.votes[rows] != ABSENT).sum())
    if "converged" in info:
        details += f", converged={info['converged']}"
    return (
        f"Fitted {len(model.countries)} countries' {model.kind} rewards on {source}, sessions "
        f"{first}–{last} ({votes} votes; {details})."
    )


def has_decisions(model: RewardModel) -> bool:
    """A RollCall-v0 model that kept its training votes (so effects can be computed)."""
    return model.history is not None and model.env_id == "assembly/RollCall-v0"


def effects_text(model: RewardModel, country: str, top: int = 8) -> tuple[str, pd.DataFrame]:
    """The ``top`` features of each section that move ``country``'s votes most.

    Returns:
        The text, and :func:`~assembly_gym.irl.explanation.vote_effects`'s table of every
        feature.

    Raises:
        DataError: an unknown country, or a model without its training votes.
    """
    name = model.countries[model.country_index(country)]
    obs = country_decisions(model, [name])[name]
    table = vote_effects(model, name, obs)
    first, last = model.info.get("sessions", ["?", "?"])
    actions = model.action_names
    intervals = table[[f"{a}_low" for a in actions]].notna().to_numpy().any()
    ci = "95% CI" if intervals else _no_ci(model)
    lines = [
        f"What moves {name}{_possessive(name)} votes ({len(obs)} votes, sessions {first}–{last}): "
        "the change in the probability of each vote, in points, when a feature moves from its "
        "10th to its 90th percentile over these votes (smallest → largest where those "
        f"coincide), the others as they were; [{ci}]."
    ]
    for _, row in table[table["kind"] == "preference"].head(1).iterrows():
        action = max(actions, key=lambda a: abs(row[a]))
        change = f"{100 * row[action]:+.1f} points"
        if not np.isnan(row[f"{action}_low"]):
            change += f" (95% CI {100 * row[f'{action}_low']:+.1f} to "
            change += f"{100 * row[f'{action}_high']:+.1f})"
        lines.append(f"Strongest preference: {row['description']} ({row['low']:.3g} → "
                     f"{row['high']:.3g}) changes P({action}) by {change}.")  # fmt: skip
    sections = [(title, table[table["kind"] == kind].head(top)) for kind, title in SECTIONS]
    width = _feature_width(pd.concat([rows for _, rows in sections])["description"])
    header = "".join(f"{'Δ P(' + a + ')':>23}" for a in actions)
    for title, rows in sections:
        if rows.empty:
            continue
        lines += ["", title, f"{'':3}{'feature':<{width}}{'from → to':>14}{header}"]
        for rank, (_, row) in enumerate(rows.iterrows(), 1):
            moves = "".join(
                f"{_interval(row[a], row[f'{a}_low'], row[f'{a}_high']):>23}" for a in actions
            )
            span = f"{row['low']:.2f} → {row['high']:.2f}"
            lines.append(f"{rank:>2} {row['description']:<{width}}{span:>14}{moves}")
    return "\n".join(lines), table


def weights_text(
    model: LinearRewardModel, country: str | None = None, relative_to: str | None = None
) -> tuple[str, pd.DataFrame]:
    """One country's weights table (None: their mean and spread across countries).

    Args:
        model: the fitted linear model.
        country: a country it knows (None: all of them).
        relative_to: each action's weights minus this action's (None: the model's
            ``reference_action``, if any; ``"none"``: the raw weights).

    Returns:
        The text, and :meth:`~assembly_gym.irl.linear.LinearRewardModel.explain`'s table.
    """
    reference = relative_to or model.info.get("reference_action")
    reference = None if reference == "none" else reference
    table = model.explain(country, relative_to=reference)
    relative = f", relative to {reference}" if reference else ""
    if country is not None:
        name = model.countries[model.country_index(country)]
        errors = "; se: Laplace standard error" if "_se" in "".join(table.columns) else ""
        title = f"Reward weights of {name} (original feature scale{relative}{errors})"
    else:
        title = f"Mean and spread of reward weights across {len(model.countries)} countries"
        title += relative
    lines = [title, _table_text(table)]
    if reference:  # the reference action's own weights (mean over countries if none named)
        a = model.action_names.index(reference)
        weights = model.weights(country)[a] if country else model.theta[:, a].mean(axis=0)
        named = zip(("bias", *model.obs_names), weights, strict=True)
        own = ", ".join(f"{feature} {w:+.3f}" for feature, w in named if w != 0)
        lines.append(f"{reference}'s own weights (0 where not shown; a multi-step policy reads "
                     f"them through the later stages): {own or 'all 0'}")  # fmt: skip
    return "\n".join(lines), table


def profile_text(model: RewardModel) -> tuple[str, pd.DataFrame]:
    """The mean and spread across countries of each value of the model's profile.

    The profile (:meth:`~assembly_gym.irl.base.RewardModel.profile`) is what describes each
    country's reward: a linear model's weights, by default the vote probabilities on the last
    training session's roll calls. Values named by action (``"<action>:<label>"`` or
    ``"<label>:<action>"``) are one row per label with ``<action>_mean`` and ``<action>_sd``;
    others one row each with ``mean`` and ``sd``; the largest means first.

    Returns:
        The text, and the table it shows.

    Raises:
        DataError: a profile that needs the training history the model does not carry.
    """
    values, names = model.profile()
    grid = action_grid(names, model.action_names)
    labels, where = grid or (tuple(names), np.arange(len(names))[None])
    prefixes = [f"{a}_" for a in model.action_names] if grid else [""]
    table = pd.DataFrame(index=pd.Index(labels))
    for prefix, columns in zip(prefixes, where, strict=True):
        table[f"{prefix}mean"] = values[:, columns].mean(axis=0)
        table[f"{prefix}sd"] = values[:, columns].std(axis=0)
    largest = table.filter(like="mean").abs().max(axis=1)
    table = table.loc[largest.sort_values(ascending=False, kind="stable").index]
    what = "its profile"
    if type(model).profile is RewardModel.profile:
        what = "its vote probabilities on each roll call (rcid) of the last training session"
    title = (
        f"Mean and spread across {len(model.countries)} countries of what describes each "
        f"country's {model.kind} reward: {what} (--country NAME: what moves its votes)"
    )
    return f"{title}\n{_table_text(table)}", table


def _table_text(table: pd.DataFrame) -> str:
    """Every row of a table of signed values, its spreads and standard errors unsigned."""
    unsigned = {c: "{:.3f}".format for c in table.columns if c.endswith(("_se", "_sd", "sd"))}
    with pd.option_context("display.max_rows", None, "display.width", 160):
        return table.to_string(formatters=unsigned, float_format=lambda v: f"{v:+.3f}")


def comparison_text(
    model: RewardModel, first: str, second: str, top: int = 8
) -> tuple[str, pd.DataFrame]:
    """Where two countries' rewards differ most and where they agree.

    A linear model compares the weights (:func:`~assembly_gym.irl.explanation.compare_weights`,
    scaled by each feature's span over both countries' votes), other kinds the effects on the
    vote probabilities over both countries' votes
    (:func:`~assembly_gym.irl.explanation.compare_effects`).

    Returns:
        The text, and the comparison's table.

    Raises:
        DataError: an unknown country, the same one twice, or a model of another kind than
            linear without its training votes.
    """
    names = [model.countries[model.country_index(c)] for c in (first, second)]
    if names[0] == names[1]:
        raise DataError("irl compare", f"A and B are both {names[0]}: name two countries")
    if isinstance(model, LinearRewardModel):
        obs = _both_decisions(model, names) if has_decisions(model) else None
        table, scale = compare_weights(model, names[0], names[1], obs), 1.0
        span = "weight × the feature's 10th → 90th percentile span over both countries' votes"
        span = span if obs is not None else "raw weights"
        what = f"reward weights ({names[0]} − {names[1]}; {span}: log-odds units, centred)"
    else:
        obs = _both_decisions(model, names)
        table, scale = compare_effects(model, names[0], names[1], obs), 100.0
        what = (f"effects ({names[0]} − {names[1]}): the change in the vote's probability, in "
                "points, when the feature moves from its 10th to its 90th percentile over both "
                "countries' votes")  # fmt: skip
    features = table[table["kind"] != "bias"]
    intervals = bool(features["z"].notna().any())
    if intervals:
        agree = features[features["z"] < Z95]
        differ, agreeing, ci = "largest |z| of the difference", "no difference at 95%", "95% CIs"
    else:
        agree = features[features["largest"] < features["shared"]]
        differ, agreeing, ci = "largest difference", "by more than they differ", _no_ci(model)
    agree = agree.sort_values("shared", ascending=False).head(top)
    differ_rows = features.head(top)
    actions = model.action_names
    width = _feature_width(pd.concat([differ_rows, agree])["description"])
    header = "".join(f"{a:>24}" for a in actions)
    lines = [
        f"{names[0]} vs {names[1]}: per feature and vote, the difference of their {what}; "
        f"[{ci}].", "", f"Where they differ most ({differ} first)",
        f"{'':3}{'feature':<{width}}{'kind':<12}{header}" + (f"{'|z|':>7}" if intervals else ""),
    ]  # fmt: skip
    for rank, (_, row) in enumerate(differ_rows.iterrows(), 1):
        cells = "".join(f"{_difference(row, a, scale):>24}" for a in actions)
        z = f"{row['z']:>7.1f}" if intervals else ""
        lines.append(f"{rank:>2} {row['description']:<{width}}{row['kind']:<12}{cells}{z}")
    lines += ["", f"Where they agree (both move with it, {agreeing}; {names[0]} / {names[1]})",
              f"{'':3}{'feature':<{width}}{'kind':<12}{header}"]  # fmt: skip
    for rank, (_, row) in enumerate(agree.iterrows(), 1):
        cells = "".join(
            f"{scale * row[f'{a}_{names[0]}']:+.2f} / {scale * row[f'{a}_{names[1]}']:+.2f}"
            .rjust(24) for a in actions
        )  # fmt: skip
        lines.append(f"{rank:>2} {row['description']:<{width}}{row['kind']:<12}{cells}")
    return "\n".join(lines), table


def _both_decisions(model: RewardModel, names: list[str]) -> np.ndarray:
    """The countries' training decisions, stacked (N, d)."""
    return np.concatenate(list(country_decisions(model, names).values()))


def _no_ci(model: RewardModel) -> str:
    """Why a table has no confidence intervals."""
    if isinstance(model, LinearRewardModel):
        return "no CI (fitted without standard errors)"
    return f"no CI (the {model.kind} kind gives none)"


def _possessive(name: str) -> str:
    """``"'s"``, or ``"'"`` after a final s (the United States' votes)."""
    return "'" if name.endswith("s") else "'s"


def _interval(value: float, low: float, high: float) -> str:
    """A change in probability as points with its 95% interval (none where NaN)."""
    text = f"{100 * value:+5.1f}"
    return text if np.isnan(low) else f"{text} [{100 * low:+5.1f}, {100 * high:+5.1f}]"


def _difference(row: pd.Series, action: str, scale: float) -> str:
    """A difference (times ``scale``) with its 95% interval (none where NaN)."""
    text = f"{scale * row[action]:+.2f}"
    low, high = scale * row[f"{action}_low"], scale * row[f"{action}_high"]
    return text if np.isnan(low) else f"{text} [{low:+.2f}, {high:+.2f}]"


def _feature_width(descriptions: pd.Series) -> int:
    """Characters of the feature column: the longest description shown, whole, and a space."""
    return max((len(d) for d in descriptions), default=len("feature")) + 1


PERIOD_PREFIX = "sessions-"
"""The name of a period's sub-folder: ``sessions-A-B`` (A and B with two digits at least)."""


def period_blocks(
    data: RollCallData, size: int, countries: Sequence[str] | None = None
) -> Iterator[tuple[str, RollCallData, list[str] | None]]:
    """Each block of ``size`` sessions of ``data``: its sub-folder's name, its roll calls, voters.

    Args:
        data: the roll calls and votes to cut, in session order.
        size: sessions per block (the last block may have fewer).
        countries: the countries to fit (None: every one with votes).

    Yields:
        ``(name, block, voters)``: voters are those of ``countries`` with a vote in the block
        (members then; empty: skip the block), or None when ``countries`` is None.
    """
    sessions = data.sessions
    for start in range(0, len(sessions), size):
        first, last = int(sessions[start]), int(sessions[min(start + size, len(sessions)) - 1])
        block = data.select_sessions(first, last)
        voters = None
        if countries is not None:
            voted = block.votes != ABSENT
            voters = [c for c in countries if voted[block.country_index(c)].any()]
        yield f"{PERIOD_PREFIX}{first:02d}-{last:02d}", block, voters


def period_models(folder: Path) -> list[Path]:
    """The ``sessions-A-B`` model folders in ``folder``, in session order.

    Empty unless ``folder`` holds such sub-folders and nothing else.
    """
    if not folder.is_dir():
        return []
    entries = list(folder.iterdir())
    found = [e for e in entries if e.name.startswith(PERIOD_PREFIX) and (e / MODEL_FILE).is_file()]
    if not found or len(found) != len(entries):
        return []
    return sorted(found, key=lambda e: [int(n) for n in re.findall(r"\d+", e.name)])


@dataclass(frozen=True)
class EffectsOverTime:
    """One country's vote effects in each period model (:func:`effects_over_time`).

    Attributes:
        country: the country's name, as the models spell it.
        actions: the models' action names.
        table: one row per (period, feature): ``period`` (its years, ``"1946–1955"``),
            ``sessions`` (``"1–10"``), then the columns of
            :func:`~assembly_gym.irl.explanation.vote_effects` (``feature`` among them).
    """

    country: str
    actions: tuple[str, ...]
    table: pd.DataFrame

    def top(self, kind: FeatureKind, k: int) -> list[str]:
        """The ``k`` features of ``kind`` that move the votes most, by mean importance."""
        mean = self.table.groupby("feature", sort=False)["importance"].mean()
        kinds = self.table.drop_duplicates("feature").set_index("feature")["kind"]
        return [f for f in mean.sort_values(ascending=False).index if kinds[f] == kind][:k]

    def by_period(self, features: Sequence[str], action: str = "yes") -> pd.DataFrame:
        """The change in P(``action``), in points: features (described) × periods, NaN: absent."""
        rows = self.table[self.table["feature"].isin(features)]
        wide = rows.pivot(index="feature", columns="period", values=action)
        wide = 100 * wide.reindex(index=list(features), columns=self.table["period"].unique())
        described = self.table.drop_duplicates("feature").set_index("feature")["description"]
        wide.index = [str(described[f]) for f in features]
        return wide


def effects_over_time(folder: Path, country: str, *, progress: bool = False) -> EffectsOverTime:
    """``country``'s vote effects in every period model of ``folder``.

    A period where the country is unknown (not a member, or no vote) is left out.

    Raises:
        DataError: ``folder`` holds no period models, or none of them knows ``country``.
    """
    folders = period_models(folder)
    if not folders:
        raise DataError(folder, f"no {PERIOD_PREFIX}A-B model folders: fit them with "
                        "`irl fit --by-period N`")  # fmt: skip
    frames, name = [], country
    actions: tuple[str, ...] = ()
    for path in tqdm(folders, desc="periods", leave=False, disable=not progress):
        model = RewardModel.load(path)
        try:
            name = model.countries[model.country_index(country)]
        except DataError:
            continue
        actions = model.action_names
        table = vote_effects(model, name, country_decisions(model, [name])[name]).reset_index()
        assert model.history is not None  # country_decisions refuses a model without it
        years = pd.to_datetime(model.history.roll_calls["date"]).dt.year
        table.insert(0, "period", f"{years.min()}–{years.max()}")
        table.insert(1, "sessions", "–".join(map(str, model.info.get("sessions", []))))
        frames.append(table)
    if not frames:
        raise DataError(folder, f"no period model knows {country!r}")
    return EffectsOverTime(name, tuple(actions), pd.concat(frames, ignore_index=True))


def over_time_text(found: EffectsOverTime, top: int = 8) -> str:
    """The ``top`` features of each section: their effect on P(yes) by period, in points."""
    name = found.country
    lines = [f"How {name}{_possessive(name)} votes moved with each feature, by period: the "
             "change in P(yes), in points, for a 10th → 90th percentile move (within the "
             "period); every vote, and its 95% CI where the kind gives one, in --csv"]  # fmt: skip
    for kind, title in SECTIONS:
        if chosen := found.top(kind, top):
            with pd.option_context("display.width", 200, "display.max_columns", None):
                wide = found.by_period(chosen)
                lines += ["", title, wide.to_string(float_format=lambda v: f"{v:+.1f}", na_rep="–")]
    return "\n".join(lines)
