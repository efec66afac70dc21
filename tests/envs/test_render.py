"""The pictures ("rgb_array"): what they show, and the wrappers and tools that take them."""

from __future__ import annotations

import importlib.util
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import RenderCollection

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.core.hemicycle import (
    SEAT_COLOURS,
    AssemblyView,
    Hemicycle,
    Seat,
    seat_order,
    share_seats,
    sponsor_seats,
    vote_seats,
)
from assembly_gym.core.render import FRAME_SHAPE, PALETTE, fit_text, state_picture, text_width
from assembly_gym.envs.legislative.data import ABSENT, Vote
from assembly_gym.envs.legislative.resolutions import generate_resolution_records
from assembly_gym.envs.legislative.spaces import Action
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.envs.legislative.transitions import deliberation_transitions
from assembly_gym.envs.memory.render import MemoryPicture, MemoryView
from assembly_gym.envs.registration import ENV_IDS
from assembly_gym.world_models.empirical import EmpiricalModel


@pytest.fixture(scope="module")
def make_kwargs() -> dict[str, dict[str, Any]]:
    """Keyword arguments of ``gym.make`` for a small instance of every registered env."""
    assembly = generate_assembly(
        SyntheticConfig(n_countries=12, n_sessions=3, roll_calls_per_session=10, seed=3)
    )
    return {
        "assembly/RollCall-v0": {"data": assembly.data, "country": "Country 003"},
        "assembly/Deliberation-v0": {
            "data": generate_resolution_records(assembly), "country": "Country 003",
        },
        "assembly/Simulator-v0": {
            "model": EmpiricalModel().fit(deliberation_transitions(assembly)),
        },
        "assembly/MemoryDynamics-v0": {
            "difficulty": "medium", "num_words": 2048, "sequence_length": 8,
        },
    }  # fmt: skip


def _colour_at(frame: np.ndarray, xy: np.ndarray) -> np.ndarray:
    x, y = np.round(xy).astype(int)
    return frame[y, x]


def _seat_colours(frame: np.ndarray, hemicycle: Hemicycle) -> np.ndarray:
    """The kind shown at each seat's centre, (n,), -1 where no seat colour is."""
    centres = np.round(hemicycle.centres).astype(int)
    pixels = frame[centres[:, 1], centres[:, 0]].astype(np.float32)
    matches = (pixels[:, None, :] == SEAT_COLOURS[None]).all(axis=2)
    return np.where(matches.any(axis=1), matches.argmax(axis=1), -1)


# ---------------------------------------------------------------------- the hemicycle


@pytest.mark.parametrize("n_seats", [1, 6, 40, 193])
def test_seats_sit_left_to_right_without_overlap(n_seats):
    hemicycle = Hemicycle(n_seats)
    centres = hemicycle.centres
    assert centres.shape == (n_seats, 2)
    angles = np.arctan2(372.0 - centres[:, 1], centres[:, 0] - 320.0)
    assert (np.diff(angles) <= 1e-9).all()  # from the left (π) to the right (0)
    if n_seats > 1:
        gaps = np.linalg.norm(centres[:, None] - centres[None], axis=2)
        assert gaps[~np.eye(n_seats, dtype=bool)].min() > 2 * hemicycle.radius
    height, width = FRAME_SHAPE[:2]
    assert (centres - hemicycle.radius > 0).all()
    assert (centres[:, 0] + hemicycle.radius < width).all()
    assert (centres[:, 1] + hemicycle.radius < height).all()


def test_every_seat_shows_its_kind_and_the_frame_is_fresh():
    kinds = np.array([*Seat] * 3)
    hemicycle = Hemicycle(len(kinds))
    view = AssemblyView("title", "subtitle", kinds, acting=None)
    frame = hemicycle.draw(view)
    assert frame.shape == FRAME_SHAPE and frame.dtype == np.uint8
    np.testing.assert_array_equal(_seat_colours(frame, hemicycle), kinds)
    frame[:] = 0
    np.testing.assert_array_equal(_seat_colours(hemicycle.draw(view), hemicycle), kinds)


def test_the_acting_seat_is_ringed():
    hemicycle = Hemicycle(10)
    seats = np.full(10, Seat.YES)
    plain = hemicycle.draw(AssemblyView("t", "s", seats))
    ringed = hemicycle.draw(AssemblyView("t", "s", seats, acting=4, acting_label="me: YES"))
    changed = np.argwhere((plain != ringed).any(axis=2))  # (y, x) of changed pixels
    in_hemicycle = changed[changed[:, 0] < 380]
    distance = np.linalg.norm(in_hemicycle[:, ::-1] - hemicycle.centres[4], axis=1)
    assert len(in_hemicycle) and (distance < hemicycle.radius + 7).all()


def test_bad_seats_are_one_clear_error():
    with pytest.raises(ValueError, match="at least one seat"):
        Hemicycle(0)
    with pytest.raises(ValueError, match=r"5 seats to show, got seats of shape \(4,\)"):
        Hemicycle(5).draw(AssemblyView("t", "s", np.zeros(4, dtype=np.int64)))


def test_seat_kinds_of_votes_sponsors_and_shares():
    codes = np.array([Vote.YES, Vote.NO, Vote.ABSTAIN, ABSENT])
    assert vote_seats(codes).tolist() == [Seat.YES, Seat.NO, Seat.ABSTAIN, Seat.ABSENT]
    assert sponsor_seats(np.array([1, 0])).tolist() == [Seat.SPONSOR, Seat.NON_SPONSOR]
    seats = share_seats({Seat.YES: 0.625, Seat.NO: 0.25, Seat.ABSTAIN: 0.125}, 10)
    assert np.bincount(seats, minlength=len(Seat))[:3].tolist() == [6, 3, 1]  # sums to 10
    assert share_seats({Seat.SPONSOR: 0.3}, 10).tolist() == [Seat.SPONSOR] * 3 + [Seat.PENDING] * 7


def test_seat_order_puts_the_yes_voters_left():
    votes = np.array([[1, 1, 1], [0, 0, 0], [0, 1, ABSENT], [0, 2, 2]], dtype=np.int8)
    seats = seat_order(votes)
    assert sorted(seats.tolist()) == [0, 1, 2, 3]
    assert seats.tolist() == [3, 0, 2, 1]  # all yes, yes + abstain, yes + no, all no


def test_text_is_cut_to_fit_and_the_state_picture_draws():
    long = "A very long resolution title that will never fit " * 4
    cut = fit_text(long, 14, 200)
    assert cut.endswith("…") and text_width(cut, 14) <= 200 and long.startswith(cut[:-1])
    assert fit_text("short", 14, 200) == "short"
    trace = np.linspace(-1, 1, 12).reshape(4, 3)
    frame = state_picture("t", "s", ["a", "b", "c"], trace, x_max=6)
    assert frame.shape == FRAME_SHAPE
    assert (frame == PALETTE[0]).all(axis=2).any()  # the first bar and line


# ---------------------------------------------------------------------- what the envs show


def test_rollcall_colours_the_country_by_the_agents_vote(make_kwargs):
    env = gym.make("assembly/RollCall-v0", render_mode="rgb_array",
                   **make_kwargs["assembly/RollCall-v0"])  # fmt: skip
    env.reset(seed=0)
    unwrapped = env.unwrapped
    hemicycle, seat_of = unwrapped._hemicycle
    seat = seat_of[unwrapped.data.country_index("Country 003")]
    assert (_seat_colours(env.render(), hemicycle) == Seat.PENDING).all()
    env.step(Vote.ABSTAIN)
    frame = env.render()
    np.testing.assert_array_equal(_colour_at(frame, hemicycle.centres[seat]),
                                  SEAT_COLOURS[Seat.ABSTAIN])  # fmt: skip
    column = unwrapped._episode["columns"][0]
    others = np.delete(np.arange(hemicycle.n_seats), seat)
    shown = _seat_colours(frame, hemicycle)
    expected = np.empty(hemicycle.n_seats, dtype=np.int64)
    expected[seat_of] = vote_seats(unwrapped.data.votes[:, column])
    np.testing.assert_array_equal(shown[others], expected[others])


def test_deliberation_shows_the_sponsors_then_the_votes(make_kwargs):
    env = gym.make("assembly/Deliberation-v0", render_mode="rgb_array",
                   **make_kwargs["assembly/Deliberation-v0"])  # fmt: skip
    env.reset(seed=1)
    hemicycle, _ = env.unwrapped._hemicycle
    _, _, _, _, info = env.step(Action.COSPONSOR)
    shown = _seat_colours(env.render(), hemicycle)
    assert (shown == Seat.SPONSOR).sum() == info["tally"]["sponsors"] >= 1
    _, _, _, _, info = env.step(Action.NO)
    shown = _seat_colours(env.render(), hemicycle)
    for vote in ("yes", "no", "abstain"):
        assert (shown == Seat[vote.upper()]).sum() == info["tally"][vote]


def test_simulator_seats_are_the_shares_of_the_vote(make_kwargs):
    env = gym.make("assembly/Simulator-v0", render_mode="rgb_array",
                   **make_kwargs["assembly/Simulator-v0"])  # fmt: skip
    env.reset(seed=0)
    for action in (Action.NO_ACTION, Action.YES):
        obs, *_ = env.step(action)
    unwrapped = env.unwrapped
    shown = _seat_colours(env.render(), unwrapped._hemicycle)
    yes = obs[unwrapped.layout.index("committee_yes")]
    assert abs((shown == Seat.YES).sum() - 100 * yes) <= 1


def test_memory_frames_show_the_reads_and_keep_the_map(make_kwargs):
    env = gym.make("assembly/MemoryDynamics-v0", render_mode="rgb_array",
                   **make_kwargs["assembly/MemoryDynamics-v0"])  # fmt: skip
    env.reset(seed=0)
    unwrapped = env.unwrapped
    start, length = unwrapped.relevant_windows()[0]
    first = env.render()
    env.step(np.array([start // 256, start % 256, length - 1]))
    second = env.render()
    hit, memory_map = (40, 160, 70), (slice(80, 432), slice(44, 396))  # the legend has it too
    assert not (first[memory_map] == hit).all(axis=2).any()
    assert (second[memory_map] == hit).all(axis=2).any()
    assert unwrapped._picture is unwrapped._picture  # the map is built once


def test_memory_picture_refuses_part_of_a_page():
    with pytest.raises(ValueError, match="whole pages of 256 words"):
        MemoryPicture(np.zeros(100, dtype=np.uint32), word_size=8)
    view = MemoryView("t", ("a line",), np.zeros((1, 3)), steps=4)
    assert MemoryPicture(np.zeros(512, dtype=np.uint32), word_size=8).draw(view).shape == (
        FRAME_SHAPE
    )


# ---------------------------------------------------------------------- wrappers and tools


@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_render_collection_gathers_a_frame_per_step(env_id, make_kwargs):
    """What RecordVideo records: one frame at reset and one per step."""
    env = RenderCollection(gym.make(env_id, render_mode="rgb_array", **make_kwargs[env_id]))
    env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(2):
        env.step(env.action_space.sample())
    frames = env.render()
    assert len(frames) == 3 and all(f.shape == FRAME_SHAPE for f in frames)


def test_rgb_array_list_is_made_by_gym_make(make_kwargs):
    env = gym.make("assembly/RollCall-v0", render_mode="rgb_array_list",
                   **make_kwargs["assembly/RollCall-v0"])  # fmt: skip
    env.reset(seed=0)
    env.step(0)
    assert [f.shape for f in env.render()] == [FRAME_SHAPE] * 2


@pytest.mark.skipif(importlib.util.find_spec("moviepy") is None, reason="moviepy is not installed")
def test_record_video_writes_an_episode(tmp_path, make_kwargs):
    from gymnasium.wrappers import RecordVideo

    env = gym.make("assembly/Deliberation-v0", render_mode="rgb_array",
                   **make_kwargs["assembly/Deliberation-v0"])  # fmt: skip
    env = RecordVideo(env, str(tmp_path), episode_trigger=lambda episode: True,
                      disable_logger=True)  # fmt: skip
    env.reset(seed=0)
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step(Action.NO_ACTION)
    env.close()
    assert list(tmp_path.glob("*.mp4"))


@pytest.mark.skipif(importlib.util.find_spec("pygame") is None, reason="pygame is not installed")
@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_human_rendering_shows_the_frames_in_a_window(env_id, make_kwargs, monkeypatch):
    from gymnasium.wrappers import HumanRendering

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # no display needed
    env = HumanRendering(gym.make(env_id, render_mode="rgb_array", **make_kwargs[env_id]))
    env.metadata["render_fps"] = 1000  # the window waits 1 / fps per frame
    env.reset(seed=0)
    env.action_space.seed(0)
    env.step(env.action_space.sample())
    assert env.window is not None and env.render() is None
    env.close()


@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_sb3_make_vec_env_renders(env_id, make_kwargs):
    """SB3's make_vec_env asks every env for render_mode="rgb_array"."""
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env(env_id, n_envs=2, seed=0, env_kwargs=make_kwargs[env_id])
    vec.reset()
    assert [image.shape for image in vec.get_images()] == [FRAME_SHAPE] * 2
    vec.close()
