"""``assembly-gym experiment NAME --out FILE``: the report is written whole, once it is done."""

from __future__ import annotations

import argparse

import pytest

from assembly_gym.benchmarks.cli import main
from assembly_gym.benchmarks.experiments import REPORT_HEADER, throughput
from assembly_gym.core.errors import AssemblyGymError


def test_a_run_that_fails_leaves_the_earlier_report(tmp_path, capsys, monkeypatch):
    out = tmp_path / "report.md"
    out.write_text(f"{REPORT_HEADER}earlier report\n")

    def fails_midway(args: argparse.Namespace) -> None:
        print("half a table")
        raise AssemblyGymError("the data ran out")

    monkeypatch.setattr(throughput, "run", fails_midway)
    assert main(["experiment", "throughput", "--out", str(out)]) == 2
    assert out.read_text() == f"{REPORT_HEADER}earlier report\n"
    assert [path.name for path in tmp_path.iterdir()] == ["report.md"]  # no temporary file left
    err = capsys.readouterr().err
    assert err == "assembly-gym experiment throughput: error: the data ran out\n"


def test_a_finished_run_replaces_the_report_at_its_end(tmp_path, capsys, monkeypatch):
    out = tmp_path / "reports" / "report.md"
    out.parent.mkdir()
    out.write_text(f"{REPORT_HEADER}earlier report\n")

    def prints(args: argparse.Namespace) -> None:
        print("a table")
        # nothing half-written while it runs
        assert out.read_text() == f"{REPORT_HEADER}earlier report\n"

    monkeypatch.setattr(throughput, "run", prints)
    assert main(["experiment", "throughput", "--out", str(out)]) == 0
    assert out.read_text() == REPORT_HEADER + capsys.readouterr().out == REPORT_HEADER + "a table\n"


def test_a_file_that_is_not_an_earlier_report_is_refused_before_the_run(tmp_path, capsys):
    out = tmp_path / "notes.md"
    out.write_text("my notes\n")
    with pytest.raises(SystemExit) as exited:
        main(["experiment", "throughput", "--out", str(out)])
    assert exited.value.code == 2 and out.read_text() == "my notes\n"
    assert "never replaced" in capsys.readouterr().err
