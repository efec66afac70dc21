"""``assembly-gym sweep``: hyperparameter sweeps on Ray Tune, scored on validation data only.

Modules: :mod:`.base` (what a space is), :mod:`.votes` and :mod:`.ppo` (the spaces),
:mod:`.run` (them by name, and the sweep on Tune), :mod:`.report` (its table, plot and best
flags). Ray is imported only when a sweep runs.
"""

from assembly_gym.benchmarks.sweep.base import Param, Space, SweepSettings
from assembly_gym.benchmarks.sweep.report import write_sweep
from assembly_gym.benchmarks.sweep.run import SPACES, SweepResult, run_sweep

__all__ = ["SPACES", "Param", "Space", "SweepResult", "SweepSettings", "run_sweep", "write_sweep"]
