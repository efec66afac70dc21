"""``assembly-gym debate train`` and ``show``."""

from __future__ import annotations

import json

import pytest

from assembly_gym.agents.debate import DebateModel
from assembly_gym.agents.debate.tendencies import PersonTendency
from assembly_gym.benchmarks.cli import main


def test_train_on_the_synthetic_default_with_every_output_then_show(tmp_path, capsys):
    out, log, board, plot = (
        tmp_path / "m.json",
        tmp_path / "log.json",
        tmp_path / "tb",
        tmp_path / "a.png",
    )
    code = main(
        [
            "debate",
            "train",
            "--synthetic",
            "--max-epochs",
            "3",
            "--log-json",
            str(log),
            "--tensorboard",
            str(board),
            "--plot",
            str(plot),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "Epoch 3/3" in printed and "Debate model: Country 001" in printed
    model = DebateModel.load(out)
    assert model.name == "Country 001" and model.history.epochs_run == 3
    assert len(json.loads(log.read_text())["epochs"]) == 3
    assert list(board.glob("events.out.tfevents.*"))
    assert plot.read_bytes()[:4] == b"\x89PNG"
    assert main(["debate", "show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("Debate model: Country 001") and "Training: 3 epochs" in shown


def test_train_on_a_free_text_file(tmp_path, capsys):
    records = [
        {"text": t}
        for t in (
            "torture and human rights abuses",
            "trade and development aid",
            "human rights of women",
            "debt relief for developing countries",
            "nuclear disarmament treaty",
        )
    ]
    source = tmp_path / "actor.json"
    source.write_text(json.dumps({"name": "An actor", "observations": records}))
    out = tmp_path / "actor.debate.json"
    assert (
        main(["debate", "train", "--observations", str(source), "--quiet", "--out", str(out)]) == 0
    )
    assert "Debate model: An actor" in capsys.readouterr().out
    assert len(DebateModel.load(out).observations) == 5


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["debate", "train", "--observations", "{tmp}/absent.json", "--out", "{tmp}/m.json"],
            "absent.json: file not found",
        ),
        (
            ["debate", "train", "--synthetic", "--country", "Atlantis", "--out", "{tmp}/m.json"],
            "unknown country 'Atlantis'",
        ),
        (
            ["debate", "train", "--data", "{tmp}", "--country", "France", "--out", "{tmp}/m.json"],
            "no un_votes.csv.gz",
        ),
        (["debate", "show", "{tmp}/absent.json"], "file not found"),
    ],
)
def test_bad_input_ends_with_one_line_and_exit_code_2(tmp_path, capsys, argv, message):
    code = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_country_is_required_for_real_data_and_refused_for_text(tmp_path, capsys, monkeypatch):
    import assembly_gym.benchmarks.commands.debate as command

    def forbidden(spec):
        raise AssertionError("the data was read before --country was checked")

    monkeypatch.setattr(command, "roll_call_data", forbidden)
    assert main(["debate", "train", "--data", "somewhere", "--out", str(tmp_path / "m.json")]) == 2
    assert "say which country to model with --country NAME" in capsys.readouterr().err
    source = tmp_path / "t.json"
    source.write_text(json.dumps({"observations": [{"text": "a b"}, {"text": "c d"}]}))
    argv = [
        "debate",
        "train",
        "--observations",
        str(source),
        "--country",
        "France",
        "--out",
        str(tmp_path / "m.json"),
    ]
    assert main(argv) == 2
    assert "--country applies to roll-call data" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--initial-lr", "1.5"], "argument --initial-lr: expected a number in (0, 1], got '1.5'"),
        (["--min-epochs", "5", "--max-epochs", "3"], "need 1 ≤ min_epochs ≤ max_epochs"),
        (["--claim-command", ""], "the claim command is empty"),
        (["--min-allocation", "0.2"], "7 allocations inside [0.2, 0.5] cannot sum to 1"),
    ],
)
def test_invalid_settings_are_usage_errors(tmp_path, capsys, option, message):
    assert message in _refused(["debate", "train", *option, "--out", str(tmp_path / "m.json")],
                               capsys)  # fmt: skip


def _refused(argv: list[str], capsys) -> str:
    """The one error line of a command that stops with exit code 2."""
    try:  # a flag alone is checked as it is parsed, flags together before any work
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    return err


def test_generate_then_train_on_a_synthetic_person(tmp_path, capsys):
    source, out = tmp_path / "person.json", tmp_path / "p.debate.json"
    assert main(["debate", "generate", "--observations", "120", "--out", str(source)]) == 0
    assert "Planted owners: majority rate" in capsys.readouterr().out
    planted = json.loads(source.read_text())["planted"]
    assert list(planted) == [t.value for t in PersonTendency]
    assert sum(planted.values()) == pytest.approx(1.0, abs=1e-3)
    argv = ["debate", "train", "--observations", str(source), "--max-epochs", "2", "--quiet"]
    assert main([*argv, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "owner accuracy" in printed and "chance 1/K 0.143" in printed
    assert "binomial p = " in printed and "owners by built-in relevance" in printed
    assert "Planted mixture: L1 distance " in printed
    model = DebateModel.load(out)
    assert model.agents[0].name == "survival" and model.planted == planted
    last = model.history.validation_results[-1]
    assert last.accuracy > last.majority_rate and last.owner_source == "built-in relevance"


def test_about_overrides_the_file_and_a_bad_value_is_one_line(tmp_path, capsys):
    source = tmp_path / "t.json"
    source.write_text(json.dumps({"observations": [{"text": "hunger"}, {"text": "wine"}]}))
    out = tmp_path / "m.json"
    argv = ["debate", "train", "--observations", str(source), "--quiet", "--out", str(out)]
    assert main([*argv, "--about", "person"]) == 0
    assert DebateModel.load(out).agents[-1].name == "pleasure"
    source.write_text(json.dumps({"about": "robot", "observations": [{"text": "a"}] * 2}))
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "t.json, field 'about': must be one of" in err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--about", "person"], "--about applies to free-text observations"),
        (["--refresh-claims"], "--refresh-claims and --no-claim-validation need --claim-command"),
        (["--no-claim-validation"], "need --claim-command"),
    ],
)
def test_free_text_options_are_usage_errors_elsewhere(tmp_path, capsys, option, message):
    argv = ["debate", "train", "--synthetic", *option, "--out", str(tmp_path / "m.json")]
    assert message in _refused(argv, capsys)
