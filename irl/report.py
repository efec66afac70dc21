"""Fitted reward models read out for people, as ``assembly-gym irl explain`` and ``compare`` do.

Text of a :class:`~assembly_gym.irl.reward_model.RewardModel`: :func:`fit_summary` says what
was fitted; the tables (:func:`effects_text` by section of :data:`SECTIONS`,
:func:`weights_text`, :func:`comparison_text`, :func:`over_time_text`) come with the whole
table they show (for a CSV). docs/irl.md, section "Reading a reward", says what each shows.

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
from assembly_gym.irl.explanation import (
    Z95,
    FeatureKind,
    compare_weights,
    country_decisions,
    vote_effects,
)
from assembly_gym.irl.reward_model import MODEL_FILE, RewardModel

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
    """What was fitted, in a sentence: countries, data, votes or decisions, penalty, time.

    Args:
        model: a model of ``fit_reward_model`` or ``fit_deliberation_rewards``.
        source: the data's name to show (default: the model's ``info["source"]``).
    """
    info = model.info
    source = info["source"] if source is None else source
    penalty = f"l2={info['l2']}, shrinkage={info['shrinkage']}, {info['fit_seconds']:.1f} s"
    if model.env_id == "assembly/Deliberation-v0":
        return (
            f"Fitted {len(model.countries)} countries' Deliberation-v0 rewards on {source} "
            f"({info['resolutions']} resolutions, {sum(info['n_decisions'].values())} recorded "
            f"decisions, {info['n_partial']} partial episodes; {penalty}, log-likelihood "
            f"{info['log_likelihood']:.3f} nats per decision)."
        )
    first, last = info["sessions"]
    return (
        f"Fitted {len(model.countries)} countries on {source}, sessions {first}–{last} "
        f"({sum(info['n_votes'].values())} votes; {penalty}, converged={info['converged']})."
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
    ci = "95% CI by the delta method" if model.standard_errors is not None else "no CIs (fit "
    ci += "" if model.standard_errors is not None else "without standard errors)"
    lines = [
        f"What moves {name}{_possessive(name)} votes ({len(obs)} votes, sessions {first}–{last}): "
        "the change in the probability of each vote, in points, when a feature moves from its "
        "10th to its 90th percentile over these votes (smallest → largest where those "
        f"coincide), the others as they were; [{ci}]."
    ]
    actions = model.action_names
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
    model: RewardModel, country: str | None = None, relative_to: str | None = None
) -> tuple[str, pd.DataFrame]:
    """One country's weights table (None: their mean and spread across countries).

    Args:
        model: the fitted model.
        country: a country it knows (None: all of them).
        relative_to: each action's weights minus this action's (None: the model's
            ``reference_action``, if any; ``"none"``: the raw weights).

    Returns:
        The text, and :meth:`RewardModel.explain`'s table.
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
    unsigned = {c: "{:.3f}".format for c in table.columns if c.endswith(("_se", "_sd"))}
    with pd.option_context("display.max_rows", None, "display.width", 160):
        shown = table.to_string(formatters=unsigned, float_format=lambda v: f"{v:+.3f}")
    lines = [title, shown]
    if reference:  # the reference action's own weights (mean over countries if none named)
        a = model.action_names.index(reference)
        weights = model.weights(country)[a] if country else model.theta[:, a].mean(axis=0)
        named = zip(("bias", *model.obs_names), weights, strict=True)
        own = ", ".join(f"{feature} {w:+.3f}" for feature, w in named if w != 0)
        lines.append(f"{reference}'s own weights (0 where not shown; a multi-step policy reads "
                     f"them through the later stages): {own or 'all 0'}")  # fmt: skip
    return "\n".join(lines), table


def comparison_text(
    model: RewardModel, first: str, second: str, top: int = 8
) -> tuple[str, pd.DataFrame]:
    """Where two countries' weights differ most (largest |z| first) and where they agree.

    Returns:
        The text, and :func:`~assembly_gym.irl.explanation.compare_weights`'s table.

    Raises:
        DataError: an unknown country, or the same one twice.
    """
    names = [model.countries[model.country_index(c)] for c in (first, second)]
    if names[0] == names[1]:
        raise DataError("irl compare", f"A and B are both {names[0]}: name two countries")
    obs = None
    if has_decisions(model):
        obs = np.concatenate(list(country_decisions(model, names).values()))
    table = compare_weights(model, names[0], names[1], obs)
    scale = "weight × the feature's 10th → 90th percentile span over both countries' votes"
    actions = model.action_names
    features = table[table["kind"] != "bias"]
    agree = features[features["z"] < Z95] if model.standard_errors is not None else features
    differ = features.head(top)
    agree = agree.sort_values("shared", ascending=False).head(top)
    width = _feature_width(pd.concat([differ, agree])["description"])
    header = "".join(f"{a:>24}" for a in actions)
    lines = [
        f"{names[0]} vs {names[1]}: per feature and vote, the difference of their reward weights "
        f"({names[0]} − {names[1]}; {scale if obs is not None else 'raw weights'}: log-odds "
        "units, centred over votes) with 95% CIs from both standard errors.",
        "", "Where they differ most (largest |z| of the difference first)",
        f"{'':3}{'feature':<{width}}{'kind':<12}{header}{'|z|':>7}",
    ]  # fmt: skip
    for rank, (_, row) in enumerate(differ.iterrows(), 1):
        cells = "".join(f"{_difference(row, a):>24}" for a in actions)
        lines.append(f"{rank:>2} {row['description']:<{width}}{row['kind']:<12}{cells}"
                     f"{row['z']:>7.1f}")  # fmt: skip
    lines += ["", f"Where they agree (both weigh it, no difference at 95%; {names[0]} / "
              f"{names[1]})", f"{'':3}{'feature':<{width}}{'kind':<12}{header}"]  # fmt: skip
    for rank, (_, row) in enumerate(agree.iterrows(), 1):
        cells = "".join(
            f"{row[f'{a}_{names[0]}']:+.2f} / {row[f'{a}_{names[1]}']:+.2f}".rjust(24)
            for a in actions
        )
        lines.append(f"{rank:>2} {row['description']:<{width}}{row['kind']:<12}{cells}")
    return "\n".join(lines), table


def _possessive(name: str) -> str:
    """``"'s"``, or ``"'"`` after a final s (the United States' votes)."""
    return "'" if name.endswith("s") else "'s"


def _interval(value: float, low: float, high: float) -> str:
    """A change in probability as points with its 95% interval (none where NaN)."""
    text = f"{100 * value:+5.1f}"
    return text if np.isnan(low) else f"{text} [{100 * low:+5.1f}, {100 * high:+5.1f}]"


def _difference(row: pd.Series, action: str) -> str:
    """A weight difference with its 95% interval (none where NaN)."""
    text = f"{row[action]:+.2f}"
    low, high = row[f"{action}_low"], row[f"{action}_high"]
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
             "period); every vote and 95% CIs in --csv"]  # fmt: skip
    for kind, title in SECTIONS:
        if chosen := found.top(kind, top):
            with pd.option_context("display.width", 200, "display.max_columns", None):
                wide = found.by_period(chosen)
                lines += ["", title, wide.to_string(float_format=lambda v: f"{v:+.1f}", na_rep="–")]
    return "\n".join(lines)
