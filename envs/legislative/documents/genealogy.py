"""Loader of the genealogy JSON layout (``*.genealogy.json``): one resolution, stage by stage."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from assembly_gym.envs.legislative.countries import CountryTable, default_country_table
from assembly_gym.envs.legislative.data.reading import read_bytes
from assembly_gym.envs.legislative.documents.json_reader import JsonReader, describe
from assembly_gym.envs.legislative.documents.names import split_names
from assembly_gym.envs.legislative.documents.parsing import parse_json
from assembly_gym.envs.legislative.documents.text import (
    clean_title,
    committee_from_text,
    iso_date,
    session_from_symbol,
)
from assembly_gym.envs.legislative.documents.trajectory import (
    TALLY_KEYS,
    RecordedVote,
    Trajectory,
    TrajectoryStep,
)

__all__ = ["genealogy_trajectory", "load_genealogy"]

_STAGE_NAMES = {  # genealogy stage key -> TrajectoryStep.stage
    "agenda": "agenda_allocation",
    "draft": "draft_submission",
    "committee_report": "committee_vote",
    "plenary_meeting": "plenary_discussion",
    "resolution": "plenary_vote",
}
_ROW = {key: f"stages.{key}" for key in _STAGE_NAMES}  # stage key -> row named in errors


def load_genealogy(path: str | Path, *, table: CountryTable | None = None) -> Trajectory:
    """Load one resolution in the genealogy JSON schema.

    The schema: ``{resolution_symbol, title, agenda_item, stages{agenda, draft{symbol,
    committee, date, text}, committee_report{draft_symbol, adoption_status,
    voting{in_favour, against, abstaining, vote_summary}, proceedings},
    plenary_meeting{symbol, date, utterances}, resolution{symbol, title, date,
    voting{yes, no, abstain}}}}``.

    The committee vote takes its country lists from ``committee_report.voting`` and its
    tally from ``vote_summary`` or, failing that, from the sentence "adopted draft
    resolution <draft> by a recorded vote of N to M, with K abstentions" of
    ``proceedings``. The plenary vote takes its tally from ``resolution.voting`` and its
    country lists from the plenary utterance whose ``resolution_metadata`` names this
    resolution and carries ``vote_details`` (lists parsed from the verbatim record), when
    there is one. Every stage, including unknown ones, becomes a raw step in file order.

    Args:
        path: the ``.json`` file.
        table: country table (default: the shipped one).

    Returns:
        The trajectory.

    Raises:
        DataError: the file is missing, empty or not JSON; ``resolution_symbol`` or
            ``stages`` is missing; a field has the wrong type; a vote's three country lists
            are all empty; a tally is negative or not an integer; a NaN appears; a country
            votes twice.
    """
    path = Path(path)
    return genealogy_trajectory(
        parse_json(path, read_bytes(path)), path, table or default_country_table()
    )


_RECORDED_VOTE = (
    r"recorded\s+vote\s+of\s+([0-9]{1,3})\s+to\s+([0-9]{1,3}),?\s+with\s+([0-9]{1,3})\s+abstention"
)


def _tally_from_text(text: str | None, draft_symbol: str | None = None) -> dict[str, int] | None:
    """Counts from "78-30-68" or "recorded vote of 80 to 29, with 65 abstentions".

    With ``draft_symbol``, only the sentence "adopted draft resolution <draft_symbol> by a
    recorded vote of ..." counts, so that votes on other drafts or amendments are not taken.
    """
    if not text:
        return None
    if draft_symbol:
        prefix = rf"adopted\s+draft\s+resolution\s+{re.escape(draft_symbol)}\b[^.]*?"
        match = re.search(prefix + _RECORDED_VOTE, text, re.IGNORECASE)
    else:
        match = re.fullmatch(
            r"\s*([0-9]{1,3})\s*[-\u2013]\s*([0-9]{1,3})\s*[-\u2013]\s*([0-9]{1,3})\s*", text
        )
        match = match or re.search(_RECORDED_VOTE, text, re.IGNORECASE)
    if not match:
        return None
    return dict(zip(TALLY_KEYS, (int(match[1]), int(match[2]), int(match[3])), strict=True))


def genealogy_trajectory(data: Any, path: Path, table: CountryTable) -> Trajectory:
    """The trajectory of a parsed genealogy JSON document (:func:`load_genealogy`)."""
    reader = JsonReader(str(path), table)
    data = reader.root(data, "resolution_symbol and stages")
    symbol = reader.text(data, "resolution_symbol", None, required=True)
    stages = reader.mapping(data, "stages", None, required=True)
    assert stages is not None
    if not stages:
        reader.fail(
            "no stages: expected at least one of " + ", ".join(_STAGE_NAMES), None, "stages"
        )
    part = {key: reader.mapping(stages, key, _ROW[key], "stages.") or {} for key in _STAGE_NAMES}
    draft_symbol, sponsors, additional = _draft(reader, part["draft"], part["committee_report"])
    committee_vote = _committee_vote(reader, part["committee_report"], draft_symbol)
    plenary_vote, outcome = _plenary_vote(reader, part, symbol)
    outcome = _outcome(reader, part, symbol, outcome)
    committee = _committee(reader, part, draft_symbol)
    date = _date(reader, part)
    title = reader.text(data, "title", None) or reader.text(
        part["resolution"], "title", _ROW["resolution"]
    )
    return reader.trajectory(
        symbol=symbol,
        title=clean_title(title),
        session=session_from_symbol(symbol) or session_from_symbol(draft_symbol),
        committee=committee,
        agenda_item=_agenda_item(reader, data, part["agenda"]),
        date=date,
        draft_symbol=draft_symbol,
        draft_text=reader.text(part["draft"], "text", _ROW["draft"]),
        sponsors=sponsors,
        additional_sponsors=additional,
        subjects=_subjects(reader, part["resolution"]),
        committee_vote=committee_vote,
        plenary_vote=plenary_vote,
        outcome=outcome,
        resolution_symbol=symbol if symbol.startswith(("A/RES/", "A/DEC/")) else None,
        steps=_steps(reader, stages, committee_vote, outcome),
        source=f"{path}#{symbol}",
    )


def _draft(
    reader: JsonReader, draft: dict, report: dict
) -> tuple[str | None, tuple[str, ...], tuple[str, ...]]:
    """(draft symbol, sponsors, additional sponsors) from ``draft``, else ``committee_report``.

    Without a sponsor list, the sponsors are the names of ``submission_info``.
    """
    row, report_row = _ROW["draft"], _ROW["committee_report"]
    symbol = reader.text(draft, "symbol", row) or reader.text(report, "draft_symbol", report_row)
    sponsors = reader.sponsors(draft, "sponsors", row)
    submitted = reader.text(report, "submission_info", report_row)
    if not sponsors and submitted:
        sponsors = reader.countries.canonical(split_names(submitted, reader.countries.table))
    return symbol, sponsors, reader.sponsors(draft, "co_sponsors", row)


def _committee_vote(
    reader: JsonReader, report: dict, draft_symbol: str | None
) -> RecordedVote | None:
    """Lists from ``committee_report.voting``; tally from ``vote_summary`` or proceedings."""
    row = _ROW["committee_report"]
    voting = reader.mapping(report, "voting", row)
    if voting is None:
        return None
    lists = reader.votes(voting, row, "voting.")
    summary = voting.get("vote_summary")
    if isinstance(summary, dict):
        tally = reader.tally(summary, row, "voting.vote_summary.")
    elif isinstance(summary, str) or summary is None:
        proceedings = reader.text(report, "proceedings", row)
        tally = _tally_from_text(summary) or _tally_from_text(proceedings, draft_symbol)
    else:
        reader.fail(
            f"expected an object or text, got {describe(summary)}", row, "voting.vote_summary"
        )
    return reader.recorded_vote(lists, tally, row, "voting")


def _plenary_vote(
    reader: JsonReader, part: dict[str, dict], symbol: str
) -> tuple[RecordedVote | None, str | None]:
    """(vote, outcome): tally from ``resolution.voting``, lists from the verbatim record."""
    lists, lists_row, outcome = _verbatim_record(reader, part["plenary_meeting"], symbol)
    row = _ROW["resolution"]
    voting = reader.mapping(part["resolution"], "voting", row)
    tally = reader.tally(voting, row, "voting.") if voting else None
    if lists is None and tally is None:
        return None, outcome
    vote = reader.recorded_vote(lists or {}, tally, lists_row, "resolution_metadata.vote_details")
    return vote, outcome


def _verbatim_record(
    reader: JsonReader, plenary: dict, symbol: str
) -> tuple[dict[str, list[str]] | None, str, str | None]:
    """(lists, their row, outcome) from the plenary utterances about resolution ``symbol``.

    The lists come from the last such utterance with ``resolution_metadata.vote_details``;
    the outcome from the last ``adoption_status``.
    """
    utterances = plenary.get("utterances")
    if utterances is not None and not isinstance(utterances, list):
        reader.fail(
            f"expected a list, got {describe(utterances)}", _ROW["plenary_meeting"], "utterances"
        )
    lists, lists_row, outcome = None, _ROW["plenary_meeting"], None
    for index, utterance in enumerate(utterances or []):
        row = f"stages.plenary_meeting.utterances[{index}]"
        if not isinstance(utterance, dict):
            reader.fail(f"expected an object, got {describe(utterance)}", row, None)
        meta = reader.mapping(utterance, "resolution_metadata", row) or {}
        if reader.text(meta, "resolution_symbol", row, "resolution_metadata.") != symbol:
            continue
        status = reader.outcome(meta, "adoption_status", row, "resolution_metadata.")
        outcome = status or outcome
        details = reader.mapping(meta, "vote_details", row, "resolution_metadata.")
        if details is not None:
            lists = reader.votes(details, row, "resolution_metadata.vote_details.")
            lists_row = row
    return lists, lists_row, outcome


def _outcome(
    reader: JsonReader, part: dict[str, dict], symbol: str, outcome: str | None
) -> str | None:
    """The plenary ``outcome``, else adopted for an A/RES symbol, else the committee's."""
    if outcome is None and part["resolution"] and symbol.startswith("A/RES/"):
        return "adopted"  # a resolution symbol is given only to an adopted resolution
    if outcome is None:
        return reader.outcome(part["committee_report"], "adoption_status", _ROW["committee_report"])
    return outcome


def _committee(reader: JsonReader, part: dict[str, dict], draft_symbol: str | None) -> int | None:
    """The committee of the draft, else of the committee report, else of the draft symbol."""
    return (
        reader.committee(part["draft"], "committee", _ROW["draft"])
        or reader.committee(part["committee_report"], "committee", _ROW["committee_report"])
        or committee_from_text(draft_symbol or "")
    )


def _date(reader: JsonReader, part: dict[str, dict]) -> str | None:
    """The first date of the plenary meeting, resolution, committee report, draft, agenda."""
    dates = (
        ("plenary_meeting", "date"),
        ("resolution", "action_note"),
        ("resolution", "date"),
        ("committee_report", "date"),
        ("draft", "date"),
        ("agenda", "date"),
    )
    texts = (reader.text(part[key], field, _ROW[key]) for key, field in dates)
    return next((date for date in map(iso_date, texts) if date), None)


def _agenda_item(reader: JsonReader, data: dict, agenda: dict) -> str | None:
    """Agenda item code ("71c") from stage item and sub-item, else from "71c - Human ..."."""
    item = reader.code(agenda, "item_number", "stages.agenda")
    if item:
        return item + (reader.code(agenda, "sub_item", "stages.agenda") or "")
    text = reader.text(data, "agenda_item", None)
    match = re.match(r"\s*([0-9]+[a-z]?)\b", text or "")
    return match[1] if match else text


def _subjects(reader: JsonReader, resolution: dict) -> tuple[str, ...]:
    """Subject headings of the resolution's agenda entries, first occurrence first."""
    entries = resolution.get("agenda")
    if entries is None:
        return ()
    if not isinstance(entries, list):
        reader.fail(f"expected a list, got {describe(entries)}", "stages.resolution", "agenda")
    subjects: list[str] = []
    for index, entry in enumerate(entries):
        field = f"agenda[{index}]"
        if not isinstance(entry, dict):
            reader.fail(f"expected an object, got {describe(entry)}", "stages.resolution", field)
        subjects += reader.names(entry, "subjects", "stages.resolution", f"{field}.") or []
    return tuple(dict.fromkeys(subjects))


def _steps(
    reader: JsonReader, stages: dict, committee_vote: RecordedVote | None, outcome: str | None
) -> tuple[TrajectoryStep, ...]:
    """One raw step per stage, in file order; unknown stages are kept as found."""
    steps = []
    for t, (key, raw) in enumerate(stages.items()):
        if not isinstance(raw, dict):  # only unknown stages get here
            raw = {key: raw}
        state = {k: v for k, v in raw.items() if k != "voting"}
        action: dict[str, Any] = {}
        observation: dict[str, Any] = {}
        if key == "committee_report" and committee_vote is not None:
            action = {"votes": raw.get("voting")}
            tally, status = committee_vote.tally, raw.get("adoption_status")
            observation = {"vote_tally": tally, "outcome": status}
        elif key == "resolution":
            observation = {
                "voting": raw.get("voting"),
                "outcome": outcome,
                "resolution_symbol": raw.get("symbol"),
            }
        stage = _STAGE_NAMES.get(key, key)
        steps.append(
            reader.step(
                raw,
                f"stages.{key}",
                t=t,
                stage=stage,
                state=state,
                action=action,
                observation=observation,
            )
        )
    return tuple(steps)
