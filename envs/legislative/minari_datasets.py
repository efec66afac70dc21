"""Demonstrations to Minari datasets (the offline-RL standard) and back, without loss.

Minari stores one ``info`` entry per observation (T + 1 per episode); the step infos of a
:class:`~assembly_gym.envs.legislative.demonstrations.Demonstration` (T per episode) are
stored in the first T entries and the last entry repeats the last step's. Text fields are
stored as UTF-8 bytes (Minari's HDF5 storage has no Unicode arrays) and decoded on the way
back; nested dicts (such as Deliberation tallies) stay nested.

Episodes played in an env are recorded with Minari's own ``DataCollector`` (docs/ecosystem.md,
"Minari"). This module is for behaviour that was recorded, not played, so it is written
through ``EpisodeBuffer`` and ``create_dataset_from_buffers`` (a ``DataCollector`` would
need an env to step through the record).

Needs the ``minari`` extra: ``pip install 'assembly-gym[minari]'``.

Example:
    >>> from assembly_gym.envs.legislative.demonstrations import rollcall_demonstrations
    >>> from assembly_gym.envs.legislative.sources import default_assembly
    >>> demos = rollcall_demonstrations(default_assembly().data, ["Country 001"])
    >>> to_minari(demos, "assembly/rollcall-country001-v0", env_id="assembly/RollCall-v0",
    ...           root=tmp_path)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assembly_gym.core.errors import DataError
from assembly_gym.core.optional import require
from assembly_gym.envs.legislative.demonstrations import Demonstration

__all__ = ["from_minari", "to_minari"]

_COUNTRY = "country"
_JSON = "\x00json:"  # marks a dict stored as JSON text (no real text starts with NUL)
_MASK = "action_mask"


def _minari():
    minari = require("minari", extra="minari", purpose="Minari datasets")
    from minari.data_collector import EpisodeBuffer

    return minari, EpisodeBuffer


@contextlib.contextmanager
def _datasets_root(root: str | Path | None) -> Iterator[None]:
    """Point Minari at ``root`` (its ``MINARI_DATASETS_PATH``) for the duration of a call."""
    if root is None:
        yield
        return
    previous = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(Path(root).expanduser().resolve())
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("MINARI_DATASETS_PATH", None)
        else:
            os.environ["MINARI_DATASETS_PATH"] = previous


def _encode(values: list[Any], key: str) -> Any:
    """Stack one info field over steps into arrays Minari can store."""
    first = values[0]
    if isinstance(first, dict):
        return np.array([(_JSON + json.dumps(v, sort_keys=True)).encode("utf-8") for v in values])
    if isinstance(first, str):
        return np.array([v.encode("utf-8") for v in values])
    if first is None or any(v is None for v in values):
        raise DataError(
            "demonstrations", "info values may not be None in a Minari export", field=key
        )
    return np.asarray(values)


def _decode(array: Any) -> list[Any]:
    """Inverse of :func:`_encode` for one field: a list of per-step values."""
    if array.dtype.kind == "S":
        text = [value.decode("utf-8") for value in array]
        return [json.loads(t[len(_JSON) :]) if t.startswith(_JSON) else t for t in text]
    if array.ndim > 1:
        return [np.array(row) for row in array]
    return [value.item() for value in array]


def to_minari(
    demonstrations: Sequence[Demonstration],
    dataset_id: str,
    *,
    env_id: str,
    root: str | Path | None = None,
    description: str = "assembly-gym demonstrations",
    author: str = "assembly-gym",
):
    """Write demonstrations as a Minari dataset.

    Args:
        demonstrations: the episodes (with their infos) to store.
        dataset_id: Minari id such as ``"assembly/rollcall-france-v0"``.
        env_id: the Gymnasium id the episodes come from (stored as the dataset's env spec).
        root: folder of Minari datasets (default: Minari's own, ``$MINARI_DATASETS_PATH``).
        description: the dataset description.
        author: the dataset author.

    Returns:
        The created ``minari.MinariDataset``.
    """
    if not demonstrations:
        raise DataError("demonstrations", "nothing to export")
    minari, episode_buffer = _minari()
    import gymnasium as gym

    import assembly_gym  # noqa: F401  (registers env_id)

    buffers = []
    for index, demo in enumerate(demonstrations):
        steps = [dict(info) for info in demo.infos] or [{} for _ in range(len(demo))]
        for info, mask in zip(steps, demo.masks, strict=True):
            info[_COUNTRY] = demo.country
            info[_MASK] = np.asarray(mask, dtype=bool)
        steps.append(steps[-1])  # Minari keeps one info per observation
        infos = {key: _encode([s[key] for s in steps], key) for key in steps[0]}
        terminations = [False] * len(demo)
        terminations[-1] = demo.terminal
        buffers.append(
            episode_buffer(
                id=index, observations=demo.obs, actions=demo.acts,
                rewards=[0.0] * len(demo), terminations=terminations,
                truncations=[False] * len(demo), infos=infos,
            )
        )  # fmt: skip
    with _datasets_root(root):
        return minari.create_dataset_from_buffers(
            dataset_id, buffers, env=gym.spec(env_id), algorithm_name="recorded behaviour",
            description=description, author=author,
        )  # fmt: skip


def from_minari(dataset_id: str, *, root: str | Path | None = None) -> list[Demonstration]:
    """Read demonstrations back from a Minari dataset written by :func:`to_minari`."""
    minari, _ = _minari()
    with _datasets_root(root):
        dataset = minari.load_dataset(dataset_id)
        episodes = list(dataset.iterate_episodes())
    demos = []
    for episode in episodes:
        n = len(episode.actions)
        if not isinstance(episode.infos, dict) or _COUNTRY not in episode.infos:
            raise DataError(dataset_id, "episode infos lack 'country'", row=f"episode {episode.id}")
        fields = {key: _decode(value)[:n] for key, value in episode.infos.items()}
        infos = tuple({key: fields[key][t] for key in fields} for t in range(n))
        demos.append(
            Demonstration(
                country=fields[_COUNTRY][0],
                obs=np.asarray(episode.observations),
                acts=np.asarray(episode.actions, dtype=np.int64),
                masks=np.stack([np.asarray(info[_MASK], dtype=bool) for info in infos]),
                infos=infos,
                terminal=bool(episode.terminations[-1]),
            )
        )
    return demos
