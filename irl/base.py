"""The reward-model protocol: every country's learned reward r_c(s, a), whatever its kind.

A :class:`RewardModel` gives, for a batch of (country, observation) rows, the reward of every
action (:meth:`RewardModel.logits`); its MaxEnt policy on one decision is their softmax. The
rest is shared by every kind: country lookup, the policy and forecast of new roll calls, the
env ``reward_fn`` s, the effects of each feature on the vote probabilities, and the folder it
is saved in (:mod:`assembly_gym.core.artifact`). A kind is a subclass registered with
:func:`register_reward_kind`; :meth:`RewardModel.load` reads any kind back, and
``assembly_gym.irl.rollcall.fit_reward_model(data, kind=...)`` fits any kind.

Example:
    >>> from assembly_gym.irl.linear import LinearRewardModel
    >>> import numpy as np
    >>> model = LinearRewardModel(("France",), ("yes", "no", "abstain"), ("issue_hr",),
    ...                           np.zeros((1, 3, 2)))
    >>> model.action_probs("France", np.array([[1.0]])).round(3).tolist()
    [[0.333, 0.333, 0.333]]
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.special import softmax

from assembly_gym.core.artifact import Artifact, new_artifact_id, read_artifact, write_artifact
from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.core.persist import checked_field, dataclass_from_dict
from assembly_gym.core.rewards import ActionValuesReward, checked_reward
from assembly_gym.envs.legislative.countries import default_country_table
from assembly_gym.envs.legislative.data import RollCallData
from assembly_gym.envs.legislative.observation import FeatureConfig, RollCallFeatures

__all__ = [
    "MODEL_FILE",
    "MODEL_KIND",
    "Decisions",
    "ModelRewards",
    "RewardModel",
    "Z95",
    "checked_decisions",
    "effect_row",
    "effects_table",
    "register_reward_kind",
    "reward_kind",
    "reward_kinds",
    "span",
]

MODEL_FILE = "reward_model.json"
MODEL_KIND = "assembly-gym/irl-reward-model"
"""The ``kind`` of a saved reward model's manifest (MODEL_FILE); ``reward_kind`` names its kind."""
Z95 = 1.959963984540054
"""The standard normal's 97.5th percentile: a 95% interval is ± Z95 standard errors."""
_VERSION = 2
_KINDS: dict[str, type[RewardModel] | str] = {}


def register_reward_kind(name: str, model: type[RewardModel] | str) -> None:
    """Make ``name`` a reward kind: ``irl fit --kind name``, loading, the bench's agents.

    Args:
        name: the kind's name (saved in the manifest as ``reward_kind``).
        model: the :class:`RewardModel` subclass, or ``"module:Class"`` (imported on first use,
            so registering a kind imports none of its libraries).
    """
    _KINDS[name] = model


def reward_kinds() -> tuple[str, ...]:
    """The registered kinds' names, in registration order."""
    return tuple(_KINDS)


def reward_kind(name: str) -> type[RewardModel]:
    """The class of a registered kind.

    Raises:
        ValueError: an unknown kind, naming the known ones.
    """
    if name not in _KINDS:
        raise ValueError(f"unknown reward kind {name!r}; the kinds are {', '.join(_KINDS)}")
    found = _KINDS[name]
    if isinstance(found, str):
        module, _, attribute = found.partition(":")
        found = _KINDS[name] = getattr(importlib.import_module(module), attribute)
    return found


@dataclass(frozen=True)
class Decisions:
    """One-step decisions of several countries, stacked: what a reward kind fits on.

    Attributes:
        countries: the countries, (C,).
        rows: each decision's country (a row of ``countries``), (N,) int64.
        obs: what the country saw, the reward's inputs, (N, d).
        actions: what it did, (N,) int64.
        masks: the actions it could take, (N, A) bool.
        obs_names: the names of the d inputs.
        action_names: the names of the A actions.
        rcids: each decision's roll call, (N,) int64, where known (kinds that read which
            roll call was voted on, e.g. "ideal", need it; the others ignore it).
        sessions: each decision's session, (N,) int64, where known.
    """

    countries: tuple[str, ...]
    rows: np.ndarray
    obs: np.ndarray
    actions: np.ndarray
    masks: np.ndarray
    obs_names: tuple[str, ...]
    action_names: tuple[str, ...]
    rcids: np.ndarray | None = None
    sessions: np.ndarray | None = None

    def of(self, row: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One country's (obs, actions, masks)."""
        mine = self.rows == row
        return self.obs[mine], self.actions[mine], self.masks[mine]


@dataclass(frozen=True)
class RewardModel(ABC):
    """Learned rewards of several countries over named observation features.

    Attributes:
        countries: canonical country names, (C,).
        action_names: names of the actions (A), e.g. yes, no, abstain.
        obs_names: names of the observation features the reward reads (d).
        env_id: the env whose observations the reward reads.
        feature_config: settings of the roll-call features (None: defaults).
        info: fit details (data source, sessions, settings, seconds, …), JSON-serialisable.
        history: the training roll calls and votes (for forecasting new roll calls), or None.
        layout: names of the env's whole observation, when the reward reads only some of
            them (``obs_names`` ⊆ ``layout``); None means the observation is ``obs_names``.

    Subclasses (kinds) set :attr:`kind` and implement :meth:`logits`, :meth:`fit`,
    :meth:`_parts` and :meth:`_from_parts`; the rest they inherit.
    """

    kind: ClassVar[str]
    one_step: ClassVar[bool] = True
    """Fitted on one-step decisions only (``RollCall-v0``); False: also multi-step envs."""

    countries: tuple[str, ...]
    action_names: tuple[str, ...]
    obs_names: tuple[str, ...]
    _: KW_ONLY
    env_id: str = "assembly/RollCall-v0"
    feature_config: FeatureConfig | None = None
    info: dict[str, Any] = field(default_factory=dict)
    history: RollCallData | None = field(default=None, repr=False)
    layout: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("countries", "action_names", "obs_names"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        layout = tuple(self.layout) if self.layout is not None else self.obs_names
        missing = [n for n in self.obs_names if n not in layout]
        if missing:
            raise ValueError(f"reward features {missing[:3]} are not in the observation layout")
        object.__setattr__(self, "layout", layout)
        if not self.countries:
            raise ValueError("a reward model needs at least one country")
        if len(set(self.countries)) != len(self.countries):
            raise ValueError("a country appears twice")

    # ------------------------------------------------------------------ what a kind gives

    @classmethod
    @abstractmethod
    def fit(cls, decisions: Decisions, *, progress: bool = False, **settings: Any) -> RewardModel:
        """Learn every country's reward from its decisions (``settings``: the kind's own)."""

    @abstractmethod
    def logits(self, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """r_c(s, a) of every action: country rows (N,) and inputs (N, d) → (N, A)."""

    @abstractmethod
    def _parts(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        """The kind's own manifest fields (JSON) and files (name → bytes) of a save."""

    @classmethod
    @abstractmethod
    def _from_parts(
        cls, common: dict[str, Any], saved: Artifact, source: Path
    ) -> RewardModel:
        """The model from the checked ``common`` fields (keyword arguments) and its save.

        Raises:
            CheckpointError: the kind's fields or files are missing, of a wrong type or shape.
        """

    def profile(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """What describes each country's reward, for heatmaps, dendrograms and blocs.

        Returns:
            Values (C, k) and their k names. This default: each country's vote
            probabilities on the last session of the training history.

        Raises:
            DataError: the model carries no training history.
        """
        history = self.require_history()
        last = history.roll_calls["session"].to_numpy() == history.sessions[-1]
        roll_calls = history.roll_calls[last].reset_index(drop=True)
        probs = self.policy(roll_calls)  # (C, R, A)
        names = tuple(f"{rcid}:{a}" for rcid in roll_calls["rcid"] for a in self.action_names)
        return probs.reshape(len(self.countries), -1), names

    # ------------------------------------------------------------------ lookup

    def select(self, obs: np.ndarray) -> np.ndarray:
        """The columns the reward reads from env observations: (N, len(layout)) → (N, d)."""
        obs, layout = np.atleast_2d(obs), self.layout or self.obs_names  # set by __post_init__
        if obs.shape[1] != len(layout):
            raise ValueError(
                f"observations have {obs.shape[1]} dimensions, the model's env {len(layout)}: "
                "make the env with feature_config=model.feature_config"
            )
        if layout == self.obs_names:
            return obs
        index = {name: i for i, name in enumerate(layout)}
        return obs[:, [index[name] for name in self.obs_names]]

    def country_index(self, country: str) -> int:
        """Row of a country (canonical name, alias or ISO code).

        Raises:
            DataError: for a country the model does not know, naming close matches.
        """
        rows = {name: i for i, name in enumerate(self.countries)}
        if country in rows:
            return rows[country]
        found = default_country_table().find(country) if isinstance(country, str) else None
        if found is not None and found.name in rows:
            return rows[found.name]
        hint = default_country_table().did_you_mean(str(country), self.countries)
        raise DataError(
            "reward model",
            f"unknown country {country!r}: the model knows {len(self.countries)} countries{hint}",
            field="country",
        )

    def require_history(self) -> RollCallData:
        """The training history.

        Raises:
            DataError: the model carries none (a model fitted without it).
        """
        if self.history is None:
            raise DataError("reward model", "no training history saved: refit with its votes")
        return self.history

    # ------------------------------------------------------------------ use

    def action_probs(
        self, country: str, obs: np.ndarray, mask: np.ndarray | None = None
    ) -> np.ndarray:
        """MaxEnt policy of one decision: softmax_a r_c(s, a), (N, len(layout)) → (N, A).

        Masked actions (mask (N, A) or (A,) False) get probability 0.
        """
        obs = self.select(obs)
        logits = self.logits(np.full(len(obs), self.country_index(country)), obs)
        if mask is not None:
            logits = np.where(np.broadcast_to(mask, logits.shape), logits, -np.inf)
        return softmax(logits, axis=1)

    def as_reward_fn(self, country: str) -> CountryReward:
        """The country's reward r_c(s, a) as a ``RollCall-v0`` ``reward_fn`` (batched too)."""
        return self.reward_fns([country])[country]

    def reward_fns(self, countries: Sequence[str] | None = None) -> ModelRewards:
        """Every country's reward as a mapping country → ``reward_fn``, batched.

        ``assembly_v0`` takes it as ``rewards`` and evaluates all agents' rewards in one
        :meth:`logits` call per step; ``fns[country]`` is the single-agent ``reward_fn`` of
        ``RollCall-v0``.

        Args:
            countries: the names to key the mapping by (an alias or ISO code is looked up);
                None: the model's countries.

        Raises:
            DataError: a country the model does not know.
        """
        names = self.countries if countries is None else tuple(countries)
        return ModelRewards(self, names, [self.country_index(name) for name in names])

    def policy(self, roll_calls: pd.DataFrame, *, progress: bool = False) -> np.ndarray:
        """Vote probabilities of every known country on new roll calls (no vote is read).

        Features of the roll calls are described by the saved training history
        (:class:`~assembly_gym.envs.legislative.observation.RollCallFeatures` with ``history``
        = training data), exactly as in training.

        Args:
            roll_calls: roll-call attributes (the layout of
                :func:`~assembly_gym.envs.legislative.data.unvotes.load_roll_call_attributes`).
            progress: show a progress bar over countries.

        Returns:
            Probabilities, shape (countries, roll calls, actions), in the order of
            ``self.countries``, the rows of ``roll_calls`` and ``self.action_names``.

        Raises:
            DataError: when the model carries no training history.
        """
        from tqdm.auto import tqdm

        features = RollCallFeatures(
            roll_calls, history=self.require_history(),
            config=self.feature_config or FeatureConfig(),
        )  # fmt: skip
        if features.names != self.layout:
            raise DataError("reward model", "the feature map changed since the model was fitted")
        return np.stack(
            [
                self.action_probs(country, features.for_country(country))
                for country in tqdm(self.countries, desc="forecast", disable=not progress)
            ]
        ).reshape(len(self.countries), len(roll_calls), len(self.action_names))

    def forecast(self, roll_calls: pd.DataFrame, *, progress: bool = False) -> pd.DataFrame:
        """:meth:`policy` as a table: one row per (country, roll call).

        Returns:
            Columns ``rcid``, ``country_code`` (ISO-2, or the name for the few historical
            states without a code) and ``p_<action>``.

        Raises:
            DataError: when the model carries no training history.
        """
        probs = self.policy(roll_calls, progress=progress)  # refuses a model without history
        codes = {c.name: c.iso2 or c.name for c in self.require_history().countries}
        frame = pd.DataFrame(
            {
                "rcid": np.tile(roll_calls["rcid"].to_numpy(), len(self.countries)),
                "country_code": np.repeat(
                    [codes.get(country, country) for country in self.countries], len(roll_calls)
                ),
            }
        )
        for a, name in enumerate(self.action_names):
            frame[f"p_{name}"] = probs[:, :, a].ravel()
        return frame

    def effects(self, country: str, obs: np.ndarray) -> pd.DataFrame:
        """Each feature's effect on the country's vote probabilities, largest first.

        A feature's effect on P(a) is the mean change of P(a) over the decisions ``obs`` when
        the feature moves from its 10th to its 90th percentile over them (smallest → largest
        where those coincide), the other features as they were. This default computes it
        through :meth:`logits` (exact, no interval); a kind may add intervals.

        Args:
            country: a country the model knows.
            obs: its decisions, the reward's inputs (N, d).

        Returns:
            One row per feature (index ``feature``): ``low``, ``high``, per action ``<a>``
            (change in probability, a fraction), ``<a>_se``, ``<a>_low``, ``<a>_high`` (95%
            interval; NaN without one) and ``importance`` = max_a |change|.

        Raises:
            DataError: an unknown country; ValueError: ``obs`` of another width or no row.
        """
        obs = checked_decisions(obs, len(self.obs_names))
        n, d = obs.shape
        spans = np.array([span(obs[:, j]) for j in range(d)])  # (d, 2)
        row = self.country_index(country)
        moved = np.empty((d, 2, len(self.action_names)))
        # Features at their low and high values, as many per logits call as ~200k rows allow.
        step = max(1, 100_000 // n)
        for start in range(0, d, step):
            chunk = range(start, min(start + step, d))
            shifted = np.broadcast_to(obs, (len(chunk), 2, n, d)).copy()
            for i, j in enumerate(chunk):
                shifted[i, :, :, j] = spans[j][:, None]
            logits = self.logits(np.full(shifted[..., 0].size, row), shifted.reshape(-1, d))
            moved[chunk] = softmax(logits, axis=1).reshape(len(chunk), 2, n, -1).mean(axis=2)
        no_interval = np.full(len(self.action_names), np.nan)
        entries = [
            effect_row(name, low, high, moved[j, 1] - moved[j, 0], no_interval, self.action_names)
            for j, (name, (low, high)) in enumerate(zip(self.obs_names, spans, strict=True))
        ]
        return effects_table(entries)

    # ------------------------------------------------------------------ persistence

    def save(self, directory: str | Path) -> Path:
        """Write the folder whole (``reward_model.json``, the kind's files, ``history.npz``).

        Raises:
            CheckpointError: ``directory`` is a file or a folder of other files.
        """
        from assembly_gym.irl.history import HISTORY_FILE, history_bytes

        directory, artifact_id = Path(directory), new_artifact_id()
        payload, files = self._parts()
        if self.history is not None:
            files = {**files, HISTORY_FILE: history_bytes(self.history, artifact_id)}
        layout = self.layout or self.obs_names
        common = {
            "reward_kind": self.kind,
            "countries": list(self.countries),
            "env_id": self.env_id,
            "action_names": list(self.action_names),
            "obs_names": list(self.obs_names),
            "layout": list(layout) if layout != self.obs_names else None,
            "feature_config": asdict(self.feature_config) if self.feature_config else None,
            "info": self.info,
        }
        write_artifact(directory, files, manifest=MODEL_FILE, payload={**common, **payload},
                       kind=MODEL_KIND, version=_VERSION, artifact_id=artifact_id)  # fmt: skip
        return directory

    @staticmethod
    def load(directory: str | Path) -> RewardModel:
        """Read a folder written by :meth:`save`, of any registered kind.

        Raises:
            CheckpointError: missing or corrupted files, a history of another save, another
                kind or version, an unknown reward kind, fields of the wrong type, no country,
                or parts that do not fit the names.
        """
        from assembly_gym.irl.history import HISTORY_FILE, history_from

        saved = read_artifact(directory, manifest=MODEL_FILE, kind=MODEL_KIND, version=_VERSION)
        document, source = saved.manifest, saved.folder / MODEL_FILE
        name = checked_field(document, "reward_kind", str, source)
        try:
            cls = reward_kind(name)
        except (ValueError, ImportError) as error:
            raise CheckpointError(f"{source}: {error}") from error
        countries = tuple(checked_field(document, "countries", list, source, items=str))
        actions = tuple(checked_field(document, "action_names", list, source, items=str))
        if not countries or not actions:
            raise CheckpointError(f"{source}: invalid reward model (no countries or no actions)")
        config = checked_field(document, "feature_config", (dict, type(None)), source)
        features = (dataclass_from_dict(FeatureConfig, config, what="feature_config", source=source)
                    if config else None)  # fmt: skip
        history = None
        if HISTORY_FILE in saved.files:  # listed in the manifest, so read and checked
            history = history_from(
                saved.files[HISTORY_FILE], saved.folder / HISTORY_FILE, saved.artifact_id
            )
        try:
            common = {
                "countries": countries,
                "action_names": actions,
                "obs_names": tuple(checked_field(document, "obs_names", list, source, items=str)),
                "env_id": checked_field(document, "env_id", str, source),
                "feature_config": features,
                "info": checked_field(document, "info", dict, source),
                "history": history,
                "layout": checked_field(document, "layout", (list, type(None)), source, items=str),
            }
            return cls._from_parts(common, saved, source)
        except (KeyError, TypeError, ValueError) as error:
            raise CheckpointError(f"{source}: invalid reward model ({error})") from error


class ModelRewards(Mapping[str, "CountryReward"]):
    """Every country's reward of a :class:`RewardModel` as env ``reward_fn`` s, batched.

    ``assembly_v0`` calls :meth:`batch_rows` once per step for all agents; as a mapping,
    ``rewards[country]`` is that country's single-agent ``reward_fn``.
    """

    def __init__(self, model: RewardModel, names: Sequence[str], rows: Sequence[int]) -> None:
        self.model = model
        self._rows = dict(zip(names, rows, strict=True))

    def __getitem__(self, country: str) -> CountryReward:
        return CountryReward(self, self._rows[country])

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def rows(self, countries: Sequence[str]) -> np.ndarray:
        """The model's rows of the given countries, (N,) int64.

        Raises:
            KeyError: a country without a reward.
        """
        return np.array([self._rows[country] for country in countries], dtype=np.int64)

    def batch_rows(
        self, rows: np.ndarray, obs: np.ndarray, actions: np.ndarray, next_obs: np.ndarray,
        infos: dict[str, Any],
    ) -> np.ndarray:  # fmt: skip
        """r_{rows[i]}(obs_i, actions_i) for N agents at once, shape (N,)."""
        values = self.model.logits(np.asarray(rows), self.model.select(obs))
        return checked_reward(self, values[np.arange(len(rows)), np.asarray(actions)])


class CountryReward(ActionValuesReward):
    """One country's reward r_c(s, a) as an env ``reward_fn`` (with a batched form)."""

    def __init__(self, rewards: ModelRewards, row: int) -> None:
        self._rewards, self.row = rewards, row

    def values(self, obs: np.ndarray) -> np.ndarray:
        """Rewards of every action: observations (N, len(layout)) → (N, A)."""
        model = self._rewards.model
        obs = model.select(obs)
        return model.logits(np.full(len(obs), self.row), obs)


def span(values: np.ndarray) -> tuple[float, float]:
    """10th → 90th percentile; the smallest → the largest value where those coincide."""
    low, high = np.percentile(values, [10, 90])
    if low == high:
        low, high = values.min(), values.max()
    return float(low), float(high)


def checked_decisions(obs: np.ndarray, width: int) -> np.ndarray:
    """Decisions (N, d) as float64.

    Raises:
        ValueError: another width than ``width``, or no row.
    """
    obs = np.atleast_2d(np.asarray(obs, dtype=np.float64))
    if obs.shape[1] != width or not len(obs):
        raise ValueError(f"obs has shape {obs.shape}, expected (N ≥ 1, {width})")
    return obs


def effect_row(
    name: str, low: float, high: float, effect: np.ndarray, se: np.ndarray,
    actions: Sequence[str],
) -> dict[str, Any]:  # fmt: skip
    """One row of :meth:`RewardModel.effects` (95% interval: effect ± 1.96 se)."""
    entry: dict[str, Any] = {"feature": name, "low": low, "high": high}
    for a, action in enumerate(actions):
        entry |= {action: effect[a], f"{action}_se": se[a],
                  f"{action}_low": effect[a] - Z95 * se[a],
                  f"{action}_high": effect[a] + Z95 * se[a]}  # fmt: skip
    entry["importance"] = float(np.abs(effect).max())
    return entry


def effects_table(entries: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows of :func:`effect_row` as the effects table, most important first."""
    table = pd.DataFrame(entries).set_index("feature")
    return table.sort_values("importance", ascending=False, kind="stable")


register_reward_kind("linear", "assembly_gym.irl.linear:LinearRewardModel")
register_reward_kind("trees", "assembly_gym.irl.trees:TreeRewardModel")
register_reward_kind("neural", "assembly_gym.irl.mlp:NeuralRewardModel")
register_reward_kind("mixture", "assembly_gym.irl.mixture:MixtureRewardModel")
register_reward_kind("ideal", "assembly_gym.irl.ideal:IdealPointModel")
