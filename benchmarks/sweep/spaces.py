"""The named search spaces of ``assembly-gym sweep``.

- ``irl``: ``l2`` log-uniform in [0.01, 1000], ``shrinkage`` none or global; score: the
  validation log-loss of the forecasts; read by ``irl fit``.
- ``neural-reward``: ``neural_width`` log-uniform integer in [4, 128],
  ``neural_weight_decay`` log-uniform in [0.01, 1000]; score: validation log-loss every 30
  of 300 epochs (ASHA stops the worst); read by ``bench``.
- ``debate``: ``initial_lr`` log-uniform in [0.01, 1], ``lr_decay`` uniform in [0.5, 1];
  score: the trainer's validation log-loss every epoch (ASHA); read by ``debate train``.
- ``ppo``: ``learning_rate`` log-uniform in [1e-5, 0.01], ``n_steps`` one of 64 … 2048,
  ``ent_coef`` log-uniform in [1e-5, 0.1], ``gamma`` uniform in [0.9, 0.999]; score: the
  mean return in ``Deliberation-v0`` on validation resolutions every 5,000 steps (ASHA);
  read by ``experiment worldmodel_ppo``.
"""

from __future__ import annotations

from assembly_gym.benchmarks.sweep.base import Space
from assembly_gym.benchmarks.sweep.ppo import PPO_SPACE
from assembly_gym.benchmarks.sweep.votes import DEBATE, IRL, NEURAL_REWARD

__all__ = ["SPACES"]

SPACES: dict[str, Space] = {s.name: s for s in (IRL, NEURAL_REWARD, DEBATE, PPO_SPACE)}
"""Every space, by name."""
