import numpy as np
import pytest

from assembly_gym.core.errors import DataError
from assembly_gym.core.paths import unvotes_dir
from assembly_gym.envs.memory import (
    BitMemory,
    MemoryDynamicsEnv,
    MemoryWorld,
    MemoryWorldConfig,
    build_memory,
)
from assembly_gym.envs.memory.memory import (
    clip_read,
    join_address,
    match_windows,
    read_iou,
    split_address,
)
from assembly_gym.envs.memory.population import (
    from_experience,
    roll_call_experience,
    structured_patterns,
)


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


def test_match_windows_takes_the_best_window_and_hits_on_any_overlap():
    windows = np.array([[5, 50], [5, 50]]), np.array([[10, 10], [10, 10]])
    hit, iou = match_windows(np.array([0, 100]), np.array([10, 5]), *windows)
    assert hit.tolist() == [True, False] and iou == pytest.approx([5 / 15, 0.0])


def test_bit_memory_validates_itself():
    with pytest.raises(ValueError, match="1-D uint32"):
        BitMemory(np.zeros(256, dtype=np.int64), 32)
    with pytest.raises(ValueError, match="whole pages"):
        BitMemory(np.zeros(100, dtype=np.uint32), 32)
    with pytest.raises(ValueError, match="word_size must be 1"):
        BitMemory(np.zeros(256, dtype=np.uint32), 33)
    with pytest.raises(ValueError, match="above word_size"):
        BitMemory(np.full(256, 256, dtype=np.uint32), 8)


def test_mean_bits_matches_an_explicit_count_and_clips(explicit_mean_bits):
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


@pytest.mark.real_data
@pytest.mark.skipif(unvotes_dir() is None, reason="real data absent: set $ASSEMBLY_GYM_DATA")
def test_memory_from_real_roll_call_experience(tiny):
    features = roll_call_experience(str(unvotes_dir()))
    assert features.shape[0] > 5000
    world = MemoryWorld(
        MemoryWorldConfig(**{**tiny, "population": "experience"}), experience=features
    )
    bits = features[0] > np.median(features, axis=0)  # the first roll call, bit by bit
    unpacked = world.memory.unpack(0, -(-len(bits) // 32)).ravel()
    assert np.array_equal(unpacked[: len(bits)], bits) and not unpacked[len(bits) :].any()
    env = MemoryDynamicsEnv(world=world)
    env.reset(seed=0)
    assert np.isfinite(env.step(np.array([0, 0, 15]))[1])
