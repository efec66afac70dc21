"""The CLI on folders of trajectory files: worldmodel, irl, bench --folds, and no substitution."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assembly_gym.benchmarks.cli import main
from assembly_gym.benchmarks.splits import record_folds, resolution_folds
from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.deliberation import resolution_records
from assembly_gym.envs.legislative.documents import load_trajectories, write_stage_trajectories
from assembly_gym.envs.legislative.documents.loading import data_kind
from assembly_gym.envs.legislative.resolutions import records_from_trajectories
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.base import RewardModel


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny folder of generated stage-JSON trajectories (all three stages recorded)."""
    records = resolution_records(generate_assembly(SyntheticConfig(seed=1, n_countries=6,
                                                                   n_sessions=3)))  # fmt: skip
    out = tmp_path_factory.mktemp("trajectories")
    write_stage_trajectories(records, out)
    return out


def test_written_trajectories_read_back_as_the_records(folder: Path) -> None:
    records = resolution_records(generate_assembly(SyntheticConfig(seed=1, n_countries=6,
                                                                   n_sessions=3)))  # fmt: skip
    back = records_from_trajectories(load_trajectories(folder))
    assert back.n_resolutions == records.n_resolutions
    plenary = np.sort(back.plenary, axis=0) == np.sort(records.plenary, axis=0)
    assert plenary.all()


def test_data_kind(folder: Path, small_unvotes_folder: Path, tmp_path: Path) -> None:
    assert data_kind(folder) == "trajectories"
    assert data_kind(small_unvotes_folder) == "roll calls"
    with pytest.raises(DataError, match=rf"{tmp_path}: neither roll calls nor trajectories"):
        data_kind(tmp_path)


def test_worldmodel_train_and_eval_on_trajectories(folder: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "model"
    flags = ["--data", str(folder), "--env", "Deliberation-v0", "--model", "empirical"]
    assert main(["worldmodel", "train", *flags, "--out", str(out), "--quiet"]) == 0
    assert main(["worldmodel", "eval", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert f"({folder.resolve()})" in printed
    for row in ("stage accuracy", "vote count within ±1", "outcome (adopted) accuracy"):
        assert row in printed


@pytest.mark.parametrize("command", [["worldmodel", "train", "--env", "Deliberation-v0"],
                                     ["irl", "fit"]])  # fmt: skip
def test_a_folder_of_neither_kind_is_one_error(command, tmp_path: Path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("nothing")
    code = main([*command, "--data", str(tmp_path), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and f"{tmp_path}: neither roll calls nor trajectories" in err
    assert "un_votes.csv.gz" in err and "*.trajectory.json" in err


def test_rollcall_env_refuses_trajectories(folder: Path, tmp_path: Path, capsys) -> None:
    code = main(["worldmodel", "train", "--data", str(folder), "--env", "RollCall-v0",
                 "--out", str(tmp_path / "m")])  # fmt: skip
    assert code == 2 and "use --env Deliberation-v0" in capsys.readouterr().err


def test_irl_fit_folds_and_explain(folder: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "irl"
    assert main(["irl", "fit", "--data", str(folder), "--folds", "2", "--out", str(out),
                 "--quiet"]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert "2-fold cross-validation by resolution" in printed and "mean ± sd" in printed
    model = RewardModel.load(out)
    assert model.env_id == "assembly/Deliberation-v0"
    assert main(["irl", "explain", str(out), "--country", model.countries[0]]) == 0
    printed = capsys.readouterr().out
    assert "draft: cosponsor" in printed and "Δ P(cosponsor)" in printed
    assert "it cosponsored the draft" in printed and "Δ P(abstain)" in printed
    assert main(["irl", "explain", str(out), "--country", model.countries[0], "--weights"]) == 0
    assert "relative to no_action" in capsys.readouterr().out


def test_irl_folds_on_roll_calls_is_one_error(small_unvotes_folder: Path, tmp_path, capsys):
    code = main(["irl", "fit", "--data", str(small_unvotes_folder), "--folds", "3",
                 "--out", str(tmp_path / "m")])  # fmt: skip
    assert code == 2 and "--folds" in capsys.readouterr().err


def test_bench_deliberation_runs_on_the_folder_named(folder: Path, capsys) -> None:
    flags = ["--folds", "2", "--bootstrap", "10", "--agents", "majority", "random"]
    code = main(["bench", "--quiet", "--suite", "deliberation", "--data", str(folder), *flags])
    printed = capsys.readouterr().out
    assert code == 0 and "fold 2 of 2" in printed and "mean and sd across 2 folds" in printed
    assert f"Data: {folder}." in printed  # the folder named, nothing else
    assert "(cosponsorship)" not in printed and "abstain" in printed  # the multi-step task


def test_bench_never_substitutes_another_data_set(small_unvotes_folder, tmp_path, capsys):
    code = main(["bench", "--quiet", "--suite", "deliberation", "--data",
                 str(small_unvotes_folder)])  # fmt: skip
    assert code == 2 and "needs a folder of trajectory files" in capsys.readouterr().err
    code = main(["bench", "--quiet", "--suite", "deliberation", "--data", str(tmp_path)])
    assert code == 2 and "neither roll calls nor trajectories" in capsys.readouterr().err


def test_bench_folds_on_other_suites_is_one_error(capsys) -> None:
    code = main(["bench", "--quiet", "--suite", "synthetic", "--folds", "3"])
    assert code == 2 and "--folds cross-validates the deliberation suite only" in (
        capsys.readouterr().err
    )


def test_folds_are_disjoint_cover_all_and_follow_the_seed() -> None:
    folds = resolution_folds(23, 5, seed=4)
    assert sorted(np.concatenate(folds).tolist()) == list(range(23))
    assert max(map(len, folds)) - min(map(len, folds)) <= 1
    again = resolution_folds(23, 5, seed=4)
    assert all((a == b).all() for a, b in zip(folds, again, strict=True))
    assert any((a != b).any() for a, b in zip(folds, resolution_folds(23, 5, seed=5), strict=True)
               if len(a) == len(b))  # fmt: skip
    strata = np.zeros(23, dtype=int)
    strata[[3, 9]] = 1
    stratified = resolution_folds(23, 5, seed=0, strata=strata)
    assert sum(bool(set(f) & {3, 9}) for f in stratified) == 2  # the rare kind split up
    with pytest.raises(DataError, match="need 2 ≤ K ≤ 3"):
        resolution_folds(3, 4)


def test_record_folds_spread_the_voted_resolutions(folder: Path) -> None:
    records = records_from_trajectories(load_trajectories(folder))
    folds = record_folds(records, 3, seed=0)
    assert sorted(np.concatenate(folds).tolist()) == list(range(records.n_resolutions))


@pytest.mark.real_data
def test_a_plenary_only_real_trajectory_is_fitted(capsys, tmp_path: Path) -> None:
    from assembly_gym.core.paths import documents_dir

    documents = documents_dir()
    if documents is None:
        pytest.skip("the real UN documents are absent ($ASSEMBLY_GYM_DATA or ../shared/data)")
    single = tmp_path / "one"
    single.mkdir()
    (single / "A_RES_78_196.trajectory.json").symlink_to(documents / "A_RES_78_196.trajectory.json")
    out = tmp_path / "model"
    countries = ["France", "Germany", "India", "Brazil", "Japan", "Kenya"]
    assert main(["irl", "fit", "--data", str(single), "--out", str(out), "--quiet",
                 "--country", *countries]) == 0  # fmt: skip
    model = RewardModel.load(out)
    assert model.info["n_partial"] == sum(model.info["n_decisions"].values()) >= len(countries)


def test_bench_deliberation_splits_sessions_as_the_envs_do(tmp_path: Path, capsys) -> None:
    records = resolution_records(generate_assembly(SyntheticConfig(seed=1, n_countries=6,
                                                                   n_sessions=5)))  # fmt: skip
    records.resolutions["session"] += 57  # sessions 58–62: the envs' split trains on ≤ 60
    write_stage_trajectories(records, tmp_path)
    flags = ["--bootstrap", "10", "--agents", "majority"]
    code = main(["bench", "--quiet", "--suite", "deliberation", "--data", str(tmp_path), *flags])
    assert code == 0 and "train sessions ≤ 60, test sessions > 60" in capsys.readouterr().out


def test_irl_fit_on_trajectories_has_a_shared_term_always(folder: Path, tmp_path, capsys) -> None:
    code = main(["irl", "fit", "--data", str(folder), "--shrinkage", "none",
                 "--out", str(tmp_path / "m")])  # fmt: skip
    assert code == 2 and "always shrinks each country toward a shared term" in (
        capsys.readouterr().err
    )
    assert main(["irl", "fit", "--data", str(folder), "--l2", "5", "--out", str(tmp_path / "m"),
                 "--quiet"]) == 0  # fmt: skip
    assert RewardModel.load(tmp_path / "m").info["prior"] == {"draft": 5.0, "votes": 5.0}
