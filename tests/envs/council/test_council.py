"""A second env family from one folder and one registration line: a council with a veto.

It passes both env checkers, has a native vector env equal to ``SyncVectorEnv``, gives the
transitions a world model learns, runs as ``Simulator-v0`` with outcomes that obey its veto,
and gets a bench row; nothing in ``world_models`` or ``benchmarks`` names it.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from assembly_gym.benchmarks.suites import Options, run_suite
from assembly_gym.envs.family import family_of, resolve
from assembly_gym.envs.registration import make_native_vec
from assembly_gym.envs.vector_api import AUTORESET_MODES, VectorEpisodeStatistics, sync_vector_env
from assembly_gym.world_models.empirical import EmpiricalModel
from assembly_gym.world_models.evaluation import evaluate_world_model
from assembly_gym.world_models.transitions import env_transitions, split_transitions

from .env import DECLARATION, RULE, STATE_NAMES, VETO_DIMS
from .family import COUNCIL

ID = "council/Council-v0"
AT = {name: i for i, name in enumerate(STATE_NAMES)}


def vote_columns(states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Yes and no shares, whether a permanent member voted no, and adopted, of (N, d) states."""
    vetoed = (states[:, [AT[d] for d in VETO_DIMS]] > 0.5).any(axis=1)
    return states[:, AT["council_yes"]], states[:, AT["council_no"]], vetoed, states[:, -1] == 1


@pytest.fixture(scope="module")
def transitions():
    return env_transitions("Council-v0", 3000)


@pytest.fixture(scope="module")
def model(transitions):
    train, _, _ = split_transitions(transitions, seed=0)
    return EmpiricalModel().fit(train)


def test_the_family_is_found_by_its_id_and_gymnasium_makes_it():
    assert family_of(ID) is family_of("council") is COUNCIL
    assert gym.spec(ID).entry_point is COUNCIL.entry_point


@pytest.mark.filterwarnings("error")
def test_the_env_passes_both_checkers():
    gym_check_env(gym.make(ID).unwrapped)
    sb3_check_env(gym.make(ID).unwrapped)


@pytest.mark.parametrize("mode", AUTORESET_MODES, ids=str)
def test_the_native_vector_env_equals_sync_vector_env(mode, lockstep):
    native = VectorEpisodeStatistics(make_native_vec(ID, 6, autoreset_mode=mode))
    sync = VectorEpisodeStatistics(sync_vector_env([lambda: gym.make(ID)] * 6, mode))
    assert lockstep(native, sync, seed=3, steps=9, idle=0) >= 12  # two episodes each, at least


def test_the_env_adopts_by_the_rule_and_a_permanent_no_blocks(transitions):
    final = transitions.next_obs[transitions.dones]
    yes, no, vetoed, adopted = vote_columns(final)
    assert np.array_equal(adopted, RULE.from_state(final, STATE_NAMES, DECLARATION.votes[0]))
    assert np.array_equal(adopted, (yes >= 0.6 - 1e-6) & (yes > no) & ~vetoed)
    assert adopted.any() and ((yes >= 0.6) & vetoed).any()  # quota reached, vetoed


def test_a_world_model_learns_it_and_simulates_outcomes_that_obey_the_veto(model, transitions):
    assert model.state_declaration == DECLARATION  # carried by the family's transitions
    _, _, test = split_transitions(transitions, seed=0)
    scores = evaluate_world_model(model, test).metrics
    assert np.isfinite(scores["nll"]) and scores["stage_accuracy"] == 1.0
    assert 0.5 < scores["outcome_accuracy"] <= 1
    env = gym.make("assembly/Simulator-v0", model=model)
    finals = []
    for seed in range(300):
        obs, info = env.reset(seed=seed)
        stages = [info["stage"]]
        terminated = False
        while not terminated:
            obs, _, terminated, truncated, info = env.step(env.action_space.sample())
            stages.append(info["stage"])
            assert not truncated
        assert stages == ["DRAFT", "VOTE", "CLOSED"]
        finals.append(obs)
    yes, no, vetoed, adopted = vote_columns(np.array(finals))
    assert not (adopted & vetoed).any() and (yes[adopted] >= 0.6 - 1e-6).all()
    assert (yes[adopted] > no[adopted]).all()
    assert adopted.any() and (~adopted & (yes >= 0.6) & vetoed).any()  # the veto blocked


def test_it_gets_a_bench_row():
    suite = resolve(family_of("council").suites["council"])  # as the bench finds every suite
    result = run_suite(suite, Options(n_bootstrap=50), progress=False)
    print(result.to_markdown())
    assert list(result.table["agent"]) == ["always-yes", "always-no", "backs-the-likely"]
    reward = dict(zip(result.table["agent"], result.table["reward"], strict=True))
    assert reward["backs-the-likely"] > max(reward["always-yes"], reward["always-no"])
