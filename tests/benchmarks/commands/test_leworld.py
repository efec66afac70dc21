import json

import pytest

from assembly_gym.benchmarks.cli import main

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
    assert main(["leworld", "train", "--out", str(out), *TINY]) == 0
    printed = capsys.readouterr().out
    assert "| phase 3 |" in printed and "wall time" in printed and (out / "results.md").is_file()
    assert main(["leworld", "eval", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = {
        line.split("|")[1].strip(): line.split("|")[2].strip()
        for line in printed.splitlines()
        if line.startswith("| ")
    }
    assert rows["loaded"] == rows["saved (phase 3)"]  # the same MSE, to the printed digit
    assert json.loads(printed.strip().splitlines()[-1])["noise_floor"] > 0


def test_bad_input_is_one_line_and_exit_code_2(tmp_path, capsys):
    assert main(["leworld", "eval", str(tmp_path / "missing")]) == 2
    assert "folder not found" in capsys.readouterr().err
    assert main(["leworld", "train", "--out", str(tmp_path), "--num-words", "2048"]) == 2
    assert "blocks of 32 pages" in capsys.readouterr().err
    assert main(["leworld", "train", "--out", str(tmp_path), "--set", "depth=3"]) == 2
    assert "NAME=VALUE" in capsys.readouterr().err
    with pytest.raises(SystemExit) as error:
        main(["leworld", "train", "--out", str(tmp_path), "--phases", "1,5"])
    assert error.value.code == 2
