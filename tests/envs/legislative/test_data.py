"""Roll-call data: the real unvotes folder, hand-made fixtures, every bad input, the container."""

from __future__ import annotations

import gzip
import pickle
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.core.paths import DATA_ENV_VAR, find_data_dir, unvotes_dir
from assembly_gym.envs.legislative.countries import Country
from assembly_gym.envs.legislative.data import (
    ABSENT,
    ISSUE_CODES,
    RollCallData,
    Vote,
    load_roll_calls,
    load_undl_votes,
    load_unvotes,
)
from assembly_gym.envs.legislative.data.schema import ROLL_CALL_COLUMNS
from assembly_gym.envs.legislative.data.undl import UNDL_REQUIRED
from assembly_gym.envs.legislative.data.unvotes import UNVOTES_FILES, load_roll_call_attributes

Y, N, A, X = Vote.YES, Vote.NO, Vote.ABSTAIN, ABSENT

# --------------------------------------------------------------------------------------
# Fixtures: a small unvotes folder and a small UNDL file, written by hand
# --------------------------------------------------------------------------------------

ROLL_CALLS = """\
rcid,session,importantvote,date,unres,amend,para,short,descr
3,1.0,,1946-01-01,R/1/66,1.0,0.0,"AMENDMENTS, RULES",TO ADOPT A CUBAN AMENDMENT
4,1.0,,1946-01-02,R/1/79,0.0,0.0,SECURITY COUNCIL,"SAID ""NO"" TO IT"
10,2.0,1.0,1947-09-20,R/2/1,,,,
7,1.0,0.0,1946-01-02,R/1/80,0.0,1.0,PARAGRAPH,Côte d’Ivoire
"""
ISSUES = """\
rcid,short_name,issue
3,hr,Human rights
10,me,Palestinian conflict
10,nu,Nuclear weapons and nuclear material
"""
VOTES = """\
rcid,country,country_code,vote
3,United States,US,yes
3,Namibia,NA,no
3,Federal Republic of Germany,,abstain
4,United States,US,no
7,Atlantis,,yes
10,Namibia,NA,yes
"""
# In time order the roll calls are 3, 4, 7 (same date as 4, higher id), 10.
EXPECTED_RCIDS = [3, 4, 7, 10]
EXPECTED_COUNTRIES = ["United States", "Namibia", "Federal Republic of Germany", "Atlantis"]
EXPECTED_VOTES = np.array(
    [[Y, N, X, X], [N, X, X, Y], [A, X, X, X], [X, X, Y, X]], dtype=np.int8
)  # fmt: skip

UNDL = """\
undl_id,ms_code,ms_name,ms_vote,resolution,date,session,title,agenda_title,subjects
4025240,USA,UNITED STATES,N,A/RES/ES-10/21,2023-10-27,ES-10,Protection of civilians,Illegal Israeli actions,TERRITORIES OCCUPIED BY ISRAEL
4025240,TUR,Türkiye,Y,A/RES/ES-10/21,2023-10-27,ES-10,Protection of civilians,Illegal Israeli actions,TERRITORIES OCCUPIED BY ISRAEL
4025240,BEN,BENIN,X,A/RES/ES-10/21,2023-10-27,ES-10,Protection of civilians,Illegal Israeli actions,TERRITORIES OCCUPIED BY ISRAEL
1001,USA,United States of America,Y,A/RES/78/1,2023-12-04,78,"Towards a nuclear-weapon-free world",General and complete disarmament,NUCLEAR DISARMAMENT
1001,TUR,Türkiye,A,A/RES/78/1,2023-12-04,78,"Towards a nuclear-weapon-free world",General and complete disarmament,NUCLEAR DISARMAMENT
1001,NLD,Netherlands (Kingdom of the),,A/RES/78/1,2023-12-04,78,"Towards a nuclear-weapon-free world",General and complete disarmament,NUCLEAR DISARMAMENT
1001,ATL,Atlantis,NV,A/RES/78/1,2023-12-04,78,"Towards a nuclear-weapon-free world",General and complete disarmament,NUCLEAR DISARMAMENT
1002,FRA,FRANCE,Y,A/RES/1(I),1946-01-24,,Atomic energy commission,,
"""  # noqa: E501


def write_gz(path: Path, text: str | bytes) -> Path:
    path.write_bytes(gzip.compress(text.encode("utf-8") if isinstance(text, str) else text))
    return path


def write_unvotes(
    folder: Path,
    *,
    votes: str | bytes = VOTES,
    roll_calls: str | bytes = ROLL_CALLS,
    issues: str | bytes = ISSUES,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_gz(folder / "un_votes.csv.gz", votes)
    write_gz(folder / "un_roll_calls.csv.gz", roll_calls)
    write_gz(folder / "un_roll_call_issues.csv.gz", issues)
    return folder


def edit(text: str, line: int, new: str | None) -> str:
    """Replace (or, with None, delete) 1-based line ``line``; ``line`` past the end appends."""
    lines = text.splitlines()
    if line > len(lines):
        lines.append(new or "")
    elif new is None:
        del lines[line - 1]
    else:
        lines[line - 1] = new
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# Good input loads to exactly the expected matrix
# --------------------------------------------------------------------------------------


def test_unvotes_fixture_loads_exactly(tmp_path: Path) -> None:
    data = load_unvotes(write_unvotes(tmp_path / "unvotes"))
    assert data.country_names == tuple(EXPECTED_COUNTRIES)
    assert data.roll_calls["rcid"].tolist() == EXPECTED_RCIDS
    np.testing.assert_array_equal(data.votes, EXPECTED_VOTES)
    assert data.votes.dtype == np.int8
    assert data.unmatched_countries == ("Atlantis",)
    assert data.countries[1] == Country("Namibia", "NA", "NAM")
    assert data.countries[2] == Country("Federal Republic of Germany", "", "")
    assert data.source == str(tmp_path / "unvotes")

    table = data.roll_calls.set_index("rcid")
    assert list(data.roll_calls.columns) == list(ROLL_CALL_COLUMNS)
    assert table.loc[3, "short"] == "AMENDMENTS, RULES"
    assert table.loc[4, "descr"] == 'SAID "NO" TO IT'
    assert table.loc[7, "descr"] == "Côte d’Ivoire"
    assert table.loc[10, "date"] == pd.Timestamp("1947-09-20")
    assert table["session"].tolist() == [1, 1, 1, 2]
    assert np.isnan(table.loc[3, "important"]) and table.loc[10, "important"] == 1.0
    assert np.isnan(table.loc[10, "amend"]) and table.loc[3, "amend"] == 1.0
    assert table.loc[10, "short"] == "" and table.loc[10, "symbol"] == "R/2/1"
    issues = pd.DataFrame(data.issues, columns=ISSUE_CODES, index=data.roll_calls["rcid"])
    assert issues.loc[3].tolist() == [False, False, False, True, False, False]
    assert issues.loc[10, "me"] and issues.loc[10, "nu"] and not issues.loc[10, "hr"]
    assert issues.sum().sum() == 3


def test_unvotes_fixture_tolerates_crlf_bom_blank_lines_and_padding(tmp_path: Path) -> None:
    votes = VOTES.replace("\n", "\r\n").replace("3,Namibia,NA,no", " 3 , Namibia , NA , no ")
    votes = "\ufeff" + votes
    votes = votes.replace("4,United States", "\r\n4,United States")
    data = load_unvotes(write_unvotes(tmp_path, votes=votes))
    np.testing.assert_array_equal(data.votes, EXPECTED_VOTES)


def test_old_mac_line_ends_load(tmp_path: Path) -> None:
    data = load_unvotes(write_unvotes(tmp_path, votes=VOTES.replace("\n", "\r")))
    np.testing.assert_array_equal(data.votes, EXPECTED_VOTES)


def test_error_lines_count_blank_lines_and_crlf(tmp_path: Path) -> None:
    votes = VOTES.replace("4,United States", "\n\n4,United States").replace("\n", "\r\n")
    votes = votes.replace("7,Atlantis,,yes", "7,Atlantis,,maybe")  # line 6, now line 8
    with pytest.raises(DataError, match="un_votes.csv.gz, line 8, field 'vote': unknown vote"):
        load_unvotes(write_unvotes(tmp_path, votes=votes))


def test_undl_fixture_loads_exactly(tmp_path: Path) -> None:
    path = tmp_path / "ga_voting.csv"
    path.write_text(UNDL, encoding="utf-8")
    data = load_undl_votes(path)
    assert data.roll_calls["rcid"].tolist() == [1002, 4025240, 1001]  # time order
    assert data.country_names == (
        "United States", "Turkey", "Benin", "Netherlands", "Atlantis", "France",
    )  # fmt: skip
    expected = np.array(
        [[X, N, Y], [X, Y, A], [X, X, X], [X, X, X], [X, X, X], [Y, X, X]], dtype=np.int8
    )
    np.testing.assert_array_equal(data.votes, expected)
    assert data.unmatched_countries == ("Atlantis",)
    table = data.roll_calls.set_index("rcid")
    # ES-10 is an emergency special session: the regular session comes from the date.
    assert table["session"].to_dict() == {1002: 1, 4025240: 78, 1001: 78}
    assert table.loc[1001, "symbol"] == "A/RES/78/1"
    assert table.loc[1001, "descr"] == "Towards a nuclear-weapon-free world"
    assert table.loc[1001, "short"] == "General and complete disarmament"
    assert table[["important", "amend", "para"]].isna().all().all()
    issues = pd.DataFrame(data.issues, columns=ISSUE_CODES, index=data.roll_calls["rcid"])
    assert issues.loc[1001, "nu"] and issues.loc[1001, "di"] and not issues.loc[1001, "me"]
    assert issues.loc[4025240, "me"] and not issues.loc[4025240, "nu"]
    assert not issues.loc[1002].any()


def test_undl_issue_keywords_match_whole_words(tmp_path: Path) -> None:
    text = UNDL.replace("General and complete disarmament", "Family farms").replace(
        "NUCLEAR DISARMAMENT", "AGRICULTURE"
    ).replace("Towards a nuclear-weapon-free world", "Harms of drought")  # fmt: skip
    path = tmp_path / "ga.csv"
    path.write_text(text, encoding="utf-8")
    issues = load_undl_votes(path).issues
    assert not issues[:, ISSUE_CODES.index("di")].any()


def test_load_roll_calls_detects_the_layout(tmp_path: Path) -> None:
    folder = write_unvotes(tmp_path / "root" / "unvotes")
    undl = tmp_path / "ga.csv"
    undl.write_text(UNDL, encoding="utf-8")
    np.testing.assert_array_equal(load_roll_calls(folder).votes, EXPECTED_VOTES)
    np.testing.assert_array_equal(load_roll_calls(tmp_path / "root").votes, EXPECTED_VOTES)
    assert load_roll_calls(undl).n_roll_calls == 3
    undl_gz = write_gz(tmp_path / "ga.csv.gz", UNDL)
    assert load_roll_calls(undl_gz).n_countries == 6
    with pytest.raises(DataError, match="no un_votes.csv.gz"):
        load_roll_calls(tmp_path)
    with pytest.raises(DataError, match="not found"):
        load_roll_calls(tmp_path / "nowhere.csv")
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(DataError, match="not a known layout"):
        load_roll_calls(other)
    broken = tmp_path / "broken.csv.gz"
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(DataError, match="broken.csv.gz"):
        load_roll_calls(broken)


# --------------------------------------------------------------------------------------
# Every bad input: DataError naming the file, the line and the field
# --------------------------------------------------------------------------------------

VOTE_HEADER_WITHOUT_VOTE = "rcid,country,country_code"
BAD_UNVOTES = {
    # id: (file, corrupted text, line, field, message)
    "missing column": ("votes", edit(VOTES, 1, VOTE_HEADER_WITHOUT_VOTE), 1, "vote",
                       "missing column"),
    "duplicated column": ("votes", edit(VOTES, 1, "rcid,country,country_code,vote,vote"), 1,
                          "vote", "appears twice"),
    "unknown vote code": ("votes", edit(VOTES, 4, "3,Federal Republic of Germany,,maybe"), 4,
                          "vote", "unknown vote code 'maybe'"),
    "vote code in capitals": ("votes", edit(VOTES, 2, "3,United States,US,Yes"), 2, "vote",
                              "unknown vote code 'Yes'"),
    "NaN rcid": ("votes", edit(VOTES, 5, "NaN,United States,US,no"), 5, "rcid",
                 "missing value"),
    "empty country": ("votes", edit(VOTES, 3, "3,,NA,no"), 3, "country", "missing value"),
    "empty vote": ("votes", edit(VOTES, 6, "7,Atlantis,,"), 6, "vote", "missing value"),
    "duplicate vote": ("votes", edit(VOTES, 8, "3,United States,US,no"), 8, "country",
                       r"duplicate \(country, roll call\) \('United States', 3\): already on "
                       "line 2"),
    "duplicate vote under another name": ("votes", edit(VOTES, 8, "4,USA,,no"), 8, "country",
                                          "already on line 5"),
    "vote on unknown roll call": ("votes", edit(VOTES, 7, "99,Namibia,NA,yes"), 7, "rcid",
                                  "roll call 99 is not in un_roll_calls.csv.gz"),
    "non-integer rcid": ("votes", edit(VOTES, 2, "3.5,United States,US,yes"), 2, "rcid",
                         "expected an integer, got '3.5'"),
    "text rcid": ("votes", edit(VOTES, 2, "three,United States,US,yes"), 2, "rcid",
                  "expected an integer"),
    "too few fields": ("votes", edit(VOTES, 3, "3,Namibia,NA"), 3, "vote",
                       "3 fields where the header has 4"),
    "too many fields": ("votes", edit(VOTES, 2, "3,United States,US,yes,no"), 2, None,
                        "5 fields where the header has 4"),
    "too many fields on the first row": ("votes", edit(VOTES, 2, "0,3,United States,US,yes"),
                                         2, None, "5 fields"),
    "stray quote": ("votes", edit(VOTES, 3, '3,Nam"ibia,NA,no'), 3, "country", "stray quote"),
    "unbalanced quote swallowing rows": (
        "roll_calls", edit(ROLL_CALLS, 2, '3,1.0,,1946-01-01,R/1/66,1.0,0.0,"AMENDMENTS,TO A'),
        2, "short", "unbalanced quote"),
    "unclosed quote at the end": ("votes", VOTES + '11,"France,FR,yes\n', 8, "country",
                                  "unbalanced quote"),
    "blank-padded NA country": ("votes", edit(VOTES, 7, "10, NA ,NA,yes"), 7, "country",
                                "missing value"),
    "non-integer session": ("roll_calls", edit(ROLL_CALLS, 3,
                            "4,1.5,,1946-01-02,R/1/79,0.0,0.0,SECURITY COUNCIL,X"), 3,
                            "session", "expected an integer, got '1.5'"),
    "duplicate roll call": ("roll_calls", edit(ROLL_CALLS, 6, "3,1,,1946-01-01,R,0,0,A,B"), 6,
                            "rcid", "duplicate roll-call id"),
    "empty date": ("roll_calls", edit(ROLL_CALLS, 5, "7,1.0,0.0,,R/1/80,0.0,1.0,P,Q"), 5,
                   "date", "missing value"),
    "impossible date": ("roll_calls", edit(ROLL_CALLS, 5, "7,1.0,0.0,1946-13-45,R,0,1,P,Q"), 5,
                        "date", "expected a date YYYY-MM-DD, got '1946-13-45'"),
    "ambiguous date": ("roll_calls", edit(ROLL_CALLS, 5, "7,1.0,0.0,01/02/1946,R,0,1,P,Q"), 5,
                       "date", "expected a date"),
    "date as a number": ("roll_calls", edit(ROLL_CALLS, 2, "3,1.0,,3,R,0,1,P,Q"), 2, "date",
                         "expected a date"),
    "flag not 0/1": ("roll_calls", edit(ROLL_CALLS, 4, "10,2.0,yes,1947-09-20,R/2/1,,,,"), 4,
                     "importantvote", "expected 0, 1 or empty, got 'yes'"),
    "unknown issue code": ("issues", edit(ISSUES, 3, "10,zz,Mystery"), 3, "short_name",
                           "unknown issue code 'zz'"),
    "issue of unknown roll call": ("issues", edit(ISSUES, 4, "55,nu,Nuclear"), 4, "rcid",
                                   "roll call 55 is not in un_roll_calls.csv.gz"),
    "issue listed twice": ("issues", edit(ISSUES, 5, "10,me,Palestinian conflict"), 5,
                           "short_name", "listed twice"),
    "header only": ("votes", "rcid,country,country_code,vote\n", 2, None, "no data rows"),
    "0 bytes": ("votes", "", 1, None, "empty file"),
    "blank lines only": ("issues", "\n\n\r\n", 1, None, "empty file"),
    "not UTF-8": ("votes", VOTES.encode("utf-8").replace(b"Namibia", b"Nam\xefbia", 1), 3,
                  None, "not UTF-8"),
}  # fmt: skip


@pytest.mark.parametrize(
    ("which", "text", "line", "field", "message"),
    list(BAD_UNVOTES.values()),
    ids=list(BAD_UNVOTES),
)
def test_bad_unvotes_input_names_file_line_and_field(
    tmp_path: Path, which: str, text: str | bytes, line: int, field: str | None, message: str
) -> None:
    folder = write_unvotes(tmp_path, **{which: text})
    file_name = UNVOTES_FILES[which]
    with pytest.raises(DataError, match=message) as caught:
        load_unvotes(folder)
    error = caught.value
    assert Path(error.source) == folder / file_name
    assert (error.row, error.field) == (line, field)
    assert str(error).startswith(f"{folder / file_name}, line {line}")
    if field is not None:
        assert f"field '{field}'" in str(error)


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda gz: gz[: len(gz) // 2],  # truncated
        lambda gz: gz[:30] + bytes(b ^ 0x55 for b in gz[30:40]) + gz[40:],  # flipped bytes
        lambda gz: gz[:-4] + b"\x00\x00\x00\x00",  # wrong length in the trailer
        lambda gz: b"PK" + gz[2:],  # not a gzip header
    ],
    ids=["truncated", "flipped", "trailer", "header"],
)
def test_corrupt_gzip_raises_data_error(tmp_path: Path, corrupt) -> None:
    folder = write_unvotes(tmp_path)
    path = folder / "un_votes.csv.gz"
    path.write_bytes(corrupt(path.read_bytes()))
    with pytest.raises(DataError, match="un_votes.csv.gz, line [0-9]+: corrupt or truncated"):
        load_unvotes(folder)


def test_missing_file_is_named(tmp_path: Path) -> None:
    folder = write_unvotes(tmp_path)
    (folder / "un_roll_call_issues.csv.gz").unlink()
    with pytest.raises(DataError, match="un_roll_call_issues.csv.gz: file not found"):
        load_unvotes(folder)


def test_unknown_country_asked_for(tmp_path: Path) -> None:
    data = load_unvotes(write_unvotes(tmp_path))
    assert data.country_index("Atlantis") == data.country_index(" Atlantis ") == 3  # unmatched
    without = data.select_countries(["United States", "Namibia"])
    with pytest.raises(DataError, match="unknown country 'Atlantis'") as caught:
        without.country_index("Atlantis")
    assert (caught.value.source, caught.value.field) == (data.source, "country")
    with pytest.raises(DataError, match="did you mean 'Namibia'"):
        data.country_index("Namibya")
    with pytest.raises(DataError, match="unknown country 'France'"):
        data.country_index("France")  # a real country that is not in this data
    with pytest.raises(DataError, match="string"):
        data.country_index(3)  # type: ignore[arg-type]
    # Any name or code of a country that is present finds it.
    assert data.country_index("NA") == data.country_index("NAM") == 1
    assert data.country_index("United States of America") == 0


BAD_UNDL = {
    "unknown ms_vote": (2, "4025240,USA,UNITED STATES,Q,A/RES/ES-10/21,2023-10-27,ES-10,P,I,T",
                        2, "ms_vote", "unknown vote code 'Q'"),
    "missing ms_name": (3, "4025240,TUR,,Y,A/RES/ES-10/21,2023-10-27,ES-10,P,I,T", 3,
                        "ms_name", "missing value"),
    "conflicting date": (6, "1001,TUR,Türkiye,A,A/RES/78/1,2023-12-05,78,\"Towards a "
                         "nuclear-weapon-free world\",General and complete disarmament,NUCLEAR "
                         "DISARMAMENT", 6, "date", "has date '2023-12-05' here but "
                         "'2023-12-04' on line 5"),
    "text session": (9, "1002,FRA,FRANCE,Y,A/RES/1(I),1946-01-24,first,Atomic,,", 9, "session",
                     "expected an integer, got 'first'"),
    "duplicate member state": (10, "1002,FRA,France,N,A/RES/1(I),1946-01-24,,Atomic energy "
                               "commission,,", 10, "ms_name", "already on line 9"),
    "bad undl_id": (9, "10x2,FRA,FRANCE,Y,A/RES/1(I),1946-01-24,,Atomic,,", 9, "undl_id",
                    "expected an integer"),
}  # fmt: skip


@pytest.mark.parametrize(
    ("line_no", "new", "line", "field", "message"), list(BAD_UNDL.values()), ids=list(BAD_UNDL)
)
def test_bad_undl_input_names_file_line_and_field(
    tmp_path: Path, line_no: int, new: str, line: int, field: str, message: str
) -> None:
    path = tmp_path / "ga.csv"
    path.write_text(edit(UNDL, line_no, new), encoding="utf-8")
    with pytest.raises(DataError, match=message) as caught:
        load_undl_votes(path)
    assert (caught.value.source, caught.value.row, caught.value.field) == (str(path), line, field)


def test_undl_missing_column_and_empty(tmp_path: Path) -> None:
    path = tmp_path / "ga.csv"
    path.write_text(UNDL.replace("ms_vote", "vote", 1), encoding="utf-8")
    with pytest.raises(DataError, match="field 'ms_vote': missing column"):
        load_undl_votes(path)
    path.write_text("", encoding="utf-8")
    with pytest.raises(DataError, match="empty file"):
        load_undl_votes(path)
    path.write_text(UNDL.splitlines()[0] + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="no data rows"):
        load_undl_votes(path)


def test_undl_without_optional_columns(tmp_path: Path) -> None:
    path = tmp_path / "ga.csv"
    frame = pd.read_csv(pd.io.common.StringIO(UNDL), dtype=str, keep_default_na=False)
    frame[list(UNDL_REQUIRED)].to_csv(path, index=False)
    data = load_undl_votes(path)
    assert data.roll_calls.set_index("rcid")["session"].to_dict() == {
        1002: 1, 4025240: 78, 1001: 78,
    }  # fmt: skip
    assert (data.roll_calls["descr"] == "").all()


# --------------------------------------------------------------------------------------
# load_roll_call_attributes: what is known before the vote, without the vote table
# --------------------------------------------------------------------------------------


def test_roll_call_attributes_without_a_vote_table(tmp_path: Path) -> None:
    folder = write_unvotes(tmp_path)
    (folder / "un_votes.csv.gz").unlink()
    table = load_roll_call_attributes(folder)
    assert table["rcid"].tolist() == EXPECTED_RCIDS
    assert list(table.columns) == list(ROLL_CALL_COLUMNS)
    pd.testing.assert_frame_equal(table, load_unvotes(write_unvotes(tmp_path / "b")).roll_calls)


def test_roll_call_attributes_never_open_the_vote_table(tmp_path: Path, monkeypatch) -> None:
    folder = write_unvotes(tmp_path)
    opened: list[str] = []
    real_gzip_open, real_read_bytes = gzip.open, Path.read_bytes

    def spy_gzip_open(path, *args, **kwargs):
        opened.append(Path(path).name)
        return real_gzip_open(path, *args, **kwargs)

    def spy_read_bytes(self):
        opened.append(self.name)
        return real_read_bytes(self)

    monkeypatch.setattr(gzip, "open", spy_gzip_open)
    monkeypatch.setattr(Path, "read_bytes", spy_read_bytes)
    load_roll_call_attributes(folder)
    assert sorted(opened) == ["un_roll_call_issues.csv.gz", "un_roll_calls.csv.gz"]
    load_unvotes(folder)  # the spy does see the vote table when it is read
    assert "un_votes.csv.gz" in opened


# --------------------------------------------------------------------------------------
# RollCallData: selection, balance and self-validation
# --------------------------------------------------------------------------------------


@pytest.fixture
def small(tmp_path: Path) -> RollCallData:
    return load_unvotes(write_unvotes(tmp_path))


def test_select_sessions_and_temporal_split(small: RollCallData) -> None:
    first = small.select_sessions(1, 1)
    assert first.roll_calls["rcid"].tolist() == [3, 4, 7]
    np.testing.assert_array_equal(first.votes, EXPECTED_VOTES[:, :3])
    assert first.roll_calls.index.tolist() == [0, 1, 2]
    assert small.select_sessions(2).roll_calls["rcid"].tolist() == [10]
    assert small.select_sessions(None, None).n_roll_calls == 4
    train, test = small.temporal_split(1)
    assert train.sessions.tolist() == [1] and test.sessions.tolist() == [2]
    np.testing.assert_array_equal(np.hstack([train.votes, test.votes]), small.votes)
    assert train.country_names == test.country_names == small.country_names
    with pytest.raises(DataError, match="no roll calls in sessions 3..None"):
        small.select_sessions(3)
    with pytest.raises(DataError, match="no roll calls"):
        small.temporal_split(2)


def test_select_countries(small: RollCallData) -> None:
    picked = small.select_countries(["Atlantis", "USA", "Namibia"])
    assert picked.country_names == ("Atlantis", "United States", "Namibia")
    np.testing.assert_array_equal(picked.votes, EXPECTED_VOTES[[3, 0, 1]])
    assert picked.unmatched_countries == ("Atlantis",)
    assert small.select_countries("Namibia").country_names == ("Namibia",)
    assert small.select_countries(["NA"]).unmatched_countries == ()
    with pytest.raises(DataError, match="unknown country 'Atlantiss'"):
        small.select_countries(["Atlantiss"])
    with pytest.raises(DataError, match="twice"):
        small.select_countries(["Namibia", "NAM"])


def test_class_balance(small: RollCallData) -> None:
    assert small.class_balance() == pytest.approx({"yes": 3 / 6, "no": 2 / 6, "abstain": 1 / 6})
    none_cast = small.select_countries(["Atlantis"]).select_sessions(2)
    assert none_cast.class_balance() == {"yes": 0.0, "no": 0.0, "abstain": 0.0}


def test_data_compares_and_hashes_by_identity(small: RollCallData) -> None:
    again = small.select_sessions()
    assert small == small and small != again
    assert len({small, again, small}) == 2


def test_votes_are_read_only_and_the_caller_array_is_untouched(small: RollCallData) -> None:
    votes = np.zeros((small.n_countries, small.n_roll_calls), dtype=np.int8)
    data = RollCallData(small.countries, small.roll_calls, votes)
    assert votes.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        data.votes[0, 0] = 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"votes": np.zeros((4, 3), dtype=np.int8)}, r"shape \(4, 3\), expected \(4, 4\)"),
        ({"votes": np.zeros((4, 4, 1), dtype=np.int8)}, "shape"),
        ({"votes": np.zeros((4, 4), dtype=np.int64)}, "dtype is int64, expected int8"),
        ({"votes": np.full((4, 4), 3, dtype=np.int8)}, "codes outside"),
        ({"votes": np.full((4, 4), -2, dtype=np.int8)}, "codes outside"),
        ({"votes": [[0] * 4] * 4}, "numpy array"),
        ({"countries": ("United States", "Namibia", "x", "y")}, "Country records"),
        ({"countries": (Country("A"), Country("A"), Country("B"), Country("C"))},
         "'A' appears twice"),
        ({"roll_calls": "table"}, "DataFrame"),
    ],
)  # fmt: skip
def test_post_init_validates(small: RollCallData, change: dict, message: str) -> None:
    parts = {"countries": small.countries, "roll_calls": small.roll_calls, "votes": small.votes}
    with pytest.raises(DataError, match=message):
        RollCallData(**{**parts, **change}, source="test")


def test_post_init_validates_the_roll_call_table(small: RollCallData) -> None:
    with pytest.raises(DataError, match=r"lacks columns \['descr'\]"):
        RollCallData(small.countries, small.roll_calls.drop(columns="descr"), small.votes)
    repeated = small.roll_calls.assign(rcid=[3, 4, 4, 10])
    with pytest.raises(DataError, match="roll-call id 4 is not unique"):
        RollCallData(small.countries, repeated, small.votes)


def test_from_long(small: RollCallData) -> None:
    countries = [Country("B"), Country("A"), Country("B")]
    data = RollCallData.from_long(
        small.roll_calls.iloc[::-1], np.array([10, 3, 3]), countries, np.array([2, 0, ABSENT]),
        source="memory",
    )  # fmt: skip
    assert data.country_names == ("B", "A")
    assert data.roll_calls["rcid"].tolist() == EXPECTED_RCIDS
    np.testing.assert_array_equal(data.votes, [[X, X, X, A], [Y, X, X, X]])
    with pytest.raises(DataError, match="memory, record 1, field 'rcid': roll call 99 is not"):
        RollCallData.from_long(small.roll_calls, [3, 99], countries[:2], [0, 0], source="memory")
    with pytest.raises(DataError, match="record 2, field 'country': duplicate"):
        RollCallData.from_long(small.roll_calls, [3, 4, 3], countries, [0, 0, 1], source="m")
    with pytest.raises(DataError, match="record 0, field 'vote': vote code 255"):
        RollCallData.from_long(small.roll_calls, [3], countries[:1], [255], source="m")
    with pytest.raises(DataError, match="differ in length"):
        RollCallData.from_long(small.roll_calls, [3, 4], countries[:1], [0], source="m")


def test_data_error_pickles() -> None:
    error = DataError("file.csv", "bad value", row=np.int64(3), field="vote")
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == str(error) == "file.csv, line 3, field 'vote': bad value"
    assert (again.row, again.field, again.problem) == (3, "vote", "bad value")


def test_data_folder_from_the_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(DATA_ENV_VAR, str(tmp_path))
    assert find_data_dir() == tmp_path
    assert unvotes_dir() is None  # no unvotes/ inside: tests skip instead of failing
    (tmp_path / "unvotes").mkdir()
    assert unvotes_dir() == tmp_path / "unvotes"
    monkeypatch.setenv(DATA_ENV_VAR, str(tmp_path / "nowhere"))
    assert find_data_dir() is None and unvotes_dir() is None


# --------------------------------------------------------------------------------------
# The real unvotes folder
# --------------------------------------------------------------------------------------

REAL = unvotes_dir()
needs_real_data = pytest.mark.skipif(
    REAL is None, reason="real data absent: set $ASSEMBLY_GYM_DATA or place ../shared/data"
)


@pytest.fixture(scope="module")
def real() -> RollCallData:
    assert REAL is not None
    return load_unvotes(REAL)


@needs_real_data
@pytest.mark.real_data
def test_real_unvotes_shape_and_countries(real: RollCallData) -> None:
    assert (real.n_countries, real.n_roll_calls) == (200, 5701)
    assert int((real.votes != ABSENT).sum()) == 781_298
    assert real.unmatched_countries == ()
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        real.country_index("Atlantis")
    assert real.countries[real.country_index("Namibia")] == Country("Namibia", "NA", "NAM")
    for name in ("Yemen Arab Republic", "Federal Republic of Germany", "Zanzibar"):
        country = real.countries[real.country_index(name)]
        assert (country.name, country.iso2) == (name, "")
        assert (real.votes[real.country_index(name)] != ABSENT).any()


@needs_real_data
@pytest.mark.real_data
def test_real_unvotes_balance_sessions_and_order(real: RollCallData) -> None:
    balance = real.class_balance()
    assert balance["yes"] == pytest.approx(0.80, abs=0.01)
    assert balance["no"] == pytest.approx(0.07, abs=0.01)
    assert balance["abstain"] == pytest.approx(0.13, abs=0.01)
    assert real.sessions.tolist() == list(range(1, 70))
    table = real.roll_calls
    keys = list(zip(table["session"], table["date"], table["rcid"], strict=True))
    assert keys == sorted(keys)
    assert table["date"].is_monotonic_increasing or (table["session"].diff().fillna(0) >= 0).all()
    assert table.index.tolist() == list(range(len(table)))
    assert table["rcid"].is_unique


@needs_real_data
@pytest.mark.real_data
def test_real_roll_call_attributes_match_the_raw_file(real: RollCallData) -> None:
    assert REAL is not None
    raw = pd.read_csv(REAL / "un_roll_calls.csv.gz", dtype=str, keep_default_na=False)
    raw = raw.set_index(raw["rcid"].astype(int))
    table = real.roll_calls.set_index("rcid")
    empty = raw["importantvote"] == ""
    assert empty.sum() > 0
    assert table["important"].isna().to_numpy().sum() == empty.sum()
    assert table.loc[raw.index[empty], "important"].isna().all()
    assert (table.loc[raw.index[~empty], "important"].to_numpy()
            == raw.loc[~empty, "importantvote"].astype(float).to_numpy()).all()  # fmt: skip
    assert table.loc[raw.index, "symbol"].tolist() == raw["unres"].str.strip().tolist()
    issues = pd.read_csv(REAL / "un_roll_call_issues.csv.gz", dtype=str, keep_default_na=False)
    assert int(real.issues.sum()) == len(issues)


@needs_real_data
@pytest.mark.real_data
def test_real_votes_match_the_raw_file_cell_by_cell(real: RollCallData) -> None:
    assert REAL is not None
    raw = pd.read_csv(REAL / "un_votes.csv.gz", dtype=str, keep_default_na=False)
    rows = pd.Index(real.country_names).get_indexer(raw["country"])
    columns = pd.Index(real.roll_calls["rcid"]).get_indexer(raw["rcid"].astype(int))
    assert (rows >= 0).all() and (columns >= 0).all()
    codes = raw["vote"].map({"yes": Y, "no": N, "abstain": A}).to_numpy(dtype=np.int8)
    np.testing.assert_array_equal(real.votes[rows, columns], codes)


@needs_real_data
@pytest.mark.real_data
def test_real_roll_call_attributes_never_open_the_vote_table(
    tmp_path: Path, real: RollCallData
) -> None:
    assert REAL is not None
    for name in ("un_roll_calls.csv.gz", "un_roll_call_issues.csv.gz"):
        shutil.copy(REAL / name, tmp_path / name)  # only in tmp_path, never the repository
    table = load_roll_call_attributes(tmp_path)
    pd.testing.assert_frame_equal(table, real.roll_calls)


@needs_real_data
@pytest.mark.real_data
def test_real_temporal_split(real: RollCallData) -> None:
    train, test = real.temporal_split(60)
    assert train.sessions.max() == 60 and test.sessions.min() == 61
    assert train.n_roll_calls + test.n_roll_calls == real.n_roll_calls
    assert train.roll_calls["date"].max() <= test.roll_calls["date"].min()
