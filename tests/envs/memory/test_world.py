import numpy as np
import pytest

from assembly_gym.envs.memory import BitMemory, MemoryWorld, MemoryWorldConfig


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
    with pytest.raises(ValueError, match="pointer_chasing needs a power-of-two"):
        MemoryWorldConfig(num_words=768, hopping=False, pointer_chasing=True)
    with pytest.raises(ValueError, match="pointer_chasing needs a power-of-two"):
        MemoryWorldConfig(num_words=1024, sequence_length=4, word_size=1, pointer_chasing=True)
    assert MemoryWorldConfig(num_words=2048, pointer_chasing=True).hop_block == 1
    with pytest.raises(ValueError, match="0 with pointer_chasing"):
        MemoryWorldConfig(num_words=2048, pointer_chasing=True, decoy_regions=1)
    with pytest.raises(ValueError, match="char_dim must be at least 40 to describe 4"):
        MemoryWorldConfig(decoy_regions=2)


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_dynamics_follow_the_equations(difficulty, tiny_world, explicit_mean_bits):
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


def test_decoys_are_described_in_c_but_drive_no_step(tiny_world, explicit_mean_bits):
    world = tiny_world(difficulty="medium", decoy_regions=2, char_dim=24)
    episodes = world.sample_episodes(20, np.random.default_rng(0))
    assert episodes.regions.shape == (20, 4, 3)
    width, bits = world.config.slot_width, world.config.page_bits
    described = episodes.c[:, : 4 * width].reshape(20, 4, width)[..., :bits] > 0
    assert np.array_equal((described * (1 << np.arange(bits))).sum(-1), episodes.regions[..., 0])
    for e, t in [(0, 0), (3, 2), (19, 3)]:
        seeds = [  # the relevant regions only
            np.where(explicit_mean_bits(world.memory, (page ^ t) * 256 + h, n) > 0.5, 1, -1)
            for page, h, n in episodes.regions[e, :2]
        ]
        term = np.resize(np.mean(seeds, axis=0), world.config.state_dim)
        np.testing.assert_allclose(episodes.memory_terms[e, t], term, atol=1e-6)
    starts, _ = world.config.windows(episodes.regions, 0)
    assert starts.shape == (20, 2)


def test_still_regions_keep_their_page(tiny_world):
    world = tiny_world(hopping=False)
    regions = np.array([[[2, 16, 32]]])
    starts, lengths = world.config.windows(regions, np.arange(4)[:, None])
    assert starts.ravel().tolist() == [2 * 256 + 16] * 4 and lengths.ravel().tolist() == [32]


def test_pointer_chasing_regions_go_where_the_other_region_points(tiny_world):
    """Region k's page at t + 1 is h_k XOR the first two seed bits of region k + 1's window."""
    config = tiny_world(difficulty="medium", pointer_chasing=True).config  # 4 pages: 2 bits
    words = np.zeros(1024, dtype=np.uint32)
    words[0:16] = 0b10  # page 0, words 0–15: seed bits 0, 1 = −1, +1
    words[3 * 256 + 32 : 3 * 256 + 64] = 0b01  # page 3, words 32–63: seed bits +1, −1
    world = MemoryWorld(config, memory=BitMemory(words, config.word_size))
    assert world.sample_regions(1, np.random.default_rng(0)).shape == (1, 2, 3 + 4)
    regions = np.array([[[1, 0, 16], [3, 32, 32]]])  # h = 1 and 3
    routed = world._chase(regions)
    # t = 0: region 0 on page 1 (zeros: pointer 0), region 1 on page 3 (pointer 0b01 = 1):
    # region 0 goes to 1 XOR 1 = 0, region 1 to 3 XOR 0 = 3; t = 1: region 0 on page 0
    # (pointer 0b10 = 2), region 1 on page 3 (pointer 1): region 0 goes to 1 XOR 1 = 0,
    # region 1 to 3 XOR 2 = 1; t = 2: region 0 on page 0 (pointer 2), region 1 on page 1
    # (zeros, pointer 0): region 0 goes to 1 XOR 0 = 1, region 1 to 3 XOR 2 = 1.
    assert routed[0, :, 3:].tolist() == [[1, 0, 0, 1], [3, 3, 1, 1]]
    starts, lengths = world.config.windows(routed, np.arange(4)[:, None])
    assert starts[:, 0, 0].tolist() == [256, 0, 0, 256] and lengths.tolist() == [[16, 32]]
    assert starts[:, 0, 1].tolist() == [3 * 256 + 32, 3 * 256 + 32, 256 + 32, 256 + 32]
    episodes = world.build_episodes(*world.draw_episodes(3, np.random.default_rng(1)))
    pages = episodes.regions[..., 3:]
    assert np.array_equal(pages[..., 0], episodes.regions[..., 0])
    plain = tiny_world(difficulty="medium")  # the same draws, no pointers: the same s_0, c
    same = plain.build_episodes(*plain.draw_episodes(3, np.random.default_rng(1)))
    np.testing.assert_array_equal(episodes.c, same.c)
    np.testing.assert_array_equal(episodes.states[:, 0], same.states[:, 0])


def _six_calls(world, rng):
    """One episode's draws as the generator's own calls, in ``draw_episodes``' order."""
    cfg = world.config
    levels = (cfg.max_region_length - cfg.min_region_length) // cfg.region_alignment + 1
    k, d = cfg.described_regions, cfg.state_dim
    return (
        rng.integers(0, cfg.num_pages, size=(1, k)),
        rng.integers(0, levels, size=(1, k)),
        rng.random((1, k)),
        rng.uniform(-1.0, 1.0, size=(1, cfg.char_dim)),
        rng.normal(0.0, cfg.noise_std, size=(1, cfg.sequence_length, d)),
        rng.normal(0.0, cfg.initial_std, size=(1, d)),
    )


def _generators(seed):
    """A fresh PCG64, a PCG64 with half a word pending and an MT19937: every kind of stream."""
    pending = np.random.Generator(np.random.PCG64(seed))
    pending.integers(0, 256)  # takes the low half of a word, keeps the high one
    return [np.random.default_rng(seed), pending, np.random.Generator(np.random.MT19937(seed))]


@pytest.mark.parametrize(
    "options",
    [
        {"difficulty": "easy"},
        {"difficulty": "medium"},
        {"difficulty": "hard", "population": "structured"},
        {"difficulty": "hard", "num_words": 768, "hopping": False},  # 3 pages: not a power of 2
        {"difficulty": "easy", "max_region_length": 16},  # one length: integers draw nothing
        {"difficulty": "medium", "decoy_regions": 2, "char_dim": 24},
    ],
    ids=["easy", "medium", "hard", "3_pages", "one_length", "decoys"],
)
def test_one_episode_per_generator_draws_as_the_generators_own_calls(tiny_world, options):
    world = tiny_world(**options)
    drawn = world.draw_one_each(_generators(7) * 2)  # each generator twice: two episodes
    own = [_six_calls(world, rng) for rng in _generators(7) * 2]
    for value, expected in zip(drawn, zip(*own, strict=True), strict=True):
        np.testing.assert_array_equal(value, np.concatenate(expected))
        assert value.dtype == expected[0].dtype
    for rng, reference in zip(_generators(7), _generators(7), strict=True):
        world.draw_episodes(1, rng)  # the single env's call
        _six_calls(world, reference)
        assert rng.integers(0, 256, 3).tolist() == reference.integers(0, 256, 3).tolist()
        assert rng.random() == reference.random()  # the streams go on alike


def test_the_seed_table_gives_the_counted_seeds(tiny_world):
    world, counting = tiny_world(difficulty="hard"), tiny_world(difficulty="hard")
    counting.__dict__["_seeds_above"] = None  # no table: count every window's ones
    assert world._seeds_above is not None
    draws = world.draw_episodes(6, np.random.default_rng(3))
    built, counted = world.build_episodes(*draws), counting.build_episodes(*draws)
    for name in ("c", "regions", "states", "memory_terms", "noise"):
        np.testing.assert_array_equal(getattr(built, name), getattr(counted, name))
