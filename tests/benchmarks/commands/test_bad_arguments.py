"""Every flag of every command refuses a bad value before any work: one line, exit code 2.

The commands and their flags are read from :func:`build_parser`, and the experiments'
(``assembly-gym experiment NAME``) from :func:`experiments.build_parser`, so a new command,
experiment or flag is walked too. Each command's and experiment's ``run`` is replaced by one
that fails the test: a refusal must come while the flags are parsed, before anything is
loaded, trained or written.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from assembly_gym.benchmarks import experiments
from assembly_gym.benchmarks.cli import build_parser, main, subcommand_parsers
from assembly_gym.benchmarks.commands import experiment as experiment_command
from assembly_gym.benchmarks.commands.arguments import (
    ArtifactFolder,
    Number,
    OutputFile,
    output_folder,
)

COMMANDS = [p for p in subcommand_parsers(build_parser()) if "run" in p._defaults] + [
    experiments.build_parser(name) for name in experiments.EXPERIMENTS
]


def _flags(takes) -> list[tuple[argparse.ArgumentParser, argparse.Action]]:
    """(command, flag) for every flag whose type ``takes`` says yes to."""
    return [(c, action) for c in COMMANDS for action in c._actions if takes(action.type)]


def _id(case: tuple[argparse.ArgumentParser, argparse.Action]) -> str:
    command, action = case
    return f"{command.prog.removeprefix('assembly-gym ')} {action.option_strings[0]}"


NUMBER_FLAGS = _flags(lambda kind: isinstance(kind, Number))
PATH_FLAGS = _flags(
    lambda kind: isinstance(kind, ArtifactFolder | OutputFile) or kind is output_folder
)


@pytest.fixture
def no_work(monkeypatch):
    """Every command's and experiment's ``run`` fails the test when called."""

    def forbidden(args: argparse.Namespace) -> int:
        raise AssertionError(f"{args.prog} ran: a bad argument got past the parser")

    for command in COMMANDS:
        run = command._defaults["run"]
        if run is not experiment_command.run:  # it hands NAME's flags to the experiment's parser
            monkeypatch.setattr(sys.modules[run.__module__], run.__name__, forbidden)


def _required(command: argparse.ArgumentParser, tmp_path: Path) -> list[str]:
    """The command's words and a valid value for each of its required arguments."""
    argv = command.prog.split()[1:]
    for action in command._actions:
        if not (action.required and action.nargs != argparse.REMAINDER):
            continue
        if action.choices:
            value = str(next(iter(action.choices)))
        elif isinstance(action.type, Number):
            value = str(action.type.kind(action.type.low if action.type.low is not None else 1))
        else:
            value = str(tmp_path / f"new-{action.dest}")
        argv += [action.option_strings[0], value] if action.option_strings else [value]
    return argv


def _parse(command: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``argv`` of :func:`_required` (command words first) parsed by the command's parser."""
    return command.parse_args(argv[len(command.prog.split()) - 1 :])


def _bad_numbers(number: Number) -> list[str]:
    """Texts outside what ``number`` accepts: not numbers, not finite, out of range."""
    bad = ["x", "", "nan", "inf", "-inf"] + (["1.5"] if number.kind is int else [])
    step = 1 if number.kind is int else 0.5
    if number.low is not None:
        below = number.low if number.low_open else number.low - step
        bad.append(str(number.kind(below - step if below == number.special else below)))
    if number.high is not None:
        bad.append(str(number.kind(number.high if number.high_open else number.high + step)))
    return bad


def _refused(argv: list[str], capsys) -> str:
    """The one error line of a command that must stop with exit code 2."""
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2, f"{argv}: exit code {code}"
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"{argv}: {err!r}"
    return lines[0]


def test_every_command_is_walked_and_its_required_arguments_suffice(tmp_path):
    names = {command.prog.removeprefix("assembly-gym ") for command in COMMANDS}
    assert {"bench", "irl fit", "debate train", "worldmodel train", "leworld train"} <= names
    assert {f"experiment {name}" for name in experiments.EXPERIMENTS} <= names
    for command in COMMANDS:
        _parse(command, _required(command, tmp_path))  # no SystemExit


def test_every_number_flag_is_checked_and_takes_its_default():
    """No flag takes a bare int or float, and each default (each item of a list) is in range."""
    for command in COMMANDS:
        for action in command._actions:
            where = f"{command.prog} {action.option_strings}"
            assert action.type not in (int, float), f"{where}: use a type of arguments.py"
            values = action.default if isinstance(action.default, list) else [action.default]
            for value in values:
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    assert isinstance(action.type, Number), f"{where}: an unchecked number"
                    assert action.type(str(value)) == value, where


def test_every_out_flag_checks_its_path():
    outs = [(c, a) for c in COMMANDS for a in c._actions if "--out" in a.option_strings]
    assert len(outs) >= 5 and set(outs) <= set(PATH_FLAGS), [_id(case) for case in outs]


@pytest.mark.parametrize("case", NUMBER_FLAGS, ids=map(_id, NUMBER_FLAGS))
def test_a_bad_number_is_one_line_and_exit_code_2(case, tmp_path, capsys, no_work):
    command, action = case
    flag = action.option_strings[0]
    for value in _bad_numbers(action.type):  # FLAG=VALUE: "-inf" is a value, not a flag
        line = _refused([*_required(command, tmp_path), f"{flag}={value}"], capsys)
        assert line.startswith(f"{command.prog}: error: argument {flag}"), (value, line)


@pytest.mark.parametrize(
    "argv",
    [
        ["irl", "fit", "--l2", "-1"],
        ["irl", "fit", "--l2", "nan"],
        ["irl", "fit", "--l2", "inf"],
        ["irl", "fit", "--synthetic", "--sessions", "0-3"],
        ["worldmodel", "train", "--env", "Deliberation-v0", "--members", "0"],
        ["worldmodel", "train", "--env", "Deliberation-v0", "--max-epochs", "-1"],
        ["bench", "--jobs", "0"],
        ["bench", "--bootstrap", "9"],
        ["debate", "train", "--validation-split", "1"],
        ["play", "--country", "France", "--steps", "0"],
    ],
    ids=" ".join,
)
def test_the_reported_bad_values_are_refused(argv, tmp_path, capsys, no_work):
    out = [] if argv[0] in ("bench", "play") else ["--out", str(tmp_path / "new")]
    assert "expected" in _refused([*argv, *out], capsys)


def _bad_paths(kind: object, tmp_path: Path) -> dict[str, Path]:
    """Paths that an output flag of type ``kind`` must refuse, by what is wrong with them."""
    a_file = tmp_path / "a-file"
    a_file.write_text("mine")
    others = tmp_path / "others"
    others.mkdir()
    (others / "notes.txt").write_text("mine")
    bad = {"under a file": a_file / "out", "a file (the user's)": a_file}
    if Path("/sys").is_dir():  # read-only even for root, whom os.access lets write anywhere
        bad["on a read-only file system"] = Path("/sys/assembly-gym-test/out")
    if isinstance(kind, OutputFile):
        bad["a folder"] = others
    if isinstance(kind, ArtifactFolder):
        bad["a folder of other files"] = others
    return bad


@pytest.mark.parametrize("case", PATH_FLAGS, ids=map(_id, PATH_FLAGS))
def test_a_bad_output_path_is_one_line_and_exit_code_2(case, tmp_path, capsys, no_work):
    command, action = case
    flag = action.option_strings[0]
    for problem, path in _bad_paths(action.type, tmp_path).items():
        line = _refused([*_required(command, tmp_path), flag, str(path)], capsys)
        assert line.startswith(f"{command.prog}: error: argument {flag}: {path}"), problem
    assert (tmp_path / "a-file").read_text() == "mine"
    assert [p.name for p in (tmp_path / "others").iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("case", PATH_FLAGS, ids=map(_id, PATH_FLAGS))
def test_a_good_output_path_is_taken(case, tmp_path):
    command, action = case
    earlier = tmp_path / "earlier"  # a file, or a folder with files of an earlier save
    if isinstance(action.type, OutputFile):
        if action.type.header is not None:  # without one, no file is an earlier output
            earlier.write_bytes(action.type.header + b"old")
    else:
        earlier.mkdir()
        (earlier / "weights.bin").write_bytes(b"old")
    if isinstance(action.type, ArtifactFolder):
        manifest = {"kind": action.type.kind, "files": {"weights.bin": {}}}  # its files listed
        (earlier / action.type.manifest).write_text(json.dumps(manifest))
    (tmp_path / "empty").mkdir()
    good = [tmp_path / "new" / "deeper", *([earlier] if earlier.exists() else [])]
    if not isinstance(action.type, OutputFile):
        good.append(tmp_path / "empty")
    for path in good:
        argv = [*_required(command, tmp_path), action.option_strings[0], str(path)]
        assert getattr(_parse(command, argv), action.dest) == path


def test_settings_checked_together_stop_before_any_work(tmp_path, capsys, monkeypatch):
    """Checks that need several flags run first in ``run``, before data or worlds are built."""
    import assembly_gym.benchmarks.commands.debate as debate
    import assembly_gym.benchmarks.commands.irl as irl
    import assembly_gym.benchmarks.commands.leworld as leworld
    import assembly_gym.benchmarks.commands.worldmodel as worldmodel

    heavy = [
        (debate, "_model"),
        (irl, "roll_call_data"),
        (leworld, "MemoryWorld"),
        (worldmodel, "env_transitions"),
    ]
    for module, name in heavy:
        monkeypatch.setattr(module, name, _forbidden(name))
    out = ["--out", str(tmp_path / "new")]
    logs_inside = ["--tensorboard", str(tmp_path / "new" / "logs")]
    cases = {
        ("debate", "train", "--min-epochs", "5", "--max-epochs", "3"): "min_epochs ≤ max_epochs",
        ("debate", "train", "--claim-command", ""): "the claim command is empty",
        ("irl", "fit", "--sessions", "9-3"): "first session 9 is after last session 3",
        ("irl", "fit", "--kind", "trees", "--l2", "5"): "--l2: applies to --kind linear only",
        ("leworld", "train", "--set", "phase1_lr=nan"): "phase1_lr must be a finite number",
        ("leworld", "train", "--set", "phase2_epochs=0"): "phase2_epochs must be positive",
        ("leworld", "train", "--num-words", "2048"): "blocks of 32 pages",
        ("leworld", "train", *logs_inside): "is inside --out",
        ("worldmodel", "train", "--env", "RollCall-v0", *logs_inside): "is inside --out",
    }
    for argv, message in cases.items():
        line = _refused([*argv, *out], capsys)
        assert line.startswith(f"assembly-gym {argv[0]} {argv[1]}: error: ") and message in line


def test_experiment_settings_checked_together_stop_before_any_work(tmp_path, capsys, monkeypatch):
    """An experiment's checks of several flags (and of --data) come before any data is built."""
    from assembly_gym.benchmarks.experiments import (
        irl_forecast,
        irl_recovery,
        irl_scale,
        worldmodel_eval,
    )

    heavy = [
        (irl_forecast, "load_unvotes"),
        (irl_recovery, "generate_assembly"),
        (irl_scale, "load_unvotes"),
        (worldmodel_eval, "env_transitions"),
    ]
    for module, name in heavy:
        monkeypatch.setattr(module, name, _forbidden(name))
    missing = str(tmp_path / "missing")
    cases = {
        ("irl_forecast", "--last-fit-session", "60"): "leaves no validation sessions",
        ("irl_recovery", "--countries", "3", "--blocs", "4"): "--blocs 4 is more than --countries",
        ("irl_scale", "--data", missing): f"real votes not found at {missing}",
        ("worldmodel_eval", "--env", "RollCall-v0", "--sessions", "3"): "needs --sessions ≥ 4",
        ("worldmodel_eval", "--data", missing): f"real votes not found at {missing}",
    }
    for argv, message in cases.items():
        line = _refused(["experiment", *argv], capsys)
        assert line.startswith(f"assembly-gym experiment {argv[0]}: error: "), line
        assert message in line, line


def _forbidden(name: str):
    def call(*args, **kwargs):
        raise AssertionError(f"{name} was called: the settings were checked too late")

    return call


@pytest.mark.parametrize(
    "error",
    [
        OSError(errno.ENOSPC, "No space left on device"),
        PermissionError(errno.EACCES, "Permission denied", "/anywhere/model.json"),
        OSError(errno.EROFS, "Read-only file system", "/elsewhere"),
    ],
    ids=["ENOSPC", "EACCES", "EROFS"],
)
def test_a_file_system_error_anywhere_is_one_line(error, tmp_path, capsys, monkeypatch):
    import assembly_gym.benchmarks.commands.irl as irl

    def fail(args):
        raise error

    monkeypatch.setattr(irl, "run_explain", fail)
    line = _refused(["irl", "explain", str(tmp_path / "model")], capsys)
    where = "" if error.filename is None else f"{error.filename}: "
    assert line == f"assembly-gym irl explain: error: {where}{error.strerror}"


def _full_disk(*args):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize(
    "argv",
    [
        ["irl", "fit", "--synthetic", "--kind", "linear", "--sessions", "1-3", "--quiet"],
        ["worldmodel", "train", "--synthetic", "--env", "Deliberation-v0", "--model", "empirical",
         "--quiet"],
        ["debate", "train", "--synthetic", "--min-epochs", "1", "--max-epochs", "1", "--quiet"],
        ["bench", "--quick", "--agents", "majority", "--bootstrap", "10", "--quiet"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)  # fmt: skip
def test_a_full_disk_at_save_is_one_line(argv, tmp_path, capsys, monkeypatch):
    """Every save is flushed to disk; a full disk refuses that flush."""
    out = tmp_path / ("model.json" if argv[0] == "debate" else "out")
    monkeypatch.setattr(os, "fsync", _full_disk)
    line = _refused([*argv, "--out", str(out)], capsys)
    assert line.endswith("error: No space left on device"), line
    assert not out.exists()


def test_ctrl_c_is_one_line_and_exit_code_130(capsys, monkeypatch):
    import assembly_gym.benchmarks.commands.play as play

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(play, "run", interrupted)
    assert main(["play", "--country", "France"]) == 130
    assert capsys.readouterr().err == "assembly-gym play: interrupted\n"


def test_ctrl_c_during_start_up_is_one_line_and_exit_code_130():
    """SIGINT while ``irl``'s module (torch, pandas) is imported, before its flags are parsed."""
    argv = [sys.executable, "-X", "importtime", "-m", "assembly_gym", "irl", "fit", "--help"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    for line in process.stderr:  # -X importtime: a line as each module is imported
        if line.rstrip().endswith("assembly_gym.benchmarks.cli"):
            process.send_signal(signal.SIGINT)
            break
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-2000:]
    assert "Traceback" not in err and out == ""
    assert err.splitlines()[-1] == "assembly-gym: interrupted"


@pytest.mark.parametrize(
    ("words", "flag", "expected"),
    [
        (["irl", "fit"], "--l2", "expected a finite number ≥ 0"),
        (["experiment", "throughput"], "--seconds", "expected a finite number > 0"),
    ],
    ids=["irl fit", "experiment throughput"],
)
def test_no_traceback_end_to_end(words, flag, expected, tmp_path):
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "assembly_gym", *words, flag, "nan", "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and done.stdout == "" and not out.exists()
    prog = " ".join(["assembly-gym", *words])
    assert done.stderr.splitlines() == [
        f"{prog}: error: argument {flag}: {expected}, got 'nan' (see {prog} --help)"
    ]
