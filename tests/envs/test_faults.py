"""Envs under faults and bad input: nothing moves on a failing reward, nonsense is refused.

Every case runs on every registered id (and every native vector env) that it applies to, so
a new id is covered on registration. The envs' small instances: ``make_kwargs`` (conftest.py).
"""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import assembly_gym  # noqa: F401  (registers the ids)
from assembly_gym.core.errors import RewardFunctionError
from assembly_gym.envs.registration import ENV_IDS, VECTOR_ENTRY_POINTS, make_native_vec
from assembly_gym.envs.vector_api import AUTORESET_MODES

FAULT_STEP = 1
"""The step (0-based) at which a faulty reward function fails: mid-episode, after a move."""
N = 3
"""Sub-envs of the vector envs."""


def gain(obs: np.ndarray, action: Any, next_obs: np.ndarray, info: dict[str, Any]) -> float:
    """A reward that sees the step: the change of the observation's sum."""
    return float(np.sum(next_obs, dtype=np.float64) - np.sum(obs, dtype=np.float64))


class BatchGain:
    """:func:`gain` with a ``batch`` (vector envs then call it once per step)."""

    def __call__(self, obs, action, next_obs, info) -> float:
        return gain(obs, action, next_obs, info)

    def batch(self, obs, actions, next_obs, infos) -> np.ndarray:
        return next_obs.sum(axis=1, dtype=np.float64) - obs.sum(axis=1, dtype=np.float64)


class Faulty:
    """A reward function that fails once, at call ``fault_at``: raises, or returns ``value``.

    With ``batched`` it has a ``batch`` too, which fails the same way at its own call.
    """

    def __init__(self, fault: str, fault_at: int = FAULT_STEP, batched: bool = False) -> None:
        self.fault, self.fault_at, self.calls = fault, fault_at, 0
        if batched:
            self.batch = self._batch

    def _fails(self) -> bool:
        self.calls += 1
        if self.calls - 1 != self.fault_at:
            return False
        if self.fault == "raises":
            raise OwnBug("the user's own bug")
        return True

    def __call__(self, obs, action, next_obs, info) -> float:
        return float(self.fault) if self._fails() else gain(obs, action, next_obs, info)

    def _batch(self, obs, actions, next_obs, infos) -> np.ndarray:
        rewards = BatchGain().batch(obs, actions, next_obs, infos)
        if self._fails():
            rewards[-1] = float(self.fault)
        return rewards

    def __repr__(self) -> str:
        return f"Faulty({self.fault} at call {self.fault_at})"


class OwnBug(Exception):
    """What a user's reward function raises: it must reach the user unchanged."""


FAULTS = ["raises", "nan", "inf", "-inf"]


def _same(a: Any, b: Any) -> bool:
    """Equal values: dicts key by key, tuples and object arrays item by item, arrays exactly."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray) and a.dtype == object:
        return (
            isinstance(b, np.ndarray)
            and a.shape == b.shape
            and all(_same(x, y) for x, y in zip(a.ravel(), b.ravel(), strict=True))
        )
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def _actions(env: gym.Env, steps: int, seed: int = 0) -> list[Any]:
    """Valid actions for the first ``steps`` steps of the episode that ``reset(seed=0)`` starts."""
    probe = env.unwrapped
    _, info = probe.reset(seed=0)
    probe.action_space.seed(seed)
    actions = []
    for _ in range(steps):
        mask = np.asarray(info["action_mask"], dtype=np.int8)
        space = probe.action_space
        action = (
            space.sample(mask=mask) if isinstance(space, gym.spaces.Discrete) else space.sample()
        )
        actions.append(action)
        _, _, terminated, truncated, info = probe.step(action)
        if terminated or truncated:
            break
    return actions


def _expected_error(fault: str, reward_fn: Any, where: str = "") -> tuple[type[Exception], str]:
    """The error a fault gives and its message (a pattern); ``where``: the row in a batch."""
    if fault == "raises":
        return OwnBug, "the user's own bug"
    return RewardFunctionError, re.escape(
        f"{reward_fn!r} returned {fault}{where}: rewards must be finite"
    )


# ---------------------------------------------------------------------- single envs


@pytest.fixture(params=sorted(ENV_IDS))
def env_id(request, make_kwargs) -> str:
    assert request.param in make_kwargs, (
        f"give tests/envs/conftest.py an instance of {request.param}"
    )
    return request.param


@pytest.mark.parametrize("fault", FAULTS)
def test_a_failing_reward_leaves_the_env_as_it_was(env_id, make_kwargs, fault):
    """The failed step, repeated, and the rest of the episode equal an env that never failed."""
    reference = gym.make(env_id, **make_kwargs[env_id], reward_fn=gain)
    reward_fn = Faulty(fault)
    env = gym.make(env_id, **make_kwargs[env_id], reward_fn=reward_fn)
    actions = _actions(gym.make(env_id, **make_kwargs[env_id]), steps=30)
    assert len(actions) > FAULT_STEP, "the episode must outlast the faulty step"
    assert _same(env.reset(seed=0), reference.reset(seed=0))
    for t, action in enumerate(actions):
        if t == FAULT_STEP:
            error, message = _expected_error(fault, reward_fn)
            with pytest.raises(error, match=message) as raised:
                env.step(action)
            assert type(raised.value) is error  # the user's own exception is not wrapped
        assert _same(env.step(action), reference.step(action)), f"step {t}"
    with pytest.raises(gym.error.ResetNeeded):  # the episode ended where the reference's did
        env.unwrapped.step(actions[-1])


def test_a_reward_error_names_a_plain_function_and_the_value(make_kwargs):
    def nan_reward(obs, action, next_obs, info):
        return float("nan")

    env = gym.make("assembly/RollCall-v0", **make_kwargs["assembly/RollCall-v0"],
                   reward_fn=nan_reward)  # fmt: skip
    env.reset(seed=0)
    with pytest.raises(RewardFunctionError, match=r"\.nan_reward returned nan"):
        env.step(0)
    assert issubclass(RewardFunctionError, ValueError)


def test_stepping_before_reset_or_after_the_end_needs_a_reset(env_id, make_kwargs):
    env = gym.make(env_id, **make_kwargs[env_id]).unwrapped  # the env itself, unwrapped
    actions = _actions(gym.make(env_id, **make_kwargs[env_id]), steps=30)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(actions[0])
    env.reset(seed=0)
    for action in actions:
        env.step(action)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(actions[-1])


def test_an_unknown_reset_option_raises_naming_the_accepted_ones(env_id, make_kwargs):
    env = gym.make(env_id, **make_kwargs[env_id])
    accepted = env.unwrapped.RESET_OPTIONS
    reference = gym.make(env_id, **make_kwargs[env_id])
    action = _actions(gym.make(env_id, **make_kwargs[env_id]), steps=1)[0]
    assert _same(env.reset(seed=0), reference.reset(seed=0))
    with pytest.raises(ValueError, match="unknown reset option 'contry'") as raised:
        env.reset(seed=5, options={"contry": "Country 001"})
    assert all(repr(name) in str(raised.value) for name in accepted)
    if "country" in accepted:
        assert "did you mean 'country'?" in str(raised.value)
    assert _same(env.step(action), reference.step(action))  # the episode went on untouched
    with pytest.raises(TypeError, match="reset options must be a dict, got list"):
        env.reset(options=["country"])
    env.reset(seed=0, options={})  # no options and empty options are fine
    env.reset(seed=0, options=None)


def test_a_reset_option_of_another_type_says_what_it_expected(env_id, make_kwargs):
    env = gym.make(env_id, **make_kwargs[env_id])
    for name, types in env.unwrapped.RESET_OPTIONS.items():
        expected = " or ".join(kind.__name__ for kind in types)
        with pytest.raises(TypeError, match=rf"option '{name}' must be {expected}, got object"):
            env.reset(options={name: object()})
    if "session" in env.unwrapped.RESET_OPTIONS:
        with pytest.raises(TypeError, match=r"option 'session' must be int, got str '3'"):
            env.reset(options={"session": "3"})
        with pytest.raises(TypeError, match=r"option 'session' must be int, got bool"):
            env.reset(options={"session": True})
        with pytest.raises(TypeError, match=r"option 'session' must be int, got str '3'"):
            gym.make(env_id, **make_kwargs[env_id], session="3")  # the constructor's default
        session = env.reset(seed=0)[1]["session"]
        _, info = env.reset(seed=1, options={"session": np.int64(session)})  # NumPy ints are ints
        assert info["session"] == session


# ---------------------------------------------------------------------- vector envs


@pytest.fixture(params=sorted(VECTOR_ENTRY_POINTS))
def vector_id(request) -> str:
    return request.param


def _venv(env_id: str, make_kwargs: dict, mode: Any = None, **extra: Any) -> Any:
    return make_native_vec(env_id, N, **make_kwargs[env_id], autoreset_mode=mode, **extra)


def _vector_actions(rng: np.random.Generator, venv: Any) -> np.ndarray:
    """A valid action per sub-env: a masked choice (Discrete), else a draw (MultiDiscrete)."""
    space = venv.unwrapped.single_action_space
    if isinstance(space, gym.spaces.MultiDiscrete):
        return rng.integers(0, space.nvec, size=(N, *space.shape))
    masks = venv.unwrapped.action_masks()
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("batched", [False, True], ids=["row_by_row", "batch"])
@pytest.mark.parametrize("mode", AUTORESET_MODES, ids=str)
def test_a_failing_reward_leaves_the_vector_env_as_it_was(
    vector_id, make_kwargs, fault, batched, mode
):
    reference = _venv(vector_id, make_kwargs, mode, reward_fn=BatchGain() if batched else gain)
    reward_fn = Faulty(fault, fault_at=FAULT_STEP if batched else FAULT_STEP * N, batched=batched)
    venv = _venv(vector_id, make_kwargs, mode, reward_fn=reward_fn)
    assert _same(venv.reset(seed=0), reference.reset(seed=0))
    rng = np.random.default_rng(0)
    for t in range(8):  # past the end of Deliberation's episodes: autoresets
        actions = _vector_actions(rng, reference)
        if t == FAULT_STEP:
            row = N - 1 if batched else 0
            error, message = _expected_error(fault, reward_fn, f" for row {row} of a batch of {N}")
            with pytest.raises(error, match=message):
                venv.step(actions)
        assert _same(venv.step(actions), reference.step(actions)), f"step {t}"


def test_stepping_a_vector_env_before_reset_needs_a_reset(vector_id, make_kwargs):
    venv = _venv(vector_id, make_kwargs)
    with pytest.raises(gym.error.ResetNeeded):
        venv.step(np.zeros(N, dtype=np.int64))
    with pytest.raises(ValueError, match="unknown reset option"):
        venv.reset(seed=0, options={"contry": "Country 001"})
    with pytest.raises(gym.error.ResetNeeded):  # a failed reset is no reset
        venv.step(np.zeros(N, dtype=np.int64))


def test_stepping_gymnasiums_vector_env_before_reset_needs_a_reset(env_id, make_kwargs):
    venv = gym.make_vec(env_id, num_envs=2, vectorization_mode="sync", **make_kwargs[env_id])
    with pytest.raises(gym.error.ResetNeeded):
        venv.step(venv.action_space.sample())


def test_vector_reset_options_are_checked_as_the_single_envs_are(vector_id, make_kwargs):
    venv = _venv(vector_id, make_kwargs)
    accepted = venv.unwrapped.env.RESET_OPTIONS
    with pytest.raises(ValueError, match="unknown reset option 'contry'") as raised:
        venv.reset(options={"contry": "Country 001"})
    assert all(repr(name) in str(raised.value) for name in accepted)
    if "session" in accepted:
        with pytest.raises(TypeError, match=r"option 'session' must be int, got str '3'"):
            venv.reset(options={"session": "3"})
    if "country" in accepted:
        country = make_kwargs[vector_id]["data"].country_names[1]
        _, infos = venv.reset(seed=0, options={"country": country})
        assert set(infos["country"]) == {country}
