"""RLlib PPO configs for the envs: one country, masked actions, the whole assembly.

Each builder returns an RLlib ``PPOConfig`` (new API stack) on a name of
:func:`assembly_gym.envs.rllib.register_rllib_envs` (called for you), with small defaults
that train on one machine (sampling in the driver, one local learner). Change anything with
RLlib's own methods before ``build_algo()``, e.g. ``.env_runners(num_env_runners=8)`` to
sample on 8 Ray workers of a cluster. See docs/ray.md.

Example:
    >>> config = ppo_config("assembly/RollCall-v0", env_config={"country": "Country 001"})
    >>> config.env, config.num_env_runners
    ('assembly/RollCall-v0', 0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from assembly_gym.core.optional import require
from assembly_gym.envs.family import family_of
from assembly_gym.envs.multiagent.assembly import VARIANTS, parallel_env
from assembly_gym.envs.rllib import MASKED_SUFFIX, MULTI_AGENT_ENVS, register_rllib_envs
from assembly_gym.irl.analysis import cluster_rewards
from assembly_gym.irl.base import RewardModel

__all__ = [
    "PolicyMapping",
    "assembly_ppo_config",
    "bloc_policy_mapping",
    "masked_ppo_config",
    "ppo_config",
]

_TRAINING = {"train_batch_size_per_learner": 1000, "minibatch_size": 100, "num_epochs": 4}
"""Default PPO batch sizes (env steps); the rest of ``.training()`` keeps RLlib's defaults."""


@dataclass(frozen=True)
class PolicyMapping:
    """RLlib's ``policy_mapping_fn``: an agent (country) → the id of the policy it acts by.

    A plain picklable object, so env runners on other machines receive it by value.

    Attributes:
        policies: country → policy (RLlib module) id.

    Raises:
        ValueError: an empty mapping.
    """

    policies: Mapping[str, str]

    def __post_init__(self) -> None:
        if not self.policies:
            raise ValueError("a policy mapping needs at least one agent")

    @property
    def module_ids(self) -> list[str]:
        """The distinct policy ids, sorted."""
        return sorted(set(self.policies.values()))

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        """The policy of ``agent_id`` (RLlib's signature; ``episode`` is not read).

        Raises:
            KeyError: an agent the mapping does not know.
        """
        try:
            return self.policies[agent_id]
        except KeyError:
            raise KeyError(f"no policy for agent {agent_id!r}") from None


def bloc_policy_mapping(model: RewardModel, n_blocs: int) -> PolicyMapping:
    """A policy per bloc: countries clustered by their learned rewards, of any kind.

    Ward clustering of the z-scored :meth:`~assembly_gym.irl.base.RewardModel.profile`
    values (C, k) (a linear model's weights)
    (:func:`~assembly_gym.irl.analysis.cluster_rewards`) into ``n_blocs`` blocs; policy ids
    ``"bloc_1"`` … ``"bloc_{n_blocs}"``.

    Raises:
        ValueError: ``n_blocs`` outside 1..C.
        DataError: a model whose profile needs the training history it does not carry.
    """
    labels = cluster_rewards(model.profile()[0], n_blocs)
    blocs = zip(model.countries, labels, strict=True)
    return PolicyMapping({country: f"bloc_{int(label)}" for country, label in blocs})


def _ppo(env: str, env_config: Mapping[str, Any] | None, hidden: tuple[int, ...], seed: int,
         training: dict[str, Any]) -> Any:  # fmt: skip
    """A ``PPOConfig`` on a registered name with the defaults every builder shares."""
    require("ray", extra="ray", purpose="RLlib training")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    register_rllib_envs()
    return (
        PPOConfig()
        .environment(env, env_config=dict(env_config or {}))
        .env_runners(num_env_runners=0)
        .training(**{**_TRAINING, **training})
        .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=list(hidden)))
        .debugging(seed=seed)
    )


def _masking_spec() -> Any:
    """An ``RLModuleSpec`` of RLlib's ``ActionMaskingTorchRLModule`` (the model config's MLP)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    return RLModuleSpec(module_class=ActionMaskingTorchRLModule)


def ppo_config(
    env_id: str = "assembly/RollCall-v0",
    *,
    env_config: Mapping[str, Any] | None = None,
    hidden: tuple[int, ...] = (64, 64),
    seed: int = 0,
    **training: Any,
) -> Any:
    """Single-agent PPO on a registered id.

    Args:
        env_id: a name of :func:`~assembly_gym.envs.rllib.register_rllib_envs`.
        env_config: the env's keyword arguments (``gym.make(env_id, **env_config)``).
        hidden: widths of the policy and value MLPs.
        seed: RLlib's seed (env resets, network initialisation).
        **training: arguments of ``PPOConfig.training`` (``lr``, ``num_epochs``, …);
            defaults ``train_batch_size_per_learner=1000``, ``minibatch_size=100``,
            ``num_epochs=4``.

    Returns:
        An RLlib ``PPOConfig``; ``build_algo()`` makes the algorithm.

    Raises:
        MissingDependencyError: Ray is not installed (``pip install 'assembly-gym[ray]'``).
    """
    return _ppo(env_id, env_config, hidden, seed, training)


def masked_ppo_config(
    env_id: str = "assembly/Deliberation-v0",
    *,
    env_config: Mapping[str, Any] | None = None,
    hidden: tuple[int, ...] = (64, 64),
    seed: int = 0,
    **training: Any,
) -> Any:
    """PPO that samples only valid actions: ``env_id``'s masked name and RLlib's masking module.

    The env's observation becomes ``{"action_mask", "observations"}``
    (:class:`~assembly_gym.envs.rllib.MaskedObservation`); the module adds log(mask) to the
    logits, clamped at the float minimum, so a masked action has probability 0.
    Arguments as :func:`ppo_config`.
    """
    return _ppo(env_id + MASKED_SUFFIX, env_config, hidden, seed, training).rl_module(
        rl_module_spec=_masking_spec()
    )


def assembly_ppo_config(
    *,
    policies: Literal["country", "bloc"] = "country",
    reward_model: RewardModel | None = None,
    n_blocs: int = 2,
    variant: str = "rollcall",
    env_config: Mapping[str, Any] | None = None,
    hidden: tuple[int, ...] = (64, 64),
    seed: int = 0,
    **training: Any,
) -> Any:
    """Multi-agent PPO on ``assembly_v0``: a policy per country or per bloc, masked actions.

    Every policy is the masking module, all trained; each agent's reward is its learned one
    where ``reward_model`` is given, else the env's proxy (docs/ray.md, "The whole assembly").

    Args:
        policies: "country" (one policy per country; its id the country's name) or "bloc"
            (one per cluster of learned rewards: :func:`bloc_policy_mapping`).
        reward_model: learned rewards of the env's countries (needed for "bloc").
        n_blocs: number of blocs for ``policies="bloc"``.
        variant: "rollcall" (``"assembly_v0"``) or "deliberation" (``"assembly_v0-deliberation"``).
        env_config: the env's keyword arguments (``data``, ``session``, ``window``, …).
        hidden: widths of the policy and value MLPs.
        seed: RLlib's seed.
        **training: arguments of ``PPOConfig.training``, as for :func:`ppo_config`.

    Returns:
        An RLlib ``PPOConfig`` with ``.multi_agent`` policies and mapping set.

    Raises:
        ValueError: an unknown ``policies`` or ``variant``; "bloc" without ``reward_model``;
            a reward model of another env than the variant's.
        MissingDependencyError: Ray is not installed.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if policies not in ("country", "bloc"):
        raise ValueError(f"policies must be 'country' or 'bloc', got {policies!r}")
    config = dict(env_config or {})
    if reward_model is not None:
        single = family_of(variant).env_id  # the env family the variant's agents play
        if reward_model.env_id != single:
            raise ValueError(
                f"the reward model reads {reward_model.env_id} observations; the {variant} "
                f"variant needs one of {single}"
            )
        config["rewards"] = reward_model.reward_fns()
        if reward_model.feature_config is not None:
            config.setdefault("feature_config", reward_model.feature_config)
    if policies == "bloc":
        if reward_model is None:
            raise ValueError("policies='bloc' needs a reward_model to cluster into blocs")
        mapping = bloc_policy_mapping(reward_model, n_blocs)
    else:
        countries = parallel_env(variant, **config).possible_agents
        mapping = PolicyMapping({country: country for country in countries})
    name = next(name for name, v in MULTI_AGENT_ENVS.items() if v == variant)
    return _with_policies(_ppo(name, config, hidden, seed, training), mapping)


def _with_policies(config: Any, mapping: PolicyMapping) -> Any:
    """``config`` with one masking module per policy of ``mapping``, all trained."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    modules = {module_id: _masking_spec() for module_id in mapping.module_ids}
    return config.multi_agent(
        policies=set(mapping.module_ids), policy_mapping_fn=mapping
    ).rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
