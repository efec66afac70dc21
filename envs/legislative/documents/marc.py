"""Loader of UN Digital Library MARC21-XML draft records (``*.marcxml[.gz]``)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.countries import CountryTable, default_country_table
from assembly_gym.envs.legislative.data.reading import read_bytes
from assembly_gym.envs.legislative.documents.names import NameCollector, parse_sponsor_note
from assembly_gym.envs.legislative.documents.parsing import build
from assembly_gym.envs.legislative.documents.text import (
    committee_from_text,
    fix_mojibake,
    parse_date,
    session_from_symbol,
)
from assembly_gym.envs.legislative.documents.trajectory import Trajectory, TrajectoryStep

__all__ = ["load_marc_drafts"]

_MARC_NS = "http://www.loc.gov/MARC21/slim"


def _local(tag: str) -> str:
    """Tag name without its XML namespace ("{http://...}record" -> "record")."""
    return tag.rsplit("}", 1)[-1]


@dataclass(frozen=True)
class _MarcField:
    """One datafield: tag, indicators and ``(code, value)`` subfields in order."""

    tag: str
    ind1: str
    ind2: str
    subfields: list[tuple[str, str]]

    def first(self, code: str) -> str | None:
        """The first non-empty value of subfield ``code``, or None."""
        return next((value for c, value in self.subfields if c == code and value), None)


class _MarcRecord:
    """A MARC record's control fields and datafields, whitespace-collapsed and mojibake-repaired.

    Args:
        element: the ``<record>`` element.
        position: its index in the file, naming a record without control number 001.
    """

    def __init__(self, element: ET.Element, position: int) -> None:
        self.control: dict[str, str] = {}
        self.fields: list[_MarcField] = []
        for child in element:
            name = _local(child.tag) if isinstance(child.tag, str) else ""
            tag = (child.get("tag") or "").strip()
            if name == "controlfield":
                self.control.setdefault(tag, fix_mojibake((child.text or "").strip()))
            elif name == "datafield":
                subfields = [
                    (
                        sub.get("code") or "",
                        fix_mojibake(re.sub(r"\s+", " ", sub.text or "").strip()),
                    )
                    for sub in child
                    if isinstance(sub.tag, str) and _local(sub.tag) == "subfield"
                ]
                self.fields.append(
                    _MarcField(tag, child.get("ind1") or " ", child.get("ind2") or " ", subfields)
                )
        self.id = self.control.get("001") or f"#{position + 1} (no control number 001)"

    def all(self, tag: str) -> list[_MarcField]:
        """Every datafield with this tag, in order."""
        return [f for f in self.fields if f.tag == tag]

    def values(self, tag: str, code: str) -> list[str]:
        """Every non-empty value of subfield ``code`` of the fields with ``tag``, in order."""
        return [value for f in self.all(tag) for c, value in f.subfields if c == code and value]

    def subfield(self, tag: str, code: str) -> str | None:
        """The first non-empty value of subfield ``code`` of the first field ``tag``, or None."""
        fields = self.all(tag)
        return fields[0].first(code) if fields else None

    def linked(self, ind1: str) -> list[str]:
        """The documents the draft led to (993 $a): ``ind1`` 1 resolutions, 3 committee reports."""
        return [a for f in self.all("993") if f.ind1 == ind1 and (a := f.first("a"))]


def load_marc_drafts(path: str | Path, *, table: CountryTable | None = None) -> list[Trajectory]:
    """Load every record of a MARC21-XML file of draft resolutions (``.xml`` or ``.xml.gz``).

    One trajectory per record, in file order, none skipped. Fields read: symbol (191 $a),
    session (191 $c), title (245 $a), document type (245 $b) and sponsors statement
    (245 $c, kept raw in the step), date (269 $a, else 260 $c; as ISO ``yyyy-mm-dd``),
    additional sponsors and notes (515 $a, see :func:`parse_sponsor_note`), subjects
    (650 $a), sponsors (710 $a, one per field), agenda (991 $a symbol, $b item, $c title,
    $d subject), and what the draft led to (993: first indicator 1 = the resolution or
    decision, 3 = the committee report). Text that was UTF-8 decoded as Latin-1
    ("TÃ¼rkiye") is repaired.

    The outcome is "adopted" when 993 names a resolution or decision, else what a 515
    note says ("The amendment was rejected by the Committee"), else None. A MARC record has
    no recorded votes: ``committee_vote`` and ``plenary_vote`` are None.

    Args:
        path: the MARC21-XML file, gzip-compressed or not.
        table: country table (default: the shipped one).

    Returns:
        One trajectory per record; ``symbol`` is the resolution symbol when known, else the
        draft symbol.

    Raises:
        DataError: the file is missing, empty, not gzip or not XML; it holds no record; a
            record has no symbol (191 $a, the error names the control number 001) or two
            different ones; a date (269 $a, 260 $c) names no day; a 710 field has no name.
    """
    path = Path(path)
    raw = read_bytes(path)
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as error:
        line = error.position[0] if getattr(error, "position", None) else None
        raise DataError(path, f"invalid XML: {error}", row=line) from error
    except (ValueError, RecursionError) as error:
        raise DataError(path, f"invalid XML: {error}") from error
    if _local(root.tag) == "record":
        elements = [root]
    else:
        elements = [
            el for el in root.iter() if isinstance(el.tag, str) and _local(el.tag) == "record"
        ]
    if not elements:
        raise DataError(
            path,
            "no MARC records: expected <record> elements "
            f"(namespace {_MARC_NS}) under <{_local(root.tag)}>",
        )
    table = table or default_country_table()
    return [_marc_trajectory(_MarcRecord(el, i), path, table) for i, el in enumerate(elements)]


def _marc_trajectory(record: _MarcRecord, path: Path, table: CountryTable) -> Trajectory:
    """The trajectory of one draft record: a single ``draft_submission`` step."""
    names = NameCollector(table)
    draft_symbol = _draft_symbol(record, path)
    sponsor_names = _sponsor_names(record, path)
    sponsors = names.canonical(sponsor_names)
    co_names, notes = _sponsor_notes(record, table)
    additional = names.canonical(co_names)
    results, reports = record.linked("1"), record.linked("3")
    resolution_symbol = results[0] if results else None
    title = _strip_trailing_punctuation(record.subfield("245", "a"))
    agenda, agenda_item = _agenda(record)
    subjects = tuple(dict.fromkeys(record.values("650", "a")))
    date = _record_date(record, path)
    step = TrajectoryStep(
        t=0,
        stage="draft_submission",
        date=date,
        action_type="submit_draft",
        state={
            "control_number": record.control.get("001"),
            "draft_symbol": draft_symbol,
            "title": title,
            "document_type": _strip_trailing_punctuation(record.subfield("245", "b")) or None,
            "agenda": agenda,
            "subjects": list(subjects),
        },
        action={
            "sponsor_statement": record.subfield("245", "c"),
            "sponsors": sponsor_names,
            "co_sponsors": co_names,
        },
        observation={
            "notes": notes,
            "committee_reports": reports,
            "resolution_symbol": resolution_symbol,
            "resulting_documents": results,
        },
    )
    return build(
        Trajectory,
        str(path),
        record.id,
        None,
        symbol=resolution_symbol or draft_symbol,
        title=title,
        session=_session(record, draft_symbol),
        committee=_committee(record, draft_symbol),
        agenda_item=agenda_item,
        date=date,
        draft_symbol=draft_symbol,
        sponsors=sponsors,
        additional_sponsors=additional,
        subjects=subjects,
        outcome="adopted" if resolution_symbol else _outcome_from_notes(notes),
        resolution_symbol=resolution_symbol,
        steps=(step,),
        source=f"{path}#{record.id}",
        unmatched_names=tuple(names.unmatched),
    )


def _draft_symbol(record: _MarcRecord, path: Path) -> str:
    """The one document symbol (191 $a)."""
    symbols = list(dict.fromkeys(record.values("191", "a")))
    if not symbols:
        raise DataError(
            path, "record has no document symbol (tag 191 $a)", row=record.id, field="191$a"
        )
    if len(symbols) > 1:
        raise DataError(
            path,
            f"record has several symbols {symbols}; expected one",
            row=record.id,
            field="191$a",
        )
    return symbols[0]


def _sponsor_names(record: _MarcRecord, path: Path) -> list[str]:
    """The sponsors as written, one per 710 field, each of which must name one ($a)."""
    names = [f.first("a") or "" for f in record.all("710")]
    if "" in names:
        number = names.index("") + 1
        raise DataError(path, f"710 field #{number} has no name ($a)", row=record.id, field="710$a")
    return names


def _sponsor_notes(record: _MarcRecord, table: CountryTable) -> tuple[list[str], list[str]]:
    """(additional sponsors as written, other notes) of the 515 notes, then the 500 and 596."""
    co_names: list[str] = []
    notes: list[str] = []
    for text in record.values("515", "a"):
        found, other = parse_sponsor_note(text, table)
        co_names += found
        notes += other
    return co_names, notes + record.values("500", "a") + record.values("596", "a")


def _agenda(record: _MarcRecord) -> tuple[list[dict[str, str]], str | None]:
    """The agenda entries (991) and the item: the first plain one, else a bracketed one cleaned."""
    agenda = [
        {code: value for code, value in f.subfields if code in ("a", "b", "c", "d", "z")}
        for f in record.all("991")
    ]
    items = [entry["b"] for entry in agenda if entry.get("b")]
    plain = [item for item in items if "[" not in item]
    bracketed = [re.sub(r"\[[^\]]*\]", "", item).strip() for item in items]
    return agenda, plain[0] if plain else next((item for item in bracketed if item), None)


def _session(record: _MarcRecord, draft_symbol: str) -> int | None:
    """The session of 191 $c, else of the draft symbol."""
    sessions = [s for s in record.values("191", "c") if re.fullmatch(r"[0-9]{1,4}", s)]
    return int(sessions[0]) if sessions else session_from_symbol(draft_symbol)


def _committee(record: _MarcRecord, draft_symbol: str) -> int | None:
    """The committee of the draft symbol, else of the first 981 $b that names one."""
    committees = map(committee_from_text, [draft_symbol, *record.values("981", "b")])
    return next((c for c in committees if c is not None), None)


def _record_date(record: _MarcRecord, path: Path) -> str | None:
    """ISO date of the record: 269 $a, else 260 $c; None when it has neither.

    Raises:
        DataError: naming the record and the field, when either holds no date.
    """
    dates = []
    for tag, code in (("269", "a"), ("260", "c")):
        for text in record.values(tag, code)[:1]:
            date = parse_date(text)
            if date is None:
                raise DataError(
                    path,
                    f"expected a date such as 2023-10-30 or 30 Oct. 2023, got {text!r}",
                    row=record.id,
                    field=f"{tag}${code}",
                )
            dates.append(date)
    return dates[0] if dates else None


def _strip_trailing_punctuation(text: str | None) -> str:
    """Text without the ISBD punctuation that ends a MARC subfield ("A title :" -> "A title")."""
    return re.sub(r"\s*[:/;,]\s*$", "", text or "")


def _outcome_from_notes(notes: Iterable[str]) -> str | None:
    """The last "was adopted" / "was rejected" that the notes state, else None."""
    outcome = None
    for note in notes:
        match = re.search(r"\bwas\s+(adopted|rejected)\b", note, re.IGNORECASE)
        if match:
            outcome = match[1].lower()
    return outcome
