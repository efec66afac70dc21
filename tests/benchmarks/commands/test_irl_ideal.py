"""``assembly-gym irl fit --kind ideal`` and ``irl ideal``: positions, fit, plots, shifts."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pandas as pd
import pytest

from assembly_gym.benchmarks.cli import main
from assembly_gym.irl.base import RewardModel
from assembly_gym.irl.ideal import DEFAULT_WALK, IdealPointModel

COUNTRIES = [f"Country 00{i}" for i in range(1, 9)]


def _fit(out: Path, *flags: str) -> int:
    """``assembly-gym irl fit --synthetic --sessions 1-4 FLAGS --out OUT --quiet``."""
    return main(["irl", "fit", "--synthetic", "--sessions", "1-4", *flags, "--out", str(out),
                 "--quiet"])  # fmt: skip


def _error(argv: list[str], capsys) -> str:
    """The one stderr line of a refused command (argparse exits 2, later refusals return 2)."""
    with contextlib.suppress(SystemExit):
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error: " in err and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.fixture(scope="module")
def fitted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ideal")
    assert _fit(out, "--kind", "ideal", "--dims", "1", "--country", *COUNTRIES) == 0
    return out


def test_fit_prints_dims_iterations_and_the_in_sample_fit(tmp_path: Path, capsys) -> None:
    assert _fit(tmp_path, "--kind", "ideal", "--dims", "2", "--walk", "0.3",
                "--country", *COUNTRIES[:5]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "Fitted 5 countries' ideal rewards" in text and "converged=" in text
    assert "2-dimensional ideal points (random walk 0.3 per session)" in text
    assert "L-BFGS iterations" in text and "In-sample fit" in text and "APRE" in text
    assert "GMP" in text and "correctly classified" in text
    model = RewardModel.load(tmp_path)
    assert isinstance(model, IdealPointModel) and model.dims == 2 and model.info["walk"] == 0.3
    assert (tmp_path / "ideal_points.csv").exists()


def test_the_fitted_model_has_its_defaults(fitted: Path) -> None:
    model = RewardModel.load(fitted)
    assert isinstance(model, IdealPointModel) and model.dims == 1
    assert model.info["walk"] == DEFAULT_WALK and model.countries == tuple(COUNTRIES)


def test_dims_and_walk_belong_to_the_ideal_kind(tmp_path: Path, capsys) -> None:
    for flag in (["--dims", "2"], ["--walk", "0.2"]):
        err = _error(["irl", "fit", "--kind", "trees", *flag, "--out", str(tmp_path / "m")], capsys)
        assert f"{flag[0]}: applies to --kind ideal only, not --kind trees" in err
        err = _error(["irl", "fit", *flag, "--out", str(tmp_path / "m")], capsys)
        assert "(the default): add --kind ideal" in err
    for flag in (["--dims", "4"], ["--dims", "0"], ["--walk", "0"]):
        assert "expected" in _error(["irl", "fit", "--kind", "ideal", *flag, "--out",
                                     str(tmp_path / "m")], capsys)  # fmt: skip
    assert not (tmp_path / "m").exists()


def test_ideal_prints_positions_by_decade_and_the_fit(fitted: Path, capsys) -> None:
    assert main(["irl", "ideal", str(fitted)]) == 0
    text = capsys.readouterr().out
    assert "Positions at the first session of each decade" in text and "x1 [95% interval]" in text
    assert "APRE" in text and "GMP" in text and "correctly classified" in text
    shown = [line.split("  ")[0] for line in text.splitlines() if line.startswith("Country")]
    assert len(shown) == 5  # none of the default countries here: the five with most votes
    assert main(["irl", "ideal", str(fitted), "--country", "Country 003", "--country",
                 "Country 007"]) == 0  # fmt: skip
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Country")]
    assert [line.split()[1] for line in lines] == ["003", "007"]


def test_ideal_plots(fitted: Path, tmp_path: Path, capsys) -> None:
    assert main(["irl", "ideal", str(fitted), "--plots", str(tmp_path), "--sessions", "2-3"]) == 0
    assert "Wrote positions.png, maps.png, agreement.png" in capsys.readouterr().out
    for name in ("positions.png", "maps.png", "agreement.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
    agreement = pd.read_csv(tmp_path / "agreement.csv", index_col=0)
    distances = pd.read_csv(tmp_path / "distances.csv", index_col=0)
    assert agreement.shape == distances.shape == (8, 8)  # every country: fewer than 30
    by_roll_call = pd.read_csv(tmp_path / "fit_by_roll_call.csv")
    assert list(by_roll_call.columns) == ["rcid", "session", "n_votes", "correct", "apre", "gmp"]


def test_ideal_separates_two_countries(fitted: Path, capsys) -> None:
    flags = ["--separate", "Country 001", "Country 008", "--top", "3"]
    assert main(["irl", "ideal", str(fitted), *flags]) == 0
    text = capsys.readouterr().out
    assert "best separate Country 001 (a) and Country 008 (b)" in text
    table = text[text.index("best separate"):].splitlines()
    assert "separation" in table[1] and "vote_a" in table[1] and 2 <= len(table) <= 5


def test_ideal_shift_shows_the_outcomes_that_change(fitted: Path, capsys) -> None:
    flags = ["--shift", "Country 001=+0", "--sessions", "2-3"]
    assert main(["irl", "ideal", str(fitted), *flags]) == 0
    text = capsys.readouterr().out
    assert "Moving Country 001 by (+0) changes the predicted outcome of 0 training roll " in text
    assert "of sessions 2–3" in text
    assert main(["irl", "ideal", str(fitted), "--shift", "Country 001=+6"]) == 0
    text = capsys.readouterr().out
    assert "Moving Country 001 by (+6)" in text


def test_bad_ideal_arguments_are_one_line(fitted: Path, tmp_path: Path, capsys) -> None:
    ideal = ["irl", "ideal", str(fitted)]
    assert "unknown country 'Atlantis'" in _error([*ideal, "--country", "Atlantis"], capsys)
    assert "unknown country" in _error([*ideal, "--separate", "Atlantis", "Country 001"], capsys)
    same = ["--separate", "Country 001", "Country 001"]
    assert "both Country 001" in _error([*ideal, *same], capsys)
    assert "unknown country" in _error([*ideal, "--shift", "Atlantis=1"], capsys)
    for bad in ("France", "=1", "France=", "France=a", "France=1,2,3,4", "France=nan"):
        assert "expected NAME=DELTA" in _error([*ideal, "--shift", bad], capsys)
    err = _error([*ideal, "--shift", "Country 001=1,2"], capsys)
    assert "--shift: 2 numbers for a model of 1 dimensions" in err
    assert "no fitted session in 7–9" in _error([*ideal, "--shift", "Country 001=1",
                                                 "--sessions", "7-9"], capsys)  # fmt: skip
    assert "chooses the sessions of --shift and --plots" in _error([*ideal, "--sessions", "1-2"],
                                                                   capsys)  # fmt: skip
    linear = tmp_path / "linear"
    assert _fit(linear, "--kind", "linear", "--country", "Country 001",
                "--no-standard-errors") == 0  # fmt: skip
    capsys.readouterr()
    err = _error(["irl", "ideal", str(linear)], capsys)
    assert "holds a linear reward model; `irl ideal` reads ideal points" in err
