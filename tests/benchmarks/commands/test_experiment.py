"""``assembly-gym experiment``: the list, the common flags, bad names."""

from __future__ import annotations

import pytest

from assembly_gym.benchmarks.cli import main
from assembly_gym.benchmarks.experiments import EXPERIMENTS, REPORT_HEADER, build_parser


def test_list_names_every_experiment_with_its_description(capsys):
    assert main(["experiment", "--list"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[0] for line in lines] == list(EXPERIMENTS)
    assert all(len(line.split()) > 3 for line in lines)
    assert any("CartPole-v1" in line for line in lines if line.startswith("throughput "))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["experiment", "no_such"], "unknown experiment 'no_such'; choose from debate_planted"),
        (["experiment"], "name an experiment"),
    ],
)
def test_no_or_unknown_name_is_one_line_and_exit_code_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert err.startswith(f"assembly-gym experiment: error: {message}")


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_experiment_takes_the_common_flags(name):
    parser = build_parser(name)
    required = ["--checkpoint", "runs/leworld"] if name.startswith("leworld_") else []
    common = ["--seed", "7", "--threads", "1", "--out", "report.md", "--quiet"]
    args = parser.parse_args([*required, *common])
    assert (args.seed, args.threads, str(args.out), args.quiet) == (7, 1, "report.md", True)
    assert parser.prog == f"assembly-gym experiment {name}"


def test_bad_flags_are_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["experiment", "throughput", "--no-such-flag"])
    assert exit_info.value.code == 2
    assert "unrecognized arguments: --no-such-flag" in capsys.readouterr().err


def test_out_also_writes_the_report_and_threads_are_restored(tmp_path, capsys):
    import torch

    before = torch.get_num_threads()
    out = tmp_path / "reports" / "throughput.md"
    argv = ["experiment", "throughput", "--seconds", "0.01", "--num-envs", "2"]
    assert main([*argv, "--threads", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert out.read_text() == REPORT_HEADER + printed and "× CartPole-v1" in printed
    assert torch.get_num_threads() == before
