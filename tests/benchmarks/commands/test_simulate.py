"""``assembly-gym simulate``: whole sessions played by learned rewards, and counterfactuals."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import assembly_gym.benchmarks.commands.simulate as simulate_command
from assembly_gym.benchmarks.cli import main
from assembly_gym.benchmarks.simulation import (
    Interventions,
    majority_play,
    members,
    set_roll_call_features,
    simulate,
)
from assembly_gym.benchmarks.simulation_report import report_simulation
from assembly_gym.envs.legislative.data import ABSENT, Vote
from assembly_gym.envs.legislative.sources import default_assembly
from assembly_gym.irl.base import RewardModel
from assembly_gym.irl.rollcall import fit_reward_model

COUNTRIES = 6  # of the synthetic default's 40: a small, fast fit
SESSIONS = ["--sessions", "16-20"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """A linear reward of a few countries, fitted on sessions 1–15 of the synthetic default."""
    data = default_assembly().data.select_sessions(1, 15)
    model = fit_reward_model(
        data, data.country_names[:COUNTRIES], kind="linear", standard_errors=False
    )
    return model.save(tmp_path_factory.mktemp("model") / "model")


@pytest.fixture(scope="module")
def model(model_dir):
    return RewardModel.load(model_dir)


@pytest.fixture(scope="module")
def roll_calls():
    return default_assembly().data.select_sessions(16, 20).roll_calls


def _run(model_dir, out, *flags):
    argv = ["simulate", str(model_dir), *SESSIONS, "--out", str(out)]
    assert main([*argv, "--bootstrap", "50", *flags]) == 0
    return json.loads((out / "results.json").read_text()), pd.read_csv(out / "roll_calls.csv")


def test_end_to_end_on_the_synthetic_default(model_dir, tmp_path, capsys):
    results, per_roll_call = _run(model_dir, tmp_path / "out", "--force", "all=no")
    printed = capsys.readouterr().out
    assert "| learned rewards " in printed and "| historical majority " in printed
    assert "agent-decisions/s" in printed and "reproduce: assembly-gym simulate" in printed
    assert results["kind"] == "assembly-gym simulation"
    assert {"yes_share.png", "yes_share_distributions.png", "counterfactual.png"} <= set(
        results["files"]
    )
    learned, majority = results["results"]
    assert (learned["policy"], majority["policy"]) == ("learned rewards", "historical majority")
    for row in (learned, majority):
        for name in ("accuracy", "macro_f1", "outcome_accuracy", "yes_share_mae", "ks"):
            low, high = row[f"{name}_ci"]
            assert 0.0 <= low <= row[name] <= high <= 1.0, name
    assert learned["log_loss"] < majority["log_loss"]  # the rewards know more than the majority
    assert len(per_roll_call) == 200 and results["voters"] == results["voters"][:COUNTRIES]
    assert results["counterfactual"]["adopted"][1] == 0 and "--force all=no" in printed


def test_a_model_of_another_kind_plays_alike(tmp_path, capsys):
    data = default_assembly().data.select_sessions(1, 15)
    model = fit_reward_model(data, data.country_names[:3], kind="trees", n_trees=50, threads=1)
    folder = model.save(tmp_path / "m")
    results, per_roll_call = _run(folder, tmp_path / "out", "--force", "Country 001=no")
    learned, majority = results["results"]
    assert learned["log_loss"] < majority["log_loss"] and len(per_roll_call) == 200
    assert results["counterfactual"] is not None and "| learned rewards " in capsys.readouterr().out


def test_forcing_every_country_to_vote_no_adopts_nothing(model, roll_calls):
    baseline = simulate(model, roll_calls, seed=1)
    forced = simulate(
        model, roll_calls, seed=1, interventions=Interventions(force=(("all", "no"),))
    )
    assert baseline.adopted.any() and not forced.adopted.any()
    assert (forced.votes == Vote.NO).all()


def test_a_forced_bloc_moves_only_its_own_votes(model, roll_calls):
    """Same seed, paired draws: the countries outside the bloc cast the very same votes."""
    voters = members(model)
    bloc = Interventions(force=((f"{voters[0]}+{voters[1]}", "abstain"),))
    baseline = simulate(model, roll_calls, seed=2)
    forced = simulate(model, roll_calls, seed=2, interventions=bloc)
    assert (forced.votes[:2] == Vote.ABSTAIN).all()
    np.testing.assert_array_equal(forced.votes[2:], baseline.votes[2:])


def test_a_replaced_reward_votes_as_the_other_country(model, roll_calls):
    a, b = members(model)[:2]
    swap = Interventions(replace_reward=((a, b),))
    played = [simulate(model, roll_calls, seed=s, interventions=swap) for s in range(30)]
    np.testing.assert_array_equal(played[0].probs[0], played[0].probs[1])
    assert not np.array_equal(played[0].probs[0], simulate(model, roll_calls).probs[0])
    shares = np.array([[(p.votes[i] == v).mean() for v in Vote] for p in played for i in (0, 1)])
    np.testing.assert_allclose(shares[0::2].mean(axis=0), shares[1::2].mean(axis=0), atol=0.02)
    assert not np.array_equal(played[0].votes[0], played[0].votes[1])  # drawn independently


def test_the_same_seed_reproduces_and_another_does_not(model_dir, tmp_path):
    first, table = _run(model_dir, tmp_path / "a", "--seed", "7", "--set", "important=1")
    again, table_again = _run(model_dir, tmp_path / "b", "--seed", "7", "--set", "important=1")
    other, table_other = _run(model_dir, tmp_path / "c", "--seed", "8", "--set", "important=1")
    assert (
        first["results"] == again["results"] and first["counterfactual"] == again["counterfactual"]
    )
    pd.testing.assert_frame_equal(table, table_again)
    assert not table["simulated_yes_share"].equals(table_other["simulated_yes_share"])


def test_the_simulation_never_reads_the_votes_of_the_simulated_sessions(
    model_dir, tmp_path, monkeypatch
):
    data = default_assembly().data
    simulated = data.roll_calls["session"].between(16, 20).to_numpy()
    votes = data.votes.copy()
    rng = np.random.default_rng(0)
    votes[:, simulated] = rng.permuted(votes[:, simulated], axis=1)  # scrambled within sessions
    votes[0, simulated] = ABSENT
    scrambled = replace(data, votes=votes)
    _, honest = _run(model_dir, tmp_path / "honest")
    monkeypatch.setattr(simulate_command, "roll_call_data", lambda spec: scrambled)
    _, fooled = _run(model_dir, tmp_path / "scrambled")
    for column in ("simulated_yes_share", "simulated_adopted", "majority_yes_share"):
        pd.testing.assert_series_equal(honest[column], fooled[column])
    assert not honest["real_yes_share"].equals(fooled["real_yes_share"])  # the scores did read


def test_the_report_scores_both_plays_and_the_counterfactual(model, roll_calls):
    real = default_assembly().data.select_sessions(16, 20)
    played = simulate(model, roll_calls, seed=4)
    majority = majority_play(model, roll_calls, members(model))
    no_one_agrees = Interventions(force=(("all", "no"),))
    forced = simulate(model, roll_calls, seed=4, interventions=no_one_agrees)
    rng = np.random.default_rng(0)
    plain = report_simulation(real, played, majority, n_resamples=20, rng=rng)
    assert list(plain.scores["policy"]) == ["learned rewards", "historical majority"]
    assert plain.counterfactual is None and "Counterfactual" not in plain.text
    assert set(plain.files) == {"yes_share.png", "yes_share_distributions.png",
                                "roll_calls.csv", "countries.csv"}  # fmt: skip
    both = report_simulation(real, played, majority, forced, n_resamples=20, rng=rng,
                             title="--force all=no")  # fmt: skip
    assert "Counterfactual --force all=no (seed 4: the baseline's draws)" in both.text
    assert both.counterfactual["adopted"][1] == 0 and "counterfactual.png" in both.files
    assert b"intervened_adopted" in both.files["roll_calls.csv"]


def test_majority_play_casts_each_countrys_most_frequent_training_vote(model, roll_calls):
    voters = members(model)
    played = majority_play(model, roll_calls, voters)
    history = model.history
    for i, country in enumerate(voters):
        past = history.votes[history.country_index(country)]
        majority = np.bincount(past[past != ABSENT], minlength=3).argmax()
        assert (played.votes[i] == majority).all()
        assert played.probs[i, 0].argmax() == majority


def test_setting_an_issue_makes_it_the_only_issue(roll_calls):
    table = set_roll_call_features(roll_calls, (("issue", "nu"), ("important", "1")))
    assert table["issue_nu"].all() and not table[["issue_me", "issue_hr"]].any(axis=None)
    assert (table["important"] == 1.0).all() and not roll_calls["issue_nu"].all()


def _refused(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    return err[0]


def test_without_sessions_it_plays_those_after_the_training_sessions(model_dir, tmp_path, capsys):
    results, table = _run(model_dir, tmp_path / "a", "--seed", "3")
    assert results["options"]["command"].startswith(f"assembly-gym simulate {model_dir} --")
    capsys.readouterr()
    argv = ["simulate", str(model_dir), "--out", str(tmp_path / "b")]
    assert main([*argv, "--bootstrap", "50", "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Simulating sessions 16–20, those after the model's training "
                              "sessions 1–15 (--sessions A-B picks others)\n")  # fmt: skip
    again = json.loads((tmp_path / "b" / "results.json").read_text())
    assert again["options"]["sessions"] == [16, 20] and not again["in_sample"]
    assert "--sessions 16-20 --seed 3" in again["options"]["command"]
    pd.testing.assert_frame_equal(table, pd.read_csv(tmp_path / "b" / "roll_calls.csv"))


def test_without_sessions_a_model_of_every_session_is_refused(tmp_path, capsys):
    data = default_assembly().data
    model = fit_reward_model(data, data.country_names[:2], kind="linear", standard_errors=False)
    folder = model.save(tmp_path / "all")
    line = _refused(["simulate", str(folder), "--out", str(tmp_path / "o")], capsys)
    assert "no sessions after the model's training sessions 1–20: give --sessions A-B" in line


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--force", "P5=maybe"], "argument --force: expected WHO=VOTE"),
        (["--force", "=no"], "argument --force: expected WHO=VOTE"),
        (["--replace-reward", "France"], "argument --replace-reward: expected A=B"),
        (["--set", "issue=xx"], "argument --set/--set-feature: issue='xx': expected one of"),
        (["--set", "colour=1"], "unknown attribute 'colour'"),
        (["--set", "important=2"], "important='2': expected 0 or 1"),
    ],
)
def test_a_bad_intervention_is_refused_while_parsing(flags, message, tmp_path, capsys):
    argv = ["simulate", str(tmp_path / "m"), *SESSIONS, "--out", str(tmp_path / "o")]
    line = _refused([*argv, *flags], capsys)
    assert line.startswith("assembly-gym simulate: error: ") and message in line, line


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--replace-reward", "Atlantis=Country 001"], "unknown country 'Atlantis'"),
        (["--force", "Country 001+Country 039=no"], "unknown country 'Country 039'"),
        (["--force", "P5=no"], "unknown country 'China'"),
        (["--sessions", "20-16"], "first session 20 is after last session 16"),
        (["--sessions", "40-41"], "no roll calls in sessions 40..41"),
    ],
)
def test_countries_and_sessions_are_checked_before_any_play(
    flags, message, model_dir, tmp_path, capsys, monkeypatch
):
    def forbidden(*args, **kwargs):
        raise AssertionError("simulated before the arguments were checked")

    monkeypatch.setattr("assembly_gym.benchmarks.simulation.simulate", forbidden)
    argv = ["simulate", str(model_dir), *SESSIONS, "--out", str(tmp_path / "o")]
    line = _refused([*argv, *flags], capsys)
    assert line.startswith("assembly-gym simulate: error: ") and message in line, line
    assert not (tmp_path / "o").exists()
