"""``RewardModel``: every country's learned reward as named weights, saved, explained and used.

A reward model holds, per country, weights θ_c of shape (A, 1 + d) over a factored feature
map φ(s, a) = e_a ⊗ [1, x(s)] — :class:`~assembly_gym.envs.legislative.phi.ActionFeatureMap` for
``RollCall-v0`` — with Laplace standard errors, the feature settings, and (for forecasting)
the training roll calls and votes that describe the past of any new roll call. Saved as a
folder written whole (:mod:`assembly_gym.core.artifact`; the files: docs/irl.md, section
"What it computes", ``RewardModel``); the manifest carries the checksum of the history.

Example:
    >>> import numpy as np
    >>> model = RewardModel(("France",), ("yes", "no", "abstain"), ("issue_hr",),
    ...                     np.zeros((1, 3, 2)))
    >>> model.action_probs("France", np.array([[1.0]])).round(3).tolist()
    [[0.333, 0.333, 0.333]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assembly_gym.core.artifact import new_artifact_id, read_artifact, write_artifact
from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.core.persist import arrays_from_bytes, arrays_to_bytes, checked_field
from assembly_gym.envs.legislative.countries import Country, default_country_table
from assembly_gym.envs.legislative.data import ISSUE_CODES, RollCallData
from assembly_gym.envs.legislative.observation import FeatureConfig, RollCallFeatures
from assembly_gym.envs.legislative.phi import ActionFeatureMap
from assembly_gym.envs.legislative.rewards import LinearReward
from assembly_gym.envs.multiagent.rewards import LinearCountryRewards

__all__ = ["HISTORY_FILE", "MODEL_FILE", "MODEL_KIND", "RewardModel"]

MODEL_FILE = "reward_model.json"
HISTORY_FILE = "history.npz"
MODEL_KIND = "assembly-gym/irl-reward-model"
"""The ``kind`` of a saved reward model's manifest (MODEL_FILE)."""
_VERSION = 1
_TEXT_COLUMNS = ("symbol", "short", "descr")
_FLAG_COLUMNS = ("important", "amend", "para")


@dataclass(frozen=True)
class RewardModel:
    """Learned linear rewards of several countries over one named feature map.

    Attributes:
        countries: canonical country names, shape (C,).
        action_names: names of the actions (A), e.g. yes, no, abstain.
        obs_names: names of the observation features the reward reads (d).
        theta: weights on the original feature scale, shape (C, A, 1 + d); column 0 is the
            per-action bias. RollCall weights are centred over actions (Σ_a θ_a = 0).
        standard_errors: standard errors of ``theta``, same shape, or None.
        env_id: the env whose observations the weights read.
        feature_config: settings of the roll-call features (None: defaults).
        info: fit details (data source, sessions, l2, shrinkage, per-country steps and
            log-likelihood, …), JSON-serialisable.
        history: the training roll calls and votes (for forecasting new roll calls), or None.
        layout: names of the env's whole observation, when the reward reads only some of
            them (``obs_names`` ⊆ ``layout``); None means the observation is ``obs_names``.

    Raises:
        ValueError: when the shapes do not fit together, or there is no country.
    """

    countries: tuple[str, ...]
    action_names: tuple[str, ...]
    obs_names: tuple[str, ...]
    theta: np.ndarray
    standard_errors: np.ndarray | None = None
    env_id: str = "assembly/RollCall-v0"
    feature_config: FeatureConfig | None = None
    info: dict[str, Any] = field(default_factory=dict)
    history: RollCallData | None = field(default=None, repr=False)
    layout: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "countries", tuple(self.countries))
        object.__setattr__(self, "action_names", tuple(self.action_names))
        object.__setattr__(self, "obs_names", tuple(self.obs_names))
        layout = tuple(self.layout) if self.layout is not None else self.obs_names
        missing = [n for n in self.obs_names if n not in layout]
        if missing:
            raise ValueError(f"reward features {missing[:3]} are not in the observation layout")
        object.__setattr__(self, "layout", layout)
        theta = np.asarray(self.theta, dtype=np.float64)
        expected = (len(self.countries), len(self.action_names), 1 + len(self.obs_names))
        if theta.shape != expected:
            raise ValueError(f"theta has shape {theta.shape}, expected {expected} (C, A, 1 + d)")
        if not np.isfinite(theta).all():
            raise ValueError("theta must be finite")
        object.__setattr__(self, "theta", theta)
        if self.standard_errors is not None:
            errors = np.asarray(self.standard_errors, dtype=np.float64)
            if errors.shape != expected:
                raise ValueError(f"standard_errors has shape {errors.shape}, expected {expected}")
            object.__setattr__(self, "standard_errors", errors)
        if not self.countries:
            raise ValueError("a reward model needs at least one country")
        if len(set(self.countries)) != len(self.countries):
            raise ValueError("a country appears twice")

    # ------------------------------------------------------------------ lookup

    @property
    def feature_map(self) -> ActionFeatureMap:
        """The φ(s, a) the weights are defined on (over the ``obs_names`` columns)."""
        return ActionFeatureMap(self.obs_names, self.action_names)

    @property
    def weight_names(self) -> tuple[str, ...]:
        """Names of the flattened weights (``"yes:bias"``, ``"yes:issue_me"``, …)."""
        return self.feature_map.names

    def select(self, obs: np.ndarray) -> np.ndarray:
        """The columns the reward reads from env observations: (N, len(layout)) → (N, d)."""
        obs, layout = np.atleast_2d(obs), self.layout or self.obs_names  # set by __post_init__
        if obs.shape[1] != len(layout):
            raise ValueError(
                f"observations have {obs.shape[1]} dimensions, the model's env {len(layout)}"
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

    def weights(self, country: str) -> np.ndarray:
        """Weights of one country, shape (A, 1 + d)."""
        return self.theta[self.country_index(country)]

    # ------------------------------------------------------------------ use

    def action_probs(
        self, country: str, obs: np.ndarray, mask: np.ndarray | None = None
    ) -> np.ndarray:
        """MaxEnt policy of one decision: softmax_a θ_c·φ(s, a), (N, len(layout)) → (N, A).

        Masked actions (mask (N, A) or (A,) False) get probability 0.
        """
        logits = self.feature_map.logits(self.weights(country), self.select(obs))
        if mask is not None:
            logits = np.where(np.broadcast_to(mask, logits.shape), logits, -np.inf)
        logits = logits - logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        return probs / probs.sum(axis=1, keepdims=True)

    def as_reward_fn(self, country: str) -> LinearReward:
        """The country's reward r(s, a) = θ_c·φ(s, a) as an env ``reward_fn``."""
        return LinearReward(self.weights(country), _SelectedFeatures(self))

    def reward_fns(self, countries: Sequence[str] | None = None) -> LinearCountryRewards:
        """Every country's reward as a mapping country → ``reward_fn``, batched.

        ``assembly_v0`` takes it as ``rewards`` and evaluates all agents' rewards in one
        batched product; ``fns[country]`` is :meth:`as_reward_fn`'s reward.

        Args:
            countries: the names to key the mapping by (an alias or ISO code is looked up);
                None: the model's countries.

        Raises:
            DataError: a country the model does not know.
        """
        names = self.countries if countries is None else tuple(countries)
        rows = [self.country_index(name) for name in names]
        return LinearCountryRewards(names, self.theta[rows], _SelectedFeatures(self))

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

        if self.history is None:
            raise DataError("reward model", "no training history saved: refit to forecast")
        features = RollCallFeatures(
            roll_calls, history=self.history, config=self.feature_config or FeatureConfig()
        )
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
        known = self.history.countries if self.history is not None else ()
        codes = {c.name: c.iso2 or c.name for c in known}
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

    def explain(
        self, country: str | None = None, *, relative_to: str | None = None
    ) -> pd.DataFrame:
        """Weights table.

        Args:
            country: one country (its weights with standard errors and z-scores), or None
                (every weight's mean and spread across countries).
            relative_to: an action name: report θ_a − θ_ref, the reward of each action
                relative to that one in the same state (its column is then 0; standard
                errors are left out). Weights that never act (``info["inert"]``: action →
                feature names, e.g. COSPONSOR's stage features) are reported as 0. A
                multi-step model's policy also reads the reference's own weights on features
                that change within an episode: they stay in :attr:`theta`.

        Returns:
            For a country: rows (feature), columns ``<action>`` weights, ``<action>_se`` and
            ``<action>_z``. For all: rows (feature), columns ``<action>_mean`` and
            ``<action>_sd`` across countries.
        """
        features = ("bias", *self.obs_names)
        table = pd.DataFrame(index=pd.Index(features, name="feature"))
        theta = self.theta
        if relative_to is not None:
            if relative_to not in self.action_names:
                raise DataError("reward model", f"unknown action {relative_to!r}; the model's "
                                f"actions are {', '.join(self.action_names)}")  # fmt: skip
            reference = self.action_names.index(relative_to)
            theta = theta - theta[:, [reference]]
            for action, inert in self.info.get("inert", {}).items():
                for feature in inert:
                    theta[:, self.action_names.index(action), features.index(feature)] = 0.0
        if country is None:
            for a, name in enumerate(self.action_names):
                table[f"{name}_mean"] = theta[:, a].mean(axis=0)
                table[f"{name}_sd"] = theta[:, a].std(axis=0)
            return table
        row = self.country_index(country)
        for a, name in enumerate(self.action_names):
            table[name] = theta[row, a]
            if self.standard_errors is not None and relative_to is None:
                se = self.standard_errors[row, a]
                table[f"{name}_se"] = se
                table[f"{name}_z"] = np.where(
                    se > 0, self.theta[row, a] / np.maximum(se, 1e-300), 0.0
                )
        return table

    # ------------------------------------------------------------------ persistence

    def save(self, directory: str | Path) -> Path:
        """Write the folder whole (``reward_model.json``, ``history.npz``); returns it.

        Raises:
            CheckpointError: ``directory`` is a file or a folder of other files.
        """
        directory = Path(directory)
        artifact_id = new_artifact_id()
        files = {}
        if self.history is not None:
            files[HISTORY_FILE] = _history_bytes(self.history, artifact_id)
        names, layout = ("bias", *self.obs_names), self.layout or self.obs_names
        payload = {
            "env_id": self.env_id,
            "action_names": list(self.action_names),
            "obs_names": list(self.obs_names),
            "layout": list(layout) if layout != self.obs_names else None,
            "feature_config": asdict(self.feature_config) if self.feature_config else None,
            "info": self.info,
            "countries": {
                country: {
                    action: {
                        name: _weight_entry(self.theta[c, a, k], self.standard_errors, (c, a, k))
                        for k, name in enumerate(names)
                    }
                    for a, action in enumerate(self.action_names)
                }
                for c, country in enumerate(self.countries)
            },
        }
        write_artifact(directory, files, manifest=MODEL_FILE, payload=payload, kind=MODEL_KIND,
                       version=_VERSION, artifact_id=artifact_id)  # fmt: skip
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> RewardModel:
        """Read a folder written by :meth:`save`.

        Raises:
            CheckpointError: missing or corrupted files, a history of another save, another
                kind or version, fields of the wrong type, no country, or weights that do not
                fit the names.
        """
        saved = read_artifact(directory, manifest=MODEL_FILE, kind=MODEL_KIND, version=_VERSION)
        document, source = saved.manifest, saved.folder / MODEL_FILE
        actions = tuple(checked_field(document, "action_names", list, source, items=str))
        if not actions:
            raise CheckpointError(f"{source}: invalid reward model (no actions)")
        obs_names = tuple(checked_field(document, "obs_names", list, source, items=str))
        entries = checked_field(document, "countries", dict, source, items=dict)
        if not entries:
            raise CheckpointError(f"{source}: invalid reward model (no countries)")
        layout = checked_field(document, "layout", (list, type(None)), source, items=str)
        config = checked_field(document, "feature_config", (dict, type(None)), source)
        history = None
        if HISTORY_FILE in saved.files:  # listed in the manifest, so read and checked
            history = _history_from(
                saved.files[HISTORY_FILE], saved.folder / HISTORY_FILE, saved.artifact_id
            )
        try:
            theta, errors = _weights(entries, actions, ("bias", *obs_names))
            return cls(
                tuple(entries),
                actions,
                obs_names,
                theta,
                errors,
                env_id=checked_field(document, "env_id", str, source),
                feature_config=FeatureConfig(**config) if config else None,
                info=checked_field(document, "info", dict, source),
                history=history,
                layout=layout,
            )
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, CheckpointError):
                raise
            raise CheckpointError(f"{source}: invalid reward model ({error})") from error


def _weights(
    entries: dict[str, Any], actions: tuple[str, ...], names: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray | None]:
    """The weights (C, A, 1 + d) and their standard errors (or None) from the saved entries.

    Raises:
        KeyError, TypeError: an entry is missing or not a number.
    """
    countries = tuple(entries)

    def table(key: str) -> np.ndarray:
        values = [entries[c][a][n][key] for c in countries for a in actions for n in names]
        for value in values:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"a {key} is {value!r}, not a number")
        return np.array(values, dtype=np.float64).reshape(len(countries), len(actions), len(names))

    has_se = "std_error" in entries[countries[0]][actions[0]]["bias"]
    return table("weight"), table("std_error") if has_se else None


class _SelectedFeatures:
    """φ(s, a) of a reward model read from whole env observations (a FeatureMap)."""

    def __init__(self, model: RewardModel) -> None:
        self._model = model
        self._inner = model.feature_map
        self.names = self._inner.names

    @property
    def n_actions(self) -> int:
        """Number of actions A."""
        return self._inner.n_actions

    def inputs(self, obs: np.ndarray) -> np.ndarray:
        """g(s) = [1, x(s)] of the selected columns: (N, len(layout)) → (N, 1 + d)."""
        return self._inner.inputs(self._model.select(obs))

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """(N, len(layout)) observations → (N, A, A · (1 + d)) features."""
        return self._inner(self._model.select(obs))


def _weight_entry(value: float, errors: np.ndarray | None, index: tuple[int, int, int]) -> dict:
    entry = {"weight": float(value)}
    if errors is not None:
        entry["std_error"] = float(errors[index])
    return entry


def _history_bytes(data: RollCallData, artifact_id: str) -> bytes:
    """The training roll calls and votes as a compressed .npz (no pickled objects)."""
    table = data.roll_calls
    arrays = {
        "artifact_id": np.array(artifact_id),
        "source": np.array(data.source),
        "votes": data.votes,
        "country_name": np.array([c.name for c in data.countries], dtype=str),
        "country_iso2": np.array([c.iso2 for c in data.countries], dtype=str),
        "country_iso3": np.array([c.iso3 for c in data.countries], dtype=str),
        "rcid": table["rcid"].to_numpy(dtype=np.int64),
        "session": table["session"].to_numpy(dtype=np.int64),
        "date": pd.to_datetime(table["date"]).to_numpy(dtype="datetime64[ns]").astype(np.int64),
        **{c: table[c].fillna("").astype(str).to_numpy(dtype=str) for c in _TEXT_COLUMNS},
        **{c: table[c].to_numpy(dtype=np.float64) for c in _FLAG_COLUMNS},
        **{f"issue_{c}": table[f"issue_{c}"].to_numpy(dtype=bool) for c in ISSUE_CODES},
    }
    return arrays_to_bytes(arrays, compress=True)


def _history_from(data: bytes, path: Path, artifact_id: str) -> RollCallData:
    """The history saved by :func:`_history_bytes`; it must carry the manifest's id.

    Raises:
        CheckpointError: corrupted, incomplete, or saved with another model.
    """
    z = arrays_from_bytes(data, path)
    saved_id = z.get("artifact_id")
    if saved_id is None or saved_id.shape or str(saved_id) != artifact_id:
        raise CheckpointError(
            f"{path}: the history of another save (its id differs from the one in {MODEL_FILE})"
        )
    try:
        table = pd.DataFrame(
            {
                "rcid": z["rcid"],
                "session": z["session"],
                "date": pd.to_datetime(z["date"].astype("datetime64[ns]")),
                **{c: z[c].astype(object) for c in _TEXT_COLUMNS},
                **{c: z[c] for c in _FLAG_COLUMNS},
                **{f"issue_{c}": z[f"issue_{c}"] for c in ISSUE_CODES},
            }
        )
        countries = tuple(
            Country(str(n), str(i2), str(i3))
            for n, i2, i3 in zip(
                z["country_name"], z["country_iso2"], z["country_iso3"], strict=True
            )
        )
        return RollCallData(countries, table, z["votes"].astype(np.int8), str(z["source"]))
    except (KeyError, TypeError, ValueError) as error:
        raise CheckpointError(f"{path}: corrupted training history ({error})") from error
