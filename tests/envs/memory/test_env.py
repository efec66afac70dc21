import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import assembly_gym  # noqa: F401  (registers the assembly/ ids)
from assembly_gym.core.errors import DataError, InvalidActionError
from assembly_gym.core.paths import unvotes_dir
from assembly_gym.envs.memory import (
    BitMemory,
    MemoryDynamicsEnv,
    MemoryWorld,
    MemoryWorldConfig,
    ReadPredictionReward,
    build_memory,
    clip_read,
    from_experience,
    join_address,
    read_iou,
    roll_call_experience,
    split_address,
    structured_patterns,
)

TINY = {"difficulty": "easy", "num_words": 1024, "sequence_length": 4}


def tiny_world(**options) -> MemoryWorld:
    return MemoryWorld(MemoryWorldConfig(**{**TINY, **options}))


def explicit_mean_bits(memory: BitMemory, start: int, length: int) -> np.ndarray:
    stop = min(start + length, memory.num_words)
    words = memory.words[start:stop]
    return np.array([[(w >> b) & 1 for b in range(memory.word_size)] for w in words]).mean(axis=0)


# ---------------------------------------------------------------------- address arithmetic


def test_addresses_split_into_high_and_low_bytes():
    assert join_address(3, 17) == 3 * 256 + 17
    page, offset = split_address(np.array([0, 255, 256, 65_535]))
    assert page.tolist() == [0, 0, 1, 255] and offset.tolist() == [0, 255, 0, 255]
    assert np.all(join_address(*split_address(np.arange(65_536))) == np.arange(65_536))


def test_reads_are_clipped_at_the_end_of_memory():
    start, length = clip_read(np.array([0, 1000, 1023]), np.array([128, 128, 5]), 1024)
    assert start.tolist() == [0, 1000, 1023] and length.tolist() == [128, 24, 1]
    with pytest.raises(ValueError, match="outside the memory"):
        clip_read(1024, 1, 1024)
    with pytest.raises(ValueError, match="at least 1 word"):
        clip_read(0, 0, 1024)


def test_read_iou():
    assert read_iou(0, 10, 0, 10) == 1.0
    assert read_iou(0, 10, 5, 10) == pytest.approx(5 / 15)
    assert read_iou(0, 10, 10, 10) == 0.0


# ---------------------------------------------------------------------- memory and populations


def test_bit_memory_validates_itself():
    with pytest.raises(ValueError, match="1-D uint32"):
        BitMemory(np.zeros(256, dtype=np.int64), 32)
    with pytest.raises(ValueError, match="whole pages"):
        BitMemory(np.zeros(100, dtype=np.uint32), 32)
    with pytest.raises(ValueError, match="word_size must be 1"):
        BitMemory(np.zeros(256, dtype=np.uint32), 33)
    with pytest.raises(ValueError, match="above word_size"):
        BitMemory(np.full(256, 256, dtype=np.uint32), 8)


def test_mean_bits_matches_an_explicit_count_and_clips():
    memory = build_memory("random", num_words=1024, word_size=32, seed=3)
    starts = np.array([0, 5, 1000, 1023, 512])
    lengths = np.array([1, 17, 128, 128, 64])
    got = memory.mean_bits(starts, lengths)
    for row, (s, n) in enumerate(zip(starts, lengths, strict=True)):
        np.testing.assert_allclose(got[row], explicit_mean_bits(memory, s, n))
    assert memory.words.nbytes == 4 * 1024  # one uint32 per word


def test_populations_are_seeded_and_structured_quarters_hold_their_patterns():
    a = build_memory("random", num_words=1024, word_size=32, seed=1)
    b = build_memory("random", num_words=1024, word_size=32, seed=1)
    assert np.array_equal(a.words, b.words)
    assert not np.array_equal(
        a.words, build_memory("random", num_words=1024, word_size=32, seed=2).words
    )
    memory = structured_patterns(4096, 16, np.random.default_rng(0))
    q = 1024
    dynamics, context, counters, xor = (memory.words[i * q : (i + 1) * q] for i in range(4))
    assert np.array_equal(xor, dynamics ^ context)
    assert np.all((counters[1:] - counters[:-1]) % (1 << 16) == 1)
    flips = dynamics[:64] ^ dynamics[0] ^ 1  # word j flips bit j mod 16 of the block's base
    assert all(bin(int(w)).count("1") <= 2 for w in flips)
    bits = memory.unpack(q, q + 64)
    assert np.mean(bits == np.round(bits.mean(axis=0))) > 0.85  # noisy copies of one pattern


def test_experience_population_quantises_at_the_median():
    features = np.array([[0.0, 5.0], [1.0, 1.0], [2.0, 3.0]])
    memory = from_experience(features, 256, 8)
    # medians (1, 3): rows → bits (0,1), (0,0), (1,0) → words 2, 0, 1, then repeated
    assert memory.words[:6].tolist() == [2, 0, 1, 2, 0, 1]
    with pytest.raises(DataError, match="NaN"):
        from_experience(np.array([[np.nan]]), 256, 8)
    with pytest.raises(DataError, match="non-empty"):
        from_experience(np.zeros((0, 3)), 256, 8)
    with pytest.raises(ValueError, match="unknown population"):
        build_memory("zeros", num_words=256, word_size=8, seed=0)


# ---------------------------------------------------------------------- world and dynamics


def test_world_config_validates_itself():
    with pytest.raises(ValueError, match="difficulty must be one of"):
        MemoryWorldConfig(difficulty="extreme")
    with pytest.raises(ValueError, match="blocks of 32 pages"):
        MemoryWorldConfig(num_words=2048)
    with pytest.raises(ValueError, match="char_dim must be at least 30"):
        MemoryWorldConfig(difficulty="hard", char_dim=16)
    with pytest.raises(ValueError, match="max_read_range"):
        MemoryWorldConfig(max_read_range=64)
    with pytest.raises(ValueError, match="region_alignment"):
        MemoryWorldConfig(region_alignment=24)
    with pytest.raises(ValueError, match="unknown world options"):
        MemoryWorldConfig.from_dict({"colour": 1})
    assert MemoryWorldConfig(num_words=2048, hopping=False).hop_block == 1


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_dynamics_follow_the_equations(difficulty):
    world = tiny_world(difficulty=difficulty, num_words=2048, sequence_length=6)
    cfg = world.config
    episodes = world.sample_episodes(5, np.random.default_rng(0))
    k = cfg.num_regions
    assert episodes.regions.shape == (5, k, 3)
    for e in range(5):
        for t in range(cfg.sequence_length):
            seeds = []
            for page, offset, length in episodes.regions[e]:
                start = (page ^ t) * 256 + offset  # the region hops to page h XOR t
                seeds.append(
                    np.where(explicit_mean_bits(world.memory, start, length) > 0.5, 1.0, -1.0)
                )
            term = np.resize(np.mean(seeds, axis=0), cfg.state_dim)  # tile to state_dim
            np.testing.assert_allclose(episodes.memory_terms[e, t], term, atol=1e-6)
            expected = (
                0.8 * episodes.states[e, t]
                + 0.15 * term
                + 0.05 * np.resize(episodes.c[e], cfg.state_dim)
                + episodes.noise[e, t]
            )
            np.testing.assert_allclose(episodes.states[e, t + 1], expected, atol=1e-5)
    assert episodes.noise.std() == pytest.approx(0.1, rel=0.1)


def test_regions_lie_in_one_page_on_the_alignment_grid_and_c_encodes_them():
    world = MemoryWorld(MemoryWorldConfig(difficulty="hard", sequence_length=4, num_words=4096))
    regions = world.sample_regions(200, np.random.default_rng(1))
    page, offset, length = regions[..., 0], regions[..., 1], regions[..., 2]
    assert np.all(offset + length <= 256) and np.all(offset % 16 == 0) and np.all(length % 16 == 0)
    assert length.min() >= 16 and length.max() <= 128 and page.max() < world.config.num_pages
    c = world.encode_regions(regions, np.random.default_rng(2))
    width = world.config.slot_width
    bits = c[:, : 3 * width].reshape(200, 3, width)[..., : world.config.page_bits] > 0
    assert np.array_equal((bits * (1 << np.arange(world.config.page_bits))).sum(-1), page)
    assert np.all(np.abs(c) <= 1)


def test_still_regions_keep_their_page():
    world = tiny_world(hopping=False)
    regions = np.array([[[2, 16, 32]]])
    starts, lengths = world.windows(regions, np.arange(4)[:, None])
    assert starts.ravel().tolist() == [2 * 256 + 16] * 4 and lengths.ravel().tolist() == [32]


# ---------------------------------------------------------------------- the env


# s_{t-1} and s_t are unbounded (Gaussian noise): the checker's warning about it is expected.
@pytest.mark.filterwarnings("ignore:.*infinity.*:UserWarning")
def test_registered_env_passes_both_checkers():
    env = gym.make("assembly/MemoryDynamics-v0", **TINY)
    check_env(env.unwrapped)
    sb3_check_env(MemoryDynamicsEnv(**TINY))
    assert env.action_space.nvec.tolist() == [4, 256, 128]
    assert len(env.unwrapped.layout) == env.observation_space.shape[0] == 2 * 64 + 32 + 32 + 4


def test_default_env_has_the_issue_sizes():
    env = MemoryDynamicsEnv()
    assert env.action_space.nvec.tolist() == [256, 256, 128]
    assert env.world.memory.num_words == 65_536 and env.world.memory.words.dtype == np.uint32
    assert env.config.difficulty == "medium" and env.config.sequence_length == 20


def test_same_seed_same_rollout():
    def rollout(seed: int) -> list[np.ndarray]:
        env = MemoryDynamicsEnv(**TINY)
        env.action_space.seed(seed)
        obs, _ = env.reset(seed=seed)
        out = [obs]
        for _ in range(4):
            obs, reward, *_ = env.step(env.action_space.sample())
            out += [obs, np.array([reward])]
        return out

    assert all(np.array_equal(a, b) for a, b in zip(rollout(3), rollout(3), strict=True))
    assert not np.array_equal(rollout(3)[0], rollout(4)[0])


def test_a_perfect_read_earns_the_noise_floor_and_episodes_end_after_t_steps():
    env = MemoryDynamicsEnv(**TINY, render_mode="ansi")
    obs, info = env.reset(seed=5)
    assert np.all(obs[env.world.layout.slices["read_bits"]] == 0)
    for t in range(4):
        ((start, length),) = env.relevant_windows()
        obs, reward, terminated, truncated, info = env.step(
            np.array([start // 256, start % 256, length - 1])
        )
        assert reward == pytest.approx(info["noise_floor"], abs=1e-6)
        assert info["hit"] and info["iou"] == 1.0
        assert obs[env.layout.index("step")] == pytest.approx((t + 1) / 4)
        assert terminated == (t == 3) and not truncated
    text = env.render()
    assert "region 1" in text and "*" in text and "IoU 1.00" in text
    with pytest.raises(gym.error.ResetNeeded):
        env.step(np.array([0, 0, 0]))


def test_reward_of_one_read_on_medium_counts_the_other_region_as_unknown():
    env = MemoryDynamicsEnv(**{**TINY, "difficulty": "medium"})
    obs, _ = env.reset(seed=1)
    start, length = env.relevant_windows()[0]
    next_obs, reward, *_ = env.step(np.array([start // 256, start % 256, length - 1]))
    layout = env.world.layout
    bits = explicit_mean_bits(env.world.memory, start, length)
    prediction = (
        0.8 * layout.part(obs, "s")
        + 0.15 * np.resize(np.where(bits > 0.5, 1, -1), 64) / 2
        + 0.05 * np.resize(layout.part(obs, "c"), 64)
    )
    assert reward == pytest.approx(
        -np.mean((prediction - layout.part(next_obs, "s")) ** 2), abs=1e-5
    )
    assert ReadPredictionReward(env.world).batch(obs[None], next_obs[None])[0] == pytest.approx(
        reward
    )


def test_env_clips_a_read_at_the_end_of_memory():
    env = MemoryDynamicsEnv(**TINY, render_mode="ansi")
    env.reset(seed=0)
    obs, *_ = env.step(np.array([3, 250, 127]))  # words 1018 … 1145 asked, 1018 … 1023 read
    layout = env.world.layout
    np.testing.assert_allclose(
        layout.part(obs, "read_bits"), explicit_mean_bits(env.world.memory, 1018, 6), atol=1e-6
    )
    page, offset, length = layout.part(obs, "read_address")
    assert (page, offset) == pytest.approx((3 / 4, 250 / 256)) and length == pytest.approx(6 / 128)
    assert "length   6 (words 1018–1023)" in env.render()


def test_invalid_actions_and_arguments_are_refused():
    env = MemoryDynamicsEnv(**TINY)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(np.array([0, 0, 0]))
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="page, offset, length - 1"):
        env.step(np.array([4, 0, 0]))
    with pytest.raises(InvalidActionError):
        env.step(np.array([0.5, 0, 0]))
    with pytest.raises(ValueError, match="render_mode"):
        MemoryDynamicsEnv(render_mode="rgb_array")
    with pytest.raises(ValueError, match="either world"):
        MemoryDynamicsEnv(world=tiny_world(), difficulty="easy")
    assert env.action_masks().all() and env.action_masks().shape == (4 + 256 + 128,)


@pytest.mark.real_data
@pytest.mark.skipif(unvotes_dir() is None, reason="real data absent: set $ASSEMBLY_GYM_DATA")
def test_memory_from_real_roll_call_experience():
    features = roll_call_experience(str(unvotes_dir()))
    assert features.shape[0] > 5000
    world = MemoryWorld(
        MemoryWorldConfig(**{**TINY, "population": "experience"}), experience=features
    )
    bits = features[0] > np.median(features, axis=0)  # the first roll call, bit by bit
    unpacked = world.memory.unpack(0, -(-len(bits) // 32)).ravel()
    assert np.array_equal(unpacked[: len(bits)], bits) and not unpacked[len(bits) :].any()
    env = MemoryDynamicsEnv(world=world)
    env.reset(seed=0)
    assert np.isfinite(env.step(np.array([0, 0, 15]))[1])
