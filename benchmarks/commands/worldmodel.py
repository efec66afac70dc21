r"""``assembly-gym worldmodel train|eval``: fit a world model on an env's transitions, score it.

Examples:
    $ assembly-gym worldmodel train --synthetic --env Deliberation-v0 --out models/delib
    $ assembly-gym worldmodel eval models/delib
    $ assembly-gym worldmodel train --data ../shared/data/unvotes --env Deliberation-v0 \
          --out models/delib-real            # train ≤ session 60, test 61–69
    $ assembly-gym worldmodel eval models/delib-real
    $ assembly-gym worldmodel train --data ../shared/data/un_documents --env Deliberation-v0 \
          --out models/delib-docs            # a folder of trajectory files: 60/20/20 split
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from assembly_gym.benchmarks.commands import arguments, flags
from assembly_gym.core.errors import CheckpointError, DataError
from assembly_gym.core.persist import checked_field
from assembly_gym.core.transitions import Transitions
from assembly_gym.envs.legislative.documents.loading import data_kind, load_trajectories
from assembly_gym.envs.legislative.sources import LAST_TRAIN_SESSION
from assembly_gym.world_models.base import load_world_model
from assembly_gym.world_models.checkpoint import CHECKPOINT_KIND, MANIFEST, read_manifest
from assembly_gym.world_models.empirical import EmpiricalModel
from assembly_gym.world_models.evaluation import evaluate_world_model, evaluation_table
from assembly_gym.world_models.heads import HeadModel
from assembly_gym.world_models.mlp import MLPEnsemble
from assembly_gym.world_models.transitions import env_transitions, modelled_envs, split_transitions

_SYNTHETIC = "synthetic"
_MIN_RESOLUTIONS = 5  # fewer: a 60/20/20 split by resolution leaves a part empty


def _split(
    transitions: Transitions, split: dict[str, Any]
) -> tuple[Transitions, Transitions, Transitions]:
    """Train, validation, test as ``split`` (the model's metadata) says: by group or episode."""
    if split.get("by") == "episode":
        transitions = replace(transitions, groups=None)
    return split_transitions(
        transitions, last_train_session=split["last_train_session"], seed=split["seed"]
    )


@dataclass(frozen=True, kw_only=True)
class Train:
    """Fit a world model on the training split of an env's transitions and save it."""

    data: str | None = flags.data(
        "'unvotes', an unvotes folder or a UNDL CSV (real votes), or a folder of trajectory "
        "files (*.trajectory.json, *.genealogy.json, *.marcxml[.gz]; Deliberation-v0 only)",
        metavar="DIR",
    )  # fmt: skip
    synthetic: bool = flags.synthetic()
    env: str = flags.option(
        "the env whose transitions to learn", required=True,
        type=lambda s: s.removeprefix("assembly/"), choices=modelled_envs(),
    )  # fmt: skip
    out: Path = flags.out(
        arguments.ArtifactFolder(MANIFEST, CHECKPOINT_KIND),
        "folder to save the model into (a new or empty folder, or an earlier model's)",
    )  # fmt: skip
    model: Literal["mlp", "empirical"] = flags.option(
        "MLPEnsemble (default) or the EmpiricalModel baseline", "mlp"
    )
    last_train_session: int | None = flags.option(
        "temporal split: test on later sessions (default: 60 on real data with sessions ≥ 61, "
        "else 60/20/20 of the resolutions at random)", minimum=1,
    )  # fmt: skip
    seed: int = flags.seed("the split and the model")
    members: int = flags.option("ensemble members (mlp)", 5, minimum=1)
    max_epochs: int = flags.option("epoch limit (mlp)", 40, minimum=1)
    threads: int | None = flags.option(
        "torch threads while training (mlp; default: torch's)", minimum=1
    )
    device: str = flags.device("the MLP ensemble trains")
    tensorboard: Path | None = flags.option(
        "write TensorBoard losses into DIR (mlp)", type=arguments.output_folder, metavar="DIR"
    )
    quiet: bool = flags.quiet()


@dataclass(frozen=True, kw_only=True)
class Eval:
    """Score a saved model on its held-out test split."""

    model_dir: Path = flags.positional("a folder written by `worldmodel train`")
    data: str | None = flags.data(
        "data to evaluate on (default: the data the model was trained on)", group=None
    )
    seed: int = flags.seed("the rollouts")
    device: str = flags.device("a torch model predicts")
    quiet: bool = flags.quiet()


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``worldmodel`` subcommand with its ``train`` and ``eval`` actions."""
    actions = flags.add_actions(subparsers, "worldmodel", help_text, "Fit a world model on all "
                                "transitions of an env's data, or score a saved one.")  # fmt: skip
    flags.add_command(actions, "train", run_train, "fit a model and save it to a folder", Train)
    flags.add_command(actions, "eval", run_eval, "print the held-out evaluation table", Eval)


def _data_spec(data: str | None, env: str) -> Any:
    """None for the synthetic assembly, the trajectories of a trajectory folder, else the path.

    Raises:
        DataError: a path of neither kind, or trajectories for an env other than Deliberation.
    """
    if data in (None, _SYNTHETIC, "unvotes"):
        return None if data == _SYNTHETIC else data
    if data_kind(data) == "roll calls":
        return data
    if env != "Deliberation-v0":
        raise DataError(data, f"a folder of trajectories: {env} needs roll calls; use "
                        "--env Deliberation-v0")  # fmt: skip
    return load_trajectories(data)


def run_train(args: argparse.Namespace) -> int:
    """Build the env's transitions, split, fit, save and print a summary."""
    arguments.check_logs_outside(args.tensorboard, args.out)
    spec = _data_spec(args.data, args.env)
    transitions = env_transitions(args.env, spec, progress=not args.quiet)
    last = args.last_train_session
    sessions = transitions.extras.get("session")
    by_session = args.data is not None and not isinstance(spec, list)  # roll calls: by session
    if last is None and by_session and sessions is not None and sessions.max() > LAST_TRAIN_SESSION:
        last = LAST_TRAIN_SESSION
    split_info: dict[str, Any] = {"last_train_session": last, "seed": args.seed}
    n_groups = len(np.unique(transitions.split_units))
    if last is None and transitions.groups is not None and n_groups < _MIN_RESOLUTIONS:
        split_info["by"] = "episode"  # too few resolutions to hold any out
    train, validation, test = _split(transitions, split_info)
    model: HeadModel
    if args.model == "mlp":
        model = MLPEnsemble(members=args.members, max_epochs=args.max_epochs, seed=args.seed,
                            threads=args.threads, device=args.device)  # fmt: skip
    else:
        model = EmpiricalModel(seed=args.seed)
    start = time.perf_counter()
    model.fit(train, validation=validation, progress=not args.quiet, log_dir=args.tensorboard)
    seconds = time.perf_counter() - start
    data = _SYNTHETIC if args.data is None else args.data
    if data not in (_SYNTHETIC, "unvotes"):
        data = str(Path(data).expanduser().resolve())
    model.metadata = {
        "env": args.env, "data": data, "split": split_info, "fit_seconds": round(seconds, 2),
        "transitions": {"train": len(train), "validation": len(validation), "test": len(test)},
    }  # fmt: skip
    model.save(args.out)
    split = f"sessions ≤ {last} (test: later)" if last is not None else "60/20/20 by resolution"
    if split_info.get("by") == "episode":
        split = (f"60/20/20 by (country, resolution) episode: only {n_groups} resolutions have "
                 "transitions, so test episodes share resolutions with training ones")  # fmt: skip
    print(f"{type(model).__name__} on {args.env} ({data}), split {split}, seed {args.seed}")
    print(f"transitions: train {len(train):,}, validation {len(validation):,}, test {len(test):,}")
    print(f"fit in {seconds:.1f} s; saved to {args.out}")
    print(f"evaluate: assembly-gym worldmodel eval {args.out}")
    return 0


def run_eval(args: argparse.Namespace) -> int:
    """Rebuild the model's test split (or another data set's) and print the table."""
    manifest, source = read_manifest(args.model_dir), Path(args.model_dir) / MANIFEST
    metadata = checked_field(manifest, "metadata", dict, source, default={})
    if "env" not in metadata or "split" not in metadata:
        raise CheckpointError(
            f"{args.model_dir}: the model has no record of its env and split (it was not "
            "trained by `assembly-gym worldmodel train`); evaluate it with "
            "assembly_gym.world_models.evaluate_world_model"
        )
    checked_field(metadata, "env", str, source)
    split = checked_field(metadata, "split", dict, source)
    checked_field(split, "last_train_session", (int, type(None)), source)
    checked_field(split, "seed", int, source)
    data = args.data or checked_field(metadata, "data", str, source, default=_SYNTHETIC)
    spec = _data_spec(data, metadata["env"])
    transitions = env_transitions(metadata["env"], spec, progress=not args.quiet)
    model = load_world_model(args.model_dir, layout=transitions.obs_names)
    move = getattr(model, "to", None)
    if callable(move):  # a torch model: predict on the device
        move(args.device)
    _, _, test = _split(transitions, split)
    result = evaluate_world_model(model, test, seed=args.seed)
    last = split["last_train_session"]
    unit = "episodes" if split.get("by") == "episode" else "resolutions"
    where = f"sessions > {last}" if last is not None else f"20 % of the {unit} (seeded)"
    print(
        f"{type(model).__name__} from {args.model_dir} on {metadata['env']} ({data}); "
        f"test: {where}; rollout seed {args.seed}"
    )
    extra = {"fit seconds": {type(model).__name__: metadata.get("fit_seconds", float("nan"))}}
    print(evaluation_table({type(model).__name__: result}, extra))
    worst = result.episodes.dropna(subset="nll").nlargest(3, "nll")
    if len(worst):
        print("worst episodes by NLL (nats / transition): " + "; ".join(
            f"episode {row.episode} (group {row.group}, {row.steps} steps) {row.nll:.2f}"
            for row in worst.itertuples()
        ))  # fmt: skip
    return 0
