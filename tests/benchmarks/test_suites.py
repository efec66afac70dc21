"""Every suite runs on tiny data; every agent honours the protocol; --jobs changes nothing."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from assembly_gym.agents.base import Agent
from assembly_gym.benchmarks.commands.bench import _restricted
from assembly_gym.benchmarks.executor import LocalExecutor
from assembly_gym.benchmarks.suites import SUITES, Options, SuiteResult, run_suite
from assembly_gym.benchmarks.suites.base import PAIRED_METRICS, AgentSpec, CommonSubset, build_task
from assembly_gym.benchmarks.suites.catalog import reward_spec
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.irl.linear import DEFAULT_L2
from assembly_gym.irl.rollcall import DEFAULT_FEATURES, DEFAULT_KIND

QUICK = Options(quick=True, n_bootstrap=50)
CHEAP = ("majority", "last-similar-vote", "maxent-irl (linear)")
PAIRED = [f"{metric}_{part}" for metric in PAIRED_METRICS for part in ("diff", "p")]


@pytest.fixture(scope="module")
def synthetic_result():
    return run_suite(SUITES["synthetic"], QUICK, progress=False)


def test_synthetic_suite_scores_every_agent_on_the_same_votes(synthetic_result):
    table = synthetic_result.table.set_index("agent")
    every_spec = SUITES["synthetic"].agents(build_task(SUITES["synthetic"], QUICK), QUICK)
    specs = [s for s in every_spec if not s.missing]  # an agent's optional extra may be absent
    assert list(table.index) == [s.name for s in specs]
    assert synthetic_result.skipped == {s.name: s.missing for s in every_spec if s.missing}
    # same held-out decisions for every agent that runs on every country
    every = table.loc[[s.name for s in specs if s.max_countries is None], "n"]
    assert (every == every.iloc[0]).all() and len(every) >= len(specs) - 2  # BC and MCE-IRL
    # (ECE is left out: it is biased upward under resampling, so its percentile interval
    # may exclude the point estimate; the report shows it as computed.)
    for metric in ("accuracy", "log_loss", "brier"):
        low, high = zip(*table[f"{metric}_ci"], strict=True)
        assert (np.array(low) <= table[metric] + 1e-12).all() and (
            table[metric] <= np.array(high) + 1e-12
        ).all()
    # the planted policy is the ceiling; random is the floor of log-loss
    assert table.loc["planted (oracle)", "log_loss"] < table.loc["majority", "log_loss"]
    assert table.loc["random", "log_loss"] == pytest.approx(np.log(3))
    assert table.loc["planted (oracle)", "true_reward"] > table.loc["random", "true_reward"]
    # reward recovery is reported for the agent that learns a reward, and only for it
    assert table["reward_corr"].notna().sum() >= 1
    # every row is tested against the default reward on the three metrics
    default = f"maxent-irl ({DEFAULT_KIND})"
    assert (table["reference"] == default).all()
    assert table.loc[default, PAIRED].isna().all()  # itself
    assert table.loc["random", ["log_loss_p", "accuracy_p", "macro_f1_p"]].max() < 0.05
    assert table.loc["random", "log_loss_diff"] > 0 > table.loc["random", "accuracy_diff"]
    majority = table.loc["majority"]
    assert majority["accuracy_diff"] == pytest.approx(
        majority["accuracy"] - table.loc[default, "accuracy"]
    )
    text = synthetic_result.to_markdown()
    assert f"Δ: the row minus {default} (the reference row)" in text
    assert "(p=0.0" in text and "| Δ macro-F1 " in text
    standing = next(line for line in text.splitlines() if line.startswith(f"{default} against"))
    assert "log-loss not ahead of" in standing and "planted (oracle)" in standing


def test_the_header_says_where_the_reference_row_is_ahead():
    nan = float("nan")
    table = pd.DataFrame({
        "agent": ["default", "a", "b"], "reference": "default",
        "accuracy_diff": [nan, -0.02, -0.01], "accuracy_p": [nan, 0.001, 0.2],
        "macro_f1_diff": [nan, -0.1, -0.2], "macro_f1_p": [nan, 0.001, 0.001],
        "log_loss_diff": [nan, 0.05, -0.01], "log_loss_p": [nan, 0.001, 0.3],
    })  # fmt: skip
    result = SuiteResult("s", "a suite", "a split", "data", ("A",), {"yes": 1.0}, 1.0, table)
    assert result.header_text().endswith(
        "\ndefault against every other row: accuracy ahead, not surely (p ≥ 0.05) of b; "
        "macro-F1 ahead (p < 0.05); log-loss not ahead of b."
    )


def test_every_agent_honours_the_protocol():
    task = build_task(SUITES["synthetic"], QUICK)
    country = task.countries[0]
    obs, _, masks = task.test_arrays(country)
    for spec in SUITES["synthetic"].agents(task, QUICK):
        if spec.name.startswith("imitation BC") or spec.missing:
            continue  # slow, covered by tests/agents; or its optional extra is absent here
        agent = spec.fit(task, [country])[country]
        assert isinstance(agent, Agent), spec.name
        probs = agent.action_probs(obs, masks)
        assert probs.shape == (len(obs), task.n_actions), spec.name
        np.testing.assert_allclose(probs.sum(axis=1), 1.0, err_msg=spec.name)
        assert agent.act(obs, masks).shape == (len(obs),)


def test_parallel_jobs_give_the_same_table():
    suite = _restricted(SUITES["synthetic"], CHEAP)
    one = run_suite(suite, QUICK, progress=False)
    two = run_suite(suite, QUICK, executor=LocalExecutor(2), progress=False)
    columns = [c for c in one.table.columns if "seconds" not in c]
    pd.testing.assert_frame_equal(one.table[columns], two.table[columns])


def test_unvotes_suite_on_a_small_folder(unvotes_folder):
    options = Options(data=str(unvotes_folder), n_bootstrap=50)
    result = run_suite(_restricted(SUITES["unvotes"], CHEAP), options, progress=False)
    assert result.source == str(unvotes_folder) and len(result.countries) == 5
    assert "true_reward" not in result.table  # no planted truth in real data
    assert set(result.table["agent"]) == set(CHEAP)


def test_real_votes_get_the_validated_configuration(unvotes_folder):
    """``unvotes`` reads the default reward's features and runs the linear reward as ``irl fit
    --kind linear --data`` does; ``synthetic`` keeps the env's features and λ = 10."""
    for name, options, features, l2 in (
        ("unvotes", Options(data=str(unvotes_folder)), DEFAULT_FEATURES, DEFAULT_L2),
        ("synthetic", QUICK, None, 10.0),
    ):
        task = build_task(SUITES[name], options)
        assert task.layout.names == feature_names(*([features] if features else []))
        (spec,) = _restricted(SUITES[name], ("maxent-irl (linear)",)).agents(task, options)
        agent = spec.fit(task, task.countries[:2])[task.countries[0]]
        assert agent.model_.info["l2"] == l2


def test_same_seed_same_numbers_other_seed_other_intervals():
    suite = _restricted(SUITES["synthetic"], ("majority",))
    a = run_suite(suite, QUICK, progress=False).table
    b = run_suite(suite, QUICK, progress=False).table
    c = run_suite(suite, Options(quick=True, n_bootstrap=50, seed=1), progress=False).table
    assert a["log_loss_ci"].tolist() == b["log_loss_ci"].tolist()
    assert a["log_loss_ci"].tolist() != c["log_loss_ci"].tolist()


def test_deliberation_suite_scores_masked_multi_step_decisions():
    cheap = ("random", "majority", "maxent-irl (multi-step)")
    suite = _with_one_agent_on(2, SUITES["deliberation"], cheap)  # as GAIL, AIRL, MaskablePPO
    result = run_suite(suite, QUICK, progress=False)
    table = result.table.set_index("agent")
    assert set(table.index) == set(cheap)
    assert "cosponsor" in result.class_balance and "no_action" in result.class_balance
    # chance is the uniform guess among valid actions (2 at the draft, 4 at a vote)
    assert result.chance_log_loss == pytest.approx((np.log(2) + 2 * np.log(4)) / 3)
    assert table.loc["random", "log_loss"] == pytest.approx(result.chance_log_loss)
    assert result.common is not None and result.common.countries == result.countries[:2]
    common = result.common.table.set_index("agent")
    assert common.loc["maxent-irl (multi-step)", "log_loss"] < common.loc["majority", "log_loss"]


@pytest.mark.real_data
def test_deliberation_suite_on_the_real_un_documents():
    from assembly_gym.core.paths import documents_dir

    folder = documents_dir()
    if folder is None:
        pytest.skip("the real UN documents are absent ($ASSEMBLY_GYM_DATA or ../shared/data)")
    options = Options(data=str(folder), n_bootstrap=50)
    result = run_suite(
        _restricted(SUITES["deliberation"], ("majority", "random")), options, progress=False
    )
    assert "cosponsorship" in result.split
    assert set(result.class_balance) == {"cosponsor", "no_action"}  # draft decisions only
    assert len(result.countries) > 100


def _episodic_suite(scores: dict[str, dict[str, np.ndarray]], baselines: set[str]):
    """A suite whose agents return fixed per-episode scores."""
    from types import SimpleNamespace

    from assembly_gym.agents.base import EpisodeScores
    from assembly_gym.benchmarks.suites import EpisodicRunner, EpisodicSpec, Suite

    task = SimpleNamespace(split="eight episodes", source="fixed numbers")

    def agents(task, options):
        return [
            EpisodicSpec(name, lambda t, o, v=values: EpisodeScores(v, 1.0, 0.5), name in baselines)
            for name, values in scores.items()
        ]

    return Suite("toy", "a toy episodic suite", lambda options: task, agents,
                 metrics=("reward", "mse"), runner=EpisodicRunner("mse"))  # fmt: skip


def test_episodic_runner_scores_episodes_and_pairs_them_with_the_best_baseline():
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 0.01, 8)
    scores = {
        "weak": {"reward": -1.0 + noise, "mse": 1.0 + noise},
        "fair": {"reward": -0.5 + noise, "mse": 0.5 + noise},
        "good": {"reward": -0.1 + noise, "mse": 0.1 + noise},
        "no reads": {"reward": np.full(8, np.nan), "mse": 0.7 + noise},
    }
    result = run_suite(_episodic_suite(scores, {"weak", "fair", "no reads"}), QUICK, progress=False)
    table = result.table.set_index("agent")
    assert table.loc["fair", "vs_best_baseline"] == "fair"  # lowest MSE among the baselines
    assert table.loc["good", "mse"] == pytest.approx(scores["good"]["mse"].mean())
    low, high = table.loc["good", "mse_ci"]
    assert low < table.loc["good", "mse"] < high and high - low < 0.05
    assert table.loc["good", "mse_diff"] == pytest.approx(-0.4)
    assert table.loc["good", "p_value"] < 0.05 and table.loc["fair", "p_value"] == 1.0
    assert np.isnan(table.loc["no reads", "reward"]) and table.loc["no reads", "reward_ci"] is None
    assert (table["n"] == 8).all() and (table["fit_seconds"] == 1.0).all()
    text = result.to_markdown()
    assert text.startswith("a toy episodic suite. eight episodes. Data: fixed numbers.")
    assert "over held-out episodes" in text and "| no reads |" in text.replace("  ", "")


def test_an_episodic_spec_is_an_episodic_agent():
    from assembly_gym.agents.base import EpisodicAgent
    from assembly_gym.benchmarks.suites import EpisodicSpec

    assert isinstance(EpisodicSpec("noop", lambda task, options: None), EpisodicAgent)


@pytest.mark.slow
def test_memory_suite_quick_through_the_cli(tmp_path, capsys):
    """``bench --suite memory --quick``: the table, results.json/md and report.html."""
    import json

    from assembly_gym.benchmarks.cli import main

    assert main(["bench", "--suite", "memory", "--quick", "--quiet", "--bootstrap", "100",
                 "--out", str(tmp_path)]) == 0  # fmt: skip
    assert "## memory" in capsys.readouterr().out
    (suite,) = json.loads((tmp_path / "results.json").read_text())["suites"]
    rows = {row["agent"]: row for row in suite["results"]}
    assert set(rows) == {
        "random reads", "memory-less MLP", "SB3 PPO (1,024 steps)",
        "LeWorld (trained in-suite)", "oracle reads (noise floor)",
    }  # fmt: skip
    oracle, random = rows["oracle reads (noise floor)"], rows["random reads"]
    # The true transition mean scores the noise floor σ² = 0.01; one read of the first of two
    # regions leaves 0.075² of seed unknown; a random read of ±1 bits leaves 3 · 0.075².
    assert oracle["next_state_mse"] == pytest.approx(0.01, rel=0.15) and oracle["hit_rate"] == 1
    assert -oracle["reward"] == pytest.approx(0.01 + 0.075**2, rel=0.15)
    assert random["next_state_mse"] == pytest.approx(-random["reward"])
    assert random["next_state_mse"] == pytest.approx(0.01 + 3 * 0.075**2, rel=0.15)
    assert rows["memory-less MLP"]["reward"] is None or np.isnan(rows["memory-less MLP"]["reward"])
    for row in rows.values():
        low, high = row["next_state_mse_ci"]
        assert low <= row["next_state_mse"] <= high and row["n"] == 20
    assert rows["SB3 PPO (1,024 steps)"]["fit_seconds"] > 0
    assert {"memory_metrics.png", "report.html", "results.md"} <= {
        p.name for p in tmp_path.iterdir()
    }
    assert "memory_calibration.png" not in {p.name for p in tmp_path.iterdir()}


@pytest.mark.imitation
def test_neural_maxent_and_imitations_mce_irl_in_the_roll_call_suites(
    synthetic_result, unvotes_folder
):
    table = synthetic_result.table.set_index("agent")
    neural, mce_irl = "maxent-irl (neural)", "imitation MCE-IRL"
    for name in (neural, mce_irl):
        assert table.loc[name, "log_loss"] < table.loc["random", "log_loss"] - 0.2, name
        assert table.loc[name, "reward_corr"] > 0.5, name  # both learn a reward over (s, a)
    assert table.loc[neural, "countries"] == len(synthetic_result.countries)
    assert table.loc[mce_irl, "countries"] == 2  # bounded: a few countries only
    options = Options(data=str(unvotes_folder), n_bootstrap=50)
    task = build_task(SUITES["unvotes"], options)
    names = [spec.name for spec in SUITES["unvotes"].agents(task, options)]
    assert "maxent-irl (neural)" in names
    assert "imitation MCE-IRL" not in names  # no dense tabular MDP


def test_the_slow_learners_show_their_budgets():
    options = Options()
    task = build_task(SUITES["synthetic"], QUICK)  # the agents' budgets do not read the data
    specs = {spec.name: spec for spec in SUITES["synthetic"].agents(task, options)}
    assert specs["maxent-irl (neural)"].budget == "100 epochs"
    assert specs["imitation MCE-IRL"].budget == "last 200 votes, ≤200 steps"
    assert specs["imitation MCE-IRL"].max_countries == 10
    assert specs["imitation BC"].max_countries == 10


def test_metric_bars_accept_intervals_a_rounding_error_away_from_the_value():
    from assembly_gym.benchmarks.report import figure_png, metric_bars_figure

    table = pd.DataFrame({
        "agent": ["oracle", "no reads"],
        "hit_rate": [1.0, np.nan],
        "hit_rate_ci": [(1.0, 1.0 - 1e-16), None],  # a bootstrap mean of ones, one bit low
    })  # fmt: skip
    png = figure_png(metric_bars_figure(table, ["hit_rate"], "hits"))
    assert png.startswith(b"\x89PNG")


def test_two_agents_of_one_name_are_refused():
    def agents(task, options):
        return [reward_spec("linear"), reward_spec("linear", l2=1.0)]

    with pytest.raises(ValueError, match="has two agents named 'maxent-irl \\(linear\\)'"):
        run_suite(replace(SUITES["synthetic"], agents=agents), QUICK, progress=False)


def test_an_agent_whose_extra_is_missing_is_left_out_and_named():
    def fit(task, countries):
        raise AssertionError("never fitted: its extra is missing")

    spec = AgentSpec("needs-more", fit, requires="no_such_package_here")
    assert spec.missing == "needs `pip install 'assembly-gym[no_such_package_here]'`"
    assert AgentSpec("has-it", fit, requires="numpy").missing is None
    suite = SUITES["synthetic"]

    def agents(task, options):
        return [s for s in suite.agents(task, options) if s.name in CHEAP] + [spec]

    extended = replace(suite, agents=agents)
    result = run_suite(extended, QUICK, progress=False)
    assert "needs-more" not in set(result.table["agent"])
    assert result.skipped == {"needs-more": spec.missing}
    assert "Not run: needs-more (needs `pip install 'assembly-gym[no_such_package_here]'`)." in (
        result.to_markdown()
    )


def test_the_device_flag_is_checked_where_it_is_parsed():
    import argparse

    from assembly_gym.benchmarks.commands.flags import add_dataclass_flags, dataclass_from_flags

    parser = argparse.ArgumentParser()
    add_dataclass_flags(parser, Options)
    assert dataclass_from_flags(Options, parser.parse_args([])).device == "auto"
    assert dataclass_from_flags(Options, parser.parse_args(["--device", "cpu"])).device == "cpu"
    with pytest.raises(SystemExit):
        parser.parse_args(["--device", "tpu"])


def _with_one_agent_on(countries: int | None, suite=SUITES["synthetic"], cheap=CHEAP):
    """The ``cheap`` agents of ``suite``, the last of them run on its first ``countries``."""

    def agents(task, options):
        specs = [s for s in suite.agents(task, options) if s.name in cheap]
        return [replace(s, max_countries=countries) if s.name == cheap[-1] else s for s in specs]

    return replace(suite, agents=agents)


def test_agents_on_fewer_countries_are_also_scored_on_the_common_subset():
    result = run_suite(_with_one_agent_on(3), QUICK, progress=False)
    task = build_task(SUITES["synthetic"], QUICK)
    common = result.common
    assert common is not None and common.countries == task.countries[:3]
    assert common.n == sum(len(task.test_arrays(c)[1]) for c in common.countries)
    assert common.caption == (
        f"Common subset: 3 countries every agent ran on, {common.n:,} decisions"
    )
    subset = common.table.set_index("agent")
    assert list(subset.index) == list(CHEAP)
    assert list(common.table.columns) == list(result.table.columns)
    assert (subset["countries"] == 3).all() and (subset["n"] == common.n).all()
    # the agent run on 3 countries scores the same in both tables; the others are re-scored
    main = result.table.set_index("agent")
    assert subset.loc[CHEAP[-1], "log_loss"] == pytest.approx(main.loc[CHEAP[-1], "log_loss"])
    assert subset.loc["majority", "n"] < main.loc["majority", "n"]
    reference = subset["reference"].iloc[0]  # no default reward here: the best baseline
    assert reference in CHEAP and (subset["reference"] == reference).all()
    others = subset.drop(index=reference)
    assert others[PAIRED].notna().all().all() and subset.loc[reference, PAIRED].isna().all()
    (caption, table), (subset_caption, subset_table) = result.tables()
    assert table is result.table and "fewer countries" in caption
    assert subset_caption == common.caption and subset_table is common.table
    text = result.to_markdown()
    assert "Some agents ran on fewer countries" in text
    assert text.index(common.caption) > text.index("| majority")  # under the main table


def test_agents_on_the_same_countries_get_one_table_and_no_common_country_is_said():
    result = run_suite(_with_one_agent_on(None), QUICK, progress=False)
    assert result.common is None and len(result.tables()) == 1
    assert "fewer countries" not in result.to_markdown()
    empty = replace(result, common=CommonSubset((), 0, pd.DataFrame()))
    caption = "Common subset: no country that every agent ran on, so no common table"
    assert empty.tables()[1][0] == caption and empty.tables()[1][1].empty
    assert empty.to_markdown().count(caption) == 1


def test_episodic_agents_must_play_the_same_episodes():
    scores = {"eight": {"reward": np.zeros(8), "mse": np.zeros(8)},
              "five": {"reward": np.zeros(5), "mse": np.zeros(5)}}  # fmt: skip
    with pytest.raises(ValueError, match=r"same held-out episodes, got \[5, 8\] episodes"):
        run_suite(_episodic_suite(scores, {"eight"}), QUICK, progress=False)
