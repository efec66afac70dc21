"""Every experiment runs through ``assembly-gym experiment NAME`` on a tiny size.

The real-data experiments read a small synthetic assembly written in the unvotes layout
(``--data``); the LeWorld ones a tiny checkpoint trained here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assembly_gym.benchmarks.cli import main
from assembly_gym.benchmarks.experiments import EXPERIMENTS

DATA = "<unvotes>"  # replaced by the small unvotes folder
CHECKPOINT = "<checkpoint>"  # replaced by a tiny LeWorld checkpoint

# name → (tiny flags, a line the report prints)
TINY: dict[str, tuple[list[str], str]] = {
    "debate_real": (
        ["--data", DATA, "--countries", "Country 001", "Country 002",
         "--last-train-session", "5"],
        "Debate allocations per country",
    ),
    "debate_planted": (["--persons", "2", "--observations", "60"], "fell on"),
    "debate_recovery": (["--actors", "1", "--countries", "1"], "Chance owner accuracy 1/7"),
    "debate_speed": (["--observations", "500", "--repeats", "1"], "| one debate epoch"),
    "devices": (
        ["--data", DATA, "--leworld-sequences", "4", "--max-epochs", "1", "--num-envs", "8",
         "--seconds", "0.05"],
        "Simulator-v0 batched (SimulatorVectorEnv ×8",
    ),
    "ideal_recovery": (["--quick"], "Goals: r ≥ 0.95; cover at its nominal 0.95."),
    "ideal_validation": (["--data", DATA], "Chosen by log-loss: dims"),
    "irl_forecast": (
        ["--data", DATA, "--l2-grid", "10", "--last-train-session", "5",
         "--last-fit-session", "4"],
        "| maxent-irl (linear), irl fit + irl predict |",
    ),
    "irl_recovery": (
        ["--countries", "8", "--blocs", "2", "--sessions", "4", "--per-session", "10",
         "--l2-grid", "10"],
        "bloc mean (planted blocs, oracle)",
    ),
    "irl_scale": (["--data", DATA], "peak resident memory"),
    "irl_speed": (["--states", "10", "--horizons", "2"], "speed-up"),
    "leworld_memory": (
        ["--checkpoint", CHECKPOINT, "--memoryless-epochs", "1", "--still-control"],
        "Control, still regions",
    ),
    "leworld_rl": (
        ["--checkpoint", CHECKPOINT, "--timesteps", "64", "--episodes", "2"],
        "| oracle (first relevant window) |",
    ),
    "mce_irl_rollcall": (
        ["--quick", "--countries", "1", "--max-decisions", "20"],
        "| imitation MCE-IRL |",
    ),
    "throughput": (
        ["--seconds", "0.02", "--num-envs", "4"],
        "assembly/Deliberation-v0 ×4 (vector)",
    ),
    "trajectory_irl": (["--synthetic", "--folds", "2"], "all decisions: IRL beats uniform"),
    "worldmodel_eval": (
        ["--sessions", "2", "--max-epochs", "1", "--spread-seeds", "--no-real"],
        "goals:",
    ),
    "worldmodel_ppo": (
        ["--sessions", "2", "--max-epochs", "1", "--seeds", "0", "--timesteps", "64",
         "--episodes", "2"],
        "goal (within 5 %)",
    ),
    "worldmodel_train_time": (
        ["--data", DATA, "--env", "all", "--max-epochs", "1"],
        "RollCall-v0      MLPEnsemble",
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def leworld_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A LeWorld system trained for a moment on a small easy world."""
    out = tmp_path_factory.mktemp("leworld") / "run"
    tiny = ["num_slms=2", "slm_hidden=16", "blm_hidden=16", "read_dim=4", "query_dim=2",
            "num_val_sequences=3", "num_test_sequences=3", "phase1_epochs=1",
            "phase2_epochs=1", "phase3_epochs=1", "resample_train=false"]  # fmt: skip
    args = ["leworld", "train", "--out", str(out), "--num-words", "8192", "--difficulty",
            "easy", "--train-sequences", "4", "--quiet"]  # fmt: skip
    for setting in tiny:
        args += ["--set", setting]
    assert main(args) == 0
    return out


def test_every_experiment_has_a_smoke_test():
    assert sorted(TINY) == list(EXPERIMENTS)


NEEDS_IMITATION = {"irl_speed", "mce_irl_rollcall"}  # comparisons with imitation's MCEIRL


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.imitation) if n in NEEDS_IMITATION else n
        for n in EXPERIMENTS
    ],
)
def test_experiment_runs_on_a_tiny_size(name, request, small_unvotes_folder, capsys):
    flags, expected = TINY[name]
    if CHECKPOINT in flags:
        checkpoint = str(request.getfixturevalue("leworld_checkpoint"))
        flags = [checkpoint if flag == CHECKPOINT else flag for flag in flags]
        capsys.readouterr()  # the checkpoint's training report
    flags = [str(small_unvotes_folder) if flag == DATA else flag for flag in flags]
    assert main(["experiment", name, "--quiet", "--threads", "1", *flags]) == 0
    assert expected in capsys.readouterr().out
