"""The outputs of an ideal-point model: fit statistics, agreement, distances, maps, shifts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl import ideal_analysis
from assembly_gym.irl.ideal import IdealPointModel
from assembly_gym.irl.ideal_analysis import (
    agreement,
    distances,
    fit_statistics,
    pick_countries,
    plot_agreement,
    plot_maps,
    plot_positions,
    positions_by_decade,
    separating_roll_calls,
    session_years,
    shift_outcomes,
)
from assembly_gym.irl.rollcall import fit_reward_model


@pytest.fixture(scope="module")
def data():
    """Eight countries, four sessions from 1955: two decades (1946–1955, 1956–1965)."""
    return generate_assembly(SyntheticConfig(n_countries=8, n_sessions=4, first_year=1955)).data


@pytest.fixture(scope="module")
def model(data) -> IdealPointModel:
    fitted = fit_reward_model(data, kind="ideal", dims=2)
    assert isinstance(fitted, IdealPointModel)
    return fitted


@pytest.fixture(scope="module")
def line(data) -> IdealPointModel:
    fitted = fit_reward_model(data, kind="ideal", dims=1)
    assert isinstance(fitted, IdealPointModel)
    return fitted


def _by_hand(model: IdealPointModel) -> pd.DataFrame:
    """Every training vote with its probabilities, one roll call at a time (the slow way)."""
    history = model.history
    rows = []
    for column, rcid in enumerate(history.roll_calls["rcid"]):
        item = int(np.flatnonzero(model.rcids == rcid)[0])
        for row, name in enumerate(model.countries):
            vote = history.votes[history.country_index(name), column]
            if vote != ABSENT:
                p = softmax(model.item_logits(np.array([row]), np.array([item]))[0])
                rows.append({"rcid": rcid, "vote": vote, "p": p})
    return pd.DataFrame(rows)


def test_fit_statistics_are_apre_gmp_and_the_share_correct(model) -> None:
    overall, table = fit_statistics(model)
    votes = _by_hand(model)
    votes["correct"] = [p.argmax() == v for p, v in zip(votes["p"], votes["vote"], strict=True)]
    votes["log_p"] = [np.log(p[v]) for p, v in zip(votes["p"], votes["vote"], strict=True)]
    minority = votes.groupby("rcid")["vote"].agg(lambda v: len(v) - v.value_counts().max())
    errors = votes.groupby("rcid")["correct"].agg(lambda c: (~c).sum())
    assert overall["n_votes"] == len(votes) and overall["n_roll_calls"] == len(table)
    assert overall["correct"] == pytest.approx(votes["correct"].mean())
    assert overall["gmp"] == pytest.approx(np.exp(votes["log_p"].mean()))
    assert overall["apre"] == pytest.approx((minority - errors).sum() / minority.sum())
    assert 0.5 < overall["correct"] <= 1 and 0 < overall["gmp"] <= 1 and overall["apre"] > 0
    table = table.set_index("rcid")
    np.testing.assert_allclose(table["apre"], ((minority - errors) / minority.where(minority > 0))
                               .reindex(table.index))  # fmt: skip
    np.testing.assert_allclose(table["gmp"], np.exp(votes.groupby("rcid")["log_p"].mean()))
    assert table["n_votes"].sum() == len(votes) and table["correct"].between(0, 1).all()
    assert set(table["session"]) == {1, 2, 3, 4}


def test_fit_statistics_of_other_votes_keep_the_training_roll_calls(model, data) -> None:
    overall, table = fit_statistics(model, data.select_sessions(3, 4))
    assert set(table["session"]) == {3, 4} and overall["n_votes"] == table["n_votes"].sum()
    later = generate_assembly(SyntheticConfig(n_countries=8, n_sessions=6, first_year=1955)).data
    with pytest.raises(DataError, match="no vote of the model's countries"):
        fit_statistics(model, later.select_sessions(5, 6))  # roll calls it was not fitted on


def test_positions_once_a_decade(model) -> None:
    assert session_years(model).tolist() == [1955, 1956, 1957, 1958]
    table = positions_by_decade(model, ["Country 004", "Country 002"])
    assert table["country"].tolist() == ["Country 004"] * 2 + ["Country 002"] * 2
    assert table["session"].tolist() == [1, 2, 1, 2] and table["year"].tolist()[:2] == [1955, 1956]
    assert {"x1", "x1_lo", "x2_hi"} <= set(table.columns)
    with pytest.raises(DataError, match="unknown country 'Atlantis'"):
        positions_by_decade(model, ["Atlantis"])


def test_pick_countries(model, monkeypatch) -> None:
    votes = {name: n for name, n in model.info["n_votes"].items()}
    most = sorted(votes, key=lambda name: -votes[name])
    assert pick_countries(model) == most[:5]  # none of France, the United States, … here
    assert pick_countries(model, ["Country 007", "Country 007"]) == ["Country 007"]
    chosen = pick_countries(model, ["Country 007"], total=4)
    assert chosen[0] == "Country 007" and len(chosen) == 4 and len(set(chosen)) == 4
    monkeypatch.setattr(ideal_analysis, "DEFAULT_COUNTRIES", ("Country 003", "Atlantis"))
    assert pick_countries(model) == ["Country 003"]
    with pytest.raises(DataError, match="unknown country"):
        pick_countries(model, ["Atlantis"])


def test_agreement_is_the_share_of_shared_roll_calls_voted_alike(data) -> None:
    names = ["Country 001", "Country 002", "Country 008"]
    table = agreement(data, names)
    assert table.index.tolist() == names and np.allclose(table, table.T)
    assert np.allclose(np.diag(table), 1.0)
    a, b = (data.votes[data.country_index(n)] for n in names[:2])
    both = (a != ABSENT) & (b != ABSENT)
    assert table.loc[names[0], names[1]] == pytest.approx((a[both] == b[both]).mean())
    assert not agreement(data, names, (2, 2)).equals(table)
    with pytest.raises(DataError, match="no roll calls in sessions"):
        agreement(data, names, (7, 9))
    with pytest.raises(DataError, match="unknown country"):
        agreement(data, ["Atlantis"])


def test_distances_between_mean_positions(model) -> None:
    names = ["Country 001", "Country 005"]
    table = distances(model, names, (2, 3))
    x = [model.positions[model.country_index(n), 1:3].mean(axis=0) for n in names]
    assert table.loc[names[0], names[1]] == pytest.approx(np.linalg.norm(x[0] - x[1]))
    assert np.allclose(np.diag(table), 0) and np.allclose(table, table.T)
    with pytest.raises(DataError, match="no fitted session in 7–9"):
        distances(model, names, (7, 9))


def test_separating_roll_calls_have_the_cut_between_the_two(model) -> None:
    table = separating_roll_calls(model, "Country 001", "Country 008", top=5)
    assert 0 < len(table) <= 5 and (table["margin_a"] * table["margin_b"] < 0).all()
    assert table["separation"].is_monotonic_decreasing
    np.testing.assert_allclose(table["separation"], (table["margin_a"] - table["margin_b"]).abs())
    history = model.history
    column = history.roll_calls.index[history.roll_calls["rcid"] == table["rcid"].iloc[0]][0]
    recorded = history.votes[history.country_index("Country 001"), column]
    assert table["vote_a"].iloc[0] == ("absent" if recorded == ABSENT else
                                       model.action_names[recorded])  # fmt: skip
    assert list(table.columns[:3]) == ["rcid", "session", "short"]
    with pytest.raises(DataError, match="both Country 001"):
        separating_roll_calls(model, "Country 001", "Country 001")


def test_shift_outcomes_lists_the_roll_calls_that_flip(model) -> None:
    assert shift_outcomes(model, "Country 001", [0.0]).empty
    moves = [(country, sign * np.array([4.0, 2.0])) for country in model.countries
             for sign in (-1, 1)]  # fmt: skip
    country, delta = next((c, d) for c, d in moves if len(shift_outcomes(model, c, d)))
    table = shift_outcomes(model, country, delta)
    assert (table["before"] != table["after"]).all()
    assert list(table.columns) == ["rcid", "session", "short", "before", "after", "vote_before",
                                   "vote_after"]  # fmt: skip
    assert set(table["before"]) | set(table["after"]) == {"adopted", "rejected"}
    session = int(table["session"].iloc[0])
    within = shift_outcomes(model, country, delta, (session, session))
    assert within["rcid"].tolist() == table[table["session"] == session]["rcid"].tolist()
    padded = shift_outcomes(model, country, delta[:1])
    assert padded.equals(shift_outcomes(model, country, [delta[0], 0.0]))
    with pytest.raises(ValueError, match="3 numbers; the model has 2 dimensions"):
        shift_outcomes(model, country, [1.0, 1.0, 1.0])
    with pytest.raises(DataError, match="no fitted session in 7–9"):
        shift_outcomes(model, country, delta, (7, 9))


def test_plots_are_written(model, line, data, tmp_path) -> None:
    names = ["Country 001", "Country 002"]
    paths = [
        plot_positions(model, names, tmp_path / "positions.png"),
        plot_positions(line, names, tmp_path / "positions1.png"),
        plot_maps(model, tmp_path / "maps.png", block=2),
        plot_maps(line, tmp_path / "strip.png", block=3),
        plot_agreement(agreement(data, data.country_names), tmp_path / "agreement.png"),
    ]
    for path in paths:
        assert path.read_bytes()[:4] == b"\x89PNG" and path.stat().st_size > 1000
