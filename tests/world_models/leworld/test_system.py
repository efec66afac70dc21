import json

import numpy as np
import pytest
import torch

from assembly_gym.core.errors import CheckpointError
from assembly_gym.envs.memory import MemoryDynamicsEnv
from assembly_gym.world_models.base import Transitions, WorldModel, load_world_model
from assembly_gym.world_models.leworld import LeWorldConfig, LeWorldSystem, SequenceBatch

T = 4  # the sequence length of the conftest world


@pytest.fixture(scope="module")
def system(world, tiny_config):
    return LeWorldSystem(world, tiny_config(), seed=0)


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


def test_system_validates_its_config_against_the_world(world):
    with pytest.raises(ValueError, match="sequence_length"):
        LeWorldSystem(world, LeWorldConfig())
    with pytest.raises(ValueError, match="must be positive"):
        LeWorldConfig(num_slms=0)
    with pytest.raises(ValueError, match="unknown LeWorld options"):
        LeWorldConfig.from_dict({"depth": 3})


def test_shapes_and_read_modes(system, world, episodes):
    batch = SequenceBatch.from_episodes(episodes)
    out = system.run(batch)
    assert out.predictions.shape == (8, T, 64)
    assert out.gates.shape == out.gate_probs.shape == (2, 8, T)
    oracle = system.run(batch, read_mode="oracle")
    reads = oracle.reads.numpy()  # SLM i reads the window of region i mod K
    for e in range(2):
        page, offset, length = episodes.regions[:, e % 2].T
        starts = (page[:, None] ^ np.arange(T)) * 256 + offset[:, None]  # pages hop: h XOR t
        assert np.array_equal(reads[e, ..., 0] * 256 + reads[e, ..., 1], starts)
        assert np.array_equal(reads[e, ..., 2], np.broadcast_to(length[:, None] - 1, (8, T)))
    first = system.run(batch, read_mode="random", generator=torch.Generator().manual_seed(1)).reads
    again = system.run(batch, read_mode="random", generator=torch.Generator().manual_seed(1)).reads
    assert torch.equal(first, again) and not torch.equal(first, oracle.reads)
    with pytest.raises(ValueError, match="read_mode"):
        system.run(batch, read_mode="psychic")
    with pytest.raises(ValueError, match="Generator"):
        system.run(batch, read_mode="random")


def test_parallel_and_stepwise_runs_agree_without_a_query(system, episodes):
    batch = SequenceBatch.from_episodes(episodes)
    with torch.no_grad():
        parallel = system.run(batch, use_query=False).predictions
        rows = batch.steps()
        stepwise = torch.stack(
            [
                system.step(
                    rows.s_prev[t::T], rows.s[t::T], rows.c[t::T], rows.step[t::T]
                ).prediction
                for t in range(T)
            ],
            dim=1,
        )
        one_step, targets = system.rollout(batch, 1)
    torch.testing.assert_close(parallel, stepwise)
    torch.testing.assert_close(one_step[:, :, 0], parallel)
    torch.testing.assert_close(targets[:, :, 0], batch.states[:, 1:])
    with torch.no_grad():
        predictions, targets = system.rollout(batch, 3)
    assert predictions.shape == targets.shape == (8, T - 2, 3, 64)
    with pytest.raises(ValueError, match="horizon"):
        system.rollout(batch, T + 1)


def test_world_model_protocol(system, world):
    assert isinstance(system, WorldModel)
    transitions = env_transitions(world, 2, seed=3)
    prediction = system.predict(transitions.obs, transitions.acts)
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
    a = system.sample(transitions.obs, transitions.acts, np.random.default_rng(0))
    b = system.sample(transitions.obs, transitions.acts, np.random.default_rng(0))
    assert np.array_equal(a, b) and a.dtype == np.float32
    assert np.all(
        np.isfinite(system.log_prob(transitions.obs, transitions.acts, transitions.next_obs))
    )
    assert system.start_states.shape == (256, len(layout)) and system.max_episode_steps == T
    reads = system.choose_reads(transitions.obs)
    assert reads.shape == (len(transitions), 3) and MemoryDynamicsEnv(
        world=world
    ).action_space.contains(reads[0])
    with pytest.raises(ValueError, match="reads below"):
        system.predict(transitions.obs[:1], np.array([[99, 0, 0]]))


def test_fit_on_env_transitions_reduces_the_error(world, tiny_config):
    system = LeWorldSystem(world, tiny_config(phase2_epochs=20, phase2_lr=3e-3), seed=1)
    transitions = env_transitions(world, 30, seed=0)
    state = world.layout.slices["s"]

    def state_mse() -> float:
        prediction = system.predict(transitions.obs, transitions.acts).mean
        return float(np.mean((prediction[:, state] - transitions.next_obs[:, state]) ** 2))

    before = state_mse()
    assert system.fit(transitions) is system
    assert state_mse() < 0.5 * before


def test_save_and_load_reproduce_predictions(system, world, episodes, tmp_path):
    folder = tmp_path / "model"
    system.save(folder, extra={"note": "test"})
    loaded = load_world_model(folder, layout=world.layout.names)
    assert isinstance(loaded, LeWorldSystem) and loaded.extra == {"note": "test"}
    batch = SequenceBatch.from_episodes(episodes)
    with torch.no_grad():
        torch.testing.assert_close(loaded.run(batch).predictions, system.run(batch).predictions)
    assert np.array_equal(loaded.world.memory.words, world.memory.words)
    (folder / "parameters.pt").write_bytes(b"broken")
    with pytest.raises(CheckpointError, match="corrupted or truncated"):
        LeWorldSystem.load(folder)
    with pytest.raises(CheckpointError, match="folder not found"):
        LeWorldSystem.load(tmp_path / "missing")


def test_a_system_with_the_info_request_reloads_and_reads_the_same(
    world, tiny_config, episodes, tmp_path
):
    trained = LeWorldSystem(world, tiny_config(), seed=2)
    trained.use_query = True  # as after phase 3: run() passes the request between steps
    trained.residual_std.fill_(0.3)
    trained.save(tmp_path / "model")
    loaded = LeWorldSystem.load(tmp_path / "model")
    assert loaded.use_query and torch.equal(loaded.residual_std, trained.residual_std)
    batch = SequenceBatch.from_episodes(episodes)
    with torch.no_grad():
        with_query = loaded.run(batch).predictions
        torch.testing.assert_close(with_query, trained.run(batch).predictions)
        assert not torch.allclose(with_query, loaded.run(batch, use_query=False).predictions)
    obs = env_transitions(world, 1, seed=0).obs
    assert np.array_equal(loaded.choose_reads(obs), trained.choose_reads(obs))


def test_load_refuses_another_kind(system, tmp_path):
    folder = tmp_path / "model"
    system.save(folder)
    manifest = json.loads((folder / "world_model.json").read_text())
    manifest["model_kind"] = "mlp"
    (folder / "world_model.json").write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match="not LeWorld"):
        LeWorldSystem.load(folder)


def test_simulator_runs_the_system_with_the_env_reward(system, world, tmp_path):
    import gymnasium as gym

    import assembly_gym  # noqa: F401
    from assembly_gym.envs.memory import ReadPredictionReward

    system.save(tmp_path / "model")
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


def test_building_a_system_leaves_the_global_random_state_alone(world, tiny_config):
    before = torch.random.get_rng_state()
    LeWorldSystem(world, tiny_config(), seed=0)
    assert torch.equal(before, torch.random.get_rng_state())
