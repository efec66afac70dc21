"""The report folder: one artifact, its files tied by one id, replaced whole; its HTML page."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from assembly_gym.agents.debate import TrainHistory
from assembly_gym.agents.debate.trainer import EpochMetrics
from assembly_gym.benchmarks.report import (
    FIGURE_CAPTIONS,
    RESULTS,
    calibration_figure,
    figure_texts,
    write_report,
)
from assembly_gym.benchmarks.suites.base import CommonSubset, SuiteResult
from assembly_gym.benchmarks.suites.figures import learned_figures
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


def test_a_report_is_replaced_but_other_files_are_kept(tmp_path):
    out = tmp_path / "report"
    write([result("zero", 0.5)], out)
    write([result("one", 0.5)], out)
    assert "zero_metrics.png" not in {p.name for p in out.iterdir()}
    (out / "notes.txt").write_text("mine")
    with pytest.raises(CheckpointError, match=r"notes.txt\); saving would delete them"):
        write([result("two", 0.5)], out)
    assert (out / "notes.txt").read_text() == "mine" and (out / "one_metrics.png").is_file()


def test_the_page_has_real_tables_and_captioned_figures(tmp_path):
    table = pd.DataFrame({"agent": ["majority", "logistic"], "accuracy": [0.75, np.nan],
                          "accuracy_ci": [(0.7, 0.8), None], "n": [603, 603]})  # fmt: skip
    curves = {"majority": (np.array([0.5, 0.9]), np.array([0.4, 0.8]), np.array([10, 30]))}
    suite = SuiteResult("one", "a suite", "none", "memory", ("A",), {"yes": 1.0}, 1.0, table,
                        calibration=curves, skipped={"BC": "needs imitation"},
                        plot_metrics=("accuracy",))  # fmt: skip
    write([suite], tmp_path / "report")
    page = (tmp_path / "report" / "report.html").read_text()
    assert "<pre>" not in page and "<script>" in page and "src='http" not in page
    assert page.count("<table class='sortable'>") == 1
    assert "<caption>Held-out scores of every agent" in page
    assert "<th scope='col'>accuracy</th>" in page
    assert "<td class='num' data-v='0.75'>0.750<span class='ci'>0.700–0.800</span></td>" in page
    assert "<td class='num'></td>" in page  # no score: an empty cell, sorted last
    assert "<p>Not run: BC (needs imitation).</p>" in page
    figures = re.findall(r"<figure><img alt='([^']*)' src='data:image/png;base64,[^']+'>"
                         r"<figcaption>([^<]+)</figcaption></figure>", page)  # fmt: skip
    assert len(figures) == page.count("<img") == 2
    assert all(alt not in ("one", "") and caption for alt, caption in figures)
    assert "| agent" in (tmp_path / "report" / "results.md").read_text()  # Markdown stays


def test_paired_differences_carry_their_p_values_and_the_reference_is_named_above(tmp_path):
    table = pd.DataFrame({
        "agent": ["majority", "default"], "log_loss": [0.5, 0.4],
        "log_loss_ci": [(0.45, 0.55), (0.35, 0.45)], "reference": "default",
        "log_loss_diff": [0.1, np.nan], "log_loss_p": [0.002, np.nan],
    })  # fmt: skip
    suite = SuiteResult("one", "a suite", "none", "memory", ("A",), {"yes": 1.0}, 1.0, table,
                        plot_metrics=("log_loss",))  # fmt: skip
    write([suite], tmp_path / "report")
    markdown = (tmp_path / "report" / "results.md").read_text()
    assert "Δ: the row minus default (the reference row) in accuracy, macro-F1 and" in markdown
    header = next(line for line in markdown.splitlines() if line.startswith("| agent"))
    assert "Δ log-loss" in header and "reference" not in header and "_p" not in header
    assert "| +0.100 (p=0.002) |" in markdown
    page = (tmp_path / "report" / "report.html").read_text()
    assert "<td class='num' data-v='0.1'>+0.100<span class='ci'>p=0.002</span></td>" in page
    rows = json.loads((tmp_path / "report" / RESULTS).read_text())["suites"][0]["results"]
    assert rows[0]["log_loss_p"] == 0.002 and rows[0]["reference"] == "default"
    assert rows[1]["log_loss_diff"] is None  # the reference against itself: no test


def test_every_figure_a_suite_draws_has_a_caption():
    rng = np.random.default_rng(0)
    epoch = EpochMetrics(1, 0.1, "a", 1.0, {"a": 1.0, "b": 0.0}, {"a": 0.6, "b": 0.4},
                         {"a": 0.1, "b": -0.1}, {"a": 1.0, "b": 1.0})  # fmt: skip
    history = TrainHistory(1, False, 1, (epoch,), ())
    learned = {
        "irl": {c: {"weights": rng.normal(size=(2, 3))} for c in ("A", "B", "C")},
        "debate": {"A": {"history": history}},
    }
    figures = learned_figures(learned, ("x", "y"), ("yes", "no"))
    assert set(figures) == {"weights", "dendrogram", "allocations"} <= set(FIGURE_CAPTIONS)
    alt, caption = figure_texts("weights", figures["weights"], "synthetic")
    assert "irl: learned reward weights (all 3 countries)" in alt and "Red" in caption
    alt, caption = figure_texts("new", figures["dendrogram"], "synthetic")
    assert "no description" in caption and "'new'" in caption and "clustered" in alt
    assert len([a for a in figures["allocations"].axes if a.get_visible()]) == 2  # a panel each


def test_calibration_is_one_panel_per_agent_with_its_diagonal():
    bins = (np.array([0.4, 0.8]), np.array([0.5, 0.7]), np.array([5, 9]))
    figure = calibration_figure({f"agent {i}": bins for i in range(5)}, "reliability")
    shown = [axis for axis in figure.axes if axis.get_visible()]
    assert [axis.get_title() for axis in shown] == [f"agent {i}" for i in range(5)]
    assert all(axis.lines[0].get_xydata().tolist() == [[0, 0], [1, 1]] for axis in shown)


def test_every_table_of_a_suite_is_drawn_under_its_own_caption(tmp_path):
    main = result("one", 0.5)
    main.common = CommonSubset(("A",), 10, main.table)
    write([main], tmp_path / "report")
    page = (tmp_path / "report" / "report.html").read_text()
    captions = re.findall(r"<caption>(.*?) <span", page)
    assert [c for c, _ in main.tables()] == captions and len(captions) == 2
    assert f"<p>{captions[1]}.</p>" not in page  # a caption, not also a paragraph
    subset = json.loads((tmp_path / "report" / "results.json").read_text())["suites"][0]
    assert subset["common_subset"]["countries"] == ["A"] and subset["common_subset"]["n"] == 10
    assert subset["common_subset"]["caption"] == captions[1]
