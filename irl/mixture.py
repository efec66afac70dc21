"""The mixture reward: r_c(s, a) = log Σ_m w_m π_m(a | s), rewards of several kinds pooled.

Each member kind is fitted on the same decisions; the mixture's MaxEnt policy
softmax_a r_c(s, a) is then exactly the weighted average of the members' policies. The
default, trees 0.6 and linear 0.4, was chosen on validation sessions cut from the training
sessions (fit ≤ 51, scored on 52–60, described from the votes ≤ 51 only), where it forecast
better than either member alone (log-loss 0.4468 against 0.4565 for the trees and 0.4570 for
the linear reward; ``experiment irl_forecast``, docs/irl.md, "The default").

Example:
    >>> DEFAULT_MEMBERS
    {'trees': 0.6, 'linear': 0.4}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import log_softmax, logsumexp

from assembly_gym.core.artifact import Artifact
from assembly_gym.core.errors import CheckpointError
from assembly_gym.core.persist import checked_field
from assembly_gym.irl.base import Decisions, RewardModel, reward_kind

__all__ = ["DEFAULT_MEMBERS", "MEMBER_SETTINGS", "MixtureRewardModel"]

DEFAULT_MEMBERS: dict[str, float] = {"trees": 0.6, "linear": 0.4}
"""Member kind → weight of the default mixture (chosen on validation sessions)."""
MEMBER_SETTINGS: dict[str, dict[str, Any]] = {
    "trees": {"n_trees": 100, "learning_rate": 0.15, "bins": 63},
    "linear": {"l2": 1000.0, "standard_errors": False},
}
"""Each default member's settings, chosen on the same validation sessions."""


@dataclass(frozen=True)
class MixtureRewardModel(RewardModel):
    """Rewards of several kinds whose policies are averaged with fixed weights.

    Attributes:
        members: the fitted member models (same countries, actions and inputs), (M,).
        weights: their weights, positive, summing to 1, (M,).

    Raises:
        ValueError: no member, weights that do not fit, or members over other names.
    """

    kind = "mixture"

    members: tuple[RewardModel, ...] = ()
    weights: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "members", tuple(self.members))
        object.__setattr__(self, "weights", tuple(float(w) for w in self.weights))
        weights = np.array(self.weights)
        if not self.members or len(weights) != len(self.members):
            raise ValueError("a mixture needs one weight per member, and at least one member")
        if not (weights > 0).all() or abs(weights.sum() - 1) > 1e-9:
            raise ValueError(f"mixture weights must be positive and sum to 1, got {self.weights}")
        for member in self.members:
            names = (member.countries, member.action_names, member.obs_names)
            if names != (self.countries, self.action_names, self.obs_names):
                raise ValueError(f"a {member.kind} member has other countries, actions or inputs")

    @classmethod
    def fit(
        cls,
        decisions: Decisions,
        *,
        progress: bool = False,
        members: Mapping[str, float] | None = None,
        **settings: Any,
    ) -> MixtureRewardModel:
        """Fit every member on ``decisions``.

        Args:
            decisions: every country's one-step decisions.
            progress: show each member's progress.
            members: member kind → weight (default :data:`DEFAULT_MEMBERS`).
            **settings: member kind → its settings (default: the validated ones).
        """
        members = dict(DEFAULT_MEMBERS if members is None else members)
        unknown = [kind for kind in settings if kind not in members]
        if unknown:
            raise ValueError(f"settings for {unknown} name no member of {list(members)}")
        fitted = []
        for kind, _ in members.items():
            options = settings.get(kind, MEMBER_SETTINGS.get(kind, {}))
            fitted.append(reward_kind(kind).fit(decisions, progress=progress, **options))
        info = {"members": [{"kind": m.kind, "weight": w, "info": m.info}
                            for m, w in zip(fitted, members.values(), strict=True)]}  # fmt: skip
        return cls(decisions.countries, decisions.action_names, decisions.obs_names,
                   members=tuple(fitted), weights=tuple(members.values()), info=info)  # fmt: skip

    def logits(self, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """The reward log Σ_m w_m π_m(a | s): rows (N,), inputs (N, d) → (N, A)."""
        parts = [
            np.log(weight) + log_softmax(member.logits(rows, obs), axis=1)
            for member, weight in zip(self.members, self.weights, strict=True)
        ]
        return logsumexp(np.stack(parts), axis=0)

    def _parts(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        """Each member's manifest fields and files (named ``<m>-<file>``), with its weight."""
        entries, files = [], dict[str, bytes]()
        for m, (member, weight) in enumerate(zip(self.members, self.weights, strict=True)):
            payload, parts = member._parts()
            entries.append({"kind": member.kind, "weight": weight, "payload": payload,
                            "files": sorted(parts)})  # fmt: skip
            files |= {f"{m}-{name}": data for name, data in parts.items()}
        return {"members": entries}, files

    @classmethod
    def _from_parts(
        cls, common: dict[str, Any], saved: Artifact, source: Path
    ) -> MixtureRewardModel:
        entries = checked_field(saved.manifest, "members", list, source, items=dict)
        members, weights = [], []
        for m, entry in enumerate(entries):
            kind = checked_field(entry, "kind", str, source)
            if kind == cls.kind:
                raise CheckpointError(f"{source}: a mixture nested in a mixture")
            names = checked_field(entry, "files", list, source, items=str)
            missing = [name for name in names if f"{m}-{name}" not in saved.files]
            if missing:
                raise CheckpointError(f"{source}: member {m} lists files not saved: {missing}")
            part = replace(
                saved,
                manifest=checked_field(entry, "payload", dict, source),
                files={name: saved.files[f"{m}-{name}"] for name in names},
            )
            member = reward_kind(kind)._from_parts({**common, "history": None}, part, source)
            members.append(member)
            weights.append(checked_field(entry, "weight", float, source))
        return cls(members=tuple(members), weights=tuple(weights), **common)
