"""The linear reward kind: r_c(s, a) = θ_c·φ(s, a), fitted by batched MaxEnt IRL.

Weights θ_c of shape (A, 1 + d) over the factored feature map φ(s, a) = e_a ⊗ [1, x(s)]
(:class:`~assembly_gym.envs.legislative.phi.ActionFeatureMap`), with Laplace standard errors;
at horizon 1 the MaxEnt reward is the multinomial logit of the country's votes (docs/irl.md,
section "What it computes"), all countries in one
:func:`~assembly_gym.irl.maxent.fit_maxent` call, each shrunk toward the pooled fit.

Example:
    >>> import numpy as np
    >>> model = LinearRewardModel(("France",), ("yes", "no", "abstain"), ("issue_hr",),
    ...                           np.zeros((1, 3, 2)))
    >>> model.weights("France").shape
    (3, 2)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import softmax

from assembly_gym.core.artifact import Artifact
from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.core.persist import checked_field
from assembly_gym.envs.legislative.phi import ActionFeatureMap
from assembly_gym.irl.base import (
    Decisions,
    RewardModel,
    checked_decisions,
    effect_row,
    effects_table,
    span,
)
from assembly_gym.irl.maxent import MaxEntFit, Shrinkage, decision_problem, fit_maxent

__all__ = ["DEFAULT_L2", "LinearRewardModel", "fit_decisions"]

DEFAULT_L2 = 1000.0
"""λ of ``irl fit --kind linear`` and the bench's linear reward on roll calls, chosen by
``assembly-gym experiment irl_forecast`` inside the training sessions only (fit on sessions
≤ 55, best log-loss on 56–60 among 30, 100, …, 10,000)."""


def fit_decisions(
    decisions: Decisions,
    *,
    l2: float = 10.0,
    shrinkage: Shrinkage = "global",
    blocs: Mapping[str, int] | None = None,
    standard_errors: bool = True,
    tol: float = 1e-6,
    progress: bool = False,
) -> MaxEntFit:
    """One batched horizon-1 MaxEnt fit of several countries' decisions.

    Args:
        decisions: every country's one-step decisions.
        l2: prior precision λ on standardised weights.
        shrinkage: "none", "global" or "bloc" (see :func:`assembly_gym.irl.maxent.fit_maxent`).
        blocs: country → bloc id, for ``shrinkage="bloc"``.
        standard_errors: compute Laplace standard errors.
        tol: L-BFGS gradient tolerance (nats per vote).
        progress: show L-BFGS progress.

    Raises:
        DataError: a country without decisions, or without a bloc under ``shrinkage="bloc"``.

    Warns:
        SeparationWarning: naming the countries whose weights diverge (separable votes; see
            :attr:`~assembly_gym.irl.maxent.MaxEntFit.separated`).
    """
    groups = [decisions.of(row) for row in range(len(decisions.countries))]
    empty = [c for c, (obs, _, _) in zip(decisions.countries, groups, strict=True) if not len(obs)]
    if empty:
        raise DataError("demonstrations", f"{empty[0]!r} has no decision to fit on")
    obs, acts, masks = zip(*groups, strict=True)
    mdp, features, expert = decision_problem(obs, acts, masks)
    bloc_ids = None
    if blocs is not None:
        missing = [c for c in decisions.countries if c not in blocs]
        if missing:
            raise DataError("blocs", f"no bloc given for {missing[:3]}", field="country")
        bloc_ids = np.array([blocs[c] for c in decisions.countries])
    return fit_maxent(
        mdp, features, expert, l2=l2, shrinkage=shrinkage, blocs=bloc_ids, tol=tol,
        standard_errors=standard_errors, progress=progress, group_names=list(decisions.countries),
    )  # fmt: skip


@dataclass(frozen=True)
class LinearRewardModel(RewardModel):
    """Learned linear rewards of several countries over one named feature map.

    Attributes:
        theta: weights on the original feature scale, shape (C, A, 1 + d); column 0 is the
            per-action bias. RollCall weights are centred over actions (Σ_a θ_a = 0).
        standard_errors: standard errors of ``theta``, same shape, or None.

    Raises:
        ValueError: when the shapes do not fit together, or there is no country.
    """

    kind = "linear"
    one_step = False  # also Deliberation-v0 (assembly_gym.irl.deliberation)

    theta: np.ndarray
    standard_errors: np.ndarray | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        theta = np.asarray(self.theta, dtype=np.float64)
        expected = (len(self.countries), len(self.action_names), 1 + len(self.obs_names))
        if theta.shape != expected:
            raise ValueError(f"theta has shape {theta.shape}, expected {expected} (C, A, 1 + d)")
        if not np.isfinite(theta).all():
            raise ValueError("theta must be finite")
        object.__setattr__(self, "theta", theta)
        if self.standard_errors is not None:
            errors = np.asarray(self.standard_errors, dtype=np.float64)
            if errors.shape != expected:
                raise ValueError(f"standard_errors has shape {errors.shape}, expected {expected}")
            object.__setattr__(self, "standard_errors", errors)

    @classmethod
    def fit(
        cls, decisions: Decisions, *, progress: bool = False, **settings: Any
    ) -> LinearRewardModel:
        """Fit every country's weights (``settings``: those of :func:`fit_decisions`).

        The model's ``info`` has the settings, convergence, the separated countries, the
        iterations, seconds, votes and log-likelihood per vote of each country.
        """
        fit = fit_decisions(decisions, progress=progress, **settings)
        countries = decisions.countries
        separated = None  # not checked
        if fit.separated is not None:
            separated = [c for c, flat in zip(countries, fit.separated, strict=True) if flat]
        info = {
            "l2": settings.get("l2", 10.0),
            "shrinkage": settings.get("shrinkage", "global"),
            "converged": fit.converged,
            "separated": separated,
            "iterations": fit.iterations,
            "fit_seconds": round(fit.seconds, 3),
            "n_votes": {c: int(n) for c, n in zip(countries, fit.n_steps, strict=True)},
            "log_likelihood_per_vote": {
                c: float(v) for c, v in zip(countries, fit.log_likelihood, strict=True)
            },
        }
        return cls(countries, decisions.action_names, decisions.obs_names, fit.theta,
                   fit.standard_errors, info=info)  # fmt: skip

    # ------------------------------------------------------------------ the weights

    @property
    def feature_map(self) -> ActionFeatureMap:
        """The φ(s, a) the weights are defined on (over the ``obs_names`` columns)."""
        return ActionFeatureMap(self.obs_names, self.action_names)

    @property
    def weight_names(self) -> tuple[str, ...]:
        """Names of the flattened weights (``"yes:bias"``, ``"yes:issue_me"``, …)."""
        return self.feature_map.names

    def weights(self, country: str) -> np.ndarray:
        """Weights of one country, shape (A, 1 + d)."""
        return self.theta[self.country_index(country)]

    def logits(self, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """θ_c·φ(s, a): rows (N,), inputs (N, d) → (N, A)."""
        theta = self.theta[np.asarray(rows)]  # (N, A, 1 + d)
        return theta[:, :, 0] + np.einsum("nd,nad->na", np.atleast_2d(obs), theta[:, :, 1:])

    def profile(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """The weights themselves, (C, A · (1 + d)), named by :attr:`weight_names`."""
        return self.theta.reshape(len(self.countries), -1), self.weight_names

    def explain(
        self, country: str | None = None, *, relative_to: str | None = None
    ) -> pd.DataFrame:
        """Weights table.

        Args:
            country: one country (its weights with standard errors and z-scores), or None
                (every weight's mean and spread across countries).
            relative_to: an action name: report θ_a − θ_ref, the reward of each action
                relative to that one in the same state (its column is then 0; standard
                errors are left out). Weights that never act (``info["inert"]``: action →
                feature names, e.g. COSPONSOR's stage features) are reported as 0. A
                multi-step model's policy also reads the reference's own weights on features
                that change within an episode: they stay in :attr:`theta`.

        Returns:
            For a country: rows (feature), columns ``<action>`` weights, ``<action>_se`` and
            ``<action>_z``. For all: rows (feature), columns ``<action>_mean`` and
            ``<action>_sd`` across countries.
        """
        features = ("bias", *self.obs_names)
        table = pd.DataFrame(index=pd.Index(features, name="feature"))
        theta = self.theta
        if relative_to is not None:
            if relative_to not in self.action_names:
                raise DataError("reward model", f"unknown action {relative_to!r}; the model's "
                                f"actions are {', '.join(self.action_names)}")  # fmt: skip
            reference = self.action_names.index(relative_to)
            theta = theta - theta[:, [reference]]
            for action, inert in self.info.get("inert", {}).items():
                for feature in inert:
                    theta[:, self.action_names.index(action), features.index(feature)] = 0.0
        if country is None:
            for a, name in enumerate(self.action_names):
                table[f"{name}_mean"] = theta[:, a].mean(axis=0)
                table[f"{name}_sd"] = theta[:, a].std(axis=0)
            return table
        row = self.country_index(country)
        for a, name in enumerate(self.action_names):
            table[name] = theta[row, a]
            if self.standard_errors is not None and relative_to is None:
                se = self.standard_errors[row, a]
                table[f"{name}_se"] = se
                table[f"{name}_z"] = np.where(
                    se > 0, self.theta[row, a] / np.maximum(se, 1e-300), 0.0
                )
        return table

    def effects(self, country: str, obs: np.ndarray) -> pd.DataFrame:
        """:meth:`RewardModel.effects` with a delta-method 95% interval per effect.

        Var E_j = J Σ_j Jᵀ, J = ∂E_j/∂θ_{·,j}: with three actions centred, Σ_j follows from
        the three Laplace standard errors (Cov(a, b) = (s_c² − s_a² − s_b²) / 2).
        """
        row = self.country_index(country)
        obs = checked_decisions(obs, len(self.obs_names))
        theta = self.theta[row]  # (A, 1 + d)
        errors = self.standard_errors[row] if self.standard_errors is not None else None
        logits = theta[:, 0] + obs @ theta[:, 1:].T  # (N, A)
        n_actions = len(self.action_names)
        entries = []
        for j, name in enumerate(self.obs_names):
            low, high = span(obs[:, j])
            weights = theta[:, j + 1]
            moved = {}
            jacobian = np.zeros((n_actions, n_actions))
            for value, sign in ((low, -1.0), (high, 1.0)):
                shift = value - obs[:, j]  # (N,)
                p = softmax(logits + shift[:, None] * weights[None, :], axis=1)
                moved[sign] = p.mean(axis=0)
                # ∂p_a/∂θ_b = shift · p_a (δ_ab − p_b), averaged over decisions.
                outer = np.einsum("n,na,nb->ab", shift, p, p) / len(p)
                jacobian += sign * (np.diag((shift[:, None] * p).mean(axis=0)) - outer)
            if errors is None:
                se = np.full(n_actions, np.nan)
            else:
                covariance = _centred_covariance(errors[:, j + 1])
                se = np.sqrt(
                    np.maximum(np.einsum("ab,bc,ac->a", jacobian, covariance, jacobian), 0)
                )
            entries.append(effect_row(name, low, high, moved[1.0] - moved[-1.0], se,
                                      self.action_names))  # fmt: skip
        return effects_table(entries)

    # ------------------------------------------------------------------ persistence

    def _parts(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        """The weights (and standard errors) by country, action and feature, in the manifest."""
        names = ("bias", *self.obs_names)
        weights = {
            country: {
                action: {
                    name: _weight_entry(self.theta[c, a, k], self.standard_errors, (c, a, k))
                    for k, name in enumerate(names)
                }
                for a, action in enumerate(self.action_names)
            }
            for c, country in enumerate(self.countries)
        }
        return {"weights": weights}, {}

    @classmethod
    def _from_parts(
        cls, common: dict[str, Any], saved: Artifact, source: Path
    ) -> LinearRewardModel:
        entries = checked_field(saved.manifest, "weights", dict, source, items=dict)
        if tuple(entries) != common["countries"]:
            raise CheckpointError(f"{source}: the weights are not those of the countries listed")
        theta, errors = _weights(entries, common["action_names"], ("bias", *common["obs_names"]))
        return cls(theta=theta, standard_errors=errors, **common)


def _weights(
    entries: dict[str, Any], actions: tuple[str, ...], names: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray | None]:
    """The weights (C, A, 1 + d) and their standard errors (or None) from the saved entries.

    Raises:
        KeyError, TypeError: an entry is missing or not a number.
    """
    countries = tuple(entries)

    def table(key: str) -> np.ndarray:
        values = [entries[c][a][n][key] for c in countries for a in actions for n in names]
        for value in values:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"a {key} is {value!r}, not a number")
        return np.array(values, dtype=np.float64).reshape(len(countries), len(actions), len(names))

    has_se = "std_error" in entries[countries[0]][actions[0]]["bias"]
    return table("weight"), table("std_error") if has_se else None


def _weight_entry(value: float, errors: np.ndarray | None, index: tuple[int, int, int]) -> dict:
    entry = {"weight": float(value)}
    if errors is not None:
        entry["std_error"] = float(errors[index])
    return entry


def _centred_covariance(se: np.ndarray) -> np.ndarray:
    """Covariance (A, A) of weights centred over actions, from their standard errors (A,).

    Exact for three actions (the centred weights span a plane); diagonal otherwise.
    """
    variance = se**2
    if len(se) != 3:
        return np.diag(variance)
    covariance = np.diag(variance)
    for a, b, c in ((0, 1, 2), (0, 2, 1), (1, 2, 0)):
        covariance[a, b] = covariance[b, a] = (variance[c] - variance[a] - variance[b]) / 2
    return covariance
