"""A sweep on Ray Tune: trials of a space's configurations, every seed in lockstep.

A trial runs its configuration for every seed of the sweep, one iteration of each in turn,
and reports the mean score over seeds (``score``), its standard deviation (``score_sd``) and
each seed's (``seed_S``) after every iteration. Data by reference, the search (Optuna or
random) and ASHA's early stopping: docs/ray.md, "Sweeps".
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import math
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from assembly_gym.benchmarks.sweep.base import Space, SweepSettings
from assembly_gym.benchmarks.sweep.ppo import PPO_SPACE
from assembly_gym.benchmarks.sweep.votes import DEBATE, IRL, NEURAL_REWARD
from assembly_gym.core.cluster import connect_ray
from assembly_gym.core.errors import AssemblyGymError

__all__ = ["SPACES", "SweepResult", "run_sweep", "run_trial", "search_algorithm"]

SPACES: dict[str, Space] = {s.name: s for s in (IRL, NEURAL_REWARD, DEBATE, PPO_SPACE)}
"""Every space of ``assembly-gym sweep``, by name (docs/ray.md, "Sweeps", lists them)."""

Search = Literal["auto", "optuna", "random"]


@dataclass(frozen=True)
class SweepResult:
    """A finished sweep.

    Attributes:
        space: the space swept.
        trials: one row per trial: its hyperparameters, ``score`` (mean over seeds at its last
            iteration), ``score_sd``, ``seed_S`` per seed, ``iterations``, ``stopped_early``,
            ``error``; sorted best first (failed trials last).
        seeds: the seeds each configuration ran with.
        search: the search algorithm's name.
        split: the data scored, in words.
    """

    space: Space
    trials: pd.DataFrame
    seeds: tuple[int, ...]
    search: str
    split: str

    @property
    def best(self) -> dict[str, Any]:
        """The best trial's hyperparameters (as the consuming command's flags)."""
        row = self.trials.iloc[0]
        if not np.isfinite(row["score"]):
            raise AssemblyGymError("every trial of the sweep failed: no best configuration")
        return {p.name: _plain(row[p.name]) for p in self.space.params}


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python one (for JSON)."""
    return value.item() if isinstance(value, np.generic) else value


def run_trial(config: Mapping[str, Any], *, space: str, data: Any, seeds: Sequence[int]) -> None:
    """Tune's trainable: every seed's iterations in lockstep, the mean reported after each.

    A seed whose iterations end first keeps its last score until the others end.
    """
    from ray import tune

    runs = [SPACES[space].iterations(config, seed, data) for seed in seeds]
    last: list[float | None] = [None] * len(seeds)
    while True:
        stepped = False
        for index, run in enumerate(runs):
            value = next(run, None)
            if value is not None:
                last[index], stepped = float(value), True
        if not stepped:
            return
        scores = np.array(last, dtype=np.float64)
        per_seed = {f"seed_{s}": float(v) for s, v in zip(seeds, scores, strict=True)}
        tune.report({"score": float(scores.mean()), "score_sd": float(scores.std()), **per_seed})


def search_algorithm(search: Search, space: Space, seed: int) -> tuple[Any, str]:
    """Tune's search algorithm (None: its default) and its name.

    Raises:
        AssemblyGymError: ``search="optuna"`` without Optuna installed.
    """
    has_optuna = importlib.util.find_spec("optuna") is not None
    if search == "optuna" and not has_optuna:
        raise AssemblyGymError(
            "--search optuna needs Optuna (pip install 'assembly-gym[ray]'), or use --search random"
        )
    if search == "random" or not has_optuna:
        from ray.tune.search.basic_variant import BasicVariantGenerator

        return BasicVariantGenerator(random_state=seed), "random search (Tune's default)"
    import optuna
    from ray.tune.search.optuna import OptunaSearch

    optuna.logging.set_verbosity(optuna.logging.WARNING)  # not a line per trial
    return OptunaSearch(metric="score", mode=space.mode, seed=seed), "Optuna (TPE)"


def run_sweep(
    space: Space,
    settings: SweepSettings,
    *,
    samples: int = 8,
    seeds: Sequence[int] = (0,),
    search: Search = "auto",
    address: str | None = None,
    cpus_per_trial: float = 1.0,
    progress: bool = True,
) -> SweepResult:
    """Run ``samples`` configurations of ``space``, each for every seed, on Ray Tune.

    Args:
        space: the space.
        settings: the data it is scored on.
        samples: how many configurations.
        seeds: the seeds every configuration runs with (repeats).
        search: ``"auto"`` (Optuna where installed), ``"optuna"`` or ``"random"``.
        address: a Ray cluster to join (None: this process's Ray, or a new local one).
        cpus_per_trial: CPUs reserved by each trial.
        progress: a bar over finished trials.

    Raises:
        MissingDependencyError: Ray is not installed.
        AssemblyGymError: ``search="optuna"`` without Optuna; every trial failed.
    """
    connect_ray(address, purpose="assembly-gym sweep")
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler, FIFOScheduler

    algorithm, search_name = search_algorithm(search, space, seeds[0])
    data = space.prepare(settings)
    max_t = space.n_iterations(settings)
    scheduler = (ASHAScheduler(max_t=max_t, grace_period=1, reduction_factor=2)
                 if max_t > 1 else FIFOScheduler())  # fmt: skip
    trainable = tune.with_resources(
        tune.with_parameters(run_trial, space=space.name, data=data, seeds=tuple(seeds)),
        {"cpu": cpus_per_trial},
    )
    with tempfile.TemporaryDirectory(prefix="assembly-gym-sweep-") as storage, tqdm(
        total=samples, desc=f"sweep {space.name}", unit="trial", disable=not progress
    ) as bar:  # fmt: skip
        tuner = tune.Tuner(
            trainable,
            param_space={p.name: p.domain(tune) for p in space.params},
            tune_config=tune.TuneConfig(
                metric="score",
                mode=space.mode,
                num_samples=samples,
                search_alg=algorithm,
                scheduler=scheduler,
            ),  # fmt: skip
            run_config=tune.RunConfig(
                name="sweep", storage_path=storage, verbose=0, callbacks=[_progress_callback(bar)]
            ),  # fmt: skip
        )
        with contextlib.redirect_stdout(io.StringIO()):  # Tune prints its settings' box
            grid = tuner.fit()
        rows = [_row(grid[i], space, seeds, max_t) for i in range(len(grid))]
    trials = pd.DataFrame(rows)
    ascending = space.mode == "min"
    trials = trials.sort_values("score", ascending=ascending, na_position="last", kind="stable")
    return SweepResult(space, trials.reset_index(drop=True), tuple(seeds), search_name,
                       data.describe())  # fmt: skip


def _row(result: Any, space: Space, seeds: Sequence[int], max_t: int) -> dict[str, Any]:
    metrics = result.metrics or {}
    iterations = int(metrics.get("training_iteration", 0))
    row = {p.name: result.config.get(p.name) for p in space.params}
    row |= {"score": metrics.get("score", math.nan), "score_sd": metrics.get("score_sd", math.nan)}
    row |= {f"seed_{s}": metrics.get(f"seed_{s}", math.nan) for s in seeds}
    row |= {"iterations": iterations, "stopped_early": result.error is None and iterations < max_t,
            "error": "" if result.error is None else str(result.error).splitlines()[0]}  # fmt: skip
    return row


def _progress_callback(bar: Any) -> Any:
    """A Tune callback that advances ``bar`` as trials end (done or failed)."""
    from ray.tune import Callback

    class _Progress(Callback):
        def on_trial_complete(self, iteration: int, trials: list, trial: Any, **info: Any) -> None:
            bar.update(1)

        def on_trial_error(self, iteration: int, trials: list, trial: Any, **info: Any) -> None:
            bar.update(1)

    return _Progress()
