"""What the debate explains: a batch of observations of one actor, labelled or not.

:class:`Observations` holds both kinds: **roll-call decisions** of one country
(``RollCall-v0`` observations with the vote it cast) and **free-text observations** of a
person or organisation, with no action (the debate resolves them by text relevance), read by
:func:`load_observations_json` (the schema and its errors: docs/debate.md, "Free-text
observations: the JSON schema").
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from assembly_gym.core.errors import DataError
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.data import RollCallData, Vote
from assembly_gym.envs.legislative.demonstrations import Demonstration, rollcall_demonstrations
from assembly_gym.envs.legislative.observation import FeatureConfig, feature_names

__all__ = [
    "ABOUT",
    "UNLABELLED",
    "VOTE_NAMES",
    "Observations",
    "TextTendencySpec",
    "TextObservationFile",
    "load_observations_json",
    "observations_from_demonstrations",
    "rollcall_observations",
]

UNLABELLED = -1
"""Action code of an observation whose outcome is not an action (free text)."""

VOTE_NAMES = tuple(v.name.lower() for v in Vote)
"""Action names of ``RollCall-v0``: yes, no, abstain."""

ABOUT = ("state", "person")
"""Values of an observations file's ``about`` field: whose default tendencies apply (the
legislative seven for a state, :class:`~assembly_gym.agents.debate.tendencies.PersonTendency`
for a person)."""

_RECORD_KEYS = ("id", "text", "date", "source")
_TOP_KEYS = ("name", "about", "tendencies", "observations", "planted")


@dataclass(frozen=True, eq=False)
class Observations:
    """N observations of one actor.

    Attributes:
        ids: an identifier per observation, shape (N,), unique.
        features: named numeric features, shape (N, d) float32 (d = 0 for free text).
        feature_names: the d names (an ``ObservationLayout``'s names).
        actions: the observed action per observation, shape (N,) int64, or
            :data:`UNLABELLED` (−1).
        action_names: the names of the A actions (empty for free text).
        texts: a text per observation (free text, or a roll call's title), or None.
        masks: valid actions per observation, shape (N, A) bool, or None (all valid).
    """

    ids: tuple[str, ...]
    features: np.ndarray
    feature_names: tuple[str, ...] = ()
    actions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    action_names: tuple[str, ...] = ()
    texts: tuple[str, ...] | None = None
    masks: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.ids)
        if len(set(self.ids)) != n:
            raise ValueError("observation ids must be unique")
        if self.features.ndim != 2 or self.features.shape != (n, len(self.feature_names)):
            raise ValueError(
                f"features must have shape ({n}, {len(self.feature_names)}), "
                f"got {self.features.shape}"
            )
        if self.actions.shape != (n,):
            raise ValueError(f"actions must have shape ({n},), got {self.actions.shape}")
        n_actions = len(self.action_names)
        if ((self.actions < UNLABELLED) | (self.actions >= n_actions)).any():
            raise ValueError(f"actions must be −1 or an index below {n_actions}")
        if self.texts is not None and len(self.texts) != n:
            raise ValueError(f"texts must have {n} entries, got {len(self.texts)}")
        if self.masks is not None:
            if self.masks.shape != (n, n_actions) or self.masks.dtype != bool:
                raise ValueError(f"masks must be bool of shape ({n}, {n_actions})")
            rows = np.flatnonzero(self.actions >= 0)
            if not self.masks[rows, self.actions[rows]].all():
                raise ValueError("an observed action is masked out")

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def n_actions(self) -> int:
        """Number of actions A (0 for free text)."""
        return len(self.action_names)

    @property
    def labelled(self) -> np.ndarray:
        """Which observations have an observed action, shape (N,) bool."""
        return self.actions >= 0

    @property
    def layout(self) -> ObservationLayout:
        """The named layout of the features."""
        return ObservationLayout(self.feature_names)

    def take(self, index: np.ndarray) -> Observations:
        """The observations at some positions (in that order)."""
        index = np.asarray(index, dtype=np.int64)
        return replace(
            self,
            ids=tuple(self.ids[i] for i in index),
            features=self.features[index],
            actions=self.actions[index],
            texts=None if self.texts is None else tuple(self.texts[i] for i in index),
            masks=None if self.masks is None else self.masks[index],
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (arrays as base64 of their little-endian bytes)."""
        return {
            "ids": list(self.ids),
            "feature_names": list(self.feature_names),
            "features": _encode(self.features.astype("<f4")),
            "actions": _encode(self.actions.astype("<i8")),
            "action_names": list(self.action_names),
            "texts": None if self.texts is None else list(self.texts),
            "masks": None if self.masks is None else _encode(self.masks.astype(np.uint8)),
        }

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> Observations:
        """Rebuild observations written by :meth:`to_dict`."""
        ids = tuple(payload["ids"])
        names = tuple(payload["feature_names"])
        action_names = tuple(payload["action_names"])
        masks = payload["masks"]
        return cls(
            ids=ids,
            features=_decode(payload["features"], "<f4", (len(ids), len(names))),
            feature_names=names,
            actions=_decode(payload["actions"], "<i8", (len(ids),)),
            action_names=action_names,
            texts=None if payload["texts"] is None else tuple(payload["texts"]),
            masks=None
            if masks is None
            else _decode(masks, np.uint8, (len(ids), len(action_names))).astype(bool),
        )


def _encode(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")


def _decode(text: str, dtype: Any, shape: tuple[int, ...]) -> np.ndarray:
    return (
        np.frombuffer(base64.b64decode(text), dtype=dtype)
        .reshape(shape)
        .astype(np.dtype(dtype).newbyteorder("="))
    )


def observations_from_demonstrations(
    demonstrations: Sequence[Demonstration], layout: ObservationLayout
) -> Observations:
    """The decisions of one country's ``RollCall-v0`` demonstrations as observations.

    Ids are ``"<rcid>"`` when the demonstrations carry infos, else ``"<episode>:<step>"``;
    texts are the roll calls' titles and descriptions when infos carry them.

    Raises:
        ValueError: no demonstrations, or observations that do not match the layout.
    """
    obs, acts, masks = Demonstration.stack(demonstrations)
    if masks.shape[1] != len(VOTE_NAMES):
        raise ValueError(
            f"the debate explains RollCall-v0 votes ({len(VOTE_NAMES)} actions), "
            f"got demonstrations with {masks.shape[1]} actions"
        )
    if obs.shape[1] != len(layout):
        raise ValueError(f"observations have {obs.shape[1]} dims, the layout names {len(layout)}")
    infos = [info for demo in demonstrations for info in demo.infos]
    if len(infos) == len(acts):
        ids = tuple(str(info.get("rcid", i)) for i, info in enumerate(infos))
        texts = tuple(
            f"{info.get('title') or ''} . {info.get('description') or ''}" for info in infos
        )
    else:
        ids = tuple(f"{e}:{t}" for e, demo in enumerate(demonstrations) for t in range(len(demo)))
        texts = None
    if len(set(ids)) != len(ids):  # the same roll call in two episodes (windows): keep positions
        ids = tuple(f"{i}:{rid}" for i, rid in enumerate(ids))
    return Observations(ids, obs.astype(np.float32), layout.names, acts.astype(np.int64),
                        VOTE_NAMES, texts, masks)  # fmt: skip


def rollcall_observations(
    data: RollCallData,
    country: str,
    *,
    history: RollCallData | None = None,
    feature_config: FeatureConfig | None = None,
) -> Observations:
    """Every recorded vote of one country in ``data`` as observations (with titles as texts).

    Args:
        data: roll calls and votes.
        country: any name or code of the country.
        history: votes that describe the past (default ``data`` itself).
        feature_config: feature settings (default settings, as the env's).

    Raises:
        DataError: unknown country, or a country with no recorded vote.
    """
    config = feature_config or FeatureConfig()
    name = data.country_names[data.country_index(country)]
    demos = rollcall_demonstrations(data, [name], history=history, feature_config=config)
    if not demos:
        raise DataError(data.source, f"{name} cast no vote in these roll calls", field="country")
    return observations_from_demonstrations(demos, ObservationLayout(feature_names(config)))


@dataclass(frozen=True)
class TextTendencySpec:
    """A tendency described in words, as read from an observations file.

    Attributes:
        name: its unique name (also its ``label`` and ``value``, as a tendency enum's).
        description: what it stands for (what its text scorer matches).
    """

    name: str
    description: str

    def __post_init__(self) -> None:
        if not _is_text(self.name) or not _is_text(self.description):
            raise ValueError("a tendency needs a non-empty name and description")

    @property
    def label(self) -> str:
        """The name."""
        return self.name

    @property
    def value(self) -> str:
        """The name."""
        return self.name


@dataclass(frozen=True)
class TextObservationFile:
    """The validated content of an observations JSON file.

    Attributes:
        name: who is observed (None when the file does not say).
        tendencies: the file's tendencies (empty: use the default ones).
        observations: the free-text observations (unlabelled).
        about: whose default tendencies apply, one of :data:`ABOUT` (``"state"`` when the
            file does not say).
        planted: the mixture that generated the observations, by tendency name, when the
            file says (``debate generate`` writes it), else None.
    """

    name: str | None
    tendencies: tuple[TextTendencySpec, ...]
    observations: Observations
    about: str = "state"
    planted: dict[str, float] | None = None


def load_observations_json(path: str | Path) -> TextObservationFile:
    """Read and validate a free-text observations file (schema: docs/debate.md).

    Raises:
        DataError: missing file, invalid JSON, or any schema violation (naming the file,
            the record and the field).
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise DataError(path, f"not valid UTF-8 JSON ({error})") from error
    if not isinstance(document, dict):
        raise DataError(
            path, f"expected a JSON object with {list(_TOP_KEYS)}, got {type(document).__name__}"
        )
    unknown = sorted(set(document) - set(_TOP_KEYS))
    if unknown:
        raise DataError(
            path, f"unknown key(s) {unknown}; expected {list(_TOP_KEYS)}", field=unknown[0]
        )
    name = document.get("name")
    if name is not None and not _is_text(name):
        raise DataError(path, "must be non-empty text", field="name")
    about = document.get("about", "state")
    if about not in ABOUT:
        raise DataError(path, f"must be one of {list(ABOUT)}, got {about!r}", field="about")
    tendencies = _read_tendencies(path, document.get("tendencies", []))
    planted = _read_planted(path, document.get("planted"))
    records = document.get("observations")
    if not isinstance(records, list) or len(records) < 2:
        raise DataError(
            path, "must be a list of at least two observation records", field="observations"
        )
    ids, texts = [], []
    for position, record in enumerate(records):
        where = f"observations[{position}]"
        if not isinstance(record, dict):
            raise DataError(path, "a record must be a JSON object", row=where)
        unknown = sorted(set(record) - set(_RECORD_KEYS))
        if unknown:
            message = f"unknown field; a record has {list(_RECORD_KEYS)}"
            raise DataError(path, message, row=where, field=unknown[0])
        if not _is_text(record.get("text")):
            raise DataError(path, "required, non-empty text", row=where, field="text")
        for key in ("date", "source"):
            if key in record and not isinstance(record[key], str):
                raise DataError(path, "must be text", row=where, field=key)
        identifier = record.get("id", str(position + 1))
        if type(identifier) not in (str, int) or identifier == "":  # bool is not an id
            raise DataError(path, "must be non-empty text or an integer", row=where, field="id")
        if str(identifier) in ids:
            raise DataError(path, f"duplicate id {str(identifier)!r}", row=where, field="id")
        ids.append(str(identifier))
        texts.append(record["text"].strip())
    observations = Observations(
        ids=tuple(ids),
        features=np.zeros((len(ids), 0), dtype=np.float32),
        actions=np.full(len(ids), UNLABELLED, dtype=np.int64),
        texts=tuple(texts),
    )
    name = name.strip() if name else None
    return TextObservationFile(name, tendencies, observations, about, planted)


def _read_tendencies(path: Path, items: object) -> tuple[TextTendencySpec, ...]:
    if not isinstance(items, list):
        raise DataError(path, "must be a list of {name, description} objects", field="tendencies")
    specs: list[TextTendencySpec] = []
    for position, item in enumerate(items):
        where = f"tendencies[{position}]"
        if not isinstance(item, dict) or set(item) != {"name", "description"}:
            raise DataError(
                path, "a tendency is an object with exactly 'name' and 'description'", row=where
            )
        for key in ("name", "description"):
            if not _is_text(item[key]):
                raise DataError(path, "must be non-empty text", row=where, field=key)
        if any(spec.name == item["name"].strip() for spec in specs):
            raise DataError(
                path, f"duplicate tendency name {item['name']!r}", row=where, field="name"
            )
        specs.append(TextTendencySpec(item["name"].strip(), item["description"].strip()))
    if len(specs) == 1:
        raise DataError(
            path, "give at least two tendencies (or none for the defaults)", field="tendencies"
        )
    return tuple(specs)


def _read_planted(path: Path, shares: object) -> dict[str, float] | None:
    if shares is None:
        return None
    if (
        not isinstance(shares, dict)
        or not shares
        or not all(_is_text(name) for name in shares)
        or not all(type(v) in (int, float) and 0 <= v <= 1 for v in shares.values())
        or not math.isclose(sum(shares.values()), 1.0, abs_tol=1e-3)
    ):
        raise DataError(
            path, "must map tendency names to shares in [0, 1] that sum to 1", field="planted"
        )
    return {name: float(share) for name, share in shares.items()}


def _is_text(value: object) -> bool:
    return isinstance(value, str) and value.strip() != ""
