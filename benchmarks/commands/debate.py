r"""``assembly-gym debate``: calibrate competing tendencies by debate, and show a saved model.

Example:
    $ assembly-gym debate train --synthetic --out country1.debate.json
    $ assembly-gym debate train --data ../shared/data/unvotes --country France \\
          --log-json france.log.json --tensorboard runs/france --out france.debate.json
    $ assembly-gym debate train --observations ada.json --about person --out ada.debate.json
    $ assembly-gym debate generate --observations 400 --out person.json
    $ assembly-gym debate show france.debate.json
"""

from __future__ import annotations

import argparse
import json
from dataclasses import fields
from pathlib import Path

import numpy as np

from assembly_gym.agents.debate import (
    ABOUT,
    PERSON_TENDENCIES,
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
    synthetic_person,
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
from assembly_gym.core.persist import atomic_write_text
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


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``debate`` subcommand with ``train`` and ``show``."""
    parser = subparsers.add_parser(
        "debate",
        help=help_text,
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
        "--about",
        choices=ABOUT,
        default=None,
        help="free text: whose seven default tendencies apply, a state's (legislative) or a "
        "person's (default: the file's 'about' field, else state)",
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
    train.add_argument(
        "--refresh-claims",
        action="store_true",
        help="ask the claim command again at the start of every epoch, with the allocations",
    )
    train.add_argument(
        "--no-claim-validation",
        dest="claim_validation",
        action="store_false",
        help="the claim command claims only the training observations; the built-in scorers "
        "claim the held-out ones (and so assign their owners)",
    )
    train.add_argument("--quiet", action="store_true", help="no per-epoch console blocks")
    train.add_argument(
        "--out", type=output_file, required=True, metavar="MODEL", help="where to save the model"
    )
    train.set_defaults(run=run_train, parser=train)

    generate = actions.add_parser(
        "generate",
        help="write a synthetic person's free-text observations with planted owners",
        description="Write a free-text observations file about a synthetic person: each "
        "observation's owner is drawn from a planted mixture of the seven person tendencies.",
    )
    generate.add_argument(
        "--observations", type=POSITIVE_INT, default=400, help="how many (default 400)"
    )
    generate.add_argument(
        "--noise",
        type=UNIT_INTERVAL,
        default=0.3,
        help="probability of a word of another tendency in a text (default 0.3)",
    )
    generate.add_argument("--seed", type=SEED, default=0, help="seed of the generator")
    generate.add_argument(
        "--out", type=output_file, required=True, metavar="FILE", help="the JSON file to write"
    )
    generate.set_defaults(run=run_generate, parser=generate)

    show = actions.add_parser(
        "show",
        help="print a saved debate model",
        description="Print a saved model's allocations and last training run.",
    )
    show.add_argument("model", type=Path, metavar="MODEL",
                      help="a model file written by `debate train --out`")  # fmt: skip
    show.set_defaults(run=run_show)


def _model(args: argparse.Namespace) -> DebateModel:
    if args.observations is not None:
        if args.country is not None:
            raise DataError(
                args.observations, "--country applies to roll-call data, not to free text"
            )
        return create_debate_model(args.name, args.observations, about=args.about)
    if args.about is not None:
        args.parser.error("--about applies to free-text observations (--observations FILE)")
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
                args.claim_command,
                timeout=args.claim_timeout,
                batch_size=args.claim_batch_size,
                refresh=args.refresh_claims,
                validate=args.claim_validation,
            )
        elif args.refresh_claims or not args.claim_validation:
            raise ValueError("--refresh-claims and --no-claim-validation need --claim-command")
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


def run_generate(args: argparse.Namespace) -> int:
    """Write a synthetic person's observations and say what was planted."""
    document, owners, weights = synthetic_person(
        args.observations, rng=np.random.default_rng(args.seed), noise=args.noise
    )
    atomic_write_text(args.out, json.dumps(document, indent=1) + "\n")
    shares = ", ".join(
        f"{spec.name} {share:.1%}" for spec, share in zip(PERSON_TENDENCIES, weights, strict=True)
    )
    counts = np.bincount(owners, minlength=len(PERSON_TENDENCIES))
    print(f"Planted mixture: {shares}")
    print(
        f"Planted owners: majority rate {counts.max() / len(owners):.3f}, chance 1/K "
        f"{1 / len(PERSON_TENDENCIES):.3f}"
    )
    print(f"Wrote {args.out} ({args.observations} observations, about a person)")
    return 0


def run_show(args: argparse.Namespace) -> int:
    """Print a saved model."""
    print(DebateModel.load(args.model).summary())
    return 0
