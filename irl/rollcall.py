"""MaxEnt IRL on ``RollCall-v0``: every country's votes → one batched fit → a ``RewardModel``.

Each vote is a one-step decision (horizon 1): the MaxEnt reward is the multinomial logit of
the country's votes (docs/irl.md, section "What it computes"); all countries are fitted by
one :func:`assembly_gym.irl.maxent.fit_maxent` call.

Example:
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> data = generate_assembly(SyntheticConfig(n_countries=4, n_sessions=3)).data
    >>> model = fit_reward_model(data, l2=10.0, standard_errors=False)
    >>> model.theta.shape[:2]
    (4, 3)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT, RollCallData, Vote
from assembly_gym.envs.legislative.demonstrations import Demonstration, rollcall_demonstrations
from assembly_gym.envs.legislative.observation import FeatureConfig, feature_names
from assembly_gym.irl.maxent import MaxEntFit, Shrinkage, decision_problem, fit_maxent
from assembly_gym.irl.reward_model import RewardModel

__all__ = ["ACTION_NAMES", "fit_demonstrations", "fit_reward_model"]

ACTION_NAMES = tuple(v.name.lower() for v in Vote)


def fit_demonstrations(
    demos_by_country: Mapping[str, Sequence[Demonstration]],
    *,
    l2: float = 10.0,
    shrinkage: Shrinkage = "global",
    blocs: Mapping[str, int] | None = None,
    standard_errors: bool = True,
    tol: float = 1e-6,
    progress: bool = False,
) -> MaxEntFit:
    """One batched horizon-1 MaxEnt fit of several countries' one-step demonstrations.

    Args:
        demos_by_country: country → its demonstrations (every step is one decision).
        l2: prior precision λ on standardised weights.
        shrinkage: "none", "global" or "bloc" (see :func:`assembly_gym.irl.maxent.fit_maxent`).
        blocs: country → bloc id, for ``shrinkage="bloc"``.
        standard_errors: compute Laplace standard errors.
        tol: L-BFGS gradient tolerance (nats per vote).
        progress: show L-BFGS progress.

    Raises:
        DataError: when there is no country or a country has no demonstration.

    Warns:
        SeparationWarning: naming the countries whose weights diverge (separable votes; see
            :attr:`~assembly_gym.irl.maxent.MaxEntFit.separated`).
    """
    if not demos_by_country:
        raise DataError("demonstrations", "no country to fit: the demonstrations are empty")
    stacked = []
    for country, demos in demos_by_country.items():
        if not demos:
            raise DataError("demonstrations", f"{country!r} has no demonstration to fit on")
        stacked.append(Demonstration.stack(demos))
    obs, acts, masks = zip(*stacked, strict=True)  # each a tuple with one array per country
    mdp, features, expert = decision_problem(obs, acts, masks)
    bloc_ids = None
    if blocs is not None:
        missing = [c for c in demos_by_country if c not in blocs]
        if missing:
            raise DataError("blocs", f"no bloc given for {missing[:3]}", field="country")
        bloc_ids = np.array([blocs[c] for c in demos_by_country])
    return fit_maxent(
        mdp,
        features,
        expert,
        l2=l2,
        shrinkage=shrinkage,
        blocs=bloc_ids,
        tol=tol,
        standard_errors=standard_errors,
        progress=progress,
        group_names=list(demos_by_country),
    )


def fit_reward_model(
    data: RollCallData,
    countries: Sequence[str] | None = None,
    *,
    l2: float = 10.0,
    shrinkage: Shrinkage = "global",
    blocs: Mapping[str, int] | None = None,
    feature_config: FeatureConfig | None = None,
    reward_features: Sequence[str] | None = None,
    standard_errors: bool = True,
    tol: float = 1e-6,
    progress: bool = False,
) -> RewardModel:
    """Learn the reward of every country (or the given ones) from its votes in ``data``.

    Observations are ``RollCall-v0``'s: each session described by the sessions before it.
    The model keeps ``data`` as its history, so it can forecast later roll calls.

    Args:
        data: the training roll calls and votes.
        countries: which countries (default: every country that voted at least once).
        l2: prior precision λ on standardised weights.
        shrinkage: "none", "global" or "bloc".
        blocs: country → bloc id, for ``shrinkage="bloc"``.
        feature_config: feature settings (default: the env's defaults).
        reward_features: the observation names the reward reads (default: all of them).
        standard_errors: compute Laplace standard errors.
        tol: L-BFGS gradient tolerance (nats per vote).
        progress: show progress.

    Raises:
        DataError: for unknown countries, a country without votes, or data without votes.
        ValueError: for reward features that are not observation names.

    Warns:
        SeparationWarning: naming the countries whose weights diverge; the model's ``info``
            lists them under ``"separated"`` and says ``"converged": False``.
    """
    config = feature_config or FeatureConfig()
    layout = feature_names(config, history=data)
    reward_features = tuple(reward_features) if reward_features is not None else layout
    unknown = [n for n in reward_features if n not in layout]
    if unknown:
        raise ValueError(f"unknown reward features {unknown[:3]}; the observation has {layout}")
    columns = np.array([layout.index(n) for n in reward_features], dtype=np.int64)
    if countries is None:
        voted = (data.votes != ABSENT).any(axis=1)
        countries = [c for c, v in zip(data.country_names, voted, strict=True) if v]
        if not countries:
            raise DataError(data.source, "no votes to learn from")
    else:
        countries = [data.country_names[data.country_index(c)] for c in countries]
        silent = [c for c in countries if not (data.votes[data.country_index(c)] != ABSENT).any()]
        if silent:
            raise DataError(
                data.source, f"no votes of {silent[0]!r} in these sessions", field="country"
            )
    demos = rollcall_demonstrations(data, countries, feature_config=config, with_infos=False)
    grouped: dict[str, list[Demonstration]] = {c: [] for c in countries}
    for demo in demos:
        if len(columns) != len(layout):
            demo = replace(demo, obs=demo.obs[:, columns])
        grouped[demo.country].append(demo)
    fit = fit_demonstrations(
        grouped,
        l2=l2,
        shrinkage=shrinkage,
        blocs=blocs,
        standard_errors=standard_errors,
        tol=tol,
        progress=progress,
    )
    sessions = data.sessions
    separated = None  # not checked
    if fit.separated is not None:
        separated = [c for c, flat in zip(countries, fit.separated, strict=True) if flat]
    info = {
        "source": data.source,
        "sessions": [int(sessions[0]), int(sessions[-1])],
        "l2": l2,
        "shrinkage": shrinkage,
        "converged": fit.converged,
        "separated": separated,
        "iterations": fit.iterations,
        "fit_seconds": round(fit.seconds, 3),
        "n_votes": {c: int(n) for c, n in zip(countries, fit.n_steps, strict=True)},
        "log_likelihood_per_vote": {
            c: float(v) for c, v in zip(countries, fit.log_likelihood, strict=True)
        },
    }
    return RewardModel(
        tuple(countries),
        ACTION_NAMES,
        reward_features,
        fit.theta,
        fit.standard_errors,
        feature_config=config,
        info=info,
        history=data,
        layout=layout,
    )
