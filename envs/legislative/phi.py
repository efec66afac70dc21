"""The reward feature maps φ(s, a) of both envs, shared by rewards, IRL and agents.

A linear reward is r(s, a) = θ·φ(s, a), and both maps have the form φ(s, a) = e_a ⊗ g(s):
one block of inputs g(s) per action, so that the weights are a matrix θ of shape (A, k) whose
entries are named ``"<action>:<input>"`` and θ·φ(s, a) = θ_a·g(s).

* :class:`ActionFeatureMap` (``RollCall-v0``): g(s) = [1, x(s)], the observation of
  :mod:`assembly_gym.envs.legislative.observation` with an intercept; with one decision per
  state this is the multinomial logit.
* :class:`DeliberationFeatureMap` (``Deliberation-v0``), φ_D with

================  =====================================================================
input g(s)        meaning
================  =====================================================================
bias              1
issue_me … ec     the resolution's issue codes (0/1)
own_cosponsor     1 once the country has cosponsored the draft (stays for later stages)
support           the support already shown at this stage, as the midpoint of its bin:
                  the sponsor share before the committee vote, the committee yes share
                  before the plenary vote (bins of
                  :func:`~assembly_gym.envs.legislative.spaces.support_bin`); 0 at the
                  draft stage
================  =====================================================================

φ_D's weight names read as behaviour: ``"yes:own_cosponsor"`` is loyalty, ``"yes:support"``
bandwagoning (why that makes the decision multi-step: docs/irl.md, "What it computes").

Example:
    >>> from assembly_gym.envs.legislative.deliberation import DeliberationEnv
    >>> env = DeliberationEnv(country="Country 001")
    >>> obs, _ = env.reset(seed=0)
    >>> phi = DeliberationFeatureMap(env.layout)
    >>> phi(obs[None]).shape
    (1, 5, 45)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assembly_gym.envs.legislative.data import ISSUE_CODES
from assembly_gym.envs.legislative.spaces import SPONSOR_SHARE_EDGES, YES_SHARE_EDGES, Action

__all__ = [
    "DELIBERATION_INPUTS",
    "ActionFeatureMap",
    "BlockFeatureMap",
    "DeliberationFeatureMap",
    "SPONSOR_LEVELS",
    "YES_LEVELS",
    "support_level",
]


class BlockFeatureMap:
    """φ(s, a) = e_a ⊗ g(s): one block of inputs g(s) per action; subclasses define g.

    Args:
        action_names: names of the A actions, in action-index order.
        input_names: names of the k inputs g(s), in order.

    Attributes:
        names: names of the A · k entries of φ(s, a), action by action.
    """

    def __init__(self, action_names: Sequence[str], input_names: Sequence[str]) -> None:
        self.action_names = tuple(action_names)
        self.input_names = tuple(input_names)
        self.names = tuple(f"{a}:{g}" for a in self.action_names for g in self.input_names)

    @property
    def n_actions(self) -> int:
        """Number of actions A."""
        return len(self.action_names)

    @property
    def weight_shape(self) -> tuple[int, int]:
        """Shape (A, k) of a weight matrix."""
        return self.n_actions, len(self.input_names)

    @property
    def n_features(self) -> int:
        """Length of φ(s, a): A · k."""
        return self.n_actions * len(self.input_names)

    def inputs(self, obs: np.ndarray) -> np.ndarray:
        """g(s) for a batch of observations: (N, d) → (N, k)."""
        raise NotImplementedError

    def logits(self, theta: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """θ·φ(s, a) for every action: weights (A, k) or flat, obs (N, d) → (N, A)."""
        return self.inputs(obs) @ np.reshape(theta, self.weight_shape).T

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """Dense φ for a batch: (N, d) → (N, A, A · k), row a holding g(s) in block a."""
        inputs = self.inputs(obs)
        n, width = inputs.shape
        phi = np.zeros((n, self.n_actions, self.n_actions * width), dtype=inputs.dtype)
        for action in range(self.n_actions):
            phi[:, action, action * width : (action + 1) * width] = inputs
        return phi


class ActionFeatureMap(BlockFeatureMap):
    """φ(s, a) = e_a ⊗ [1, x(s)]: one copy of the observation (plus an intercept) per action.

    Weights have shape (n_actions, 1 + d), entries "yes:bias", "no:issue_hr", ….

    Args:
        obs_names: names of the d observation dimensions.
        action_names: names of the actions, in action-index order.
    """

    def __init__(self, obs_names: Sequence[str], action_names: Sequence[str]) -> None:
        self.obs_names = tuple(obs_names)
        super().__init__(action_names, ("bias", *self.obs_names))

    def inputs(self, obs: np.ndarray) -> np.ndarray:
        """[1, x(s)] for a batch of observations: (N, d) → (N, 1 + d)."""
        obs = np.atleast_2d(obs)
        return np.concatenate([np.ones((obs.shape[0], 1), dtype=obs.dtype), obs], axis=1)


DELIBERATION_INPUTS = ("bias", *(f"issue_{c}" for c in ISSUE_CODES), "own_cosponsor", "support")
"""Names of g(s), in order."""


def _midpoints(edges: np.ndarray) -> np.ndarray:
    bounds = np.concatenate([[0.0], edges, [1.0]])
    return (bounds[:-1] + bounds[1:]) / 2


SPONSOR_LEVELS = _midpoints(SPONSOR_SHARE_EDGES)
"""Support level of each sponsor-share bin (committee stage)."""
YES_LEVELS = _midpoints(YES_SHARE_EDGES)
"""Support level of each committee yes-share bin (plenary stage)."""


def support_level(share: np.ndarray, plenary: bool) -> np.ndarray:
    """Bin midpoint of a sponsor share (committee stage) or committee yes share (plenary)."""
    edges, levels = (
        (YES_SHARE_EDGES, YES_LEVELS) if plenary else (SPONSOR_SHARE_EDGES, SPONSOR_LEVELS)
    )
    return levels[np.searchsorted(edges, share, side="right")]


class DeliberationFeatureMap(BlockFeatureMap):
    """φ_D over ``Deliberation-v0`` observations, read by name from the env's layout.

    Weights have shape (5, 9): one row per :class:`~assembly_gym.envs.legislative.spaces.Action`,
    one column per name of :data:`DELIBERATION_INPUTS`.

    Args:
        layout: the env's observation names (``env.layout`` or a sequence of names).
    """

    def __init__(self, layout: Sequence[str]) -> None:
        names = tuple(layout)
        needed = (
            *(f"issue_{c}" for c in ISSUE_CODES),
            "own_cosponsor",
            "stage_committee",
            "stage_plenary",
            "sponsor_share",
            "committee_yes",
        )
        missing = [n for n in needed if n not in names]
        if missing:
            raise ValueError(f"not a Deliberation-v0 layout: it lacks {missing}")
        self._index = {name: names.index(name) for name in needed}
        super().__init__(tuple(a.name.lower() for a in Action), DELIBERATION_INPUTS)

    def inputs(self, obs: np.ndarray) -> np.ndarray:
        """g(s) for a batch of observations: (N, d) → (N, 9)."""
        obs = np.atleast_2d(obs)
        column = {name: obs[:, i] for name, i in self._index.items()}
        committee = column["stage_committee"] > 0.5
        plenary = column["stage_plenary"] > 0.5
        support = np.where(committee, support_level(column["sponsor_share"], plenary=False), 0.0)
        support = np.where(plenary, support_level(column["committee_yes"], plenary=True), support)
        issues = np.column_stack([column[f"issue_{c}"] for c in ISSUE_CODES])
        return np.column_stack([np.ones(len(obs)), issues, column["own_cosponsor"], support])
