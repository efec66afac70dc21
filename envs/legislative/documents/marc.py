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
        table: country table; default
            :func:`~assembly_gym.envs.legislative.countries.default_country_table`.

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
    rid = record.id
    symbols = list(dict.fromkeys(record.values("191", "a")))
    if not symbols:
        raise DataError(path, "record has no document symbol (tag 191 $a)", row=rid, field="191$a")
    if len(symbols) > 1:
        raise DataError(
            path, f"record has several symbols {symbols}; expected one", row=rid, field="191$a"
        )
    draft_symbol = symbols[0]
    names = NameCollector(table)

    title_field = next(iter(record.all("245")), None)
    title = _strip_trailing_punctuation(title_field.first("a") if title_field else None)
    doc_type = _strip_trailing_punctuation(title_field.first("b") if title_field else None)
    statement = title_field.first("c") if title_field else None

    sponsor_names: list[str] = []
    for index, f in enumerate(record.all("710")):
        name = f.first("a")
        if name is None:
            raise DataError(
                path, f"710 field #{index + 1} has no name ($a)", row=rid, field="710$a"
            )
        sponsor_names.append(name)
    sponsors = names.canonical(sponsor_names)

    co_names: list[str] = []
    notes: list[str] = []
    for text in record.values("515", "a"):
        found, other = parse_sponsor_note(text, table)
        co_names += found
        notes += other
    additional = names.canonical(co_names)
    notes += record.values("500", "a") + record.values("596", "a")

    results = [f.first("a") for f in record.all("993") if f.ind1 == "1" and f.first("a")]
    reports = [f.first("a") for f in record.all("993") if f.ind1 == "3" and f.first("a")]
    resolution_symbol = results[0] if results else None
    outcome = "adopted" if resolution_symbol else _outcome_from_notes(notes)

    agenda = [
        {code: value for code, value in f.subfields if code in ("a", "b", "c", "d", "z")}
        for f in record.all("991")
    ]
    items = [entry["b"] for entry in agenda if entry.get("b")]
    plain = [item for item in items if "[" not in item]
    bracketed = [re.sub(r"\[[^\]]*\]", "", item).strip() for item in items]
    agenda_item = plain[0] if plain else next((item for item in bracketed if item), None)

    date = _record_date(record, path)
    sessions = [s for s in record.values("191", "c") if re.fullmatch(r"[0-9]{1,4}", s)]
    session = int(sessions[0]) if sessions else session_from_symbol(draft_symbol)
    committee = committee_from_text(draft_symbol)
    if committee is None:
        committee = next(
            (c for c in map(committee_from_text, record.values("981", "b")) if c is not None), None
        )
    subjects = tuple(dict.fromkeys(record.values("650", "a")))

    step = TrajectoryStep(
        t=0,
        stage="draft_submission",
        date=date,
        actor=None,
        action_type="submit_draft",
        state={
            "control_number": record.control.get("001"),
            "draft_symbol": draft_symbol,
            "title": title,
            "document_type": doc_type or None,
            "agenda": agenda,
            "subjects": list(subjects),
        },
        action={
            "sponsor_statement": statement,
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
        rid,
        None,
        symbol=resolution_symbol or draft_symbol,
        title=title,
        session=session,
        committee=committee,
        agenda_item=agenda_item,
        date=date,
        draft_symbol=draft_symbol,
        draft_text=None,
        sponsors=sponsors,
        additional_sponsors=additional,
        subjects=subjects,
        committee_vote=None,
        plenary_vote=None,
        outcome=outcome,
        resolution_symbol=resolution_symbol,
        steps=(step,),
        source=f"{path}#{record.control.get('001') or rid}",
        unmatched_names=tuple(names.unmatched),
    )


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
