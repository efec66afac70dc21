"""``assembly-gym play`` in-process, with scripted input."""

from __future__ import annotations

import io

import pytest

from assembly_gym.benchmarks.cli import main


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


def test_quitting_early_still_shows_the_summary(monkeypatch, capsys):
    code, out = _play(monkeypatch, capsys, ["--country", "Country 003"], "1\nq\n")
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


def test_unknown_country_is_a_one_line_error(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "--country", "Atlantis"]) == 2
    assert "unknown country 'Atlantis'" in capsys.readouterr().err


@pytest.mark.parametrize("env", ["rollcall", "deliberation"])
def test_end_of_input_ends_the_session(monkeypatch, capsys, env):
    code, out = _play(monkeypatch, capsys, ["--country", "Country 001", "--env", env])
    assert code == 0 and "(0/0 matched)" in out
