"""``assembly/Simulator-v0``: a trained world model as a Gymnasium environment.

It lives with the world models, not in :mod:`assembly_gym.envs`, because it loads and runs
them (mbrl-lib keeps its ``ModelEnv`` beside its models for the same reason); the id is
registered with the other ``assembly/`` ids by name only, so ``envs`` never imports it.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from assembly_gym.core.errors import InvalidActionError
from assembly_gym.core.hemicycle import AssemblyView, Hemicycle, Seat, share_seats
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.core.render import PALETTE, RenderModes, state_picture
from assembly_gym.core.rewards import RewardFn, checked_reward
from assembly_gym.core.state import StateDeclaration, VoteGroup
from assembly_gym.envs.options import OptionTypes, checked_options
from assembly_gym.world_models.base import WorldModel, load_world_model
from assembly_gym.world_models.heads import HeadModel

__all__ = ["SimulatorEnv"]

_SEATS = 100  # seats of the pictured hemicycle: each is 1% of a vote
_PLOTTED = len(PALETTE)  # state dimensions pictured for families without votes


class SimulatorEnv(RenderModes, gym.Env[np.ndarray, np.int64]):
    """A world model of an ``assembly/`` env (e.g. ``Deliberation-v0``) run as an environment.

    ## Description
    Each step samples s' from the model given the observation and the action
    (:meth:`~assembly_gym.world_models.base.WorldModel.sample`, with ``self.np_random``), as
    mbrl-lib's ``ModelEnv`` does.

    ## Action Space
    ``Discrete(n)``: the modelled env's actions (``model.n_actions``). When the model knows
    which actions the data allowed in which stage (``model.action_masks``), they are
    ``info["action_mask"]`` and :meth:`action_masks`; an invalid action is replaced by
    ``model.noop_action`` (the action valid in every stage, e.g. NO_ACTION) with
    ``info["invalid_action"] = True``, or raises
    :class:`~assembly_gym.core.errors.InvalidActionError` with ``invalid_action="raise"``.

    ## Observation Space
    The modelled env's: ``Box(low, high, (d,), float32)`` with the bounds the model saved
    (``model.observation_bounds``; unbounded if it has none) and the names of the layout it
    was trained on (:attr:`layout`, e.g. the 75 names of ``Deliberation-v0``); a sample
    outside the bounds is clipped onto them, and every observation is a fresh array. What the
    dimensions are is the modelled env family's state declaration (:attr:`declaration`:
    ``model.state_declaration``, as its training transitions carried it; else the empty
    declaration: no stages, nothing grouped).

    ## Rewards
    ``reward_fn(obs, action, next_obs, info)`` (the signature of every ``assembly/`` env);
    0 without one: a simulator has no recorded actions, so the envs' default proxy (match
    the recorded action) does not apply.

    ## Starting State
    A start state drawn with ``self.np_random`` from the start-state distribution: the
    ``start_states`` argument, else the model's ``start_states`` (the first observations of
    its training episodes, saved with the model as ``start_states.npy``).
    ``reset(options={"start_state": obs})`` starts from a given observation.

    ## Episode End
    Terminated when the modelled stage becomes the declaration's terminal stage (families
    that declare stages, as ``Deliberation-v0``: TERMINAL); otherwise when a draw from the
    model's ``done`` distribution says so (``RollCall-v0``). Truncated after
    ``max_episode_steps`` steps (default: the model's longest training episode; an argument,
    not a registration-time limit, since it depends on the model).

    ## Arguments
    ``model`` (a saved folder or a fitted object), ``reward_fn``, ``start_states`` (N0, d),
    ``max_episode_steps``, ``invalid_action`` ("noop" or "raise"), ``render_mode``
    ("ansi", "human" or "rgb_array").

    ## Info
    The same keys, each with one type, at reset and at every step: ``step`` (int, steps
    taken), ``action_mask`` (bool (n,)), ``invalid_action`` (bool: the action was replaced by
    ``model.noop_action``; False at reset) and, for families that declare stages, ``stage``
    (str, the current stage's label) and ``acted_stage`` (str, the stage just played; "" at
    reset).

    ## Rendering
    "rgb_array": a (480, 640, 3) uint8 picture drawn through the modelled env family. A
    family whose declaration has votes in the layout (``Deliberation-v0``) is drawn as the
    legislative envs are, as a hemicycle, here of 100 seats, each 1% of the latest vote (or
    of the sponsor share before the first vote), with the stages and the outcome; any other
    as bars of the state dimensions (those :meth:`render_text` shows) and their trace over
    the episode. "human": that picture in a window (pygame), after every step too. "ansi": the
    state as text.

    ## Version History
    * v0: initial version, the behaviour of the first release. Changes made before that
      release are in CHANGELOG.md; from it on, a change of observation, dynamics or reward
      gets a new id (docs/architecture.md, "Versions").

    Example:
        >>> import gymnasium as gym, assembly_gym
        >>> from assembly_gym.envs.legislative.transitions import deliberation_transitions
        >>> from assembly_gym.world_models import EmpiricalModel
        >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
        >>> assembly = generate_assembly(SyntheticConfig(n_countries=6, n_sessions=2))
        >>> model = EmpiricalModel().fit(deliberation_transitions(assembly))
        >>> env = gym.make("assembly/Simulator-v0", model=model)
        >>> obs, info = env.reset(seed=0)
        >>> info["stage"], info["action_mask"].tolist()
        ('DRAFT', [True, False, False, False, True])
        >>> obs, reward, terminated, truncated, info = env.step(4)
        >>> info["stage"]
        'COMMITTEE_VOTE'
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    RESET_OPTIONS: OptionTypes = {"start_state": (np.ndarray, list, tuple)}
    """What ``reset(options=…)`` takes."""

    def __init__(
        self,
        model: Any,
        *,
        reward_fn: RewardFn | None = None,
        start_states: np.ndarray | None = None,
        max_episode_steps: int | None = None,
        invalid_action: Literal["noop", "raise"] = "noop",
        render_mode: str | None = None,
    ) -> None:
        self.render_mode = self._checked_render_mode(render_mode)
        if invalid_action not in ("noop", "raise"):
            raise ValueError(f"invalid_action must be 'noop' or 'raise', got {invalid_action!r}")
        folder = Path(model) if isinstance(model, (str, Path)) else None
        self.model = load_world_model(folder) if folder is not None else model
        if not isinstance(self.model, WorldModel):
            raise TypeError(
                f"model must be a world model or its folder, not {type(model).__name__}"
            )
        self.layout = ObservationLayout(self.model.obs_names)
        d = len(self.layout)
        bounds = getattr(self.model, "observation_bounds", None)
        low, high = bounds if bounds is not None else (np.full(d, -np.inf), np.full(d, np.inf))
        low, high = np.asarray(low, np.float32), np.asarray(high, np.float32)
        self.observation_space: spaces.Box = spaces.Box(low, high, shape=(d,), dtype=np.float32)
        n_actions = getattr(self.model, "n_actions", None)
        if not n_actions:
            raise ValueError("the model does not say how many actions it takes (n_actions)")
        self.action_space: spaces.Discrete = spaces.Discrete(int(n_actions))
        if start_states is None:
            start_states = getattr(self.model, "start_states", None)
        if start_states is None:
            raise ValueError("no start states: pass start_states=(N0, d) observations")
        self.start_states = np.asarray(start_states, dtype=np.float32)
        if (
            self.start_states.ndim != 2
            or self.start_states.shape[1] != d
            or not len(self.start_states)
        ):
            raise ValueError(
                f"start_states must have shape (N0, {d}), got {self.start_states.shape}"
            )
        if not all(self.observation_space.contains(s) for s in self.start_states[:1000]):
            raise ValueError("start states lie outside the model's observation bounds")
        self.max_episode_steps = (
            max_episode_steps or getattr(self.model, "max_episode_steps", None) or None
        )
        self.reward_fn = reward_fn
        self.invalid_action = invalid_action
        declaration = getattr(self.model, "state_declaration", None)
        self.declaration: StateDeclaration = (
            declaration if declaration is not None else StateDeclaration()
        )
        stages = self.declaration.stages
        if stages is not None and not set(stages.dims) <= set(self.layout):
            stages = None
        self.stages = stages  # the declared stages, when the layout has their dimensions
        self.stage_dims = None if stages is None else self.layout.indices(stages.dims)
        self._labels = None if stages is None else np.asarray(stages.labels, dtype=object)
        # the one-state methods of a HeadModel, when the model has them (no batch overhead)
        self._sample_one = getattr(self.model, "sample_one", None)
        self._mask_one = getattr(self.model, "action_mask_one", None)
        self._clipped = isinstance(self.model, HeadModel)  # see clip
        self._valid = np.zeros(self.action_space.n, dtype=bool)  # the current state's mask
        self._stage_now: str | None = None  # and its stage
        self._obs: np.ndarray | None = None
        self._steps = 0
        self._ended = True
        self._last: dict[str, Any] | None = None
        self._trace: list[np.ndarray] = []  # the episode's observations, for the picture

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Draw a start state (or take ``options["start_state"]``).

        Raises:
            ValueError: an option other than :attr:`RESET_OPTIONS` (TypeError: of another type).
        """
        options = self.reset_options(options)
        super().reset(seed=seed)
        obs = options.get("start_state")
        if obs is None:
            obs = self.start_states[self.np_random.integers(len(self.start_states))]
        self._obs, self._steps, self._ended, self._last = obs.copy(), 0, False, None
        self._trace = [self._obs]
        return obs.copy(), self._info(self._obs, 0, False)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Sample the next observation from the model.

        The env moves only once ``reward_fn`` has returned a finite reward: when it raises,
        the env is as before the step, its random generator included.

        Raises:
            RewardFunctionError: ``reward_fn`` returned NaN or ±inf.
        """
        if self._obs is None or self._ended:
            raise gym.error.ResetNeeded("call reset() before step() and after an episode ends")
        if not (type(action) is int and 0 <= action < self.action_space.n):  # the common case
            if not self.action_space.contains(action):
                raise InvalidActionError(f"action {action!r} is not in {self.action_space}")
            action = int(action)
        invalid = not self._valid[action]
        if invalid:
            noop = getattr(self.model, "noop_action", None)
            if self.invalid_action == "raise" or noop is None:
                valid = np.flatnonzero(self._valid).tolist()
                raise InvalidActionError(f"action {action} is not valid here; valid: {valid}")
            action = int(noop)
        obs = self._obs
        # put back if reward_fn fails
        rng_state = None if self.reward_fn is None else self.np_random.bit_generator.state
        if self._sample_one is not None:
            next_obs = self._sample_one(obs, action, self.np_random)
        else:
            next_obs = self.model.sample(obs[None], np.array([action]), self.np_random)[0]
        next_obs = self.clip(next_obs)
        acted, stage = self._stage_now, self.stage_of(next_obs)
        terminated = self.terminated(obs, action, stage, self.np_random)
        steps, limit = self._steps + 1, self.max_episode_steps
        truncated = not terminated and limit is not None and steps >= limit
        ended = terminated or truncated
        info = self._info(next_obs, steps, ended, invalid, acted or "", stage)
        if self.reward_fn is None:
            reward = 0.0
        else:
            try:
                reward = checked_reward(
                    self.reward_fn, float(self.reward_fn(obs, action, next_obs, info))
                )
            except BaseException:
                if rng_state is not None:
                    self.np_random.bit_generator.state = rng_state
                self._valid, self._stage_now = self._mask(obs, False), acted
                raise
        self._obs, self._steps, self._ended = next_obs, steps, ended
        self._trace.append(next_obs)
        self._last = {"action": action, "reward": reward}
        self._show_step()
        return next_obs.copy(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Valid actions in the current state, shape (n,) bool (all True without a model mask)."""
        return self._mask(self._obs, self._ended)

    def reset_options(self, options: Any) -> dict[str, Any]:
        """The reset options, checked; ``start_state`` as float32, checked to lie in the space.

        Raises:
            ValueError: an option other than :attr:`RESET_OPTIONS` (TypeError: of another
                type), or a start state outside the observation space.
        """
        options = checked_options(options, self.RESET_OPTIONS, "Simulator-v0")
        if options.get("start_state") is not None:
            start = options["start_state"] = np.asarray(options["start_state"], np.float32)
            if not self.observation_space.contains(start):
                raise ValueError(f"start_state is not in {self.observation_space}")
        return options

    def clip(self, samples: np.ndarray) -> np.ndarray:
        """Samples (..., d) onto the observation space (a Gaussian head has no edges), float32.

        A :class:`HeadModel`'s samples already lie within its bounds, which are the space's.
        """
        if self._clipped:
            return samples
        space = self.observation_space
        return np.clip(np.asarray(samples, np.float32), space.low, space.high)

    def masks_of(self, obs: np.ndarray) -> np.ndarray:
        """Valid actions in states (k, d), shape (k, n) bool (all True without a model mask)."""
        masks = getattr(self.model, "action_masks", None)
        if masks is None:
            return np.ones((len(obs), self.action_space.n), dtype=bool)
        return np.asarray(masks(obs), bool)

    def stage_of(self, obs: np.ndarray) -> Any:
        """Stage labels of states (..., d), shape (...) object; of one state (d,), a str.

        None for families without stages.
        """
        if self._labels is None:
            return None
        return self._labels[obs[..., self.stage_dims].argmax(axis=-1)]

    def terminated(
        self, obs: np.ndarray, actions: Any, stages: Any, rng: np.random.Generator
    ) -> Any:
        """Whether steps from states (k, d) end their episodes, (k,) bool (one state (d,): a bool).

        The declared terminal stage reached (``stages``: the next states' :meth:`stage_of`),
        else a draw from the model's ``done`` distribution, with ``rng``.
        """
        if self.stages is not None:
            return stages == self.stages.terminal
        one = obs.ndim == 1
        prediction = self.model.predict(np.atleast_2d(obs), np.atleast_1d(actions))
        done = prediction.distributions.get("done")
        if done is None:
            return False if one else np.zeros(len(obs), dtype=bool)
        ended = rng.random(len(done)) < done[:, 1]
        return bool(ended[0]) if one else ended

    # ------------------------------------------------------------------ helpers

    def _mask(self, obs: np.ndarray | None, ended: bool) -> np.ndarray:
        """Valid actions in state ``obs`` (none once the episode has ended), shape (n,) bool."""
        if obs is None or ended:
            return np.zeros(self.action_space.n, dtype=bool)
        if self._mask_one is not None:
            return np.asarray(self._mask_one(obs), bool)
        return self.masks_of(obs[None])[0]

    def _info(
        self, obs: np.ndarray, steps: int, ended: bool, invalid: bool = False,
        acted_stage: str = "", stage: str | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """The info in state ``obs`` after ``steps`` steps: one set of keys, reset and step.

        Its mask and stage (``stage``: worked out when None) become those :meth:`step`
        checks the next action against and reports as the acted stage.
        """
        self._valid = self._mask(obs, ended)
        self._stage_now = stage = self.stage_of(obs) if stage is None else stage
        info: dict[str, Any] = {
            "step": steps, "action_mask": self._valid.copy(), "invalid_action": invalid,
        }  # fmt: skip
        if self.stages is not None:
            info["stage"] = stage
            info["acted_stage"] = acted_stage
        return info

    def render_text(self) -> str:
        """A readable description of the current state: step, stage and non-zero state dims."""
        if self._obs is None:
            return "Simulator-v0: not started (call reset())"
        stage = self.stage_of(self._obs)
        head = f"Simulator-v0 | step {self._steps}" + (f" | stage {stage}" if stage else "")
        value = {name: self._obs[self.layout.index(name)] for name in self._state_names(8)}
        values = ", ".join(f"{name} {v:.2f}" for name, v in value.items() if v != 0)
        lines = [head, f"  {values or 'all shown dimensions are 0'}"]
        if self._last is not None:
            lines.append(
                f"  last action {self._last['action']}, reward {self._last['reward']:+.3f}"
            )
        return "\n".join(lines)

    def _state_names(self, fallback: int) -> list[str]:
        """The declared state dimensions in the layout, but the stage; else the first few."""
        stage_dims = () if self.stages is None else self.stages.dims
        state = [
            n for n in self.declaration.names if n in self.layout.names and n not in stage_dims
        ]
        return state or list(self.layout.names[:fallback])

    def render_frame(self) -> np.ndarray:
        """The modelled state as a picture, shape (480, 640, 3) uint8 (see ## Rendering)."""
        title = f"Simulator-v0 · {type(self.model).__name__} · step {self._steps}"
        footer = "" if self._last is None else (
            f"last action {self._last['action']} · reward {self._last['reward']:+.3f}"
        )  # fmt: skip
        votes = [group for group in self.declaration.votes if set(group.dims) <= set(self.layout)]
        if votes:
            return self._hemicycle.draw(self._assembly_view(title, votes, footer))
        names = self._state_names(_PLOTTED)[:_PLOTTED]
        return state_picture(
            title,
            "a world model's sample; the state dimensions and their trace",
            names,
            np.stack(self._trace)[:, self.layout.indices(names)] if self._trace else None,
            x_max=self.max_episode_steps or max(len(self._trace) - 1, 1),
            footer=footer,
        )

    def _assembly_view(self, title: str, votes: list[VoteGroup], footer: str) -> AssemblyView:
        """The hemicycle of the latest vote with shares (or the sponsor share before one)."""
        seats = np.full(_SEATS, Seat.PENDING, dtype=np.int64)
        view = AssemblyView(title, f"a world model's sample; each seat is 1% ({_SEATS} seats)",
                            seats, unit="%", footer=footer)  # fmt: skip
        if self._obs is None:
            return dataclasses.replace(view, subtitle="not started (call reset())")
        value = dict(zip(self.layout.names, self._obs.tolist(), strict=True))
        cast = [group for group in votes if sum(value[d] for d in group.dims) > 0]
        shares = [name for name in self.declaration.shares if value.get(name, 0) > 0]
        caption = ""
        if cast:
            yes, no, abstain = (value[d] for d in cast[-1].dims)
            seats[:] = share_seats({Seat.YES: yes, Seat.NO: no, Seat.ABSTAIN: abstain}, _SEATS)
            caption = f"{cast[-1].prefix} vote"
        elif shares:
            share = value[shares[0]]
            seats[:] = share_seats({Seat.SPONSOR: share, Seat.NON_SPONSOR: 1 - share}, _SEATS)
            caption = shares[0].replace("_", " ")
        stage, outcome = self.stage_of(self._obs), self.declaration.outcome
        stages = self.stages
        labels = () if stages is None else stages.labels
        verdict, passed = "", False
        if outcome is not None and stages is not None and stage == stages.terminal:
            passed = value.get(outcome.outcome, 0) > 0.5
            verdict = outcome.outcome.upper() if passed else f"NOT {outcome.outcome.upper()}"
        return dataclasses.replace(
            view,
            caption=caption,
            stages=tuple(label.lower().replace("_", " ") for label in labels),
            stage=labels.index(stage) if stage is not None else 0,
            outcome=verdict,
            passed=passed,
        )

    @functools.cached_property
    def _hemicycle(self) -> Hemicycle:
        """The picture's hemicycle, built at the first frame."""
        return Hemicycle(_SEATS)
