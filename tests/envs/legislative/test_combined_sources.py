"""Roll calls of several sources as one table (``combined``) and ``roll_call_attributes``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.combined import combine_roll_calls, overlap_keys
from assembly_gym.envs.legislative.data.schema import ROLL_CALL_COLUMNS
from assembly_gym.envs.legislative.sources import roll_call_attributes

UNDL = """\
undl_id,ms_code,ms_name,ms_vote,resolution,date,session,title,agenda_title,subjects
501,USA,UNITED STATES,N,A/RES/78/1,2023-12-04,78,Nuclear-weapon-free world,Disarmament,NUCLEAR
501,FRA,FRANCE,Y,A/RES/78/1,2023-12-04,78,Nuclear-weapon-free world,Disarmament,NUCLEAR
502,FRA,FRANCE,A,A/RES/78/2,2023-12-05,78,Procedural motion,,
"""


def _table(rows: list[tuple[int, int, str, str, str]]) -> pd.DataFrame:
    """Roll calls from (rcid, session, date, symbol, title) rows, other columns blank."""
    frame = pd.DataFrame(rows, columns=["rcid", "session", "date", "symbol", "descr"])
    frame["date"] = pd.to_datetime(frame["date"])
    for column in ROLL_CALL_COLUMNS:
        if column not in frame.columns:
            frame[column] = "" if column == "short" else False
    return frame[list(ROLL_CALL_COLUMNS)]


OLD = _table([
    (1, 69, "2014-12-01", "A/RES/69/1", "First"),
    (2, 69, "2014-12-01", "A/RES/69/1", "First, paragraph 3"),  # same symbol, same source
    (3, 69, "2014-12-02", "", "Procedural  motion"),
])  # fmt: skip
NEW = _table([
    (10, 69, "2014-12-01", "a/res/69/ 1", "Another spelling of the title"),
    (11, 69, "2014-12-02", "", "procedural motion"),
    (12, 70, "2015-10-01", "A/RES/70/1", "Agenda 2030"),
    (13, 70, "2015-10-01", "", ""),
])  # fmt: skip


def test_overlap_keys_ignore_case_and_spacing() -> None:
    keys = overlap_keys(NEW).tolist()
    assert keys[:3] == ["69|A/RES/69/1", "2014-12-02|PROCEDURAL MOTION", "70|A/RES/70/1"]
    assert keys[3] == ""  # neither symbol nor title: never an overlap


def test_the_first_source_keeps_an_overlap() -> None:
    combined = combine_roll_calls([OLD, NEW], ["old", "new"])
    assert combined.kept == (3, 2) and combined.overlaps == (0, 2)
    assert combined.roll_calls["rcid"].tolist() == [1, 2, 3, 12, 13]
    assert list(combined.roll_calls.columns) == list(ROLL_CALL_COLUMNS)
    swapped = combine_roll_calls([NEW, OLD], ["new", "old"])
    assert swapped.kept == (4, 0) and swapped.overlaps == (0, 3)  # 1 and 2 share 10's symbol


def test_sessions_are_selected_per_source() -> None:
    combined = combine_roll_calls([OLD, NEW], ["old", "new"], first=69, last=69)
    assert combined.roll_calls["rcid"].tolist() == [1, 2, 3]
    with pytest.raises(DataError, match=r"old, field 'session': no roll calls in sessions 70– "
                       r"\(it holds sessions 69–69\)"):  # fmt: skip
        combine_roll_calls([OLD, NEW], ["old", "new"], first=70)


def test_one_id_for_two_roll_calls_is_an_error() -> None:
    clash = _table([(3, 70, "2015-10-02", "A/RES/70/2", "Other")])
    with pytest.raises(DataError, match="new, field 'rcid': roll-call id 3 names another roll "
                       "call in old"):  # fmt: skip
        combine_roll_calls([OLD, clash], ["old", "new"])


def test_attributes_of_each_source(small_unvotes_folder: Path, tmp_path: Path) -> None:
    csv = tmp_path / "votes.csv"
    csv.write_text(UNDL, encoding="utf-8")
    table = roll_call_attributes(csv)
    assert table["rcid"].tolist() == [501, 502] and table["session"].tolist() == [78, 78]
    folder = tmp_path / "parent" / "unvotes"  # the roll-call files only, found in unvotes/
    folder.mkdir(parents=True)
    for name in ("un_roll_calls.csv.gz", "un_roll_call_issues.csv.gz"):
        shutil.copy(small_unvotes_folder / name, folder / name)
    assert len(roll_call_attributes(folder.parent)) == 180
    assert len(roll_call_attributes("synthetic")) > 0
    with pytest.raises(DataError, match="no un_roll_calls.csv.gz in this folder"):
        roll_call_attributes(tmp_path)
    with pytest.raises(DataError, match="file or folder not found"):
        roll_call_attributes(tmp_path / "missing.csv")
