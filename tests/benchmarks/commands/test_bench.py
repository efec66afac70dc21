"""The ``assembly-gym`` command line, in-process, and ``bench``."""

from __future__ import annotations

import os

import pytest

from assembly_gym.benchmarks.cli import build_parser, main
from assembly_gym.benchmarks.commands.bench import RESULTS_KIND, RESULTS_VERSION
from assembly_gym.core.persist import read_versioned_json


def _table_agents(out: str) -> list[str]:
    rows = [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("|")]
    assert rows[0] == "agent"  # header, then the separator line
    return rows[2:]


def test_bench_on_a_data_folder(unvotes_folder, capsys):
    code = main(["bench", "--quiet", "--data", str(unvotes_folder), "--agents", "majority",
                 "random", "--last-train-session", "3"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert f"Data: {unvotes_folder}" in out and "5 countries" in out
    assert "train sessions 1–3" in out and "test sessions 4–4" in out
    assert _table_agents(out) == ["random", "majority"]  # in the suite's order


def test_bench_default_is_the_synthetic_assembly_with_the_oracle(capsys):
    code = main(["bench", "--quiet", "--countries", "Country 001", "Country 002",
                 "--agents", "planted (oracle)", "majority"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "Data: synthetic assembly (seed 0)" in out and "2 countries" in out
    assert _table_agents(out) == ["majority", "planted (oracle)"]


def test_unknown_agent_is_a_one_line_error(capsys):
    code = main(["bench", "--quiet", "--agents", "majority", "oracle"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith(
        "assembly-gym bench: error: unknown agents ['oracle'] in suite synthetic; choose from"
    )


def test_an_unknown_agent_is_refused_before_any_data_is_read(unvotes_folder, capsys, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("data was read before --agents was checked")

    monkeypatch.setattr("assembly_gym.benchmarks.suites.base.build_task", forbidden)
    monkeypatch.setattr("assembly_gym.benchmarks.commands.bench._executor", forbidden)
    for data in ([], ["--data", str(unvotes_folder)]):
        assert main(["bench", "--quiet", *data, "--agents", "majority", "bogus"]) == 2
        err = capsys.readouterr().err
        suite = "unvotes" if data else "synthetic"
        assert f"error: unknown agents ['bogus'] in suite {suite}; choose from" in err


def test_an_agent_unknown_to_a_later_suite_stops_before_the_first_runs(capsys, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("a suite ran before every suite's agents were checked")

    monkeypatch.setattr("assembly_gym.benchmarks.suites.run_suite", forbidden)
    code = main(["bench", "--quiet", "--quick", "--suite", "synthetic", "deliberation",
                 "--agents", "planted (oracle)"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "in suite deliberation" in err


@pytest.mark.parametrize("bad", ["missing", "not_a_layout"])
def test_bad_data_path_is_exit_code_2_with_one_line(tmp_path, capsys, bad):
    path = tmp_path / "nothing-here"
    if bad == "not_a_layout":
        path = tmp_path / "votes.csv"
        path.write_text("a,b\n1,2\n")
    code = main(["bench", "--quiet", "--data", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert err.startswith(f"assembly-gym bench: error: {path}")


def test_unknown_country_is_exit_code_2(capsys):
    assert main(["bench", "--quiet", "--countries", "Atlantis"]) == 2
    assert "unknown country 'Atlantis'" in capsys.readouterr().err


def test_out_writes_results_atomically(unvotes_folder, tmp_path, capsys, monkeypatch):
    out = tmp_path / "results"
    args = ["bench", "--quiet", "--data", str(unvotes_folder), "--agents", "majority",
            "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr().out
    table = printed[printed.index("| agent") : printed.index("wrote")].strip()
    assert table in (out / "results.md").read_text()
    results = read_versioned_json(out / "results.json", kind=RESULTS_KIND, version=RESULTS_VERSION)
    assert results["options"]["seed"] == 0 and results["options"]["data"] == str(unvotes_folder)
    (suite,) = results["suites"]
    assert suite["suite"] == "unvotes" and suite["data"] == str(unvotes_folder)
    assert [r["agent"] for r in suite["results"]] == ["majority"]
    low, high = suite["results"][0]["log_loss_ci"]
    assert low <= suite["results"][0]["log_loss"] <= high
    assert set(suite) >= {"split", "class_balance", "countries", "results"}
    assert sorted(p.name for p in out.iterdir()) == [
        "report.html", "results.json", "results.md", "unvotes_calibration.png",
        "unvotes_metrics.png",
    ]  # fmt: skip
    assert "data:image/png;base64," in (out / "report.html").read_text()
    # A failing write leaves the previous results whole and no temporary file behind.
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def refuse(descriptor):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", refuse)
    assert main([*args[:-3], "random", "--out", str(out)]) == 2
    assert capsys.readouterr().err == "assembly-gym bench: error: disk full\n"
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["results"]


def test_parser_lists_bench_and_refuses_unknown_commands(capsys):
    parser = build_parser()
    assert "bench" in parser.format_help()
    with pytest.raises(SystemExit) as exit_info:
        main(["no-such-command"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_report_draws_what_the_agents_learned(unvotes_folder, tmp_path, capsys):
    out = tmp_path / "results"
    agents = ["majority", "maxent-irl (linear)", "debate allocator"]
    args = ["bench", "--quiet", "--data", str(unvotes_folder), "--agents", *agents,
            "--bootstrap", "20", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    names = {p.name for p in out.iterdir()}
    assert {"unvotes_weights.png", "unvotes_dendrogram.png", "unvotes_allocations.png"} <= names
    assert (out / "report.html").read_text().count("data:image/png;base64,") == 5


def test_bench_flags_are_the_options_fields(capsys):
    from dataclasses import fields

    from assembly_gym.benchmarks.commands.flags import dataclass_from_flags
    from assembly_gym.benchmarks.suites import Options

    args = build_parser().parse_args(
        ["bench", "--bootstrap", "20", "--countries", "A", "B", "--quick", "--seed", "3"]
    )
    assert dataclass_from_flags(Options, args) == Options(
        seed=3, countries=("A", "B"), n_bootstrap=20, quick=True
    )
    assert dataclass_from_flags(Options, build_parser().parse_args(["bench"])) == Options()
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for item in fields(Options):
        assert " ".join(item.metadata["help"].split()) in text


def _forbid_work(monkeypatch) -> None:
    def forbidden(*args, **kwargs):
        raise AssertionError("work started before the executor was checked")

    monkeypatch.setattr("assembly_gym.benchmarks.suites.run_suite", forbidden)
    monkeypatch.setattr("assembly_gym.benchmarks.suites.base.build_task", forbidden)


def test_executor_ray_without_ray_names_the_install_before_any_work(capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails, as where it is absent
    _forbid_work(monkeypatch)
    code = main(["bench", "--quiet", "--executor", "ray", "--agents", "majority"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "pip install 'assembly-gym[ray]'" in err and "bench --executor ray" in err


def test_address_with_the_local_executor_is_a_one_line_error(capsys, monkeypatch):
    _forbid_work(monkeypatch)
    code = main(["bench", "--quiet", "--executor", "local", "--address", "auto"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--address names a Ray cluster: use it with --executor ray" in err
