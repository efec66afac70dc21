"""``--config FILE``: a flag file's flags count as typed first; a bad file is one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assembly_gym.benchmarks.cli import build_parser
from assembly_gym.benchmarks.commands.arguments import flags_document
from assembly_gym.benchmarks.experiments import build_parser as experiment_parser


def _file(tmp_path: Path, command: str, **flags) -> Path:
    path = tmp_path / "best.json"
    path.write_text(json.dumps(flags_document(command, flags, score=0.5)))
    return path


def _parse(*argv: str):
    return build_parser().parse_args(list(argv))


def test_the_files_flags_apply_and_typed_flags_win(tmp_path: Path) -> None:
    config = str(_file(tmp_path, "irl fit", l2=3.5, shrinkage="none"))
    out = str(tmp_path / "model")
    args = _parse("irl", "fit", "--config", config, "--out", out)
    assert (args.l2, args.shrinkage) == (3.5, "none")
    args = _parse("irl", "fit", "--l2", "7", "--config", config, "--out", out)
    assert (args.l2, args.shrinkage) == (7.0, "none")
    args = _parse("irl", "fit", "--config", config, "--shrinkage", "global", "--out", out)
    assert (args.l2, args.shrinkage) == (3.5, "global")
    assert _parse("irl", "fit", "--out", out).l2 is None  # the defaults are back


def test_debate_bench_and_the_ppo_experiment_take_flag_files(tmp_path: Path) -> None:
    config = str(_file(tmp_path, "debate train", initial_lr=0.3, lr_decay=0.8))
    args = _parse("debate", "train", "--config", config, "--out", str(tmp_path / "m.json"))
    assert (args.initial_lr, args.lr_decay) == (0.3, 0.8)
    config = str(_file(tmp_path, "bench", neural_width=8, neural_weight_decay=2.5))
    args = _parse("bench", "--config", config)
    assert (args.neural_width, args.neural_weight_decay) == (8, 2.5)
    config = str(_file(tmp_path, "experiment worldmodel_ppo", learning_rate=1e-3, n_steps=256,
                       ent_coef=0.01, gamma=0.95))  # fmt: skip
    args = experiment_parser("worldmodel_ppo").parse_args(["--config", config, "--gamma", "0.9"])
    assert (args.learning_rate, args.n_steps, args.ent_coef, args.gamma) == (1e-3, 256, 0.01, 0.9)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "file not found"),
        ("{not json", "corrupted"),
        (json.dumps({"kind": "other", "format_version": 1}), "expected a 'assembly-gym flags'"),
        (json.dumps(flags_document("debate train", {"initial_lr": 0.1})),
         "flags for `debate train`, not for `irl fit`"),
        (json.dumps(flags_document("irl fit", {"l2": -1})), "flag --l2: expected a finite"),
        (json.dumps(flags_document("irl fit", {"shrinkage": "bloc"})),
         "flag --shrinkage: invalid choice"),
        (json.dumps(flags_document("irl fit", {"l2": [1, 2]})), "flag --l2: expected one value"),
        (json.dumps(flags_document("irl fit", {"quiet": "yes"})), "flag --quiet: expected true"),
        (json.dumps(flags_document("irl fit", {"epochs": 3})), "has no flag 'epochs'"),
    ],
)  # fmt: skip
def test_a_bad_file_is_one_line_naming_it_and_exit_2(
    tmp_path: Path, capsys, content: str | None, message: str
) -> None:
    path = tmp_path / "best.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SystemExit) as stop:
        _parse("irl", "fit", "--config", str(path), "--out", str(tmp_path / "model"))
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and str(path) in error and message in error, error
