"""Tests of assembly_gym.envs.legislative.documents: real UN documents, small hand-written
files, fuzzing.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import gzip
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assembly_gym.core.errors import DataError
from assembly_gym.core.paths import documents_dir
from assembly_gym.envs.legislative.countries import default_country_table
from assembly_gym.envs.legislative.documents import (
    Trajectory,
    load_genealogy,
    load_marc_drafts,
    load_stage_trajectory,
    load_trajectories,
)
from assembly_gym.envs.legislative.documents.names import parse_sponsor_note
from assembly_gym.envs.legislative.documents.trajectory import RecordedVote, TrajectoryStep

STAGE_FILE = "A_RES_78_196.trajectory.json"
GENEALOGY_FILE = "A_RES_78_220.genealogy.json"
MARC_FILE = "session_78_committee_3_drafts.marcxml.gz"
TABLE = default_country_table()


def real_file(name: str) -> Path:
    folder = documents_dir()
    if folder is None:
        pytest.skip("real UN documents absent: set $ASSEMBLY_GYM_DATA or provide ../shared/data")
    path = folder / name
    if not path.is_file():
        pytest.skip(f"real UN document {name} absent from {folder}")
    return path


def check_well_formed(trajectory: Trajectory) -> None:
    """Invariants every loaded trajectory satisfies, whatever its source."""
    assert isinstance(trajectory, Trajectory)
    dataclasses.replace(trajectory)  # re-runs every __post_init__ check
    assert trajectory.symbol.strip()
    assert trajectory.outcome in ("adopted", "rejected", None)
    for names in (trajectory.sponsors, trajectory.additional_sponsors):
        assert all(name in TABLE.names for name in names)
    for vote in (trajectory.committee_vote, trajectory.plenary_vote):
        if vote is not None:
            assert isinstance(vote, RecordedVote)
            assert all(n in TABLE.names for n in vote.in_favour + vote.against + vote.abstaining)
            assert set(vote.counts) == {"yes", "no", "abstain"}
    times = [step.t for step in trajectory.steps]
    assert times == sorted(set(times))
    assert all(isinstance(step, TrajectoryStep) for step in trajectory.steps)
    assert all(name not in TABLE for name in trajectory.unmatched_names)


# --------------------------------------------------------------------------------------
# Real files
# --------------------------------------------------------------------------------------


@pytest.mark.real_data
def test_real_stage_trajectory_a_res_78_196() -> None:
    path = real_file(STAGE_FILE)
    trajectory = load_stage_trajectory(path)
    check_well_formed(trajectory)

    assert trajectory.symbol == "A/RES/78/196"
    assert trajectory.resolution_symbol == "A/RES/78/196"
    assert trajectory.title == "Promotion of a democratic and equitable international order"
    assert (trajectory.session, trajectory.committee, trajectory.agenda_item) == (78, 3, "71b")
    assert trajectory.date == "2023-12-19"
    assert trajectory.draft_symbol == "A/C.3/78/L.32"
    assert trajectory.draft_text is not None
    assert trajectory.draft_text.startswith("The General Assembly,")
    assert trajectory.outcome == "adopted"
    assert trajectory.source == f"{path}#A/RES/78/196"
    # The file's sponsor lists are empty.
    assert trajectory.sponsors == () and trajectory.additional_sponsors == ()
    assert trajectory.committee_vote is None
    assert trajectory.unmatched_names == ()
    assert [step.stage for step in trajectory.steps] == [
        "agenda_allocation",
        "agenda_allocation",
        "draft_submission",
        "plenary_discussion",
        "plenary_vote",
    ]
    assert trajectory.steps[0].date == "2023-09-08"  # "[New York] : UN, 8 Sept. 2023"
    assert trajectory.steps[4].actor == "General Assembly Members"

    vote = trajectory.plenary_vote
    assert vote is not None
    # The lists have 91/54/6 names and the file's tally says the same 91/54/6.
    assert vote.counts == {"yes": 91, "no": 54, "abstain": 6}
    assert vote.tally == {"yes": 91, "no": 54, "abstain": 6}
    assert vote.counts == vote.tally
    # Official names come out canonical.
    assert {"Netherlands", "Turkey", "United Kingdom", "United States", "South Korea"} <= set(
        vote.against
    )
    assert {"North Korea", "Côte d’Ivoire", "Bolivia", "Iran", "Laos", "Cape Verde"} <= set(
        vote.in_favour
    )
    assert vote.abstaining == ("Armenia", "Chile", "Costa Rica", "Mexico", "Peru", "Uruguay")
    # The source's "in favour" list stops, alphabetically, at Rwanda (no Saint Lucia,
    # South Africa, Viet Nam, Zimbabwe ...): the tally counts that same list.
    raw = trajectory.steps[4].action["votes"]["in_favour"]
    assert raw[-1] == "Rwanda" and max(raw) == "Rwanda"


@pytest.mark.real_data
def test_real_genealogy_a_res_78_220() -> None:
    path = real_file(GENEALOGY_FILE)
    trajectory = load_genealogy(path)
    check_well_formed(trajectory)

    assert trajectory.symbol == trajectory.resolution_symbol == "A/RES/78/220"
    assert trajectory.title == "Situation of human rights in the Islamic Republic of Iran"
    assert (trajectory.session, trajectory.committee, trajectory.agenda_item) == (78, 3, "71c")
    assert trajectory.date == "2023-12-19"
    assert trajectory.draft_symbol == "A/C.3/78/L.41"
    assert trajectory.draft_text is not None and len(trajectory.draft_text) > 20_000
    assert trajectory.outcome == "adopted"
    # committee_report.submission_info names only the first sponsor.
    assert trajectory.sponsors == ("Albania",)
    assert trajectory.unmatched_names == ()
    assert [step.stage for step in trajectory.steps] == [
        "agenda_allocation",
        "draft_submission",
        "committee_vote",
        "plenary_discussion",
        "plenary_vote",
    ]

    committee = trajectory.committee_vote
    assert committee is not None
    assert committee.counts == {"yes": 80, "no": 29, "abstain": 65}
    # Tally from the proceedings: "by a recorded vote of 80 to 29, with 65 abstentions".
    assert committee.tally == {"yes": 80, "no": 29, "abstain": 65}
    # Names broken across PDF lines ("Timor- Leste", "Guinea- Bissau") still match.
    assert "Timor-Leste" in committee.in_favour
    assert "Guinea-Bissau" in committee.abstaining
    assert "Iran" in committee.against

    plenary = trajectory.plenary_vote
    assert plenary is not None
    assert plenary.tally == {"yes": 78, "no": 30, "abstain": 68}
    # Lists from the verbatim record's utterance for A/RES/78/220; they agree with the tally.
    assert plenary.counts == {"yes": 78, "no": 30, "abstain": 68}
    # "23-41218 A/78/PV.50 Poland" (a page header inside the list) is Poland.
    assert "Poland" in plenary.in_favour
    # Committee and plenary votes differ: 2 fewer yes, 1 more no, 3 more abstentions.
    assert set(committee.in_favour) - set(plenary.in_favour)


@pytest.mark.real_data
def test_real_marc_drafts() -> None:
    path = real_file(MARC_FILE)
    trajectories = load_marc_drafts(path)
    assert len(trajectories) == 94
    for trajectory in trajectories:
        check_well_formed(trajectory)
        assert trajectory.symbol
        assert trajectory.draft_symbol is not None
        assert trajectory.draft_symbol.startswith("A/C.3/78/")
        assert (trajectory.session, trajectory.committee) == (78, 3)
        assert trajectory.date is not None and len(trajectory.date) == 10
        assert trajectory.committee_vote is None and trajectory.plenary_vote is None
    assert len({t.draft_symbol for t in trajectories}) == 94

    by_draft = {t.draft_symbol: t for t in trajectories}
    digital = by_draft["A/C.3/78/L.49/Rev.1"]
    assert digital.symbol == digital.resolution_symbol == "A/RES/78/213"
    assert digital.outcome == "adopted"
    assert (
        digital.title
        == "Promotion and protection of human rights in the context of digital technologies"
    )
    assert digital.date == "2023-11-08"
    assert digital.agenda_item == "71b"
    assert digital.source == f"{path}#4026910"
    assert "Argentina" in digital.sponsors and "Netherlands" in digital.sponsors
    assert len(digital.sponsors) == 24
    assert {"United States", "Zambia", "Albania"} <= set(digital.additional_sponsors)
    assert len(digital.additional_sponsors) == 49
    assert "DIGITAL TECHNOLOGY" in digital.subjects
    assert digital.steps[0].observation["committee_reports"] == ["A/78/481/Add.2"]

    # An amendment rejected in committee: outcome from the 515 note.
    amendment = by_draft["A/C.3/78/L.67"]
    assert amendment.symbol == "A/C.3/78/L.67" and amendment.resolution_symbol is None
    assert amendment.outcome == "rejected"
    assert amendment.additional_sponsors == ("Burundi", "Tanzania", "Zimbabwe")
    assert amendment.steps[0].observation["notes"] == [
        "The amendment was rejected by the Committee (A/78/481/Add.2)."
    ]
    # A draft decision: the 993 field names a decision.
    assert by_draft["A/C.3/78/L.72"].resolution_symbol == "A/DEC/78/539"

    outcomes = collections.Counter(t.outcome for t in trajectories)
    assert outcomes == {"adopted": 64, "rejected": 5, None: 25}
    # UTF-8 read as Latin-1 in the file ("TÃ¼rkiye", "CÃ´te d'Ivoire") is repaired.
    assert any("Turkey" in t.sponsors for t in trajectories)
    assert any("Côte d’Ivoire" in t.additional_sponsors for t in trajectories)
    # "Bahamas (The)" (UN Digital Library authority name) is an alias in the table.
    assert by_draft["A/C.3/78/L.19"].sponsors.count("Bahamas") == 1

    unmatched = collections.Counter(n for t in trajectories for n in t.unmatched_names)
    assert unmatched == {
        "Group of 77": 8,
        "UN. General Assembly. 3rd Committee. Chair": 7,
        "UN. Group of African States": 3,
        "UN. Secretary-General": 3,
        "UN. Secretariat": 2,
        "Ir eland": 1,  # a typo in the 515 note of A/C.3/78/L.11: reported, not guessed
    }
    assert by_draft["A/C.3/78/L.11"].unmatched_names == ("Ir eland",)


@pytest.mark.real_data
def test_real_folder_loads_every_file_in_sorted_order() -> None:
    folder = real_file(STAGE_FILE).parent
    trajectories = load_trajectories(folder)
    assert len(trajectories) == 96
    assert [t.symbol for t in trajectories[:2]] == ["A/RES/78/196", "A/RES/78/220"]
    assert all(t.source.startswith(str(folder / MARC_FILE)) for t in trajectories[2:])
    assert load_trajectories(folder / GENEALOGY_FILE)[0].symbol == "A/RES/78/220"


# --------------------------------------------------------------------------------------
# Sponsor notes
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names", "notes"),
    [
        (
            "Additional sponsors: Albania, Andorra and Zambia (A/78/481/Add.2).",
            ("Albania", "Andorra", "Zambia"),
            (),
        ),
        (
            "Additional sponsors: Bosnia and Herzegovina, Trinidad and Tobago, Saint Vincent "
            "and the Grenadines and United Kingdom of Great Britain and Northern Ireland.",
            (
                "Bosnia and Herzegovina",
                "Trinidad and Tobago",
                "Saint Vincent and the Grenadines",
                "United Kingdom of Great Britain and Northern Ireland",
            ),
            (),
        ),
        (
            "Additional sponsors: Uruguay and Venezuela (Bolivarian Republic of) (A/78/481/Add.2).",
            ("Uruguay", "Venezuela (Bolivarian Republic of)"),
            (),
        ),
        (
            "Additional sponsors: Burundi, United Republic of Tanzania and Zimbabwe. - The "
            "amendment was rejected by the Committee (A/78/481/Add.2).",
            ("Burundi", "United Republic of Tanzania", "Zimbabwe"),
            ("The amendment was rejected by the Committee (A/78/481/Add.2).",),
        ),
        ("Additional sponsors: Russian Federation (A/78/472).", ("Russian Federation",), ()),
        (
            "The amendment was rejected by the Committee (A/78/481/Add.2).",
            (),
            ("The amendment was rejected by the Committee (A/78/481/Add.2).",),
        ),
        (
            "Additional sponsors: TÃ¼rkiye, Netherlands (Kingdom of the), and Serbia.",
            ("Türkiye", "Netherlands (Kingdom of the)", "Serbia"),
            (),
        ),
        # An unknown "X and Y" stays one name (reported later), a known one is split.
        ("Additional sponsors: Foo and Bar", ("Foo and Bar",), ()),
        ("Additional sponsors: Atlantis and Chile", ("Atlantis", "Chile"), ()),
    ],
)
def test_parse_sponsor_note(text: str, names: tuple[str, ...], notes: tuple[str, ...]) -> None:
    assert parse_sponsor_note(text) == (names, notes)


@pytest.mark.parametrize(
    "name",
    [
        "Netherlands (Kingdom of the)",
        "Türkiye",
        "Côte d’Ivoire",
        "Democratic People’s Republic of Korea",
        "United Kingdom of Great Britain and Northern Ireland",
        "United States of America",
        "Bolivia (Plurinational State of)",
        "State of Palestine",
        "Bahamas (The)",
    ],
)
def test_official_names_match_the_country_table(name: str) -> None:
    assert TABLE.find(name) is not None


# --------------------------------------------------------------------------------------
# Small hand-written inputs
# --------------------------------------------------------------------------------------


def stage_doc() -> dict[str, Any]:
    return {
        "trajectory_id": "A/RES/99/1",
        "metadata": {
            "symbol": "A/RES/99/1",
            "title": "Test resolution : resolution / adopted by the General Assembly",
            "session": 99,
            "committee": 3,
            "agenda_item": "70",
            "final_outcome": "adopted",
        },
        "timesteps": [
            {
                "t": 0,
                "date": "[New York] : UN, 2 Oct. 2099",
                "stage": "draft_submission",
                "action_type": "submit_draft",
                "state": {"draft_symbol": "A/C.3/99/L.1"},
                "action": {
                    "actor": "Chile",
                    "draft_text": "The General Assembly,",
                    "sponsors": ["Chile", "Türkiye", "European Union"],
                    "co_sponsors": ["United States of America"],
                },
                "observation": {"public": True},
            },
            {
                "t": 1,
                "date": "2099-11-01",
                "stage": "committee_vote",
                "action_type": "recorded_vote",
                "state": {},
                "action": {
                    "votes": {
                        "in_favour": ["Chile", "Peru"],
                        "against": ["Atlantis"],
                        "abstaining": [],
                    }
                },
                "observation": {"vote_tally": {"yes": 2, "no": 1, "abstain": 0}},
            },
            {
                "t": 2,
                "date": "2099-12-19",
                "stage": "plenary_vote",
                "action_type": "recorded_vote",
                "state": {"resolution_symbol": "A/RES/99/1"},
                "action": {
                    "votes": {
                        "in_favour": ["Chile", "Peru", "Bolivia (Plurinational State of)"],
                        "against": [],
                        "abstaining": ["Netherlands (Kingdom of the)"],
                    }
                },
                "observation": {
                    "outcome": "adopted",
                    "vote_tally": {"yes": 4, "no": 0, "abstain": 1},
                },
            },
        ],
    }


def genealogy_doc() -> dict[str, Any]:
    return {
        "resolution_symbol": "A/RES/99/2",
        "title": "Test",
        "agenda_item": "71c - Human rights",
        "stages": {
            "draft": {"symbol": "A/C.3/99/L.2", "committee": 3, "date": "1 November 2099"},
            "committee_report": {
                "committee": "Third Committee",
                "submission_info": "Chile and Peru",
                "adoption_status": "adopted",
                "voting": {
                    "in_favour": ["Chile", "Timor- Leste"],
                    "against": ["Cuba"],
                    "abstaining": ["Group of Friends"],
                    "vote_summary": None,
                },
                "proceedings": "the Committee adopted draft resolution A/C.3/99/L.2\nby a "
                "recorded vote of 2 to 1, with 1 abstention",
            },
            "plenary_meeting": {
                "date": "2099-12-19",
                "utterances": [
                    {
                        "speaker": "The President",
                        "resolution_metadata": {
                            "resolution_symbol": "A/RES/99/1",
                            "vote_details": {
                                "in_favour": ["None"],
                                "against": [],
                                "abstaining": [],
                            },
                        },
                    },
                    {
                        "speaker": {"raw": "The President"},
                        "resolution_metadata": {
                            "resolution_symbol": "A/RES/99/2",
                            "adoption_status": "adopted",
                            "vote_details": {
                                "in_favour": ["Chile", "99-12345 A/99/PV.50 Peru", "Kenya"],
                                "against": ["Cuba"],
                                "abstaining": [],
                            },
                        },
                    },
                ],
            },
            "resolution": {"symbol": "A/RES/99/2", "voting": {"yes": 5, "no": 1, "abstain": 0}},
        },
    }


MARC_RECORD = """<ns0:record xmlns:ns0="http://www.loc.gov/MARC21/slim">
  <ns0:controlfield tag="001">{id}</ns0:controlfield>
  <ns0:datafield tag="191" ind1=" " ind2=" ">
    <ns0:subfield code="a">{symbol}</ns0:subfield><ns0:subfield code="c">99</ns0:subfield>
  </ns0:datafield>
  <ns0:datafield tag="245" ind1="1" ind2="0">
    <ns0:subfield code="a">A title :</ns0:subfield>
    <ns0:subfield code="b">draft resolution /</ns0:subfield>
    <ns0:subfield code="c">Chile and TÃ¼rkiye</ns0:subfield>
  </ns0:datafield>
  <ns0:datafield tag="269" ind1=" " ind2=" "><ns0:subfield code="a">2099-11-08</ns0:subfield>
  </ns0:datafield>
  <ns0:datafield tag="515" ind1=" " ind2=" "><ns0:subfield code="a">Additional sponsors: Bosnia
    and Herzegovina, United States and Zambia (A/99/481/Add.2).</ns0:subfield>
  </ns0:datafield>
  <ns0:datafield tag="650" ind1=" " ind2=" "><ns0:subfield code="a">HUMAN RIGHTS</ns0:subfield>
  </ns0:datafield>
  <ns0:datafield tag="710" ind1="2" ind2=" "><ns0:subfield code="a">Chile</ns0:subfield>
  </ns0:datafield>
  <ns0:datafield tag="710" ind1="2" ind2=" "><ns0:subfield code="a">TÃ¼rkiye</ns0:subfield>
  </ns0:datafield>
  <ns0:datafield tag="710" ind1="2" ind2=" "><ns0:subfield code="a">Group of 77</ns0:subfield>
  </ns0:datafield>
  <ns0:datafield tag="991" ind1="1" ind2=" "><ns0:subfield code="b">71b[20]</ns0:subfield>
  </ns0:datafield>
  <ns0:datafield tag="991" ind1="1" ind2=" "><ns0:subfield code="b">71b</ns0:subfield>
  </ns0:datafield>
  {extra}
</ns0:record>"""


def marc_text(records: list[dict[str, str]] | None = None) -> str:
    records = records or [
        {"id": "1", "symbol": "A/C.3/99/L.1", "extra": ""},
        {
            "id": "2",
            "symbol": "A/C.3/99/L.2",
            "extra": '<ns0:datafield tag="993" ind1="1" ind2=" ">'
            '<ns0:subfield code="a">A/RES/99/7</ns0:subfield></ns0:datafield>',
        },
    ]
    body = "\n".join(MARC_RECORD.format(**record) for record in records)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<collection xmlns="http://www.loc.gov/MARC21/slim">\n{body}\n</collection>\n'
    )


def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def test_small_stage_trajectory(tmp_path: Path) -> None:
    path = write(tmp_path / "x.trajectory.json", json.dumps(stage_doc()))
    trajectory = load_stage_trajectory(path)
    check_well_formed(trajectory)
    assert trajectory.symbol == "A/RES/99/1"
    assert trajectory.title == "Test resolution"
    assert trajectory.draft_symbol == "A/C.3/99/L.1"
    assert trajectory.sponsors == ("Chile", "Turkey")
    assert trajectory.additional_sponsors == ("United States",)
    assert trajectory.unmatched_names == ("European Union", "Atlantis")
    assert trajectory.committee_vote == RecordedVote(
        ("Chile", "Peru"), (), (), {"yes": 2, "no": 1, "abstain": 0}
    )
    # The list lost "Atlantis" to unmatched_names; the reported tally is kept as is.
    assert trajectory.committee_vote.counts == {"yes": 2, "no": 0, "abstain": 0}
    plenary = trajectory.plenary_vote
    assert plenary is not None
    assert plenary.in_favour == ("Chile", "Peru", "Bolivia")
    assert plenary.abstaining == ("Netherlands",)
    assert plenary.tally == {"yes": 4, "no": 0, "abstain": 1}  # differs from the lists: kept
    assert trajectory.steps[0].date == "2099-10-02"
    assert trajectory.steps[0].actor == "Chile"
    assert trajectory.date == "2099-12-19"
    assert load_trajectories(path) == [trajectory]


def test_small_genealogy(tmp_path: Path) -> None:
    path = write(tmp_path / "x.genealogy.json", json.dumps(genealogy_doc()))
    trajectory = load_genealogy(path)
    check_well_formed(trajectory)
    assert trajectory.sponsors == ("Chile", "Peru")
    assert trajectory.committee == 3 and trajectory.session == 99
    assert trajectory.agenda_item == "71c"
    committee = trajectory.committee_vote
    assert committee is not None
    assert committee.in_favour == ("Chile", "Timor-Leste")
    assert committee.tally == {"yes": 2, "no": 1, "abstain": 1}
    assert committee.abstaining == ()
    assert trajectory.unmatched_names == ("Group of Friends",)
    plenary = trajectory.plenary_vote
    assert plenary is not None and plenary.tally == {"yes": 5, "no": 1, "abstain": 0}
    # Lists from the utterance about A/RES/99/2 (the one about A/RES/99/1 is ignored); a
    # page header inside a name is dropped; 3 listed yes against a reported 5: both kept.
    assert plenary.in_favour == ("Chile", "Peru", "Kenya")
    assert plenary.counts == {"yes": 3, "no": 1, "abstain": 0}
    assert trajectory.outcome == "adopted"
    assert trajectory.date == "2099-12-19"


@pytest.mark.parametrize("compress", [False, True])
def test_small_marc(tmp_path: Path, compress: bool) -> None:
    data = marc_text().encode("utf-8")
    name = "x.marcxml.gz" if compress else "x.xml"
    path = write(tmp_path / name, gzip.compress(data) if compress else data)
    first, second = load_marc_drafts(path)
    for trajectory in (first, second):
        check_well_formed(trajectory)
        assert trajectory.sponsors == ("Chile", "Turkey")
        assert trajectory.additional_sponsors == ("Bosnia & Herzegovina", "United States", "Zambia")
        assert trajectory.unmatched_names == ("Group of 77",)
        assert trajectory.agenda_item == "71b"
        assert trajectory.title == "A title"
        assert trajectory.steps[0].action["sponsor_statement"] == "Chile and Türkiye"
    assert (first.symbol, first.outcome, first.resolution_symbol) == ("A/C.3/99/L.1", None, None)
    assert (second.symbol, second.outcome) == ("A/RES/99/7", "adopted")
    assert second.source == f"{path}#2"
    assert load_trajectories(path) == [first, second]


def test_folder_of_small_files(tmp_path: Path) -> None:
    write(tmp_path / "b.trajectory.json", json.dumps(stage_doc()))
    write(tmp_path / "a.genealogy.json", json.dumps(genealogy_doc()))
    write(tmp_path / "c.marcxml", marc_text())
    write(tmp_path / "notes.txt", "not a trajectory")
    symbols = [t.symbol for t in load_trajectories(tmp_path)]
    assert symbols == ["A/RES/99/2", "A/RES/99/1", "A/C.3/99/L.1", "A/RES/99/7"]


def test_layout_detected_from_content(tmp_path: Path) -> None:
    stage = write(tmp_path / "one.json", json.dumps(stage_doc()))
    genealogy = write(tmp_path / "two.json", json.dumps(genealogy_doc()))
    marc = write(tmp_path / "three.dat", marc_text())
    assert load_trajectories(stage)[0].symbol == "A/RES/99/1"
    assert load_trajectories(genealogy)[0].symbol == "A/RES/99/2"
    assert len(load_trajectories(marc)) == 2


def test_containers_validate_themselves() -> None:
    with pytest.raises(ValueError, match="appears twice"):
        RecordedVote(("Chile",), ("Chile",), ())
    with pytest.raises(ValueError, match="must be >= 0"):
        RecordedVote(tally={"yes": -1, "no": 0, "abstain": 0})
    with pytest.raises(ValueError, match="tally keys"):
        RecordedVote(tally={"yes": 1})
    with pytest.raises(TypeError, match="must be int"):
        RecordedVote(tally={"yes": 1.5, "no": 0, "abstain": 0})
    with pytest.raises(TypeError, match="sequence of str"):
        RecordedVote(in_favour="Chile")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="t must be >= 0"):
        TrajectoryStep(t=-1, stage="x")
    with pytest.raises(ValueError, match="outcome must be one of"):
        Trajectory(symbol="A/RES/1/1", outcome="maybe")
    with pytest.raises(ValueError, match="unique and increasing"):
        Trajectory(symbol="A", steps=(TrajectoryStep(1, "x"), TrajectoryStep(0, "y")))
    with pytest.raises(ValueError, match="symbol must be a non-empty str"):
        Trajectory(symbol=" ")


# --------------------------------------------------------------------------------------
# Bad input: every documented error
# --------------------------------------------------------------------------------------

LOADERS = [load_stage_trajectory, load_genealogy, load_marc_drafts, load_trajectories]


@pytest.mark.parametrize("loader", LOADERS)
def test_missing_file(tmp_path: Path, loader: Any) -> None:
    with pytest.raises(DataError, match="file not found"):
        loader(tmp_path / "absent.trajectory.json")


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("content", [b"", b"  \n"])
def test_empty_file(tmp_path: Path, loader: Any, content: bytes) -> None:
    with pytest.raises(DataError, match="empty file"):
        loader(write(tmp_path / "x.trajectory.json", content))


def test_empty_after_gunzip(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="empty file after decompression"):
        load_marc_drafts(write(tmp_path / "x.xml.gz", gzip.compress(b"")))


@pytest.mark.parametrize("loader", [load_stage_trajectory, load_genealogy])
def test_invalid_json(tmp_path: Path, loader: Any) -> None:
    with pytest.raises(DataError, match=r"line 2: invalid JSON"):
        loader(write(tmp_path / "x.json", '{"trajectory_id":\n "A", ]'))
    with pytest.raises(DataError, match="not UTF-8"):
        loader(write(tmp_path / "x.json", b'{"a": "\xff"}'))
    with pytest.raises(DataError, match="expected a JSON object"):
        loader(write(tmp_path / "x.json", "[1, 2]"))


def test_invalid_xml(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="invalid XML"):
        load_marc_drafts(write(tmp_path / "x.xml", marc_text()[:-40]))
    with pytest.raises(DataError, match="no MARC records"):
        load_marc_drafts(write(tmp_path / "x.xml", "<collection></collection>"))


def test_invalid_gzip(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not a valid gzip file"):
        load_marc_drafts(write(tmp_path / "x.xml.gz", b"\x1f\x8b garbage"))
    truncated = gzip.compress(marc_text().encode())[:-30]
    with pytest.raises(DataError, match="not a valid gzip file"):
        load_marc_drafts(write(tmp_path / "x.xml.gz", truncated))


def stage_error(tmp_path: Path, doc: Any, match: str) -> None:
    path = write(tmp_path / "x.trajectory.json", json.dumps(doc))
    with pytest.raises(DataError, match=match):
        load_stage_trajectory(path)
    with pytest.raises(DataError, match=match):
        load_trajectories(path)


def test_stage_missing_required_fields(tmp_path: Path) -> None:
    doc = stage_doc()
    del doc["trajectory_id"]
    stage_error(tmp_path, doc, r"field 'trajectory_id': missing required field")
    doc = stage_doc()
    del doc["timesteps"]
    stage_error(tmp_path, doc, r"field 'timesteps': missing required field")
    doc = stage_doc()
    doc["timesteps"] = []
    stage_error(tmp_path, doc, "no steps")
    doc = stage_doc()
    del doc["timesteps"][1]["stage"]
    stage_error(tmp_path, doc, r"record timesteps\[1\], field 'stage': missing required")
    doc = stage_doc()
    del doc["timesteps"][2]["t"]
    stage_error(tmp_path, doc, r"record timesteps\[2\], field 't'")


def test_stage_wrong_types(tmp_path: Path) -> None:
    doc = stage_doc()
    doc["timesteps"][2]["action"]["votes"]["in_favour"] = ["Chile", 3]
    stage_error(
        tmp_path,
        doc,
        r"record timesteps\[2\], field 'action.votes.in_favour': .*item 1 is number 3",
    )
    doc = stage_doc()
    doc["timesteps"][2]["action"]["votes"]["against"] = "Chile"
    stage_error(tmp_path, doc, r"field 'action.votes.against': expected a list")
    doc = stage_doc()
    del doc["timesteps"][2]["action"]["votes"]["abstaining"]
    stage_error(tmp_path, doc, r"field 'action.votes.abstaining': missing required list")
    doc = stage_doc()
    doc["timesteps"][0] = "step"
    stage_error(tmp_path, doc, r"record timesteps\[0\]: expected an object")
    doc = stage_doc()
    doc["timesteps"][0]["t"] = "0"
    stage_error(tmp_path, doc, r"field 't': expected a non-negative integer")
    doc = stage_doc()
    doc["metadata"]["session"] = "seventy"
    stage_error(tmp_path, doc, r"field 'metadata.session'")
    doc = stage_doc()
    doc["timesteps"][0]["state"] = ["a"]
    stage_error(tmp_path, doc, r"field 'state': expected an object")


@pytest.mark.parametrize(
    ("value", "match"),
    [(-1, "non-negative count, got -1"), (4.5, "got number 4.5"), ("4", "got string"),
     (None, "incomplete tally"), (True, "got boolean")],
)  # fmt: skip
def test_stage_bad_tally(tmp_path: Path, value: Any, match: str) -> None:
    doc = stage_doc()
    doc["timesteps"][2]["observation"]["vote_tally"]["yes"] = value
    stage_error(tmp_path, doc, match)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_is_rejected(tmp_path: Path, constant: str) -> None:
    text = json.dumps(stage_doc()).replace('"yes": 4', f'"yes": {constant}')
    with pytest.raises(DataError, match="NaN and infinities are not data"):
        load_stage_trajectory(write(tmp_path / "x.trajectory.json", text))
    text = json.dumps(genealogy_doc()).replace('"yes": 5', f'"yes": {constant}')
    with pytest.raises(DataError, match="NaN and infinities are not data"):
        load_genealogy(write(tmp_path / "x.genealogy.json", text))


def test_stage_contradictions(tmp_path: Path) -> None:
    doc = stage_doc()
    doc["timesteps"][2]["action"]["votes"]["against"] = ["Bolivia"]
    stage_error(tmp_path, doc, r"timesteps\[2\], field 'action.votes': 'Bolivia' appears twice")
    doc = stage_doc()
    doc["timesteps"][1]["t"] = 0
    stage_error(tmp_path, doc, "two steps have t=0")
    doc = stage_doc()
    doc["metadata"]["final_outcome"] = "maybe"
    stage_error(tmp_path, doc, r"field 'metadata.final_outcome': unknown outcome 'maybe'")


def genealogy_error(tmp_path: Path, doc: Any, match: str) -> None:
    path = write(tmp_path / "x.genealogy.json", json.dumps(doc))
    with pytest.raises(DataError, match=match):
        load_genealogy(path)
    with pytest.raises(DataError, match=match):
        load_trajectories(path)


def test_genealogy_errors(tmp_path: Path) -> None:
    doc = genealogy_doc()
    del doc["resolution_symbol"]
    genealogy_error(tmp_path, doc, r"field 'resolution_symbol': missing required")
    doc = genealogy_doc()
    del doc["stages"]
    genealogy_error(tmp_path, doc, r"field 'stages': missing required")
    doc = genealogy_doc()
    doc["stages"] = {}
    genealogy_error(tmp_path, doc, "no stages")
    doc = genealogy_doc()
    doc["stages"]["committee_report"]["voting"]["against"] = [None]
    genealogy_error(
        tmp_path, doc, r"record stages.committee_report, field 'voting.against': .*item 0 is null"
    )
    doc = genealogy_doc()
    doc["stages"]["resolution"]["voting"]["no"] = -3
    genealogy_error(tmp_path, doc, r"record stages.resolution, field 'voting.no'")
    doc = genealogy_doc()
    doc["stages"]["resolution"]["voting"]["abstain"] = 0.5
    genealogy_error(tmp_path, doc, r"field 'voting.abstain': expected a non-negative integer")
    doc = genealogy_doc()
    doc["stages"]["plenary_meeting"]["utterances"][1]["resolution_metadata"]["vote_details"][
        "against"
    ] = "Cuba"
    genealogy_error(
        tmp_path,
        doc,
        r"record stages.plenary_meeting.utterances\[1\], "
        r"field 'resolution_metadata.vote_details.against': expected a list",
    )
    doc = genealogy_doc()
    doc["stages"]["draft"] = "L.2"
    genealogy_error(tmp_path, doc, r"field 'stages.draft': expected an object")


def test_marc_record_without_symbol_names_its_control_number(tmp_path: Path) -> None:
    text = marc_text().replace('<ns0:subfield code="a">A/C.3/99/L.2</ns0:subfield>', "")
    path = write(tmp_path / "x.marcxml", text)
    with pytest.raises(DataError, match=r"record 2, field '191\$a': record has no document symbol"):
        load_marc_drafts(path)
    with pytest.raises(DataError, match=r"record 2, field '191\$a'"):
        load_trajectories(path)


def test_marc_other_errors(tmp_path: Path) -> None:
    text = marc_text().replace('<ns0:controlfield tag="001">1</ns0:controlfield>', "")
    text = text.replace(">A/C.3/99/L.1<", "><")
    with pytest.raises(DataError, match=r"record #1 \(no control number 001\)"):
        load_marc_drafts(write(tmp_path / "x.xml", text))
    text = marc_text().replace('<ns0:subfield code="a">Chile</ns0:subfield>', "")
    with pytest.raises(DataError, match=r"field '710\$a': 710 field #1 has no name"):
        load_marc_drafts(write(tmp_path / "x.xml", text))


def test_load_trajectories_errors(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no trajectory files"):
        load_trajectories(tmp_path)
    with pytest.raises(DataError, match="file not found"):
        load_trajectories(tmp_path / "absent")
    with pytest.raises(DataError, match="unknown layout"):
        load_trajectories(write(tmp_path / "x.json", '{"rows": []}'))
    with pytest.raises(DataError, match="invalid JSON"):
        load_trajectories(write(tmp_path / "x.txt", "hello"))


# --------------------------------------------------------------------------------------
# Property: corrupted input loads or raises DataError, never anything else
# --------------------------------------------------------------------------------------

GARBAGE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.one_of(st.text(max_size=6), st.integers()), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)
FUZZ = settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def json_paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside a JSON document (keys and list indices)."""
    paths = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            paths += json_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths += json_paths(item, (*prefix, index))
    return paths


def corrupt_json(data: st.DataObject, doc: Any) -> bytes:
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        paths = json_paths(doc)
        if not paths:
            break
        path = data.draw(st.sampled_from(paths), label="path")
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans(), label="delete"):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(GARBAGE, label="value")
    raw = json.dumps(doc, allow_nan=True).encode("utf-8")
    return corrupt_bytes(data, raw)


def corrupt_bytes(data: st.DataObject, raw: bytes) -> bytes:
    action = data.draw(st.sampled_from(["keep", "keep", "truncate", "inject"]), label="bytes")
    if action == "truncate":
        return raw[: data.draw(st.integers(0, len(raw)), label="cut")]
    if action == "inject":
        at = data.draw(st.integers(0, len(raw)), label="at")
        return raw[:at] + data.draw(st.binary(min_size=1, max_size=8), label="junk") + raw[at:]
    return raw


def load_or_data_error(loader: Any, path: Path) -> None:
    try:
        result = loader(path)
    except DataError:
        return
    for trajectory in result if isinstance(result, list) else [result]:
        check_well_formed(trajectory)


@FUZZ
@given(data=st.data(), which=st.sampled_from(["stage", "genealogy"]))
def test_corrupted_json_loads_or_raises_data_error(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, which: str
) -> None:
    doc = stage_doc() if which == "stage" else genealogy_doc()
    loader = load_stage_trajectory if which == "stage" else load_genealogy
    path = (
        tmp_path_factory.mktemp("fuzz")
        / f"x.{'trajectory' if which == 'stage' else 'genealogy'}.json"
    )
    path.write_bytes(corrupt_json(data, doc))
    load_or_data_error(loader, path)
    load_or_data_error(load_trajectories, path)


def corrupt_marc(data: st.DataObject) -> bytes:
    root = ET.fromstring(marc_text())
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        parents = [(parent, child) for parent in root.iter() for child in parent]
        if not parents:
            break
        parent, child = data.draw(st.sampled_from(parents), label="element")
        action = data.draw(st.sampled_from(["remove", "text", "tag", "code", "duplicate"]))
        if action == "remove":
            parent.remove(child)
        elif action == "text":
            child.text = data.draw(st.text(max_size=30), label="text")
        elif action == "tag":
            child.set("tag", data.draw(st.sampled_from(["191", "710", "515", "993", "", "x"])))
        elif action == "code":
            child.set("code", data.draw(st.sampled_from(["a", "b", "c", "", "9"])))
        else:
            parent.append(copy.deepcopy(child))
    try:
        raw = ET.tostring(root, encoding="utf-8")
    except ValueError:  # text that XML cannot hold (control characters)
        raw = marc_text().encode("utf-8")
    raw = corrupt_bytes(data, raw)
    if data.draw(st.booleans(), label="gzip"):
        raw = corrupt_bytes(data, gzip.compress(raw))
    return raw


@FUZZ
@given(data=st.data())
def test_corrupted_marc_loads_or_raises_data_error(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "x.marcxml"
    path.write_bytes(corrupt_marc(data))
    load_or_data_error(load_marc_drafts, path)
    load_or_data_error(load_trajectories, path)
