"""φ_D(s, a): the named reward feature map of ``Deliberation-v0``, shared by rewards, IRL, agents.

φ_D(s, a) = e_a ⊗ g(s) with one block per :class:`~envs.legislative.spaces.Action` and

================  =====================================================================
input g(s)        meaning
================  =====================================================================
bias              1
issue_me … ec     the resolution's issue codes (0/1)
own_cosponsor     1 once the country has cosponsored the draft (stays for later stages)
support           the support already shown at this stage, as the midpoint of its bin:
                  the sponsor share before the committee vote, the committee yes share
                  before the plenary vote (bins of :mod:`assembly_gym.envs.legislative.dynamics`);
                  0 at the draft stage
================  =====================================================================

Weight names are ``"<action>:<input>"`` (``"yes:own_cosponsor"`` is loyalty to one's own
draft, ``"yes:support"`` bandwagoning). Because ``own_cosponsor`` is part of the state of
the later stages, a reward that values loyalty or bandwagoning makes cosponsoring matter
for the votes that follow: the decision is a true multi-step one.

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
from assembly_gym.envs.legislative.dynamics import SPONSOR_SHARE_EDGES, YES_SHARE_EDGES
from assembly_gym.envs.legislative.spaces import Action

__all__ = [
    "DELIBERATION_INPUTS",
    "DeliberationFeatureMap",
    "SPONSOR_LEVELS",
    "YES_LEVELS",
    "support_level",
]

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


class DeliberationFeatureMap:
    """φ_D over ``Deliberation-v0`` observations, read by name from the env's layout.

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
        self.action_names = tuple(a.name.lower() for a in Action)
        self.names = tuple(f"{a}:{g}" for a in self.action_names for g in DELIBERATION_INPUTS)

    @property
    def n_actions(self) -> int:
        """Number of actions A (5)."""
        return len(self.action_names)

    @property
    def weight_shape(self) -> tuple[int, int]:
        """(A, k) = (5, 9)."""
        return self.n_actions, len(DELIBERATION_INPUTS)

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

    def logits(self, theta: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """θ·φ_D(s, a) for every action: weights (5, 9) or flat, obs (N, d) → (N, 5)."""
        return self.inputs(obs) @ np.reshape(theta, self.weight_shape).T

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """Dense φ_D: (N, d) → (N, 5, 45)."""
        g = self.inputs(obs)
        n, width = g.shape
        phi = np.zeros((n, self.n_actions, self.n_actions * width))
        for action in range(self.n_actions):
            phi[:, action, action * width : (action + 1) * width] = g
        return phi
