"""``assembly-gym irl fit | explain | predict`` on a tiny unvotes-layout folder."""

from __future__ import annotations

import builtins
import gzip
import io
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assembly_gym.benchmarks.cli import main
from assembly_gym.irl.reward_model import RewardModel


def _fit(out: Path, *flags: str) -> int:
    """``assembly-gym irl fit FLAGS --out OUT``."""
    return main(["irl", "fit", *flags, "--out", str(out)])


def _predict(model: Path, data: Path, out: Path, *flags: str) -> int:
    """``assembly-gym irl predict --model MODEL --data DATA --out OUT FLAGS``."""
    return main(["irl", "predict", "--model", str(model), "--data", str(data), "--out", str(out),
                 *flags])  # fmt: skip


@pytest.fixture(scope="module")
def fitted(small_unvotes_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("model")
    flags = ["--data", str(small_unvotes_folder), "--sessions", "1-4", "--all", "--l2", "5"]
    assert _fit(out, *flags, "--quiet") == 0
    return out


def test_fit_writes_a_loadable_model(fitted: Path, capsys) -> None:
    model = RewardModel.load(fitted)
    assert len(model.countries) == 6 and model.info["sessions"] == [1, 4]
    assert model.history.sessions.max() == 4


def test_explain_prints_one_country_or_the_summary(fitted: Path, tmp_path: Path, capsys) -> None:
    assert main(["irl", "explain", str(fitted), "--country", "Country 002"]) == 0
    text = capsys.readouterr().out
    assert "Reward weights of Country 002" in text and "issue_hr" in text and "yes_se" in text
    assert main(["irl", "explain", str(fitted), "--plots", str(tmp_path)]) == 0
    assert "across 6 countries" in capsys.readouterr().out
    assert (tmp_path / "weights_heatmap.png").stat().st_size > 1000
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
    assert list(table.columns) == ["rcid", "country_code", "p_yes", "p_no", "p_abstain"]
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


def test_bad_input_is_a_one_line_error(
    fitted: Path, small_unvotes_folder: Path, tmp_path: Path, capsys
) -> None:
    assert _fit(tmp_path / "m", "--data", str(small_unvotes_folder), "--country", "Atlantis") == 2
    assert "unknown country 'Atlantis'" in capsys.readouterr().err
    assert _fit(tmp_path / "m", "--data", str(small_unvotes_folder), "--sessions", "9-3") == 2
    assert "after last session" in capsys.readouterr().err
    assert main(["irl", "explain", str(fitted), "--country", "Atlantis"]) == 2
    assert "unknown country" in capsys.readouterr().err
    assert main(["irl", "explain", str(tmp_path / "nothing")]) == 2
    assert "not found" in capsys.readouterr().err
    assert _predict(fitted, tmp_path, tmp_path / "p.csv") == 2
    assert "no un_roll_calls.csv.gz" in capsys.readouterr().err


def test_fit_on_the_synthetic_default(tmp_path: Path, capsys) -> None:
    countries = ["--country", "Country 001", "Country 002"]
    assert _fit(tmp_path, "--synthetic", *countries, "--no-standard-errors", "--quiet") == 0
    assert RewardModel.load(tmp_path).countries == ("Country 001", "Country 002")
