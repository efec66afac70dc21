"""The ``ppo`` space: PPO trained in ``Simulator-v0``, scored in the data-driven env.

As ``assembly-gym experiment worldmodel_ppo`` (its reward and its ``MLPEnsemble`` world
model), scored on validation resolutions cut from the experiment's training ones; its test
resolutions are never used (docs/ray.md, "Sweeps").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from assembly_gym.benchmarks.sweep.base import Param, Space, SweepSettings
from assembly_gym.core.errors import DataError

__all__ = ["PPO_SPACE", "PPOData", "ppo_data"]


@dataclass(frozen=True)
class PPOData:
    """What every PPO trial shares.

    Attributes:
        model: the fitted world model (``Simulator-v0`` runs it).
        assembly: the synthetic assembly (``Deliberation-v0`` replays it); None: the default.
        resolutions: ids (``rcid``) of the validation resolutions.
        timesteps: PPO steps per trial.
        chunk: steps between two scores.
        episodes: evaluation episodes per score (cycling over ``resolutions``).
    """

    model: Any
    assembly: Any
    resolutions: tuple[int, ...]
    timesteps: int
    chunk: int
    episodes: int

    def describe(self) -> str:
        """One line: the validation resolutions and the steps."""
        return (f"{len(self.resolutions)} validation resolutions of the synthetic assembly "
                f"(world model fitted on the others); {self.timesteps:,} PPO steps, scored every "
                f"{self.chunk:,} on {self.episodes} episodes")  # fmt: skip


_SIZES = dict(sessions=20, max_epochs=40, timesteps=30_000, chunk=5_000, episodes=200)
"""The experiment's sizes (its episodes: 2000); PPO scored every 5,000 steps."""
_QUICK_SIZES = dict(sessions=3, max_epochs=2, timesteps=256, chunk=128, episodes=8)


def _sizes(quick: bool) -> dict[str, int]:
    return _QUICK_SIZES if quick else _SIZES


def ppo_data(settings: SweepSettings) -> PPOData:
    """Fit the world model on the experiment's training resolutions less the validation ones.

    Raises:
        DataError: for ``--data``, ``--sessions`` or ``--countries`` (the synthetic assembly
            only, as the experiment).
    """
    from assembly_gym.envs.legislative.deliberation import resolution_records
    from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    from assembly_gym.envs.legislative.transitions import deliberation_transitions
    from assembly_gym.world_models.mlp import MLPEnsemble
    from assembly_gym.world_models.transitions import split_transitions

    if settings.data is not None or settings.sessions or settings.countries:
        raise DataError("ppo", "the ppo space runs on the synthetic assembly, as worldmodel_ppo: "
                        "drop --data, --sessions and --countries")  # fmt: skip
    size = _sizes(settings.quick)
    assembly = generate_assembly(SyntheticConfig(n_sessions=size["sessions"]))
    train, early_stopping, _test = split_transitions(deliberation_transitions(assembly), seed=0)
    fit, validation = train.split_by_episode((0.8, 0.2), np.random.default_rng(0))
    model = MLPEnsemble(seed=0, max_epochs=size["max_epochs"]).fit(fit, validation=early_stopping)
    rcids = resolution_records(assembly).resolutions["rcid"].to_numpy()
    columns = np.unique(np.asarray(validation.groups))
    return PPOData(model, assembly, tuple(int(r) for r in rcids[columns]), size["timesteps"],
                   size["chunk"], size["episodes"])  # fmt: skip


def _ppo_iterations(config: Mapping[str, Any], seed: int, data: PPOData) -> Iterator[float]:
    """Train PPO in the simulator; after each chunk, its mean return on validation resolutions."""
    import gymnasium as gym
    from stable_baselines3 import PPO

    from assembly_gym.benchmarks.experiments.worldmodel_ppo import (
        WinningSide,
        evaluate_policy,
        ppo_policy,
        ppo_settings,
    )
    from assembly_gym.core.layout import ObservationLayout

    reward = WinningSide(ObservationLayout(data.model.obs_names))
    simulator = gym.make("assembly/Simulator-v0", model=data.model, reward_fn=reward)
    scored = gym.make("assembly/Deliberation-v0", data=data.assembly, reward_fn=reward)
    agent = PPO("MlpPolicy", simulator, seed=seed, **ppo_settings(**config))
    for _ in range(data.timesteps // data.chunk):
        agent.learn(data.chunk, reset_num_timesteps=False)
        mean, _ = evaluate_policy(scored, ppo_policy(agent), data.episodes, seed=1000 + seed,
                                  resolutions=data.resolutions)  # fmt: skip
        yield mean


PPO_SPACE = Space(
    name="ppo",
    params=(
        Param("learning_rate", "log", 1e-5, 1e-2),
        Param("n_steps", "choice", choices=(64, 128, 256, 512, 1024, 2048)),
        Param("ent_coef", "log", 1e-5, 0.1),
        Param("gamma", "uniform", 0.9, 0.999),
    ),
    command="experiment worldmodel_ppo",
    metric="validation mean return in Deliberation-v0",
    mode="max",
    prepare=ppo_data,
    iterations=_ppo_iterations,
    n_iterations=lambda s: _sizes(s.quick)["timesteps"] // _sizes(s.quick)["chunk"],
    summary="SB3 PPO's --learning-rate, --n-steps, --ent-coef, --gamma in Simulator-v0 "
    "(experiment worldmodel_ppo)",
)
