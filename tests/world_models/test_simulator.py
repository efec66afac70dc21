"""assembly/Simulator-v0: a mock model of known output, fitted models, both env checkers."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3 import PPO
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.core.errors import CheckpointError, InvalidActionError
from assembly_gym.core.state import Stages, StateDeclaration
from assembly_gym.envs.legislative.deliberation import STATE_DECLARATION, STATE_NAMES
from assembly_gym.envs.legislative.spaces import Action, Stage, action_mask
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.legislative.transitions import deliberation_transitions, rollcall_transitions
from assembly_gym.world_models.base import Prediction
from assembly_gym.world_models.empirical import EmpiricalModel
from assembly_gym.world_models.mlp import MLPEnsemble
from assembly_gym.world_models.simulator import SimulatorEnv

ENV_ID = "assembly/Simulator-v0"
STAGES = [n for n in STATE_NAMES if n.startswith("stage_")]


class StageMock:
    """Known output: the stage advances by one; ``adopted`` = 1 after a YES at the plenary."""

    obs_names = ("feature", *STATE_NAMES)
    n_actions = 5
    noop_action = int(Action.NO_ACTION)
    max_episode_steps = 3
    state_declaration = STATE_DECLARATION

    def __init__(self):
        start = np.zeros(len(self.obs_names), np.float32)
        start[[0, self.obs_names.index("stage_draft")]] = (0.5, 1.0)
        self.start_states = start[None]
        self.calls = []

    def fit(self, transitions):
        return self

    def _stage(self, obs):
        return obs[:, [self.obs_names.index(n) for n in STAGES]].argmax(1)

    def sample(self, obs, action, rng):
        self.calls.append((obs.copy(), np.array(action)))
        nxt = obs.copy()
        stage = self._stage(obs)
        stage_dims = [self.obs_names.index(n) for n in STAGES]
        nxt[:, stage_dims] = np.eye(4)[np.minimum(stage + 1, 3)]
        yes_at_plenary = (stage == Stage.PLENARY_VOTE) & (np.asarray(action) == Action.YES)
        nxt[yes_at_plenary, self.obs_names.index("adopted")] = 1.0
        return nxt

    def predict(self, obs, action):
        nxt = self.sample(obs, action, None)
        return Prediction(mean=nxt, std=np.zeros_like(nxt))

    def action_masks(self, obs):
        return np.stack([action_mask(Stage(s)) for s in self._stage(obs)])

    @property
    def observation_bounds(self):
        return np.zeros(len(self.obs_names)), np.ones(len(self.obs_names))

    def save(self, path):
        raise NotImplementedError


class DoneMock:
    """No stage: the episode ends when ``done`` says so (always, after the first step)."""

    obs_names = ("a", "b")
    n_actions = 3
    start_states = np.full((4, 2), 0.5, np.float32)

    def __init__(self, p_done):
        self.p_done = p_done

    def fit(self, transitions):
        return self

    def sample(self, obs, action, rng):
        return obs.copy()

    def predict(self, obs, action):
        done = np.tile([1 - self.p_done, self.p_done], (len(obs), 1))
        return Prediction(mean=obs, std=np.zeros_like(obs), distributions={"done": done})

    def save(self, path):
        raise NotImplementedError


def check_both(env):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(env)
        sb3_check_env(env)


def test_mock_model_passes_both_checkers_and_follows_the_stage():
    model = StageMock()
    env = SimulatorEnv(model, reward_fn=lambda o, a, n, i: float(n[-1]))
    check_both(env)
    obs, info = env.reset(seed=0)
    assert info["stage"] == "DRAFT" and info["action_mask"].tolist() == [1, 0, 0, 0, 1]
    rewards = []
    for action, stage in ((Action.COSPONSOR, "COMMITTEE_VOTE"), (Action.NO, "PLENARY_VOTE"),
                          (Action.YES, "TERMINAL")):  # fmt: skip
        obs, reward, terminated, truncated, info = env.step(int(action))
        assert info["stage"] == stage and not truncated
        rewards.append(reward)
    assert terminated and rewards == [0.0, 0.0, 1.0] and obs[-1] == 1.0
    assert not env.action_masks().any()
    assert np.array_equal(model.calls[-1][1], [Action.YES])  # the model saw the agent's action
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)


def test_invalid_actions_become_the_noop_or_raise():
    env = SimulatorEnv(StageMock())
    env.reset(seed=0)
    _, _, _, _, info = env.step(int(Action.YES))  # not valid at DRAFT
    assert info["invalid_action"] and env.model.calls[-1][1].tolist() == [Action.NO_ACTION]
    strict = SimulatorEnv(StageMock(), invalid_action="raise")
    strict.reset(seed=0)
    with pytest.raises(InvalidActionError, match="not valid here; valid: \\[0, 4\\]"):
        strict.step(int(Action.YES))
    with pytest.raises(InvalidActionError, match="not in Discrete\\(5\\)"):
        strict.step(7)


def test_done_distribution_ends_episodes_without_a_stage():
    env = SimulatorEnv(DoneMock(p_done=1.0))
    check_both(env)
    env.reset(seed=0)
    _, _, terminated, truncated, info = env.step(0)
    assert terminated and not truncated and "stage" not in info
    never = SimulatorEnv(DoneMock(p_done=0.0), max_episode_steps=4)
    never.reset(seed=0)
    ends = [never.step(1)[2:4] for _ in range(4)]
    assert ends[-1] == (False, True) and all(e == (False, False) for e in ends[:-1])


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="world model or its folder"):
        SimulatorEnv(object())
    with pytest.raises(ValueError, match="start_states must have shape"):
        SimulatorEnv(StageMock(), start_states=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="outside the model's observation bounds"):
        SimulatorEnv(StageMock(), start_states=np.full((1, 20), 2.0))
    with pytest.raises(CheckpointError, match=r"no saved '?world[ _]model'? here"):
        gym.make(ENV_ID, model="/nonexistent/model")


@pytest.fixture(scope="module")
def assembly():
    return generate_assembly(SyntheticConfig(n_countries=6, n_sessions=4, roll_calls_per_session=10,
                                             seed=2))  # fmt: skip


@pytest.fixture(scope="module")
def saved_models(assembly, tmp_path_factory):
    """Fitted models of both envs, saved: name → folder."""
    root = tmp_path_factory.mktemp("simulator")
    folders = {}
    for env_name, transitions in (("deliberation", deliberation_transitions(assembly)),
                                  ("rollcall", rollcall_transitions(assembly))):  # fmt: skip
        for kind, model in (("empirical", EmpiricalModel()),
                            ("mlp", MLPEnsemble(members=2, hidden=(16,), batch_size=64,
                                                max_epochs=15, threads=1))):  # fmt: skip
            model.fit(transitions)
            model.save(root / f"{env_name}-{kind}")
            folders[f"{env_name}-{kind}"] = root / f"{env_name}-{kind}"
    return folders


@pytest.mark.parametrize("name", ["deliberation-empirical", "deliberation-mlp",
                                  "rollcall-empirical", "rollcall-mlp"])  # fmt: skip
def test_fitted_models_pass_both_checkers(saved_models, name):
    env = gym.make(ENV_ID, model=str(saved_models[name]))
    check_both(env.unwrapped)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    steps, done = 0, False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs) and reward == 0.0
        steps, done = steps + 1, terminated or truncated
    if name.startswith("deliberation"):
        assert terminated and info["stage"] == "TERMINAL" and steps == 3


def test_same_seed_same_rollout_and_path_equals_object(saved_models):
    from assembly_gym.world_models.base import load_world_model

    folder = saved_models["deliberation-mlp"]
    envs_ = [gym.make(ENV_ID, model=folder), gym.make(ENV_ID, model=load_world_model(folder))]
    rollouts = []
    for env in envs_:
        obs, _ = env.reset(seed=11)
        trace, done = [obs], False
        while not done:
            obs, _, terminated, truncated, _ = env.step(4)
            trace.append(obs)
            done = terminated or truncated
        rollouts.append(np.stack(trace))
    assert np.array_equal(*rollouts)
    deliberation = gym.make("assembly/Deliberation-v0", data="synthetic")
    assert envs_[0].unwrapped.observation_space == deliberation.observation_space


def test_render_and_an_sb3_agent_trains_inside(saved_models):
    env = gym.make(ENV_ID, model=saved_models["deliberation-empirical"], render_mode="ansi",
                   reward_fn=lambda o, a, n, i: float(a == Action.YES))  # fmt: skip
    env.reset(seed=0)
    env.step(4)
    assert env.render().startswith("Simulator-v0 | step 1 | stage COMMITTEE_VOTE")
    agent = PPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    agent.learn(total_timesteps=128)
    assert agent.num_timesteps >= 128


PHASES = StateDeclaration(
    names=("phase_open", "phase_closed", "phase_archived", "passed"),
    stages=Stages(("phase_open", "phase_closed", "phase_archived"), ("OPEN", "CLOSED", "ARCHIVED"),
                  terminal="CLOSED"),
)  # fmt: skip
"""Another env family: its episodes end at CLOSED, which is not its last stage."""


class PhaseMock:
    """Known output: the phase advances by one and ``passed`` becomes the action."""

    obs_names = ("feature", *PHASES.names)
    state_declaration = PHASES
    n_actions = 2

    def __init__(self):
        self.start_states = np.eye(len(self.obs_names), dtype=np.float32)[[1]]  # OPEN

    def fit(self, transitions):
        return self

    def sample(self, obs, action, rng):
        nxt = obs.copy()
        phases = obs[:, 1:4].argmax(1)
        nxt[:, 1:4] = np.eye(3)[np.minimum(phases + 1, 2)]
        nxt[:, 4] = action
        return nxt

    def predict(self, obs, action):
        raise AssertionError("a family with stages ends episodes by its stage, not a done head")

    def save(self, path):
        raise NotImplementedError


def test_another_family_ends_where_its_declaration_says():
    env = SimulatorEnv(PhaseMock(), render_mode="ansi")
    check_both(env)
    assert env.declaration == PHASES
    obs, info = env.reset(seed=0)
    assert info["stage"] == "OPEN"
    obs, _, terminated, truncated, info = env.step(1)
    assert terminated and not truncated and info["stage"] == "CLOSED"
    assert info["acted_stage"] == "OPEN"
    assert (
        env.render()
        == "Simulator-v0 | step 1 | stage CLOSED\n  passed 1.00\n  last action 1, reward +0.000"
    )


def test_the_declaration_comes_from_the_model_else_it_is_empty():
    assert SimulatorEnv(StageMock()).declaration == STATE_DECLARATION
    assert SimulatorEnv(DoneMock(p_done=1.0)).declaration == StateDeclaration()


def test_fitted_models_carry_their_declaration(saved_models):
    deliberation = gym.make(ENV_ID, model=saved_models["deliberation-mlp"]).unwrapped
    rollcall = gym.make(ENV_ID, model=saved_models["rollcall-empirical"]).unwrapped
    assert deliberation.declaration == STATE_DECLARATION
    assert rollcall.declaration == StateDeclaration()
