"""``assembly-gym sweep``: two-point sweeps on a local Ray; ``--config`` reads their best."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from assembly_gym.benchmarks.cli import main
from assembly_gym.benchmarks.commands.arguments import FLAGS_KIND
from assembly_gym.envs.legislative.sources import roll_call_data
from assembly_gym.irl.base import RewardModel


@pytest.mark.ray
def test_an_irl_sweep_writes_best_flags_that_irl_fit_reads(
    ray_local, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "sweep"
    assert main(["sweep", "irl", "--quick", "--samples", "2", "--quiet", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "validation log-loss" in table and "Optuna" in table and "rank" in table
    assert {p.name for p in out.iterdir()} >= {"trials.csv", "best.json", "sweep.md", "scores.png"}
    trials = pd.read_csv(out / "trials.csv")
    assert len(trials) == 2 and trials["score"].notna().all() and (trials["iterations"] == 1).all()
    best = json.loads((out / "best.json").read_text())
    assert best["kind"] == FLAGS_KIND and best["command"] == "irl fit" and best["seeds"] == [0]
    assert best["flags"]["l2"] == pytest.approx(trials["l2"][0])
    assert best["score"] == pytest.approx(trials["score"].min())

    model = tmp_path / "model"
    countries = roll_call_data().country_names[:2]
    assert main(["irl", "fit", "--config", str(out / "best.json"), "--country", *countries,
                 "--kind", "linear", "--no-standard-errors", "--quiet",
                 "--out", str(model)]) == 0  # fmt: skip
    info = RewardModel.load(model).info
    assert info["l2"] == best["flags"]["l2"] and info["shrinkage"] == best["flags"]["shrinkage"]


@pytest.mark.ray
def test_a_per_epoch_space_stops_early_and_takes_random_search(
    ray_local, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "sweep"
    argv = ["sweep", "debate", "--quick", "--samples", "3", "--seeds", "0", "1",
            "--search", "random", "--quiet", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    assert "random search" in capsys.readouterr().out
    trials = pd.read_csv(out / "trials.csv")
    assert len(trials) == 3 and {"seed_0", "seed_1", "stopped_early"} <= set(trials.columns)
    assert trials["iterations"].between(1, 10).all() and trials["iterations"].min() < 10
    best = json.loads((out / "best.json").read_text())
    assert best["command"] == "debate train" and set(best["flags"]) == {"initial_lr", "lr_decay"}


def test_sweep_without_ray_is_one_line_and_exit_2(monkeypatch, tmp_path: Path, capsys) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # an import of ray fails
    assert main(["sweep", "irl", "--quick", "--out", str(tmp_path / "sweep")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "pip install" in error and "ray" in error
