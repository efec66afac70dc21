"""The tree-ensemble reward: r_c(s, a) = the raw scores of gradient-boosted trees.

One LightGBM multiclass booster over every country's decisions, the country's row a
categorical input: its raw scores (logits) are r_c(s, a), and its softmax training loss is
the MaxEnt likelihood of one-step decisions (horizon 1), so the trees maximise the same
likelihood as the linear reward, without its linearity. This kind is one-step only: it is
fitted on ``RollCall-v0`` decisions, not on ``Deliberation-v0``'s multi-step MDPs.

Why LightGBM: a small wheel (3.5 MB; XGBoost's is 130 MB), the fastest of LightGBM, XGBoost and
scikit-learn's HistGradientBoosting for multiclass fits of 500k rows on two cores, and exact
per-feature contributions (TreeSHAP) built in (``pred_contrib``), which explain each vote.
One pooled booster with the country as a category scored slightly better on validation
sessions than one without it.

Example:
    >>> import numpy as np
    >>> from assembly_gym.irl.base import Decisions
    >>> rng = np.random.default_rng(0)
    >>> obs = rng.normal(size=(600, 2))
    >>> decisions = Decisions(("A", "B"), rng.integers(0, 2, 600), obs, (obs[:, 0] > 0) * 1,
    ...                       np.ones((600, 2), bool), ("x", "y"), ("yes", "no"))
    >>> model = TreeRewardModel.fit(decisions, n_trees=20, min_child_samples=20)
    >>> int(model.action_probs("A", np.array([[2.0, 0.0]])).argmax())
    1
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

import lightgbm as lgb
import numpy as np
import pandas as pd

from assembly_gym.core.artifact import Artifact
from assembly_gym.core.errors import CheckpointError
from assembly_gym.irl.base import Decisions, RewardModel, checked_decisions

__all__ = ["PROFILE_DECISIONS", "TREES_FILE", "TreeRewardModel", "TreeSettings"]

TREES_FILE = "trees.txt"
"""The booster of a saved tree reward, as LightGBM's text (``Booster.model_to_string``)."""
PROFILE_DECISIONS = 20
"""How many of each country's last training decisions :meth:`TreeRewardModel.profile` reads."""
_PARALLEL_ROWS = 4096
"""Fewer rows are predicted on one thread: starting OpenMP's costs more than it saves there
(an env step, one country's roll calls), most of all on a busy machine."""


@dataclass(frozen=True)
class TreeSettings:
    """How the trees are grown (LightGBM's parameter in brackets).

    Raises:
        ValueError: a setting out of its range.
    """

    n_trees: int = 400
    """Boosting rounds (``num_boost_round``): each adds one tree per action."""
    learning_rate: float = 0.05
    """Shrinkage of each tree (``learning_rate``), in (0, 1]."""
    leaves: int = 31
    """Leaves per tree (``num_leaves``), ≥ 2."""
    min_child_samples: int = 100
    """Fewest decisions in a leaf (``min_data_in_leaf``), ≥ 1."""
    subsample: float = 0.8
    """Share of decisions drawn for each round (``bagging_fraction``, ``bagging_freq`` 1)."""
    colsample: float = 0.8
    """Share of inputs drawn for each tree (``feature_fraction``)."""
    l2: float = 1.0
    """L2 penalty on leaf values (``lambda_l2``), ≥ 0."""
    seed: int = 0
    """Seed of the draws (``seed``): the same seed and data give the same trees."""
    bins: int = 255
    """Histogram bins per input (``max_bin``), ≥ 2: fewer fit faster."""
    threads: int = 0
    """CPU threads (``num_threads``); 0: every core."""

    def __post_init__(self) -> None:
        for name in ("n_trees", "leaves", "min_child_samples", "bins", "seed", "threads"):
            value = getattr(self, name)
            if not isinstance(value, int | np.integer) or isinstance(value, bool):
                raise ValueError(f"{name} must be an integer, got {value!r}")
        ranges = {
            "n_trees": (self.n_trees >= 1, "≥ 1"),
            "learning_rate": (0 < self.learning_rate <= 1, "in (0, 1]"),
            "leaves": (self.leaves >= 2, "≥ 2"),
            "min_child_samples": (self.min_child_samples >= 1, "≥ 1"),
            "subsample": (0 < self.subsample <= 1, "in (0, 1]"),
            "colsample": (0 < self.colsample <= 1, "in (0, 1]"),
            "l2": (self.l2 >= 0, "≥ 0"),
            "bins": (self.bins >= 2, "≥ 2"),
            "seed": (self.seed >= 0, "≥ 0"),
            "threads": (self.threads >= 0, "≥ 0 (0: every core)"),
        }
        for name, (valid, allowed) in ranges.items():
            if not valid:
                raise ValueError(f"{name} must be {allowed}, got {getattr(self, name)!r}")

    @classmethod
    def of(cls, settings: dict[str, Any]) -> TreeSettings:
        """Settings from keyword arguments, refusing unknown names.

        Raises:
            ValueError: an unknown name or a value out of range.
        """
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(settings) - set(known))
        if unknown:
            raise ValueError(f"unknown tree settings {unknown}; the settings are {known}")
        return cls(**settings)

    def params(self, n_actions: int) -> dict[str, Any]:
        """LightGBM's training parameters: the softmax likelihood of ``n_actions`` actions."""
        return {
            "objective": "multiclass",
            "num_class": n_actions,
            "learning_rate": self.learning_rate,
            "num_leaves": self.leaves,
            "min_data_in_leaf": self.min_child_samples,
            "bagging_fraction": self.subsample,
            "bagging_freq": 1 if self.subsample < 1 else 0,
            "feature_fraction": self.colsample,
            "lambda_l2": self.l2,
            "max_bin": self.bins,
            "seed": self.seed,
            "num_threads": self.threads,
            "deterministic": True,
            "force_col_wise": True,  # with deterministic: the same trees on any thread count
            "verbosity": -1,
        }


@dataclass(frozen=True)
class TreeRewardModel(RewardModel):
    """Every country's reward as the raw scores of one gradient-boosted tree ensemble.

    Attributes:
        booster: LightGBM multiclass booster over the inputs ``obs_names`` then the country's
            row (categorical): A classes, d + 1 features.

    The inherited fields (countries, action_names, obs_names, …) are those of
    :class:`~assembly_gym.irl.base.RewardModel`; ``info["settings"]`` are the
    :class:`TreeSettings` it was grown with.
    """

    kind: ClassVar[str] = "trees"
    one_step: ClassVar[bool] = True
    """One-step decisions (``RollCall-v0``) only: not fitted on multi-step MDPs."""

    booster: lgb.Booster = field(repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        problem = _booster_problem(
            self.booster, len(self.action_names), len(self.obs_names), len(self.countries)
        )
        if problem:
            raise ValueError(problem)

    @classmethod
    def fit(
        cls, decisions: Decisions, *, progress: bool = False, **settings: Any
    ) -> TreeRewardModel:
        """Grow the trees on every country's decisions (softmax likelihood, one booster).

        The model's ``info`` has the settings, seconds and votes of each country.

        Args:
            decisions: one-step decisions in which every action was allowed.
            progress: show a progress bar over the boosting rounds.
            **settings: the fields of :class:`TreeSettings` (its defaults otherwise).

        Raises:
            ValueError: unknown settings or out of range, fewer than two actions, no decision,
                actions or country rows out of range, or a decision with a disallowed action
                (the softmax likelihood here is over every action).
        """
        from tqdm.auto import tqdm

        chosen = TreeSettings.of(settings)
        n_actions, d = len(decisions.action_names), len(decisions.obs_names)
        obs, actions = checked_decisions(decisions.obs, d), np.asarray(decisions.actions)
        if n_actions < 2:
            raise ValueError(f"the trees need at least two actions, got {n_actions}")
        if actions.shape != (len(obs),) or actions.min() < 0 or actions.max() >= n_actions:
            raise ValueError(f"need one action in 0..{n_actions - 1} per decision")
        rows, n_countries = np.asarray(decisions.rows), len(decisions.countries)
        if rows.shape != (len(obs),) or rows.min() < 0 or rows.max() >= n_countries:
            raise ValueError(f"need one country row in 0..{n_countries - 1} per decision")
        if not np.asarray(decisions.masks).all():
            raise ValueError(
                "the trees fit decisions in which every action is allowed (RollCall-v0); "
                "these have disallowed actions"
            )
        start = time.perf_counter()
        data = lgb.Dataset(
            _inputs(rows, obs),
            label=actions,
            feature_name=_feature_names(d),
            categorical_feature=[d],
        )
        with tqdm(total=chosen.n_trees, desc="trees", disable=not progress) as bar:
            booster = lgb.train(
                chosen.params(n_actions),
                data,
                num_boost_round=chosen.n_trees,
                callbacks=[lambda _env: bar.update()],
            )
        votes = np.bincount(rows, minlength=n_countries)
        info = {"settings": asdict(chosen), "fit_seconds": round(time.perf_counter() - start, 3),
                "n_votes": dict(zip(decisions.countries, votes.tolist(), strict=True))}  # fmt: skip
        return cls(decisions.countries, decisions.action_names, decisions.obs_names, booster,
                   info=info)  # fmt: skip

    def logits(self, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """r_c(s, a) = the booster's raw scores: rows (N,) and inputs (N, d) → (N, A), finite."""
        inputs = _inputs(rows, obs)
        scores = _predict(self.booster, inputs, raw_score=True)
        return scores.reshape(len(inputs), len(self.action_names))

    def contributions(self, country: str, obs: np.ndarray) -> np.ndarray:
        """Exact TreeSHAP contributions of each input to each action's logit.

        TreeSHAP costs about 10 ms per decision with the default trees (400 rounds).

        Args:
            country: a country the model knows.
            obs: its decisions, the reward's inputs (N, d).

        Returns:
            (N, A, d + 1): the contribution of each of the d inputs, then the base: the
            expected logit plus the country's own contribution (being this country, its
            interactions with the inputs included). The last axis sums to the logits.

        Raises:
            DataError: an unknown country; ValueError: ``obs`` of another width or no row.
        """
        obs = checked_decisions(obs, len(self.obs_names))
        return self._contributions(np.full(len(obs), self.country_index(country)), obs)

    def _contributions(self, rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """:meth:`contributions` of country rows (N,) and inputs (N, d) → (N, A, d + 1)."""
        d, n_actions = len(self.obs_names), len(self.action_names)
        raw = _predict(self.booster, _inputs(rows, obs), pred_contrib=True)
        raw = raw.reshape(len(obs), n_actions, d + 2)  # d inputs, the country, expected value
        return np.concatenate([raw[..., :d], raw[..., d:].sum(axis=2, keepdims=True)], axis=2)

    def effects(self, country: str, obs: np.ndarray) -> pd.DataFrame:
        """Each feature's effect on the vote probabilities, and its TreeSHAP contributions.

        The exact counterfactual effects of :meth:`RewardModel.effects` (no interval), plus
        per action ``<a>_shap``: the feature's mean |TreeSHAP contribution| to the logit of
        ``a`` over ``obs``. Rows stay ordered by ``importance``.

        Raises:
            DataError: an unknown country; ValueError: ``obs`` of another width or no row.
        """
        table = super().effects(country, obs)
        shap = np.abs(self.contributions(country, obs)[..., :-1]).mean(axis=0)  # (A, d)
        for a, action in enumerate(self.action_names):
            table[f"{action}_shap"] = pd.Series(shap[a], index=self.obs_names)
        return table

    def profile(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """What describes each country's reward: its inputs' TreeSHAP contributions.

        Each country's mean |TreeSHAP contribution| per (action, input) over its last
        :data:`PROFILE_DECISIONS` training decisions, named ``"<action>:<input>"`` (e.g.
        ``"yes:issue_me"``). TreeSHAP over every decision would take hours on the UN votes;
        these take about 45 s on two cores (188 countries, the default trees).

        Returns:
            Values (C, A·d) and their names.

        Raises:
            DataError: the model carries no training history.
        """
        from assembly_gym.irl.explanation import country_decisions

        last = [
            obs[-PROFILE_DECISIONS:] for obs in country_decisions(self, self.countries).values()
        ]
        rows = np.repeat(np.arange(len(self.countries)), [len(obs) for obs in last])
        magnitudes = np.abs(self._contributions(rows, np.concatenate(last))[..., :-1])
        values = np.stack([magnitudes[rows == row].mean(axis=0) for row in range(len(last))])
        names = tuple(f"{a}:{f}" for a in self.action_names for f in self.obs_names)
        return values.reshape(len(self.countries), -1), names

    def _parts(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        return {}, {TREES_FILE: self.booster.model_to_string().encode("utf-8")}

    @classmethod
    def _from_parts(cls, common: dict[str, Any], saved: Artifact, source: Path) -> TreeRewardModel:
        path = saved.folder / TREES_FILE
        if TREES_FILE not in saved.files:
            raise CheckpointError(f"{path}: not saved (the trees of a tree reward model)")
        # LightGBM aborts the process (not raises) on many damaged texts: it parses the trees on
        # OpenMP threads. The artifact's checksums keep a damaged file from reaching it.
        try:
            booster = lgb.Booster(model_str=saved.files[TREES_FILE].decode("utf-8"))
        except (lgb.basic.LightGBMError, UnicodeDecodeError) as error:
            raise CheckpointError(f"{path}: corrupted trees ({error})") from error
        problem = _booster_problem(booster, len(common["action_names"]),
                                   len(common["obs_names"]), len(common["countries"]))  # fmt: skip
        if problem:
            raise CheckpointError(f"{path}: {problem}")
        return cls(booster=booster, **common)


def _feature_names(d: int) -> list[str]:
    """The booster's names of its inputs: d reward inputs then the country."""
    return [f"x{j}" for j in range(d)] + ["country"]


def _inputs(rows: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """The booster's inputs: the reward's inputs (N, d), then the country's row → (N, d + 1)."""
    obs = np.atleast_2d(np.asarray(obs))
    inputs = np.empty((len(obs), obs.shape[1] + 1), dtype=np.result_type(obs.dtype, np.float32))
    inputs[:, :-1], inputs[:, -1] = obs, rows
    return inputs


def _predict(booster: lgb.Booster, inputs: np.ndarray, **kind: bool) -> np.ndarray:
    """``booster.predict`` of ``kind``, on one thread below ``_PARALLEL_ROWS`` rows."""
    threads = 1 if len(inputs) < _PARALLEL_ROWS else 0
    return np.asarray(booster.predict(inputs, num_threads=threads, **kind), dtype=np.float64)


def _booster_problem(booster: lgb.Booster, n_actions: int, d: int, n_countries: int) -> str:
    """What makes ``booster`` unfit for A actions, d inputs and C countries ('' if nothing)."""
    if booster.num_model_per_iteration() != n_actions:
        return f"the trees score {booster.num_model_per_iteration()} actions, not {n_actions}"
    if booster.feature_name() != _feature_names(d):
        return f"the trees read {booster.num_feature()} inputs, not the model's {d} and the country"
    infos = booster.dump_model(num_iteration=1)["feature_infos"]
    if "country" not in infos and n_countries == 1:  # one country: LightGBM drops the constant
        return ""
    rows = infos.get("country", {}).get("values")
    if not rows:
        return "the trees do not read the country as a category"
    if max(rows) >= n_countries:
        return f"the trees know country rows up to {max(rows)}, the model {n_countries} countries"
    return ""
