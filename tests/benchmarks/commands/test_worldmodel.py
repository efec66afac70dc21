"""``assembly-gym worldmodel train|eval`` on the synthetic default; errors as one line."""

from __future__ import annotations

import json

import pytest

from assembly_gym.benchmarks.cli import main
from assembly_gym.world_models.base import load_world_model
from assembly_gym.world_models.checkpoint import MANIFEST


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "delib"
    code = main(
        [
            "worldmodel",
            "train",
            "--synthetic",
            "--env",
            "Deliberation-v0",
            "--out",
            str(out),
            "--model",
            "empirical",
            "--quiet",
        ]
    )
    assert code == 0
    return out


def test_train_saves_a_model_with_its_provenance(trained, capsys):
    model = load_world_model(trained)
    assert model.metadata["env"] == "Deliberation-v0" and model.metadata["data"] == "synthetic"
    assert model.metadata["split"] == {"last_train_session": None, "seed": 0}
    assert model.metadata["transitions"]["test"] > 0


def test_eval_prints_the_table(trained, capsys):
    assert main(["worldmodel", "eval", str(trained), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "EmpiricalModel from" in out and "| NLL (nats / transition)" in out
    assert "yes-share KS p-value" in out and "fit seconds" in out
    assert "per-episode NLL, worst episode" in out and "distance between episodes, real" in out
    assert out.count("steps) ") == 3  # the three worst episodes


def test_mlp_on_rollcall_trains_and_evaluates(tmp_path, capsys):
    out = tmp_path / "rollcall"
    assert (
        main(
            [
                "worldmodel",
                "train",
                "--env",
                "assembly/RollCall-v0",
                "--out",
                str(out),
                "--members",
                "2",
                "--max-epochs",
                "1",
                "--threads",
                "1",
                "--quiet",
            ]
        )
        == 0
    )
    assert main(["worldmodel", "eval", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "MLPEnsemble on RollCall-v0 (synthetic)" in text and "rollout RMSE, step 1" in text


def test_errors_are_one_line_with_exit_code_2(trained, tmp_path, capsys):
    assert main(["worldmodel", "eval", str(tmp_path / "missing")]) == 2
    assert "(folder not found)" in capsys.readouterr().err
    manifest = json.loads((trained / MANIFEST).read_text())
    manifest["obs_names"][0] = "renamed"
    broken = tmp_path / "broken"
    broken.mkdir()
    for item in trained.iterdir():
        (broken / item.name).write_bytes(item.read_bytes())
    (broken / MANIFEST).write_text(json.dumps(manifest))
    assert main(["worldmodel", "eval", str(broken), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "observation layout does not match" in err and "'renamed' in the model" in err
    assert err.count("\n") == 1


def test_train_needs_an_env(tmp_path):
    with pytest.raises(SystemExit):
        main(["worldmodel", "train", "--out", str(tmp_path)])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m["simulator"].update(max_episode_steps=float("inf")),
         "field 'max_episode_steps' is a number, expected an integer"),
        (lambda m: m["config"].update(smoothing="x"), "field 'smoothing' is a string"),
        (lambda m: m["config"].pop("smoothing"), "no field 'smoothing'"),
        (lambda m: m["metadata"].update(env=["Deliberation-v0"]), "field 'env' is a list"),
        (lambda m: m["metadata"]["split"].pop("seed"), "no field 'seed'"),
        (lambda m: m["metadata"]["split"].update(last_train_session="60"),
         "field 'last_train_session' is a string"),
    ],
    ids=["steps-infinity", "smoothing-x", "no-smoothing", "env", "no-seed", "last-session"],
)  # fmt: skip
def test_eval_of_tampered_metadata_is_one_line_with_exit_code_2(
    trained, tmp_path, capsys, change, message
):
    broken = tmp_path / "broken"
    broken.mkdir()
    for item in trained.iterdir():
        (broken / item.name).write_bytes(item.read_bytes())
    manifest = json.loads((trained / MANIFEST).read_text())
    change(manifest)
    (broken / MANIFEST).write_text(json.dumps(manifest))
    assert main(["worldmodel", "eval", str(broken), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{MANIFEST}: corrupted" in err and message in err and err.count("\n") == 1
