import json

import numpy as np
import pytest
import torch

from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.transitions import Transitions
from assembly_gym.envs.memory import MemoryDynamicsEnv
from assembly_gym.world_models.base import WorldModel, load_world_model
from assembly_gym.world_models.leworld import LeWorldModel, LeWorldSystem
from assembly_gym.world_models.leworld.batches import SequenceBatch

T = 4  # the sequence length of the conftest world


@pytest.fixture(scope="module")
def model(world, tiny_config):
    return LeWorldModel(LeWorldSystem(world.config, world.memory, tiny_config(), seed=0))


def env_transitions(world, episodes: int, seed: int) -> Transitions:
    env = MemoryDynamicsEnv(world=world)
    env.action_space.seed(seed)
    rows = {"obs": [], "acts": [], "next_obs": [], "dones": [], "episodes": []}
    for e in range(episodes):
        obs, _ = env.reset(seed=seed + e)
        done = False
        while not done:
            action = env.action_space.sample()
            next_obs, _, done, _, _ = env.step(action)
            for key, value in zip(rows, (obs, action, next_obs, done, e), strict=True):
                rows[key].append(value)
            obs = next_obs
    return Transitions(*(np.array(v) for v in rows.values()), obs_names=env.layout.names)


def test_world_model_protocol(model, world):
    assert isinstance(model, WorldModel)
    transitions = env_transitions(world, 2, seed=3)
    prediction = model.predict(transitions.obs, transitions.acts)
    layout = world.layout
    assert prediction.mean.shape == prediction.std.shape == transitions.obs.shape
    # The read part of the next observation is exact: the memory answers the action's read.
    for part in ("s_prev", "c", "read_bits", "read_address", "step"):
        np.testing.assert_allclose(
            layout.part(prediction.mean, part), layout.part(transitions.next_obs, part), atol=1e-6
        )
    assert np.all(layout.part(prediction.std, "s") > 0) and np.all(
        layout.part(prediction.std, "c") == 0
    )
    a = model.sample(transitions.obs, transitions.acts, np.random.default_rng(0))
    b = model.sample(transitions.obs, transitions.acts, np.random.default_rng(0))
    assert np.array_equal(a, b) and a.dtype == np.float32
    assert np.all(
        np.isfinite(model.log_prob(transitions.obs, transitions.acts, transitions.next_obs))
    )
    assert model.start_states.shape == (256, len(layout)) and model.max_episode_steps == T
    reads = model.choose_reads(transitions.obs)
    assert reads.shape == (len(transitions), 3) and MemoryDynamicsEnv(
        world=world
    ).action_space.contains(reads[0])
    with pytest.raises(ValueError, match="reads below"):
        model.predict(transitions.obs[:1], np.array([[99, 0, 0]]))


def test_fit_on_env_transitions_reduces_the_error(world, tiny_config):
    config = tiny_config(phase2_epochs=20, phase2_lr=3e-3)
    model = LeWorldModel(LeWorldSystem(world.config, world.memory, config, seed=1))
    transitions = env_transitions(world, 30, seed=0)
    state = world.layout.slices["s"]

    def state_mse() -> float:
        prediction = model.predict(transitions.obs, transitions.acts).mean
        return float(np.mean((prediction[:, state] - transitions.next_obs[:, state]) ** 2))

    before = state_mse()
    assert model.fit(transitions) is model
    assert state_mse() < 0.5 * before


def test_save_and_load_reproduce_predictions(model, world, episodes, tmp_path):
    folder = tmp_path / "model"
    model.save(folder, extra={"note": "test"})
    loaded = load_world_model(folder, layout=world.layout.names)
    assert isinstance(loaded, LeWorldModel) and loaded.extra == {"note": "test"}
    batch = SequenceBatch.from_episodes(episodes)
    with torch.no_grad():
        torch.testing.assert_close(
            loaded.system.run(batch).predictions, model.system.run(batch).predictions
        )
    assert np.array_equal(loaded.memory.words, world.memory.words)
    assert loaded.world_config == world.config
    (folder / "parameters.pt").write_bytes(b"broken")
    with pytest.raises(CheckpointError, match="corrupted or truncated"):
        LeWorldModel.load(folder)
    with pytest.raises(CheckpointError, match="folder not found"):
        LeWorldModel.load(tmp_path / "missing")


def test_a_system_with_the_info_request_reloads_and_reads_the_same(
    world, tiny_config, episodes, tmp_path
):
    trained = LeWorldSystem(world.config, world.memory, tiny_config(), seed=2)
    trained.use_query = True  # as after phase 3: run() passes the request between steps
    with torch.no_grad():  # as trained: the request's weights no longer zero
        trained.slms.query_film.weight.normal_(generator=torch.Generator().manual_seed(0))
    trained.residual_std.fill_(0.3)
    LeWorldModel(trained).save(tmp_path / "model")
    loaded = LeWorldModel.load(tmp_path / "model")
    assert loaded.system.use_query and torch.equal(loaded.system.residual_std, trained.residual_std)
    batch = SequenceBatch.from_episodes(episodes)
    with torch.no_grad():
        with_query = loaded.system.run(batch).predictions
        torch.testing.assert_close(with_query, trained.run(batch).predictions)
        assert not torch.allclose(with_query, loaded.system.run(batch, use_query=False).predictions)
    obs = env_transitions(world, 1, seed=0).obs
    assert np.array_equal(loaded.choose_reads(obs), LeWorldModel(trained).choose_reads(obs))


def test_load_refuses_another_kind(model, tmp_path):
    folder = tmp_path / "model"
    model.save(folder)
    manifest = json.loads((folder / "world_model.json").read_text())
    manifest["model_kind"] = "mlp"
    (folder / "world_model.json").write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match="not LeWorld"):
        LeWorldModel.load(folder)


def test_simulator_runs_the_model_with_the_env_reward(model, world, tmp_path):
    import gymnasium as gym

    import assembly_gym  # noqa: F401
    from assembly_gym.envs.memory import ReadPredictionReward

    model.save(tmp_path / "model")
    sim = gym.make(
        "assembly/Simulator-v0",
        model=str(tmp_path / "model"),
        reward_fn=ReadPredictionReward(world),
    )
    obs, _ = sim.reset(seed=0)
    read = np.array([1, 32, 15])  # page 1, offset 32, 16 words
    index = np.ravel_multi_index(tuple(read), (4, 256, 128))
    steps, done = 0, False
    while not done:
        obs, reward, done, truncated, _ = sim.step(index)
        steps += 1
        assert reward < 0 and not truncated
    assert steps == T
    np.testing.assert_allclose(
        world.layout.part(obs, "read_bits"),
        world.memory.mean_bits(np.array([256 + 32]), np.array([16]))[0],
        atol=1e-6,
    )
