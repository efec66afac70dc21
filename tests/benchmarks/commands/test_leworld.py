import json

import pytest
import torch

from assembly_gym.benchmarks.cli import main
from assembly_gym.core.device import resolve_device

TINY = [
    "--num-words",
    "8192",
    "--difficulty",
    "easy",
    "--train-sequences",
    "6",
    "--quiet",
    "--set",
    "num_slms=2",
    "--set",
    "slm_hidden=16",
    "--set",
    "blm_hidden=16",
    "--set",
    "read_dim=4",
    "--set",
    "query_dim=2",
    "--set",
    "num_val_sequences=3",
    "--set",
    "num_test_sequences=3",
    "--set",
    "phase1_epochs=2",
    "--set",
    "phase2_epochs=2",
    "--set",
    "phase3_epochs=1",
    "--set",
    "resample_train=false",
]


@pytest.mark.slow
def test_train_then_eval_reproduces_the_saved_figures(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["leworld", "train", "--out", str(out), "--phases", "1,2,3", *TINY]) == 0
    printed = capsys.readouterr().out
    assert "| phase 3 |" in printed and "wall time" in printed and (out / "results.md").is_file()
    ran_on = str(resolve_device("auto"))  # --device auto: the GPU where there is one
    assert f"min on {ran_on} (" in printed
    manifest = json.loads((out / "world_model.json").read_text())
    assert manifest["extra"]["device"] == ran_on
    assert main(["leworld", "eval", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = {
        line.split("|")[1].strip(): line.split("|")[2].strip()
        for line in printed.splitlines()
        if line.startswith("| ")
    }
    assert rows["loaded"] == rows["saved (phase 3)"]  # the same MSE, to the printed digit
    assert "always-open router" in rows
    for comparison in ("phase 2 vs phase 1", "phase 3 vs phase 2", "router vs always open"):
        assert comparison in rows  # the ablations, paired by held-out sequence
    assert "Parameters: SLMs " in printed and "info-request head" in printed
    assert json.loads(printed.strip().splitlines()[-1])["noise_floor"] > 0
    assert main(["leworld", "eval", str(out), "--device", "cpu"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["device"] == "cpu"


def test_bad_input_is_one_line_and_exit_code_2(tmp_path, capsys):
    assert main(["leworld", "eval", str(tmp_path / "missing")]) == 2
    assert "folder not found" in capsys.readouterr().err
    assert main(["leworld", "train", "--out", str(tmp_path), "--num-words", "2048"]) == 2
    assert "blocks of 32 pages" in capsys.readouterr().err
    assert main(["leworld", "train", "--out", str(tmp_path), "--set", "depth=3"]) == 2
    assert "NAME=VALUE" in capsys.readouterr().err
    assert main(["leworld", "train", "--out", str(tmp_path), "--set", "temperature_min=2"]) == 2
    assert "temperature_min must be at most 1" in capsys.readouterr().err
    with pytest.raises(SystemExit) as error:
        main(["leworld", "train", "--out", str(tmp_path), "--phases", "1,5"])
    assert error.value.code == 2


def test_a_gpu_asked_for_where_there_is_none_is_a_usage_error(tmp_path, capsys):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    for command in (["train", "--out", str(tmp_path)], ["eval", str(tmp_path)]):
        with pytest.raises(SystemExit) as error:
            main(["leworld", *command, "--device", "cuda"])
        assert error.value.code == 2
        assert "CUDA is not available" in capsys.readouterr().err


def test_eval_of_a_checkpoint_without_per_phase_parameters_says_so(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["leworld", "train", "--out", str(out), "--phases", "1", *TINY]) == 0
    (out / "phase1.pt").unlink()  # as LeWorldModel(system).save writes it, without phase_states
    manifest = json.loads((out / "world_model.json").read_text())
    manifest["phases"] = []
    manifest["files"] = {k: v for k, v in manifest["files"].items() if k != "phase1.pt"}
    (out / "world_model.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main(["leworld", "eval", str(out)]) == 0
    assert "no per-phase parameters" in capsys.readouterr().out


def test_pointer_chasing_trains_phase_1_with_the_request(tmp_path, capsys):
    from assembly_gym.world_models.leworld import LeWorldModel

    out = tmp_path / "run"
    tiny = TINY[2:]  # no --num-words: --quick --pointer-chasing picks 16,384 words
    assert main(["leworld", "train", "--out", str(out), "--pointer-chasing", "--quick", *tiny]) == 0
    assert "pointer chasing, random memory of 16384 × 32 bits" in capsys.readouterr().out
    model = LeWorldModel.load(out)
    assert model.system.config.phase1_request and model.system.use_query
    assert model.system.config.phase1_lr == 3e-3  # LeWorldConfig.for_pointer_chasing()
    assert main(["leworld", "eval", str(out)]) == 0
    assert "| info request on vs off |" in capsys.readouterr().out
    again = tmp_path / "without"
    command = ["leworld", "train", "--out", str(again), "--pointer-chasing", "--phases", "1,2"]
    assert main([*command, *TINY, "--set", "phase1_request=false"]) == 0
    assert not LeWorldModel.load(again).system.use_query  # the request comes with phase 3


def test_train_checkpoints_every_phase_and_resumes(tmp_path, capsys, monkeypatch):
    from assembly_gym.world_models.leworld import LeWorldModel, training

    whole = tmp_path / "whole"
    assert main(["leworld", "train", "--out", str(whole), *TINY]) == 0
    real_phase = training.train_phase

    def killed_in_phase_2(system, *, phase, **kwargs):
        if phase == 2:
            raise KeyboardInterrupt  # as if the process were stopped
        return real_phase(system, phase=phase, **kwargs)

    cut = tmp_path / "cut"
    monkeypatch.setattr(training, "train_phase", killed_in_phase_2)
    assert main(["leworld", "train", "--out", str(cut), *TINY]) == 130  # "interrupted"
    monkeypatch.setattr(training, "train_phase", real_phase)
    assert list(LeWorldModel.load(cut).phase_states) == ["phase 1"]  # saved after phase 1
    capsys.readouterr()
    assert main(["leworld", "train", "--out", str(cut), "--resume", "--quiet"]) == 0
    assert "phases [1] done, [2, 3] to run" in capsys.readouterr().out
    ends = [LeWorldModel.load(folder).system.state_dict() for folder in (whole, cut)]
    for name, value in ends[0].items():
        assert torch.equal(ends[1][name], value), name
    assert main(["leworld", "train", "--out", str(cut), "--resume"]) == 2
    assert "nothing to resume" in capsys.readouterr().err
    assert main(["leworld", "train", "--out", str(tmp_path / "none"), "--resume"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_decoy_regions_widen_c_to_describe_them(tmp_path, capsys):
    from assembly_gym.world_models.leworld import LeWorldModel

    out = tmp_path / "decoys"
    command = ["leworld", "train", "--out", str(out), "--phases", "1", "--decoy-regions", "4"]
    assert main([*command, *TINY[:2], "--difficulty", "hard", *TINY[4:]]) == 0
    assert "hard, 4 decoys, random" in capsys.readouterr().out
    world = LeWorldModel.load(out).system.world_config
    assert world.decoy_regions == 4 and world.char_dim == 7 * (3 + 4)  # 32 pages: 5 bits + 2
