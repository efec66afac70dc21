"""``irl predict``: every source ``bench`` takes, ``--sessions``, several sources combined."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assembly_gym.benchmarks.cli import main
from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.synthetic import SyntheticAssembly

_CODES = {ABSENT: "X", 0: "Y", 1: "N", 2: "A"}
COLUMNS = ["rcid", "session", "country_code", "p_yes", "p_no", "p_abstain"]


def write_undl(data: RollCallData, path: Path, sessions: tuple[int, int], *,
               rcid_offset: int = 0, votes: str | None = None) -> Path:  # fmt: skip
    """Roll calls of ``sessions`` (inclusive) as a UN Digital Library CSV; ``votes``: one code
    for every vote (default: the recorded votes)."""
    table = data.roll_calls
    rows = []
    for j in np.flatnonzero(table["session"].between(*sessions)):
        call = table.iloc[j]
        for i, country in enumerate(data.countries):
            rows.append({
                "undl_id": int(call["rcid"]) + rcid_offset, "ms_code": country.iso3,
                "ms_name": country.name, "ms_vote": votes or _CODES[int(data.votes[i, j])],
                "resolution": call["symbol"], "date": call["date"].strftime("%Y-%m-%d"),
                "session": call["session"], "title": call["descr"],
                "agenda_title": call["short"], "subjects": "",
            })  # fmt: skip
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def fitted(small_unvotes_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model fitted on sessions 1–4 of the small assembly (sessions 5–6 are held out)."""
    out = tmp_path_factory.mktemp("model")
    flags = ["--data", str(small_unvotes_folder), "--sessions", "1-4", "--kind", "linear"]
    assert main(["irl", "fit", *flags, "--l2", "5", "--no-standard-errors", "--quiet",
                 "--out", str(out)]) == 0  # fmt: skip
    return out


def _predict(model: Path, out: Path, *flags: str) -> int:
    """``assembly-gym irl predict MODEL FLAGS --out OUT --quiet``."""
    return main(["irl", "predict", str(model), *flags, "--out", str(out), "--quiet"])


def test_a_undl_csv_is_a_source(
    fitted: Path, small_assembly: SyntheticAssembly, tmp_path: Path, capsys
) -> None:
    csv = write_undl(small_assembly.data, tmp_path / "votes.csv", (5, 6))
    out = tmp_path / "p.csv"
    assert _predict(fitted, out, "--data", str(csv)) == 0
    table = pd.read_csv(out, keep_default_na=False)
    assert list(table.columns) == COLUMNS and len(table) == 60 * 6
    assert sorted(set(table["session"])) == [5, 6]
    printed = capsys.readouterr().out
    assert "Note" not in printed and "60 roll calls of sessions 5–6 × 6 countries" in printed
    # Votes are never read: other votes on the same roll calls give the same forecast.
    other = write_undl(small_assembly.data, tmp_path / "other.csv", (5, 6), votes="N")
    assert _predict(fitted, tmp_path / "q.csv", "--data", str(other)) == 0
    assert (tmp_path / "q.csv").read_bytes() == out.read_bytes()


def test_sessions_select_the_roll_calls(
    fitted: Path, small_unvotes_folder: Path, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "p.csv"
    assert _predict(fitted, out, "--data", str(small_unvotes_folder), "--sessions", "5-6") == 0
    held_out = pd.read_csv(out, keep_default_na=False)
    assert list(held_out.columns) == COLUMNS and sorted(set(held_out["session"])) == [5, 6]
    assert len(held_out) == 60 * 6 and "Note" not in capsys.readouterr().out
    # Features come from the training votes only: a roll call's forecast is the same
    # whichever other roll calls are forecast with it.
    assert _predict(fitted, out, "--data", str(small_unvotes_folder), "--sessions", "3-6") == 0
    assert "Note: 2 forecast sessions (3–4) are training sessions" in capsys.readouterr().out
    wider = pd.read_csv(out, keep_default_na=False)
    same = wider[wider["session"] >= 5].reset_index(drop=True)
    pd.testing.assert_frame_equal(same, held_out)


def test_two_sources_combined_with_overlaps_counted(
    fitted: Path, small_assembly: SyntheticAssembly, small_unvotes_folder: Path,
    tmp_path: Path, capsys,
) -> None:  # fmt: skip
    data = small_assembly.data
    newer = write_undl(data, tmp_path / "newer.csv", (6, 6), rcid_offset=500)
    out = tmp_path / "p.csv"
    flags = ["--data", str(small_unvotes_folder), "--data", str(newer), "--sessions", "5-6"]
    assert _predict(fitted, out, *flags) == 0
    assert ("Combined 2 sources: 60 + 0 roll calls; 30 in more than one source"
            in capsys.readouterr().out)  # fmt: skip
    assert len(pd.read_csv(out)) == 60 * 6
    # Roll calls only in the second source are added (here: the first lacks session 6).
    first = data.select_sessions(1, 5)
    older = write_undl(first, tmp_path / "older.csv", (5, 5))
    flags = ["--data", str(older), "--data", str(newer)]
    assert _predict(fitted, out, *flags) == 0
    assert "30 + 30 roll calls; 0 in more than one source" in capsys.readouterr().out
    assert sorted(set(pd.read_csv(out)["session"])) == [5, 6]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--sessions", "5-x"], "--sessions: expected A-B (e.g. 1-60), got '5-x'"),
        (["--sessions", "6-5"], "after last session"),
        (["--sessions", "8-9"], "no roll calls in sessions 8–9 (it holds sessions 1–6)"),
        (["--data", "{tmp}/missing.csv"], "missing.csv: file or folder not found"),
        (["--data", "{tmp}"], "no un_roll_calls.csv.gz in this folder"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    fitted: Path, small_unvotes_folder: Path, tmp_path: Path, capsys,
    flags: list[str], message: str,
) -> None:  # fmt: skip
    flags = [flag.format(tmp=tmp_path) for flag in flags]
    try:  # a bad --sessions is refused as the flags are parsed, the others when read
        code = _predict(fitted, tmp_path / "p.csv", "--data", str(small_unvotes_folder), *flags)
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "p.csv").exists()


def test_two_roll_calls_with_one_id_is_an_error(
    fitted: Path, small_assembly: SyntheticAssembly, small_unvotes_folder: Path,
    tmp_path: Path, capsys,
) -> None:  # fmt: skip
    renamed = small_assembly.data.roll_calls.assign(symbol="A/RES/99/1")
    clash = RollCallData(small_assembly.data.countries, renamed, small_assembly.data.votes)
    csv = write_undl(clash, tmp_path / "clash.csv", (6, 6))
    flags = ["--data", str(small_unvotes_folder), "--data", str(csv)]
    assert _predict(fitted, tmp_path / "p.csv", *flags) == 2
    err = capsys.readouterr().err
    assert "clash.csv, field 'rcid': roll-call id " in err and "ids must differ" in err
