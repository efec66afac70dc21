"""``assembly-gym irl fit | explain | compare | predict`` on tiny data, for every kind."""

from __future__ import annotations

import builtins
import errno
import functools
import gzip
import io
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assembly_gym.benchmarks.cli import main
from assembly_gym.envs.legislative.observation import FeatureConfig
from assembly_gym.irl import rollcall
from assembly_gym.irl.base import RewardModel
from assembly_gym.irl.linear import DEFAULT_L2, LinearRewardModel
from assembly_gym.irl.rollcall import DEFAULT_FEATURES, DEFAULT_KIND


def _fit(out: Path, *flags: str) -> int:
    """``assembly-gym irl fit FLAGS --out OUT``."""
    return main(["irl", "fit", *flags, "--out", str(out)])


def _small_trees(patch: pytest.MonkeyPatch) -> None:
    """``irl fit`` grows few trees (the CLI sets none of the kinds' settings but the linear's)."""
    fit = functools.partial(rollcall.fit_reward_model, n_trees=20, min_child_samples=10)
    patch.setattr(rollcall, "fit_reward_model", fit)


def _predict(model: Path, data: Path, out: Path, *flags: str) -> int:
    """``assembly-gym irl predict MODEL --data DATA --out OUT FLAGS``."""
    return main(["irl", "predict", str(model), "--data", str(data), "--out", str(out), *flags])


@pytest.fixture(scope="module")
def fitted(small_unvotes_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("model")
    flags = ["--data", str(small_unvotes_folder), "--sessions", "1-4", "--all", "--l2", "5"]
    assert _fit(out, *flags, "--kind", "linear", "--quiet") == 0
    return out


def test_fit_writes_a_loadable_model(fitted: Path, capsys) -> None:
    model = RewardModel.load(fitted)
    assert isinstance(model, LinearRewardModel) and model.feature_config == DEFAULT_FEATURES
    assert len(model.countries) == 6 and model.info["sessions"] == [1, 4]
    assert model.history.sessions.max() == 4


def test_explain_prints_one_country_or_the_summary(fitted: Path, tmp_path: Path, capsys) -> None:
    assert main(["irl", "explain", str(fitted), "--country", "Country 002", "--weights"]) == 0
    text = capsys.readouterr().out
    assert "Reward weights of Country 002" in text and "issue_hr" in text and "yes_se" in text
    assert main(["irl", "explain", str(fitted), "--plots", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "across 6 countries" in text and "(all 6 countries)" in text
    flags = ["--plots", str(tmp_path), "--plot-countries"]
    assert main(["irl", "explain", str(fitted), *flags, "4"]) == 0
    assert "the 4 of 6 countries with the largest norms" in capsys.readouterr().out
    assert main(["irl", "explain", str(fitted), *flags, "0"]) == 0
    assert "(all 6 countries)" in capsys.readouterr().out
    assert (tmp_path / "reward_heatmap.png").stat().st_size > 1000
    assert (tmp_path / "dendrogram.png").stat().st_size > 1000


def test_predict_never_opens_the_vote_table(
    fitted: Path, small_unvotes_folder: Path, tmp_path: Path, monkeypatch
) -> None:
    opened: list[str] = []
    real_open, real_gzip_open = builtins.open, gzip.open

    def spy(opener):
        def wrapped(file, *args, **kwargs):
            opened.append(str(file))
            if str(file).endswith("un_votes.csv.gz"):
                raise AssertionError("predict opened the vote table")
            return opener(file, *args, **kwargs)

        return wrapped

    monkeypatch.setattr(builtins, "open", spy(real_open))
    monkeypatch.setattr(gzip, "open", spy(real_gzip_open))
    monkeypatch.setattr(io, "open", spy(io.open))
    out = tmp_path / "predictions.csv"
    assert _predict(fitted, small_unvotes_folder, out, "--quiet") == 0
    monkeypatch.undo()
    assert any("un_roll_calls.csv.gz" in path for path in opened)
    assert not any(path.endswith("un_votes.csv.gz") for path in opened)
    table = pd.read_csv(out, keep_default_na=False)
    assert list(table.columns) == ["rcid", "session", "country_code", "p_yes", "p_no", "p_abstain"]
    assert len(table) == 180 * 6  # every roll call (also sessions 5–6, never seen) × country
    np.testing.assert_allclose(table[["p_yes", "p_no", "p_abstain"]].sum(axis=1), 1.0, atol=1e-5)


def test_predict_works_without_any_vote_file(
    fitted: Path, small_unvotes_folder: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "future"
    folder.mkdir()
    for name in ("un_roll_calls.csv.gz", "un_roll_call_issues.csv.gz"):
        shutil.copy(small_unvotes_folder / name, folder / name)
    out = tmp_path / "p.csv"
    assert _predict(fitted, folder, out, "--quiet") == 0
    assert out.stat().st_size > 0


def test_predict_on_a_full_disk_is_one_line(
    fitted: Path, small_unvotes_folder: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    def full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)  # every save flushes its file to disk
    out = tmp_path / "p.csv"
    assert _predict(fitted, small_unvotes_folder, out, "--quiet") == 2
    assert capsys.readouterr().err == "assembly-gym irl predict: error: No space left on device\n"
    assert not out.exists()


def test_relative_to_is_refused_where_no_weights_table_reads_it(fitted: Path, capsys) -> None:
    explain = ["irl", "explain", str(fitted), "--country", "Country 002", "--relative-to", "bogus"]
    assert main(explain) == 2  # the country's effects: --relative-to would be ignored
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err == (
        "assembly-gym irl explain: error: --relative-to: applies to the weights table: "
        "add --weights\n"
    )
    assert main([*explain, "--weights"]) == 2
    assert "unknown action 'bogus'" in capsys.readouterr().err


def test_bad_input_is_a_one_line_error(
    fitted: Path, small_unvotes_folder: Path, tmp_path: Path, capsys
) -> None:
    assert _fit(tmp_path / "m", "--data", str(small_unvotes_folder), "--country", "Atlantis") == 2
    assert "unknown country 'Atlantis'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # checked as the flags are parsed
        _fit(tmp_path / "m", "--data", str(small_unvotes_folder), "--sessions", "9-3")
    assert stop.value.code == 2 and "after last session" in capsys.readouterr().err
    assert main(["irl", "explain", str(fitted), "--country", "Atlantis"]) == 2
    assert "unknown country" in capsys.readouterr().err
    assert main(["irl", "explain", str(tmp_path / "nothing")]) == 2
    assert "not found" in capsys.readouterr().err
    assert _predict(fitted, tmp_path, tmp_path / "p.csv") == 2
    assert "no un_roll_calls.csv.gz" in capsys.readouterr().err


def test_fit_without_flags_is_the_default_configuration(tmp_path: Path, capsys, monkeypatch):
    if DEFAULT_KIND == "trees":
        _small_trees(monkeypatch)
    countries = ["--country", "Country 001", "Country 002"]
    assert _fit(tmp_path, "--synthetic", "--sessions", "1-4", *countries, "--quiet") == 0
    model = RewardModel.load(tmp_path)
    assert model.countries == ("Country 001", "Country 002") and model.kind == DEFAULT_KIND
    assert model.feature_config == DEFAULT_FEATURES  # on synthetic votes as on real ones
    assert f"Fitted 2 countries' {DEFAULT_KIND} rewards on synthetic" in capsys.readouterr().out


def test_the_linear_kind_gives_weights(tmp_path: Path, capsys) -> None:
    flags = ["--synthetic", "--sessions", "1-4", "--country", "Country 001", "Country 002"]
    assert _fit(tmp_path / "m", *flags, "--kind", "linear", "--plain-features", "--quiet") == 0
    model = RewardModel.load(tmp_path / "m")
    assert isinstance(model, LinearRewardModel) and model.info["l2"] == DEFAULT_L2
    assert model.feature_config == FeatureConfig() and model.standard_errors is not None
    assert model.weights("Country 001").shape == (3, 1 + len(model.obs_names))
    assert "l2=1000.0, shrinkage=global" in capsys.readouterr().out


def test_a_bad_kind_or_a_linear_flag_of_another_kind_is_one_line(tmp_path: Path, capsys):
    with pytest.raises(SystemExit) as stop:
        _fit(tmp_path / "m", "--kind", "forest")
    assert stop.value.code == 2 and "invalid choice: 'forest'" in capsys.readouterr().err
    for flag in (["--l2", "5"], ["--shrinkage", "none"], ["--no-standard-errors"]):
        assert _fit(tmp_path / "m", "--kind", "trees", *flag) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{flag[0]}: applies to --kind linear only" in err
    assert _fit(tmp_path / "m", "--l2", "5") == 2  # not silently dropped by the default kind
    assert f"not --kind {DEFAULT_KIND} (the default): add --kind linear" in capsys.readouterr().err
    trajectories = tmp_path / "documents"
    trajectories.mkdir()
    (trajectories / "A_RES_1.trajectory.json").write_text("{}")  # refused before it is read
    assert _fit(tmp_path / "m", "--data", str(trajectories), "--kind", "trees") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "trees rewards are one-step only" in err
    assert not (tmp_path / "m").exists()


def test_explain_leads_with_effects_in_words(fitted: Path, tmp_path: Path, capsys) -> None:
    csv = tmp_path / "effects.csv"
    code = main(["irl", "explain", str(fitted), "--country", "Country 002", "--top", "2",
                 "--csv", str(csv)])  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0 and "What moves Country 002's votes" in text and "[95% CI]" in text
    assert "What it wants" in text and "Habit: its own earlier votes" in text
    ranks = [line[:3] for line in text.splitlines()]
    assert " 2 " in ranks and " 3 " not in ranks  # --top 2 rows per section
    table = pd.read_csv(csv, index_col="feature")
    assert {"yes", "yes_low", "yes_high", "kind", "description"} <= set(table.columns)
    assert "bias" not in table.index and len(table) == len(RewardModel.load(fitted).obs_names)
    shown = re.findall(r"^ ?\d \b(.+?)\s{2,}", text, flags=re.MULTILINE)  # the ranked rows
    assert len(shown) >= 4 and set(shown) <= set(table["description"])  # names whole, never cut


def test_weights_table_prints_standard_errors_unsigned(fitted: Path, capsys) -> None:
    assert main(["irl", "explain", str(fitted), "--country", "Country 002", "--weights"]) == 0
    text = capsys.readouterr().out
    assert "Reward weights of Country 002" in text and "yes_se" in text
    row = next(line for line in text.splitlines() if line.startswith("issue_hr"))
    assert row.split()[2][0] != "+"  # yes, yes_se, …: the standard error has no sign


def test_compare_two_countries(fitted: Path, tmp_path: Path, capsys) -> None:
    csv = tmp_path / "compare.csv"
    code = main(["irl", "compare", str(fitted), "Country 001", "Country 002", "--top", "3",
                 "--csv", str(csv)])  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0 and "Where they differ most" in text and "Where they agree" in text
    assert {"yes_Country 001", "yes_Country 002", "z"} <= set(pd.read_csv(csv).columns)
    assert main(["irl", "compare", str(fitted), "Country 001", "Country 001"]) == 2
    assert "name two countries" in capsys.readouterr().err


def test_over_time_from_period_models(small_unvotes_folder: Path, tmp_path: Path, capsys):
    periods = tmp_path / "periods"
    flags = ["--data", str(small_unvotes_folder), "--all", "--by-period", "3", "--kind", "linear",
             "--l2", "5"]  # fmt: skip
    assert _fit(periods, *flags, "--quiet") == 0
    assert sorted(p.name for p in periods.iterdir()) == ["sessions-01-03", "sessions-04-06"]
    assert _fit(periods, *flags, "--quiet") == 0  # an earlier run's folder is replaced
    capsys.readouterr()
    csv, png = tmp_path / "time.csv", tmp_path / "time.png"
    code = main(["irl", "explain", str(periods), "--country", "Country 003", "--over-time",
                 "--csv", str(csv), "--plot", str(png), "--top", "3"])  # fmt: skip
    assert code == 0 and "by period" in capsys.readouterr().out
    table = pd.read_csv(csv)
    assert table["sessions"].nunique() == 2 and png.stat().st_size > 1000
    assert main(["irl", "explain", str(periods), "--country", "Country 003"]) == 2
    assert "add --over-time" in capsys.readouterr().err
    assert _fit(periods, "--data", str(small_unvotes_folder), "--quiet") == 2
    assert "holds models of --by-period" in capsys.readouterr().err


def test_plot_needs_over_time(fitted: Path, tmp_path: Path, capsys) -> None:
    code = main(["irl", "explain", str(fitted), "--plot", str(tmp_path / "p.png")])
    assert code == 2 and "--over-time" in capsys.readouterr().err


def test_fit_with_topics_reads_them_out(small_unvotes_folder: Path, tmp_path: Path, capsys):
    flags = ["--data", str(small_unvotes_folder), "--sessions", "1-4", "--country", "Country 002"]
    model = tmp_path / "model"
    assert _fit(model, *flags, "--text", "topics", "--kind", "linear", "--quiet") == 0
    names = RewardModel.load(model).obs_names
    assert any(n.startswith("topic: ") for n in names) and "agree_majority" in names
    assert not any(n.startswith("text_") for n in names)
    csv = tmp_path / "effects.csv"
    code = main(["irl", "explain", str(model), "--country", "Country 002", "--csv", str(csv)])
    assert code == 0 and "topic: " in capsys.readouterr().out + csv.read_text()


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tree-ensemble reward of three synthetic countries on sessions 1–4."""
    out = tmp_path_factory.mktemp("trees")
    countries = ["Country 001", "Country 002", "Country 003"]
    flags = ["--synthetic", "--sessions", "1-4", "--country", *countries, "--quiet"]
    with pytest.MonkeyPatch.context() as patch:
        _small_trees(patch)
        assert _fit(out, *flags, "--kind", "trees") == 0
    return out


def test_a_trees_model_is_explained_without_intervals(trees: Path, tmp_path: Path, capsys):
    csv = tmp_path / "effects.csv"
    assert main(["irl", "explain", str(trees), "--country", "Country 002", "--csv", str(csv)]) == 0
    text = capsys.readouterr().out
    assert "What moves Country 002's votes" in text and "What it wants" in text
    assert "[no CI (the trees kind gives none)]" in text
    assert pd.read_csv(csv)["yes_low"].isna().all()
    assert main(["irl", "explain", str(trees), "--plots", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "Mean and spread across 3 countries of what describes each country's trees" in text
    assert "(all 3 countries)" in text and (tmp_path / "dendrogram.png").stat().st_size > 1000
    assert main(["irl", "explain", str(trees), "--country", "Country 002", "--weights"]) == 2
    assert "--weights: reads a linear model's weights" in capsys.readouterr().err


def test_a_trees_model_compares_effects_and_forecasts(trees: Path, tmp_path: Path, capsys):
    csv = tmp_path / "compare.csv"
    code = main(["irl", "compare", str(trees), "Country 001", "Country 003", "--top", "3",
                 "--csv", str(csv)])  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0 and "the difference of their effects" in text and "Where they agree" in text
    table = pd.read_csv(csv, index_col="feature")
    np.testing.assert_allclose(table["yes"], table["yes_Country 001"] - table["yes_Country 003"],
                               atol=1e-5)  # fmt: skip
    out = tmp_path / "forecast.csv"
    assert main(["irl", "predict", str(trees), "--data", "synthetic", "--sessions", "5-5",
                 "--out", str(out), "--quiet"]) == 0  # fmt: skip
    forecast = pd.read_csv(out)
    assert forecast["country_code"].nunique() == 3
    np.testing.assert_allclose(forecast[["p_yes", "p_no", "p_abstain"]].sum(axis=1), 1.0, atol=1e-6)
