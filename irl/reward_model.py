"""``RewardModel``: every country's learned reward as named weights, saved, explained and used.

A reward model holds, per country, weights θ_c of shape (A, 1 + d) over a factored feature
map φ(s, a) = e_a ⊗ [1, x(s)] — :class:`~assembly_gym.envs.legislative.phi.ActionFeatureMap` for
``RollCall-v0`` — with Laplace standard errors, the feature settings, and (for forecasting)
the training roll calls and votes that describe the past of any new roll call.

Saved as a folder: ``reward_model.json`` (human-readable weights and standard errors,
versioned, written atomically) and ``history.npz`` (the training history, compressed,
written atomically). Loading never reads anything else.

Example:
    >>> import numpy as np
    >>> model = RewardModel(("France",), ("yes", "no", "abstain"), ("issue_hr",),
    ...                     np.zeros((1, 3, 2)))
    >>> model.action_probs("France", np.array([[1.0]])).round(3).tolist()
    [[0.333, 0.333, 0.333]]
"""

from __future__ import annotations

import difflib
import io
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.core.persist import atomic_write_bytes, atomic_write_json, read_versioned_json
from assembly_gym.envs.legislative.countries import Country, default_country_table
from assembly_gym.envs.legislative.data import ISSUE_CODES, RollCallData
from assembly_gym.envs.legislative.observation import FeatureConfig, RollCallFeatures
from assembly_gym.envs.legislative.phi import ActionFeatureMap
from assembly_gym.envs.legislative.rewards import LinearReward

__all__ = ["MODEL_FILE", "HISTORY_FILE", "RewardModel"]

MODEL_FILE = "reward_model.json"
HISTORY_FILE = "history.npz"
_KIND = "assembly-gym/irl-reward-model"
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
        ValueError: when the shapes do not fit together.
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

    @property
    def _layout(self) -> tuple[str, ...]:
        """:attr:`layout`, which ``__post_init__`` sets to ``obs_names`` when it is None."""
        return self.layout if self.layout is not None else self.obs_names

    def select(self, obs: np.ndarray) -> np.ndarray:
        """The columns the reward reads from env observations: (N, len(layout)) → (N, d)."""
        obs, layout = np.atleast_2d(obs), self._layout
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
        close = difflib.get_close_matches(str(country), self.countries, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
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

    def forecast(self, roll_calls: pd.DataFrame, *, progress: bool = False) -> pd.DataFrame:
        """Vote probabilities of every known country on new roll calls (no vote is read).

        Features of the roll calls are described by the saved training history
        (:class:`~assembly_gym.envs.legislative.observation.RollCallFeatures` with ``history``
        = training data), exactly as in training.

        Args:
            roll_calls: roll-call attributes (the layout of
                :func:`~assembly_gym.envs.legislative.data.load_roll_call_attributes`).
            progress: show a progress bar over countries.

        Returns:
            One row per (roll call, country): ``rcid``, ``country_code`` (ISO-2, or the
            name for the few historical states without a code), ``p_<action>``.

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
        codes = _country_codes(self.history)
        frames = []
        for country in tqdm(self.countries, desc="forecast", disable=not progress):
            probs = self.action_probs(country, features.for_country(country))
            frame = pd.DataFrame(
                {"rcid": roll_calls["rcid"].to_numpy(), "country_code": codes.get(country, country)}
            )
            for a, name in enumerate(self.action_names):
                frame[f"p_{name}"] = probs[:, a]
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def explain(self, country: str | None = None) -> pd.DataFrame:
        """Weights table.

        Args:
            country: one country (its weights with standard errors and z-scores), or None
                (every weight's mean and spread across countries).

        Returns:
            For a country: rows (feature), columns ``<action>`` weights, ``<action>_se`` and
            ``<action>_z``. For all: rows (feature), columns ``<action>_mean`` and
            ``<action>_sd`` across countries.
        """
        features = ("bias", *self.obs_names)
        table = pd.DataFrame(index=pd.Index(features, name="feature"))
        if country is None:
            for a, name in enumerate(self.action_names):
                table[f"{name}_mean"] = self.theta[:, a].mean(axis=0)
                table[f"{name}_sd"] = self.theta[:, a].std(axis=0)
            return table
        row = self.country_index(country)
        for a, name in enumerate(self.action_names):
            table[name] = self.theta[row, a]
            if self.standard_errors is not None:
                se = self.standard_errors[row, a]
                table[f"{name}_se"] = se
                table[f"{name}_z"] = np.where(
                    se > 0, self.theta[row, a] / np.maximum(se, 1e-300), 0.0
                )
        return table

    # ------------------------------------------------------------------ persistence

    def save(self, directory: str | Path) -> Path:
        """Write ``reward_model.json`` (and ``history.npz``) atomically; returns the folder."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        if self.history is not None:
            atomic_write_bytes(directory / HISTORY_FILE, _history_bytes(self.history))
        names = ("bias", *self.obs_names)
        payload = {
            "env_id": self.env_id,
            "action_names": list(self.action_names),
            "obs_names": list(self.obs_names),
            "layout": list(self._layout) if self._layout != self.obs_names else None,
            "feature_config": asdict(self.feature_config) if self.feature_config else None,
            "info": self.info,
            "has_history": self.history is not None,
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
        atomic_write_json(directory / MODEL_FILE, payload, kind=_KIND, version=_VERSION)
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> RewardModel:
        """Read a folder written by :meth:`save`.

        Raises:
            CheckpointError: missing or corrupted files, another kind or version, or
                weights that do not fit the names.
        """
        directory = Path(directory)
        document = read_versioned_json(directory / MODEL_FILE, kind=_KIND, version=_VERSION)
        try:
            actions = tuple(document["action_names"])
            obs_names = tuple(document["obs_names"])
            names = ("bias", *obs_names)
            countries = tuple(document["countries"])
            entries = document["countries"]
            theta = np.array(
                [[[entries[c][a][n]["weight"] for n in names] for a in actions] for c in countries],
                dtype=np.float64,
            ).reshape(len(countries), len(actions), len(names))
            has_se = bool(countries) and "std_error" in entries[countries[0]][actions[0]]["bias"]
            errors = None
            if has_se:
                errors = np.array(
                    [
                        [[entries[c][a][n]["std_error"] for n in names] for a in actions]
                        for c in countries
                    ],
                    dtype=np.float64,
                )
            config = document.get("feature_config")
            history = None
            if document.get("has_history"):
                history = _history_from(directory / HISTORY_FILE)
            return cls(
                countries,
                actions,
                obs_names,
                theta,
                errors,
                env_id=document["env_id"],
                feature_config=FeatureConfig(**config) if config else None,
                info=document.get("info", {}),
                history=history,
                layout=document.get("layout"),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise CheckpointError(
                f"{directory / MODEL_FILE}: invalid reward model ({error})"
            ) from error


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

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """(N, len(layout)) observations → (N, A, A · (1 + d)) features."""
        return self._inner(self._model.select(obs))


def _weight_entry(value: float, errors: np.ndarray | None, index: tuple[int, int, int]) -> dict:
    entry = {"weight": float(value)}
    if errors is not None:
        entry["std_error"] = float(errors[index])
    return entry


def _country_codes(data: RollCallData) -> dict[str, str]:
    return {c.name: c.iso2 or c.name for c in data.countries}


def _history_bytes(data: RollCallData) -> bytes:
    """The training roll calls and votes as a compressed .npz (no pickled objects)."""
    table = data.roll_calls
    arrays = {
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
    buffer = io.BytesIO()
    # numpy's stub types **kwds as if one could be allow_pickle: bool.
    np.savez_compressed(buffer, source=np.array(data.source), **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


def _history_from(path: Path) -> RollCallData:
    if not path.is_file():
        raise CheckpointError(f"{path}: file not found (the model says it saved its history)")
    try:
        with np.load(path, allow_pickle=False) as z:
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
    except (OSError, KeyError, ValueError) as error:
        raise CheckpointError(f"{path}: corrupted training history ({error})") from error
