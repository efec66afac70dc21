"""Resolution records written as stage/timestep JSON files: trajectory folders to try tools on.

:func:`write_stage_trajectories` writes one ``*.trajectory.json`` per resolution of some
:class:`~assembly_gym.envs.legislative.resolutions.ResolutionRecords` (for example the
synthetic assembly's), in the layout :func:`~.stage_json.load_stage_trajectory` reads: a
draft submission with its sponsors, then the committee and plenary recorded votes, each
stage only where the records hold it. Countries are renamed to real member states (the
loaders accept only names of the country table), in the table's order.

Example:
    >>> import tempfile
    >>> from assembly_gym.envs.legislative.deliberation import resolution_records
    >>> from assembly_gym.envs.legislative.documents import load_trajectories
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> records = resolution_records(generate_assembly(SyntheticConfig(n_countries=4,
    ...                                                                n_sessions=2)))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     files = write_stage_trajectories(records, folder)
    ...     len(files) == records.n_resolutions == len(load_trajectories(folder))
    True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from assembly_gym.core.persist import atomic_write_text
from assembly_gym.envs.legislative.countries import default_country_table
from assembly_gym.envs.legislative.data import ABSENT, ADOPTION, ISSUE_CODES, Vote
from assembly_gym.envs.legislative.documents.trajectory import TALLY_KEYS, VOTE_KEYS

__all__ = ["write_stage_trajectories"]

# Words that records_from_trajectories reads back as each issue (see resolutions.py).
_ISSUE_WORDS = {"me": "Palestinian territories", "nu": "Nuclear weapons",
                "di": "Disarmament", "hr": "Human rights", "co": "Colonialism",
                "ec": "Development"}  # fmt: skip
_NOT_RECORDED = -2  # resolutions.NOT_RECORDED (the records' code for an unrecorded stage)


def write_stage_trajectories(records: Any, folder: str | Path) -> list[Path]:
    """Write every resolution of ``records`` as ``<index>_<symbol>.trajectory.json`` files.

    Sorted file names keep the records' order. A resolution without any sponsor reads back
    as sponsorship not recorded (a document lists sponsors, not non-sponsors).

    Args:
        records: :class:`~assembly_gym.envs.legislative.resolutions.ResolutionRecords`
            (at most as many countries as the country table has).
        folder: where to write (created if needed; files of the same names are replaced).

    Returns:
        The files written, in the records' resolution order.

    Raises:
        ValueError: more countries than the country table names.
    """
    names = default_country_table().names
    if records.n_countries > len(names):
        raise ValueError(f"{records.n_countries} countries, but the table has {len(names)}")
    names = names[: records.n_countries]
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for column, row in enumerate(records.resolutions.itertuples(index=False)):
        document = _stage_document(records, column, row, names)
        path = folder / f"{column:05d}_{str(row.symbol).replace('/', '_')}.trajectory.json"
        atomic_write_text(path, json.dumps(document, indent=1, ensure_ascii=False))
        written.append(path)
    return written


def _stage_document(records: Any, column: int, row: Any, names: tuple[str, ...]) -> dict:
    """One resolution in the stage/timestep schema."""
    issues = [_ISSUE_WORDS[c] for c in ISSUE_CODES if getattr(row, f"issue_{c}")]
    date = str(np.datetime64(row.date, "D"))
    steps: list[dict[str, Any]] = []
    sponsors = records.sponsors[:, column]
    if (sponsors != _NOT_RECORDED).all():
        listed = [names[i] for i in np.flatnonzero(sponsors == 1)]
        steps.append({"stage": "draft_submission", "action_type": "submit_draft",
                      "state": {"draft_symbol": f"{row.symbol} (draft)"},
                      "action": {"draft_text": str(row.descr), "sponsors": listed},
                      "observation": {"public": True}})  # fmt: skip
    votes = {"committee_vote": records.committee[:, column],
             "plenary_vote": records.plenary[:, column]}  # fmt: skip
    adopted = None
    for stage, codes in votes.items():
        if (codes == _NOT_RECORDED).all():
            continue
        lists = {
            key: [names[i] for i in np.flatnonzero(codes == vote)]
            for key, vote in zip(VOTE_KEYS, (Vote.YES, Vote.NO, Vote.ABSTAIN), strict=True)
        }
        tally = dict(zip(TALLY_KEYS, map(len, lists.values()), strict=True))
        adopted = bool(ADOPTION(codes))
        steps.append({"stage": stage, "action_type": "recorded_vote", "state": {},
                      "action": {"votes": lists},
                      "observation": {"vote_tally": tally,
                                      "absent": int((codes == ABSENT).sum())}})  # fmt: skip
    for t, step in enumerate(steps):
        step["t"], step["date"] = t, date
    outcome = None if adopted is None else ("adopted" if adopted else "rejected")
    title = f"{row.short} ({'; '.join(issues) or 'other'})"
    metadata = {"symbol": str(row.symbol), "title": title, "session": int(row.session),
                "committee": 3, "agenda_item": str(row.rcid), "final_outcome": outcome}  # fmt: skip
    return {"trajectory_id": str(row.symbol), "metadata": metadata, "timesteps": steps}
