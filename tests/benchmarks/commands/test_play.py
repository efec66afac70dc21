"""``assembly-gym play`` in-process, with scripted input."""

from __future__ import annotations

import io
import re

import pytest

from assembly_gym.benchmarks.cli import main
from assembly_gym.benchmarks.commands.play import screen
from assembly_gym.core.paths import DATA_ENV_VAR, find_data_dir

REAL_DATA = find_data_dir()  # where the env finds the real data: $ASSEMBLY_GYM_DATA or ../shared


@pytest.fixture(autouse=True)
def _terminal_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # shutil.get_terminal_size reads it first


def _play(monkeypatch, capsys, args, typed=""):
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    code = main(["play", *args])
    return code, capsys.readouterr().out


def test_interactive_session_with_a_bad_entry_and_names(monkeypatch, capsys):
    code, out = _play(
        monkeypatch, capsys, ["--country", "Country 003", "--steps", "2"], "7\nno\n0\n"
    )
    assert code == 0
    assert "not a valid action: '7'" in out
    assert "you: NO" in out and "you: YES" in out
    assert "What Country 003 actually did" in out and "/2 matched" in out


def test_letters_and_words_in_any_case(monkeypatch, capsys):
    typed = "y\nN\nAbstain\n a \n"
    code, out = _play(monkeypatch, capsys, ["--country", "Country 003", "--steps", "4"], typed)
    assert code == 0 and "your action [y/0=YES, n/1=NO, a/2=ABSTAIN; q=quit]: " in out
    assert re.findall(r"you: (\w+) \|", out) == ["YES", "NO", "ABSTAIN", "ABSTAIN"]


def test_deliberation_letters_and_bad_input_reprompts_once(monkeypatch, capsys):
    typed = "y\nc\nno action\np\n"  # y: masked at the draft; "no action": NO_ACTION's name
    args = ["--country", "Country 002", "--env", "deliberation", "--steps", "3"]
    code, out = _play(monkeypatch, capsys, args, typed)
    assert code == 0 and "[c/0=COSPONSOR, p/4=NO_ACTION; q=quit]" in out
    assert out.count("not a valid action: 'y'; type one of those in brackets\n") == 1
    assert out.count("your action [") == 4  # the draft asked twice, then two votes
    assert "you: COSPONSOR" in out and out.count("you: NO_ACTION") == 2


def test_quitting_early_still_shows_the_summary(monkeypatch, capsys):
    code, out = _play(monkeypatch, capsys, ["--country", "Country 003"], "1\nQ\n")
    assert code == 0
    assert "(0/1 matched)" in out or "(1/1 matched)" in out  # one step played, then quit


def test_expert_replays_the_record_exactly(monkeypatch, capsys):
    code, out = _play(monkeypatch, capsys, ["--country", "Country 004", "--steps", "5", "--expert"])
    assert code == 0 and "(5/5 matched)" in out and "expert plays" in out


def test_deliberation_expert_shows_every_stage_and_the_outcome(monkeypatch, capsys):
    code, out = _play(
        monkeypatch, capsys, ["--country", "Country 002", "--env", "deliberation", "--expert"]
    )
    assert code == 0 and "(3/3 matched)" in out
    for stage in ("DRAFT", "COMMITTEE_VOTE", "PLENARY_VOTE"):
        assert stage in out
    assert "outcome: ADOPTED" in out or "outcome: REJECTED" in out


def test_masked_actions_are_refused_at_the_draft(monkeypatch, capsys):
    code, out = _play(monkeypatch, capsys, ["--country", "Country 002", "--env", "deliberation",
                                            "--steps", "1"], "YES\nCOSPONSOR\n")  # fmt: skip
    assert code == 0 and "not a valid action: 'YES'" in out and "you: COSPONSOR" in out


def test_issues_are_shown_by_name_and_lines_fit_the_terminal(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "41")
    code, out = _play(
        monkeypatch, capsys, ["--country", "Country 003", "--steps", "1", "--split", "all"], "y\n"
    )
    words = " ".join(out.split())  # the text, unwrapped
    assert code == 0 and "issues: Human rights, Colonialism" in words and "issues: hr" not in out
    shown = out.split("your action")[0].splitlines()  # the first roll call, as shown
    assert max(map(len, shown)) <= 40 and len(shown) > 5  # wrapped to the width minus one


def test_screen_wraps_at_words_and_shows_the_whole_description():
    description = "TO ADOPT AN ALBANIAN APPEAL AGAINST THE PRESIDENT'S RULING ON PROCEDURE " * 3
    text = f"Env | a country\n  TITLE | issues: nu, di, xx\n  {description[:60]}\n  last: YES"
    shown = screen(text, {"description": description.strip()}, width=30)
    lines = shown.splitlines()
    assert max(map(len, lines)) <= 30
    assert " ".join(line.strip() for line in lines) == (
        "Env | a country TITLE | issues: Nuclear weapons and nuclear material, Arms control "
        f"and disarmament, xx {description.strip()} last: YES"
    )  # words whole, in order; an unknown code stays as it is
    assert lines[1] == "  TITLE | issues: Nuclear" and lines[2].startswith("    weapons")


def test_unknown_country_is_a_one_line_error(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "--country", "Atlantis"]) == 2
    assert "unknown country 'Atlantis'" in capsys.readouterr().err


@pytest.mark.skipif(
    REAL_DATA is None or not (REAL_DATA / "unvotes").is_dir(), reason="real data absent"
)
def test_a_real_country_plays_on_the_real_votes(monkeypatch, capsys):
    monkeypatch.setenv(DATA_ENV_VAR, str(REAL_DATA))
    code, out = _play(monkeypatch, capsys, ["--country", "france", "--steps", "1"], "a\n")
    assert code == 0
    assert out.startswith("France is in the real UN votes: playing on them (--data unvotes)\n")
    assert "RollCall-v0 | France" in out and "you: ABSTAIN" in out
    header = re.search(r"session (\d+) \| roll call 1/\d+ \| (\S+)", out)
    assert int(header[1]) >= 61 and header[2].startswith("R/")  # the held-out test sessions
    assert "What France actually did" in out  # the name as the real votes spell it


def test_a_real_country_without_the_real_data_says_where_and_how(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv(DATA_ENV_VAR, str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "--country", "France"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "France is a real country" in err
    assert f"real data not found at {tmp_path / 'unvotes'}" in err
    assert "--data" in err and "'Country 001', 'Country 002'" in err


@pytest.mark.parametrize("env", ["rollcall", "deliberation"])
def test_end_of_input_ends_the_session(monkeypatch, capsys, env):
    code, out = _play(monkeypatch, capsys, ["--country", "Country 001", "--env", env])
    assert code == 0 and "(0/0 matched)" in out


@pytest.mark.parametrize(
    ("args", "sessions"),
    [([], range(16, 21)), (["--split", "train"], range(1, 16)), (["--session", "3"], [3])],
)
def test_episodes_come_from_the_test_sessions_unless_asked(monkeypatch, capsys, args, sessions):
    code, out = _play(monkeypatch, capsys, ["--country", "Country 001", "--steps", "1", *args])
    assert code == 0 and int(re.search(r"session (\d+)", out)[1]) in sessions
