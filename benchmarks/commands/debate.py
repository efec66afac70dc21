r"""``assembly-gym debate``: calibrate competing tendencies by debate, and show a saved model.

Example:
    $ assembly-gym debate train --synthetic --out country1.debate.json
    $ assembly-gym debate train --data ../shared/data/unvotes --country France \\
          --log-json france.log.json --tensorboard runs/france --out france.debate.json
    $ assembly-gym debate train --observations ada.json --out ada.debate.json
    $ assembly-gym debate show france.debate.json
"""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path

from assembly_gym.agents.debate import (
    ClaimModel,
    ClaimModelError,
    ConsoleLogger,
    DebateLogger,
    DebateModel,
    JSONLogger,
    TensorBoardLogger,
    TrainConfig,
    WandbLogger,
    create_debate_model,
    plot_allocations,
    rollcall_observations,
)
from assembly_gym.benchmarks.commands import add_data_source
from assembly_gym.benchmarks.commands.arguments import (
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    SEED,
    UNIT_INTERVAL,
    Number,
    output_file,
    output_folder,
)
from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.sources import roll_call_data

_TRAIN_FLAGS = {
    "max_epochs": POSITIVE_INT,
    "min_epochs": POSITIVE_INT,
    "convergence_threshold": NON_NEGATIVE,
    "patience": POSITIVE_INT,
    "initial_lr": POSITIVE,
    "lr_decay": Number(float, low=0, high=1, low_open=True),
    "validation_split": Number(float, low=0, high=1, low_open=True, high_open=True),
    "min_allocation": UNIT_INTERVAL,
    "max_allocation": UNIT_INTERVAL,
}
"""The type of each :class:`TrainConfig` field's flag (its range as TrainConfig checks it)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``debate`` subcommand with ``train`` and ``show``."""
    parser = subparsers.add_parser(
        "debate",
        help="explain an actor as a debate-calibrated mixture of tendencies",
        description="Tendencies compete to explain an actor's behaviour; debate sets their shares.",
    )
    actions = parser.add_subparsers(dest="debate_command", required=True, metavar="ACTION")

    train = actions.add_parser(
        "train",
        help="train a debate model and save it",
        description="Train a debate model on one actor's observations.",
    )
    source = add_data_source(
        train, "roll-call data: an unvotes folder or UNDL CSV (needs --country)"
    )
    source.add_argument(
        "--observations",
        type=Path,
        default=None,
        metavar="FILE",
        help="a free-text observations JSON file (schema: docs/debate.md)",
    )
    train.add_argument(
        "--country",
        default=None,
        metavar="NAME",
        help="the country to model (roll-call data; synthetic default: the first)",
    )
    train.add_argument(
        "--name", default=None, help="the model's name (default: the country, or the file's name)"
    )
    train.add_argument(
        "--log-json",
        type=output_file,
        default=None,
        metavar="FILE",
        help="write the training log as JSON",
    )
    train.add_argument(
        "--tensorboard",
        type=output_folder,
        default=None,
        metavar="DIR",
        help="write TensorBoard scalars into this folder",
    )
    train.add_argument(
        "--wandb",
        default=None,
        metavar="PROJECT",
        help="log to Weights & Biases (offline) under this project",
    )
    train.add_argument(
        "--plot",
        type=output_file,
        default=None,
        metavar="PNG",
        help="draw the allocation trajectories into this PNG",
    )
    defaults = TrainConfig()
    for field in fields(TrainConfig):
        train.add_argument(
            f"--{field.name.replace('_', '-')}",
            type=_TRAIN_FLAGS[field.name],
            default=getattr(defaults, field.name),
            help=f"TrainConfig.{field.name} (default {getattr(defaults, field.name)})",
        )
    train.add_argument("--seed", type=SEED, default=0, help="seed of the validation split")
    train.add_argument(
        "--claim-command",
        default=None,
        metavar="CMD",
        help="an external command that makes the claims (JSON on stdin/stdout)",
    )
    train.add_argument(
        "--claim-timeout", type=POSITIVE, default=60.0, help="seconds per claim batch"
    )
    train.add_argument(
        "--claim-batch-size", type=POSITIVE_INT, default=16, help="observations per claim batch"
    )
    train.add_argument("--quiet", action="store_true", help="no per-epoch console blocks")
    train.add_argument(
        "--out", type=output_file, required=True, metavar="MODEL", help="where to save the model"
    )
    train.set_defaults(run=run_train, parser=train)

    show = actions.add_parser(
        "show",
        help="print a saved debate model",
        description="Print a saved model's allocations and last training run.",
    )
    show.add_argument("model", type=Path, metavar="MODEL")
    show.set_defaults(run=run_show)


def _model(args: argparse.Namespace) -> DebateModel:
    if args.observations is not None:
        if args.country is not None:
            raise DataError(
                args.observations, "--country applies to roll-call data, not to free text"
            )
        return create_debate_model(args.name, args.observations)
    data = roll_call_data(args.data)
    if args.country is None:
        if args.data is not None:
            raise DataError(
                data.source, "say which country to model with --country NAME", field="country"
            )
        args.country = data.country_names[0]
    observations = rollcall_observations(data, args.country)
    country = data.country_names[data.country_index(args.country)]
    return create_debate_model(args.name or country, observations)


def run_train(args: argparse.Namespace) -> int:
    """Train a model, log it, save it and print its summary."""
    try:  # the settings together (each flag alone was checked as it was parsed)
        config = TrainConfig(**{f.name: getattr(args, f.name) for f in fields(TrainConfig)})
        claim_model = None
        if args.claim_command is not None:
            claim_model = ClaimModel(
                args.claim_command, timeout=args.claim_timeout, batch_size=args.claim_batch_size
            )
    except ValueError as error:
        args.parser.error(str(error))  # one line, exit code 2
    model = _model(args)
    try:
        config.check_tendencies(len(model.agents))
    except ValueError as error:
        args.parser.error(str(error))
    loggers: list[DebateLogger] = [] if args.quiet else [ConsoleLogger()]
    if args.log_json is not None:
        loggers.append(JSONLogger(args.log_json))
    if args.tensorboard is not None:
        loggers.append(TensorBoardLogger(args.tensorboard))
    if args.wandb is not None:
        loggers.append(WandbLogger(args.wandb, model.name))
    history, _ = model.train(config, logger=loggers, seed=args.seed, claim_model=claim_model)
    if history.claims_all_failed:  # nothing came from the command: not a model of what was asked
        raise ClaimModelError(
            f"claim command {args.claim_command!r} failed on all {history.claim_batches} "
            f"batches, nothing saved; first failure: {history.first_claim_error}"
        )
    model.save(args.out)
    if args.plot is not None:
        plot_allocations(
            history,
            args.plot,
            bounds=(config.min_allocation, config.max_allocation),
            title=f"Debate allocations: {model.name}",
        )
    print(model.summary())
    print(f"Saved {args.out}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    """Print a saved model."""
    print(DebateModel.load(args.model).summary())
    return 0
