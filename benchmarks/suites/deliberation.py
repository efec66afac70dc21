"""The deliberation suite: multi-step decisions of ``Deliberation-v0``.

Synthetic (default): the synthetic assembly's resolutions from draft to plenary, trained on
its first three quarters of sessions and tested on the rest (test observations described by
the training votes only); every decision is scored. With ``--data DIR`` (a folder of
trajectory files, that folder only): the whole multi-step task where most resolutions record
the plenary vote, split by session as the envs' ``split=``; else the task they support, who
cosponsors the later drafts (by date), learned from the earlier ones. ``--folds K`` replaces
the split by K folds of the resolutions (seeded), ``--fold I`` picks the fold tested.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

import numpy as np

from assembly_gym.benchmarks.splits import record_folds
from assembly_gym.benchmarks.suites.base import AgentSpec, Options, Suite, Task, per_country
from assembly_gym.benchmarks.suites.catalog import baseline_specs, bc_spec
from assembly_gym.benchmarks.suites.rollcall import synthetic_assembly
from assembly_gym.core.errors import DataError
from assembly_gym.core.layout import ObservationLayout
from assembly_gym.envs.legislative.data import ISSUE_CODES
from assembly_gym.envs.legislative.deliberation import (
    STATE_NAMES,
    DeliberationEnv,
    resolution_records,
)
from assembly_gym.envs.legislative.demonstrations import (
    deliberation_demonstrations,
    group_by_country,
)
from assembly_gym.envs.legislative.documents.loading import data_kind, load_trajectories
from assembly_gym.envs.legislative.dynamics import EmpiricalDynamics
from assembly_gym.envs.legislative.observation import feature_names
from assembly_gym.envs.legislative.resolutions import (
    NOT_RECORDED,
    ResolutionRecords,
    records_from_trajectories,
)
from assembly_gym.envs.legislative.sources import default_last_train_session
from assembly_gym.envs.legislative.spaces import Action

__all__ = ["DELIBERATION", "deliberation_task"]

ACTIONS = tuple(a.name.lower() for a in Action)
LAYOUT = ObservationLayout((*feature_names(), *STATE_NAMES))


def deliberation_task(
    name: str, records: ResolutionRecords, train_columns: np.ndarray, options: Options, *,
    draft_only: bool, split: str,
) -> Task:  # fmt: skip
    """Demonstrations of the training and test resolutions, test described by training votes."""
    test_columns = np.setdiff1d(np.arange(records.n_resolutions), train_columns)
    train, test = records.select(train_columns), records.select(test_columns)
    countries = options.countries or records.country_names
    history = train.plenary_history()
    train_demos = group_by_country(
        deliberation_demonstrations(train, countries, draft_only=draft_only)
    )
    test_demos = group_by_country(
        deliberation_demonstrations(test, countries, history=history, draft_only=draft_only)
    )
    both = [c for c in countries if c in train_demos and c in test_demos]
    if not both:
        raise DataError(records.source, "no country has decisions in both periods")
    groups = {
        c: np.concatenate([[i["rcid"] for i in d.infos] for d in test_demos[c]]) for c in both
    }
    context = {
        "draft_only": draft_only,
        "train_records": train,
        "patterns": records.resolutions[[f"issue_{c}" for c in ISSUE_CODES]].to_numpy(bool),
    }
    return Task(
        name, "assembly/Deliberation-v0", LAYOUT, ACTIONS, {c: train_demos[c] for c in both},
        {c: test_demos[c] for c in both}, groups, split, records.source, options.seed,
        None, context,
    )  # fmt: skip


def _trajectory_records(data: str) -> ResolutionRecords:
    """The records of the trajectory files in ``data``: that folder (or file), nothing else.

    Raises:
        DataError: ``data`` holds roll calls, or neither kind.
    """
    if data_kind(data) != "trajectories":
        raise DataError(
            data, "holds roll calls; the deliberation suite needs a folder of trajectory files"
        )
    return replace(records_from_trajectories(load_trajectories(data)), source=str(data))


def _multi_step(records: ResolutionRecords) -> bool:
    """Whether most resolutions record their plenary vote (else: draft decisions only)."""
    return bool(((records.plenary != NOT_RECORDED).any(axis=0)).mean() >= 0.5)


def _fold_train(records: ResolutionRecords, options: Options) -> tuple[np.ndarray, str]:
    """Training columns of fold ``options.fold`` (default 0) of ``options.folds``."""
    assert options.folds is not None
    fold = options.fold or 0
    if fold >= options.folds:
        raise DataError("--fold", f"fold {fold} of {options.folds} folds: choose 0 … "
                        f"{options.folds - 1}")  # fmt: skip
    test = record_folds(records, options.folds, options.seed)[fold]
    train = np.setdiff1d(np.arange(records.n_resolutions), test)
    split = (f"fold {fold + 1}/{options.folds} by resolution (seed {options.seed}): "
             f"{len(train)} train, {len(test)} test resolutions")  # fmt: skip
    return train, split


def _make_task(options: Options) -> Task:
    if options.data is None:
        records = resolution_records(synthetic_assembly(options.seed, options.quick))
    else:
        records = _trajectory_records(options.data)
    draft_only = options.data is not None and not _multi_step(records)
    if options.folds is not None:
        train, split = _fold_train(records, options)
    elif draft_only:
        days = records.resolutions["date"].to_numpy().astype("datetime64[D]").astype(np.int64)
        cut = np.quantile(days, 0.7)
        train = np.flatnonzero(days <= cut)
        split = f"drafts up to {np.datetime64(int(cut), 'D')} train, later drafts test"
    else:
        sessions = records.resolutions["session"].to_numpy()
        last = options.last_train_session or default_last_train_session(np.unique(sessions))
        train = np.flatnonzero(sessions <= last)
        split = f"train sessions ≤ {last}, test sessions > {last}"
    if draft_only:
        split += " (cosponsorship)"
    return deliberation_task("deliberation", records, train, options, draft_only=draft_only,
                             split=split)  # fmt: skip


def _env_factory(task: Task):
    """Deliberation-v0 of one country on the training records (the generator's env)."""
    records = task.context["train_records"]
    dynamics = EmpiricalDynamics.fit(records)
    return lambda demos: DeliberationEnv(records, country=demos[0].country, dynamics=dynamics)


def _irl_fit(task: Task, countries: Sequence[str]):
    from assembly_gym.agents.irl_agent import MaxEntDeliberationAgent

    return MaxEntDeliberationAgent.fit_countries(
        {c: task.train[c] for c in countries}, layout=task.layout,
        dynamics=EmpiricalDynamics.fit(task.context["train_records"]),
        patterns=task.context["patterns"],
    )  # fmt: skip


def _adversarial_spec(
    task: Task, algorithm: Literal["gail", "airl"], options: Options
) -> AgentSpec:
    steps = 1024 if options.quick else 8192

    def make(task: Task):
        from assembly_gym.agents.imitation_agents import AdversarialAgent

        return AdversarialAgent(task.n_actions, task.layout, make_env=_env_factory(task),
                                algorithm=algorithm, total_timesteps=steps, seed=task.seed,
                                n_steps=512 if not options.quick else 256)  # fmt: skip

    return AgentSpec(
        f"imitation {algorithm.upper()}", per_country(make), max_countries=3, requires="imitation"
    )


def _simulator_ppo_fit(task: Task, countries: Sequence[str], *, steps: int):
    """MaskablePPO in Simulator-v0 (a world model of the training period) on learned rewards."""
    from assembly_gym.agents.sb3 import PolicyAgent
    from assembly_gym.envs.legislative.phi import DeliberationFeatureMap
    from assembly_gym.envs.legislative.rewards import LinearReward
    from assembly_gym.envs.legislative.transitions import deliberation_transitions
    from assembly_gym.world_models.empirical import EmpiricalModel
    from assembly_gym.world_models.simulator import SimulatorEnv

    rewarded = _irl_fit(task, countries)
    model = EmpiricalModel().fit(deliberation_transitions(task.context["train_records"]))
    phi = DeliberationFeatureMap(task.layout.names)
    agents = {}
    for country in countries:
        reward = LinearReward(rewarded[country].theta_, phi)

        def make_env(demos, reward=reward):
            return SimulatorEnv(model, reward_fn=reward)

        agent = PolicyAgent(task.n_actions, task.layout, total_timesteps=steps, seed=task.seed,
                            n_steps=256, algorithm="maskable_ppo", make_env=make_env)  # fmt: skip
        agents[country] = agent.fit(task.train[country])
    return agents


def _agents(task: Task, options: Options) -> list[AgentSpec]:
    specs = [*baseline_specs(task, yes_action=Action.YES, vote_actions=(1, 2, 3)),
             bc_spec(task, max_countries=10)]  # fmt: skip
    if task.context["draft_only"]:
        return specs  # draft decisions only: the multi-step learners need whole resolutions
    steps = 1024 if options.quick else 10_000
    return [
        *specs,
        AgentSpec("maxent-irl (multi-step)", _irl_fit, chunk=None),
        _adversarial_spec(task, "gail", options),
        _adversarial_spec(task, "airl", options),
        AgentSpec("MaskablePPO in Simulator-v0 (learned reward)",
                  functools.partial(_simulator_ppo_fit, steps=steps), max_countries=3, chunk=None),
    ]  # fmt: skip


DELIBERATION = Suite(
    "deliberation",
    "Deliberation-v0: cosponsorship and committee and plenary votes of held-out resolutions",
    _make_task,
    _agents,
)
