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
