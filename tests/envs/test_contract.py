"""The contract every registered env keeps: seeding, render modes and flat memory, once per id."""

from __future__ import annotations

import tracemalloc
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.envs.registration import ENV_IDS

MAX_STEPS = 30
"""Rollouts stop here if the episode has not ended (every env's episodes are shorter)."""


@pytest.fixture(params=sorted(ENV_IDS))
def make(request, make_kwargs):
    """Builds the parametrised env: ``make(render_mode=…)`` (``make_kwargs``: conftest.py)."""
    env_id = request.param
    assert env_id in make_kwargs, f"give tests/envs/conftest.py a small instance of {env_id}"
    return lambda **extra: gym.make(env_id, **make_kwargs[env_id], **extra)


def _action(env: gym.Env, info: dict[str, Any]) -> Any:
    """A valid action drawn from the env's (seeded) action space."""
    if isinstance(env.action_space, gym.spaces.Discrete) and "action_mask" in info:
        return env.action_space.sample(mask=np.asarray(info["action_mask"], dtype=np.int8))
    return env.action_space.sample()


def _rollout(env: gym.Env, seed: int) -> tuple[list[np.ndarray], list[float], list[dict]]:
    """Observations, rewards and infos of one episode, actions drawn with the same seed."""
    env.action_space.seed(seed)
    obs, info = env.reset(seed=seed)
    observations, rewards, infos = [obs], [], [info]
    for _ in range(MAX_STEPS):
        obs, reward, terminated, truncated, info = env.step(_action(env, info))
        observations.append(obs)
        rewards.append(float(reward))
        infos.append(info)
        if terminated or truncated:
            break
    return observations, rewards, infos


def _same_infos(a: list[dict], b: list[dict]) -> bool:
    return len(a) == len(b) and all(
        x.keys() == y.keys() and all(np.array_equal(np.asarray(x[k]), np.asarray(y[k])) for k in x)
        for x, y in zip(a, b, strict=True)
    )


# ---------------------------------------------------------------------- seeding


def test_same_seed_gives_the_same_rollout(make):
    first, second = make(), make()
    for seed in (0, 7):
        obs_a, rewards_a, infos_a = _rollout(first, seed)
        obs_b, rewards_b, infos_b = _rollout(second, seed)
        assert len(obs_a) == len(obs_b)
        assert all(np.array_equal(a, b) for a, b in zip(obs_a, obs_b, strict=True))
        assert rewards_a == rewards_b
        assert _same_infos(infos_a, infos_b)


def test_other_seeds_give_other_episodes(make):
    env = make()
    first_observations = {env.reset(seed=seed)[0].tobytes() for seed in range(8)}
    assert len(first_observations) > 1


# ---------------------------------------------------------------------- render modes


def test_ansi_returns_the_state_as_text(make):
    env = make(render_mode="ansi")
    _, info = env.reset(seed=0)
    before = env.render()
    assert isinstance(before, str) and before
    env.step(_action(env, info))
    after = env.render()
    assert isinstance(after, str) and after != before


def test_human_shows_the_rgb_array_frame_in_a_window_on_every_step(make, monkeypatch):
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # a window without a display
    pictures, human = make(render_mode="rgb_array"), make(render_mode="human")
    _, info = pictures.reset(seed=0)
    human.reset(seed=0)
    try:
        assert human.render() is None
        shown = pygame.surfarray.array3d(pygame.display.get_surface()).swapaxes(0, 1)
        np.testing.assert_array_equal(shown, pictures.render())
        action = _action(pictures, info)
        pictures.step(action)
        human.step(action)  # shows the new frame without being asked
        shown = pygame.surfarray.array3d(pygame.display.get_surface()).swapaxes(0, 1)
        np.testing.assert_array_equal(shown, pictures.render())
    finally:
        human.close()
    assert not pygame.display.get_init()


def test_render_without_a_mode_warns_and_returns_nothing(make):
    env = make().unwrapped
    env.reset(seed=0)
    with pytest.warns(UserWarning, match=r"render\(\) called without a render_mode"):
        assert env.render() is None


def test_rgb_array_returns_a_fresh_frame_of_one_size(make):
    env = make(render_mode="rgb_array")
    assert env.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    unstarted = env.unwrapped.render()  # a frame before reset too (says "not started")
    _, info = env.reset(seed=0)
    before = env.render()
    env.step(_action(env, info))
    after = env.render()
    for frame in (unstarted, before, after):
        assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
        assert frame.shape == (480, 640, 3)
    assert not np.array_equal(before, after) and not np.array_equal(unstarted, before)
    again = env.render()
    assert again is not after and np.array_equal(again, after)
    again[:] = 0  # a caller may draw on its frame: the next one is unchanged
    assert np.array_equal(env.render(), after)


def test_an_unknown_render_mode_is_an_error(make):
    with warnings.catch_warnings():  # gym.make warns of the unknown mode before the env refuses
        warnings.simplefilter("ignore")
        with pytest.raises(
            ValueError, match=r"render_mode must be one of \['ansi', 'human', 'rgb_array'\]"
        ):
            make(render_mode="pixels")


# ---------------------------------------------------------------------- long runs

LEAK_BUDGET_BYTES = 64 * 1024
"""Memory still held after 2,000 more steps; keeping each step's info dict would hold ~0.5 MB."""


def test_memory_stays_flat_over_a_long_run(make):
    """Once warm (every cache filled), stepping on and on holds no more memory."""
    env = make()
    env.action_space.seed(0)
    _, info = env.reset(seed=0)

    def run(steps: int) -> None:
        nonlocal info
        for _ in range(steps):
            _, _, terminated, truncated, info = env.step(_action(env, info))
            if terminated or truncated:
                _, info = env.reset()

    run(500)
    tracemalloc.start()
    try:
        run(100)
        held_before = tracemalloc.get_traced_memory()[0]
        run(1_000)
        held_after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held_after - held_before < LEAK_BUDGET_BYTES
