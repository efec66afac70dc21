"""The report folder: one artifact, its files tied by one id, replaced whole."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from assembly_gym.benchmarks.report import RESULTS, write_report
from assembly_gym.benchmarks.suites.base import SuiteResult
from assembly_gym.core.artifact import read_artifact
from assembly_gym.core.errors import CheckpointError

KIND = "test-report"


def result(suite: str, accuracy: float) -> SuiteResult:
    table = pd.DataFrame({"agent": ["majority"], "accuracy": [accuracy],
                          "accuracy_ci": [(accuracy - 0.1, accuracy + 0.1)]})  # fmt: skip
    return SuiteResult(suite, "a suite", "none", "memory", ("A",), {"yes": 1.0}, 1.0, table,
                       plot_metrics=("accuracy",))  # fmt: skip


def write(results, out):
    return write_report(results, out, options={"seed": 1}, kind=KIND, version=1)


def test_the_report_is_one_artifact_and_its_pages_name_its_id(tmp_path):
    out = tmp_path / "report"
    written = write([result("one", 0.5), result("two", 0.7)], out)
    report = read_artifact(out, manifest=RESULTS, kind=KIND, version=1)
    assert set(written) == {*report.files, RESULTS} == {p.name for p in out.iterdir()}
    assert set(report.files) == {"one_metrics.png", "two_metrics.png", "results.md", "report.html"}
    assert report.manifest["options"] == {"seed": 1}
    assert [s["suite"] for s in report.manifest["suites"]] == ["one", "two"]
    markdown = report.files["results.md"].decode()
    assert markdown.startswith("# assembly-gym benchmark\n\n## one")
    assert markdown.endswith(
        f"\n---\n\nReport {report.artifact_id} (the artifact_id of {RESULTS})\n"
    )
    assert f"<footer>Report {report.artifact_id}" in report.files["report.html"].decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # no temporary sibling


def test_a_new_report_replaces_the_old_one_whole(tmp_path):
    out = tmp_path / "report"
    write([result("one", 0.5), result("two", 0.7)], out)
    first = json.loads((out / RESULTS).read_text())["artifact_id"]
    write([result("three", 0.9)], out)
    report = read_artifact(out, manifest=RESULTS, kind=KIND, version=1)
    assert report.artifact_id != first
    assert {p.name for p in out.iterdir()} == {"three_metrics.png", "results.md", "report.html",
                                               RESULTS}  # fmt: skip


def test_a_report_saved_before_ids_is_replaced_and_other_files_are_kept(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / RESULTS).write_text(json.dumps({"kind": KIND, "format_version": 1, "suites": []}))
    (out / "old_metrics.png").write_bytes(b"png")
    write([result("one", 0.5)], out)
    assert "old_metrics.png" not in {p.name for p in out.iterdir()}
    (out / "notes.txt").write_text("mine")
    with pytest.raises(CheckpointError, match=r"notes.txt\); saving would delete them"):
        write([result("two", 0.5)], out)
    assert (out / "notes.txt").read_text() == "mine" and (out / "one_metrics.png").is_file()
