"""A reward model's training history saved beside it: roll calls and votes as one ``.npz``.

No pickled objects: every column is a plain array; the file carries the id of the save it
belongs to, which must match the manifest's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import arrays_from_bytes, arrays_to_bytes
from assembly_gym.envs.legislative.countries import Country
from assembly_gym.envs.legislative.data import ISSUE_CODES, RollCallData

__all__ = ["HISTORY_FILE", "history_bytes", "history_from"]

HISTORY_FILE = "history.npz"
_TEXT_COLUMNS = ("symbol", "short", "descr")
_FLAG_COLUMNS = ("important", "amend", "para")


def history_bytes(data: RollCallData, artifact_id: str) -> bytes:
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


def history_from(data: bytes, path: Path, artifact_id: str) -> RollCallData:
    """The history saved by :func:`history_bytes`; it must carry the manifest's id.

    Raises:
        CheckpointError: corrupted, incomplete, or saved with another model.
    """
    z = arrays_from_bytes(data, path)
    saved_id = z.get("artifact_id")
    if saved_id is None or saved_id.shape or str(saved_id) != artifact_id:
        raise CheckpointError(
            f"{path}: the history of another save (its id differs from the one in the manifest)"
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
