"""Data edge cases of issue 13: each gives the right answer or a DataError naming where it is.

Header-only issues file, the roll-call cache keyed on the files read, a country name and
code that disagree, an unknown stage, an undated MARC date, a recorded vote without country
lists, and gzip data that inflates past the reader's cap.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.core.paths import documents_dir, unvotes_dir
from assembly_gym.envs.legislative.data import (
    ISSUE_CODES,
    Vote,
    load_roll_calls,
    load_undl_votes,
    load_unvotes,
    reading,
)
from assembly_gym.envs.legislative.data.unvotes import load_roll_call_attributes
from assembly_gym.envs.legislative.documents import (
    load_genealogy,
    load_marc_drafts,
    load_stage_trajectory,
    load_trajectories,
)
from assembly_gym.envs.legislative.documents.text import parse_date
from assembly_gym.envs.legislative.documents.trajectory import STAGES
from assembly_gym.envs.legislative.sources import roll_call_data

ROLL_CALLS = """\
rcid,session,importantvote,date,unres,amend,para,short,descr
3,1,,1946-01-01,R/1/66,1,0,RULES,AN AMENDMENT
4,1,,1946-01-02,R/1/79,0,0,COUNCIL,A VOTE
"""
ISSUES = "rcid,short_name,issue\n3,hr,Human rights\n"
VOTES = """\
rcid,country,country_code,vote
3,Canada,CA,yes
3,France,FR,no
4,Canada,CA,abstain
"""
UNDL = """\
undl_id,ms_code,ms_name,ms_vote,resolution,date
1001,USA,United States of America,Y,A/RES/78/1,2023-12-04
1001,FRA,France,N,A/RES/78/1,2023-12-04
"""


def write_unvotes(folder: Path, *, votes: str = VOTES, issues: str = ISSUES) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in (
        ("un_votes.csv.gz", votes),
        ("un_roll_calls.csv.gz", ROLL_CALLS),
        ("un_roll_call_issues.csv.gz", issues),
    ):
        (folder / name).write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    return folder


# --------------------------------------------------------------------------------------
# A header-only issues file is a valid, empty table
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("header", ["rcid,short_name,issue\n", "rcid,short_name,issue"])
def test_header_only_issues_file_loads_with_no_issue_codes(tmp_path: Path, header: str) -> None:
    folder = write_unvotes(tmp_path, issues=header)
    data = load_unvotes(folder)
    assert data.issues.shape == (2, len(ISSUE_CODES)) and not data.issues.any()
    assert data.votes[0].tolist() == [Vote.YES, Vote.ABSTAIN]
    assert not load_roll_call_attributes(folder)[[f"issue_{c}" for c in ISSUE_CODES]].any().any()


def test_header_only_vote_table_is_still_an_error(tmp_path: Path) -> None:
    folder = write_unvotes(tmp_path, votes="rcid,country,country_code,vote\n")
    with pytest.raises(DataError, match="un_votes.csv.gz, line 2: no data rows"):
        load_unvotes(folder)


# --------------------------------------------------------------------------------------
# roll_call_data caches on the files it reads, wherever they sit
# --------------------------------------------------------------------------------------


def rewrite(path: Path, text: str, *, keep_mtime: bool) -> None:
    """Write ``text`` gzipped to ``path``; keep its mtime, or move it one second on."""
    before = path.stat()
    path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    shift = 0 if keep_mtime else 1_000_000_000
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + shift))


def test_edited_nested_file_is_seen_through_the_parent_folder(tmp_path: Path) -> None:
    write_unvotes(tmp_path / "parent" / "unvotes")
    assert roll_call_data(tmp_path / "parent").votes[0, 0] == Vote.YES
    nested = tmp_path / "parent" / "unvotes" / "un_votes.csv.gz"
    rewrite(nested, VOTES.replace("3,Canada,CA,yes", "3,Canada,CA,no"), keep_mtime=False)
    assert roll_call_data(tmp_path / "parent").votes[0, 0] == Vote.NO


def test_an_edit_that_keeps_the_mtime_is_seen_by_its_size(tmp_path: Path) -> None:
    folder = write_unvotes(tmp_path / "parent" / "unvotes")
    assert roll_call_data(tmp_path / "parent").n_roll_calls == 2
    roll_calls = ROLL_CALLS + "5,2,,1947-09-20,R/2/1,,,,\n"
    rewrite(folder / "un_roll_calls.csv.gz", roll_calls, keep_mtime=True)
    assert roll_call_data(tmp_path / "parent").n_roll_calls == 3


def test_unchanged_files_are_loaded_once_for_the_folder_and_its_parent(tmp_path: Path) -> None:
    folder = write_unvotes(tmp_path / "parent" / "unvotes")
    first = roll_call_data(tmp_path / "parent")
    assert roll_call_data(tmp_path / "parent") is first
    assert roll_call_data(folder) is first
    (folder / "un_roll_call_issues.csv.gz").unlink()
    with pytest.raises(DataError, match="un_roll_call_issues.csv.gz: file not found"):
        roll_call_data(tmp_path / "parent")


# --------------------------------------------------------------------------------------
# A country name and code that name two countries
# --------------------------------------------------------------------------------------


def test_unvotes_name_and_code_of_two_countries_is_an_error(tmp_path: Path) -> None:
    folder = write_unvotes(tmp_path, votes=VOTES.replace("4,Canada,CA", "4,Canada,FR"))
    with pytest.raises(DataError) as caught:
        load_unvotes(folder)
    error = caught.value
    assert Path(error.source) == folder / "un_votes.csv.gz"
    assert (error.row, error.field) == (4, "country_code")
    assert "country 'Canada' is Canada but country_code 'FR' is France" in error.problem


def test_undl_name_and_code_of_two_countries_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "ga.csv"
    path.write_text(UNDL.replace("FRA,France", "USA,France"), encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_undl_votes(path)
    assert (caught.value.row, caught.value.field) == (3, "ms_code")
    assert "ms_name 'France' is France but ms_code 'USA' is United States" in str(caught.value)


def test_agreeing_or_unknown_codes_still_match_by_name(tmp_path: Path) -> None:
    votes = VOTES.replace("3,France,FR", "3,France,ZZ").replace("4,Canada,CA", "4,Canada,can")
    data = load_unvotes(write_unvotes(tmp_path, votes=votes))
    assert data.country_names == ("Canada", "France")
    assert data.unmatched_countries == ()


# --------------------------------------------------------------------------------------
# Sessions are numbered from 1
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("session", ["0", "-3"])
def test_unvotes_session_below_one_is_an_error(tmp_path: Path, session: str) -> None:
    folder = write_unvotes(tmp_path)
    rewrite(
        folder / "un_roll_calls.csv.gz",
        ROLL_CALLS.replace("4,1,", f"4,{session},"),
        keep_mtime=False,
    )
    with pytest.raises(DataError) as caught:
        load_unvotes(folder)
    error = caught.value
    assert Path(error.source) == folder / "un_roll_calls.csv.gz"
    assert (error.row, error.field) == (3, "session")
    assert f"expected an integer ≥ 1, got '{session}'" in error.problem


@pytest.mark.parametrize(("session", "symbol"), [("0", "A/RES/78/1"), ("", "A/RES/0/1")])
def test_undl_session_below_one_is_an_error_or_comes_from_the_date(
    tmp_path: Path, session: str, symbol: str
) -> None:
    path = tmp_path / "ga.csv"
    rows = UNDL.replace("date\n", "date,session\n").replace(
        "2023-12-04\n", f"2023-12-04,{session}\n"
    )
    path.write_text(rows.replace("A/RES/78/1", symbol), encoding="utf-8")
    if session:
        with pytest.raises(DataError) as caught:
            load_undl_votes(path)
        assert (caught.value.row, caught.value.field) == (2, "session")
        assert "expected an integer ≥ 1, got '0'" in str(caught.value)
    else:  # a symbol of session 0 numbers no session: the date does (2023-12: session 78)
        assert load_undl_votes(path).roll_calls["session"].tolist() == [78]


# --------------------------------------------------------------------------------------
# Documents: unknown stage, undated MARC date, recorded vote without country lists
# --------------------------------------------------------------------------------------


def stage_doc() -> dict[str, Any]:
    vote = {"in_favour": ["Chile"], "against": ["Peru"], "abstaining": []}
    return {
        "trajectory_id": "A/RES/99/1",
        "timesteps": [
            {"t": 0, "stage": "draft_submission", "action": {"sponsors": ["Chile"]}},
            {
                "t": 1,
                "stage": "plenary_vote",
                "action_type": "recorded_vote",
                "action": {"votes": vote},
                "observation": {"vote_tally": {"yes": 1, "no": 1, "abstain": 0}},
            },
        ],
    }


def load_stage(tmp_path: Path, doc: dict[str, Any]) -> Any:
    path = tmp_path / "x.trajectory.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return load_stage_trajectory(path)


@pytest.mark.parametrize("stage", STAGES)
def test_every_known_stage_loads(tmp_path: Path, stage: str) -> None:
    doc = stage_doc()
    doc["timesteps"][0]["stage"] = stage
    assert load_stage(tmp_path, doc).steps[0].stage == stage


def test_unknown_stage_is_an_error(tmp_path: Path) -> None:
    doc = stage_doc()
    doc["timesteps"][1]["stage"] = "bogus_stage"
    with pytest.raises(DataError, match="unknown stage 'bogus_stage'") as caught:
        load_stage(tmp_path, doc)
    assert (caught.value.row, caught.value.field) == ("timesteps[1]", "stage")
    assert caught.value.source.endswith("x.trajectory.json")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda step: step.update(action={}), "action.votes"),  # tally, no lists
        (lambda step: step.update(action={}, action_type=None), "action.votes"),
        (lambda step: step.update(action={}, observation={}), "action.votes"),  # neither
        (
            lambda step: step["action"].update(
                votes={"in_favour": [], "against": [], "abstaining": []}
            ),
            "action.votes",
        ),
    ],
    ids=["tally only", "tally only, no action_type", "nothing", "empty lists"],
)
def test_recorded_vote_without_country_lists_is_an_error(
    tmp_path: Path, change: Any, field: str
) -> None:
    doc = stage_doc()
    change(doc["timesteps"][1])
    with pytest.raises(DataError, match="recorded vote without") as caught:
        load_stage(tmp_path, doc)
    assert (caught.value.row, caught.value.field) == ("timesteps[1]", field)


def test_genealogy_vote_with_empty_country_lists_is_an_error(tmp_path: Path) -> None:
    voting = {"in_favour": [], "against": [], "abstaining": []}
    doc = {"resolution_symbol": "A/RES/99/2", "stages": {"committee_report": {"voting": voting}}}
    path = tmp_path / "x.genealogy.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(DataError, match="recorded vote without a country") as caught:
        load_genealogy(path)
    assert (caught.value.row, caught.value.field) == ("stages.committee_report", "voting")


def marc(dates: str) -> str:
    return (
        '<collection xmlns="http://www.loc.gov/MARC21/slim"><record>'
        '<controlfield tag="001">42</controlfield>'
        '<datafield tag="191" ind1=" " ind2=" "><subfield code="a">A/C.3/99/L.1</subfield>'
        f"</datafield>{dates}</record></collection>"
    )


def datafield(tag: str, code: str, text: str) -> str:
    return (
        f'<datafield tag="{tag}" ind1=" " ind2=" "><subfield code="{code}">{text}</subfield>'
        "</datafield>"
    )


@pytest.mark.parametrize(
    ("dates", "field"),
    [
        (datafield("269", "a", "yesterday"), "269$a"),
        (datafield("260", "c", "yesterday"), "260$c"),
        (datafield("269", "a", "2023-10-30") + datafield("260", "c", "2023"), "260$c"),
    ],
    ids=["269", "260", "260 beside a good 269"],
)
def test_marc_date_that_names_no_day_is_an_error(tmp_path: Path, dates: str, field: str) -> None:
    path = tmp_path / "x.marcxml"
    path.write_text(marc(dates), encoding="utf-8")
    with pytest.raises(DataError, match="expected a date") as caught:
        load_trajectories(path)
    assert (caught.value.source, caught.value.row, caught.value.field) == (str(path), "42", field)


def test_marc_dates_that_name_a_day_load(tmp_path: Path) -> None:
    path = tmp_path / "x.marcxml"
    path.write_text(marc(datafield("260", "c", "[New York] : UN, 30 Oct. 2023")), "utf-8")
    assert load_marc_drafts(path)[0].date == "2023-10-30"
    path.write_text(marc(""), encoding="utf-8")
    assert load_marc_drafts(path)[0].date is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2023-12-19", "2023-12-19"), ("Sept. 8, 2023", "2023-09-08"), ("yesterday", None),
     ("2023", None), ("2023-02-30", None)],
)  # fmt: skip
def test_parse_date(text: str, expected: str | None) -> None:
    assert parse_date(text) == expected


# --------------------------------------------------------------------------------------
# gzip data may inflate to MAX_INFLATED_BYTES, not one byte more
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "loader"),
    [("ga.csv.gz", UNDL, load_roll_calls), ("x.marcxml.gz", marc(""), load_marc_drafts)],
    ids=["roll calls", "documents"],
)
def test_inflated_size_is_capped_at_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str, loader: Any
) -> None:
    path = tmp_path / name
    path.write_bytes(gzip.compress(text.encode("utf-8")))
    monkeypatch.setattr(reading, "MAX_INFLATED_BYTES", len(text))
    loader(path)  # exactly at the limit: loads
    monkeypatch.setattr(reading, "MAX_INFLATED_BYTES", len(text) - 1)
    with pytest.raises(DataError, match=f"inflates past {len(text) - 1:,} bytes") as caught:
        loader(path)
    assert caught.value.source == str(path)


def test_a_compact_bomb_stops_once_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inflated = 8 * 2**20
    path = tmp_path / "ga.csv.gz"
    path.write_bytes(gzip.compress(UNDL.encode("utf-8") + b"0" * inflated))
    assert path.stat().st_size < inflated // 100
    limit = 2**20
    monkeypatch.setattr(reading, "MAX_INFLATED_BYTES", limit)
    read = gzip.GzipFile.read
    inflated_so_far: list[int] = []

    def counting_read(self: gzip.GzipFile, size: int = -1) -> bytes:
        chunk = read(self, size)
        inflated_so_far.append(len(chunk))
        return chunk

    monkeypatch.setattr(gzip.GzipFile, "read", counting_read)
    with pytest.raises(DataError, match="ga.csv.gz: gzip data inflates past 1,048,576 bytes"):
        load_roll_calls(path)
    assert sum(inflated_so_far) == limit + 1


@pytest.mark.real_data
@pytest.mark.skipif(
    unvotes_dir() is None or documents_dir() is None, reason="real data absent: ../shared/data"
)
def test_limit_leaves_room_for_ten_times_the_largest_real_file() -> None:
    assert unvotes_dir() is not None and documents_dir() is not None
    files = [*unvotes_dir().glob("*.gz"), *documents_dir().glob("*.gz")]
    sizes = []
    for path in files:
        with gzip.open(path) as stream:
            sizes.append(sum(len(chunk) for chunk in iter(lambda s=stream: s.read(2**20), b"")))
    assert max(sizes) == 16_944_184  # un_votes.csv.gz
    assert reading.MAX_INFLATED_BYTES >= 10 * max(sizes)
