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
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from assembly_gym.agents.debate import loggers
from assembly_gym.agents.debate.claims import ClaimModel, ClaimModelError
from assembly_gym.agents.debate.model import MODEL_KIND, DebateModel, create_debate_model
from assembly_gym.agents.debate.observations import ABOUT, rollcall_observations
from assembly_gym.agents.debate.plots import plot_allocations
from assembly_gym.agents.debate.synthetic import synthetic_person
from assembly_gym.agents.debate.tendencies import PersonTendency
from assembly_gym.agents.debate.trainer import DebateLogger, TrainConfig
from assembly_gym.benchmarks.commands import arguments, flags
from assembly_gym.core.errors import AssemblyGymError, DataError
from assembly_gym.core.persist import atomic_write_text, json_header
from assembly_gym.envs.legislative.sources import roll_call_data

_TRAIN_FLAGS = {
    "max_epochs": arguments.POSITIVE_INT,
    "min_epochs": arguments.POSITIVE_INT,
    "convergence_threshold": arguments.NON_NEGATIVE,
    "patience": arguments.POSITIVE_INT,
    "initial_lr": arguments.Number(float, low=0, high=1, low_open=True),
    "lr_decay": arguments.Number(float, low=0, high=1, low_open=True),
    "validation_split": arguments.Number(float, low=0, high=1, low_open=True, high_open=True),
    "min_allocation": arguments.UNIT_INTERVAL,
    "max_allocation": arguments.UNIT_INTERVAL,
}
"""The type of each :class:`TrainConfig` field's flag (its range as TrainConfig checks it)."""


@dataclass(frozen=True, kw_only=True)
class Train:
    """Train a debate model on one actor's observations."""

    data: str | None = flags.data(
        "roll-call data: an unvotes folder or UNDL CSV (needs --country)", metavar="DIR"
    )
    synthetic: bool = flags.synthetic()
    observations: Path | None = flags.option(
        "a free-text observations JSON file (schema: docs/debate.md)", metavar="FILE",
        group="source",
    )  # fmt: skip
    country: str | None = flags.option(
        "the country to model (roll-call data; synthetic default: the first)", metavar="NAME"
    )
    name: str | None = flags.option("the model's name (default: the country, or the file's name)")
    about: str | None = flags.option(
        "free text: whose seven default tendencies apply, a state's (legislative) or a "
        "person's (default: the file's 'about' field, else state)", choices=ABOUT,
    )  # fmt: skip
    log_json: Path | None = flags.option(
        "write the training log as JSON (a new file or an earlier log)",
        type=arguments.OutputFile(json_header(loggers.JSON_LOG_KIND)),
        metavar="FILE",
    )
    tensorboard: Path | None = flags.option(
        "write TensorBoard scalars into this folder", type=arguments.output_folder, metavar="DIR"
    )
    wandb: str | None = flags.option(
        "log to Weights & Biases (offline) under this project", metavar="PROJECT"
    )
    plot: Path | None = flags.option(
        "draw the allocation trajectories into this PNG", type=arguments.output_file, metavar="PNG"
    )
    seed: int = flags.seed("the validation split")
    claim_command: str | None = flags.option(
        "an external command that makes the claims (JSON on stdin/stdout)", metavar="CMD"
    )
    claim_timeout: float = flags.option("seconds per claim batch", 60.0, type=arguments.POSITIVE)
    claim_batch_size: int = flags.option("observations per claim batch", 16, minimum=1)
    refresh_claims: bool = flags.switch(
        "ask the claim command again at the start of every epoch, with the allocations"
    )
    claim_validation: bool = flags.option(
        "the claim command claims only the training observations; the built-in scorers claim "
        "the held-out ones (and so assign their owners)", True, flags=("--no-claim-validation",),
    )  # fmt: skip
    quiet: bool = flags.quiet("no per-epoch console blocks")
    out: Path = flags.out(arguments.OutputFile(json_header(MODEL_KIND)),
                          "where to save the model (a new file or an earlier model)",
                          metavar="MODEL")  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Generate:
    """Write a free-text observations file about a synthetic person.

    Each observation's owner is drawn from a planted mixture of the seven person tendencies,
    written into the file as ``"planted"`` (``debate train`` then prints its L1 distance).
    """

    observations: int = flags.option("how many (default 400)", 400, minimum=1)
    noise: float = flags.option(
        "probability of a word of another tendency in a text (default 0.3)", 0.3,
        type=arguments.UNIT_INTERVAL,
    )  # fmt: skip
    seed: int = flags.seed("the generator")
    out: Path = flags.out(arguments.output_file, "the JSON file to write", metavar="FILE")


@dataclass(frozen=True, kw_only=True)
class Show:
    """Print a saved model's allocations and last training run."""

    model: Path = flags.positional("a model file written by `debate train --out`", metavar="MODEL")


def register(subparsers: argparse._SubParsersAction, help_text: str) -> None:
    """Add the ``debate`` subcommand with ``train``, ``generate`` and ``show``."""
    actions = flags.add_actions(subparsers, "debate", help_text, "Tendencies compete to explain "
                                "an actor's behaviour; debate sets their shares.")  # fmt: skip
    train = flags.add_command(actions, "train", run_train, "train a debate model and save it",
                              Train)  # fmt: skip
    for item in fields(TrainConfig):  # each checked alone as TrainConfig checks it
        train.add_argument(
            f"--{item.name.replace('_', '-')}", type=_TRAIN_FLAGS[item.name], default=item.default,
            help=f"TrainConfig.{item.name} (default {item.default})",
        )  # fmt: skip
    flags.add_command(
        actions, "generate", run_generate,
        "write a synthetic person's free-text observations with planted owners", Generate,
    )  # fmt: skip
    flags.add_command(actions, "show", run_show, "print a saved debate model", Show)


def _model(args: argparse.Namespace) -> DebateModel:
    if args.observations is not None:
        if args.country is not None:
            raise DataError(args.observations, "--country applies to roll-call data, not to "
                            "free text")  # fmt: skip
        return create_debate_model(args.name, args.observations, about=args.about)
    if args.about is not None:
        raise AssemblyGymError("--about applies to free-text observations (--observations FILE)")
    if args.country is None and args.data is not None:
        raise DataError(args.data, "say which country to model with --country NAME",
                        field="country")  # fmt: skip
    data = roll_call_data(args.data)
    if args.country is None:
        args.country = data.country_names[0]
    observations = rollcall_observations(data, args.country)
    country = data.country_names[data.country_index(args.country)]
    return create_debate_model(args.name or country, observations)


def run_train(args: argparse.Namespace) -> int:
    """Train a model, log it, save it and print its summary."""
    try:  # the settings together (each flag alone was checked as it was parsed)
        config = flags.dataclass_from_flags(TrainConfig, args)
        claim_model = None
        if args.claim_command is not None:
            claim_model = ClaimModel(
                args.claim_command, timeout=args.claim_timeout, batch_size=args.claim_batch_size,
                refresh=args.refresh_claims, validate=args.claim_validation,
            )  # fmt: skip
        elif args.refresh_claims or not args.claim_validation:
            raise ValueError("--refresh-claims and --no-claim-validation need --claim-command")
    except ValueError as error:
        raise AssemblyGymError(str(error)) from None  # one line, exit code 2
    model = _model(args)
    try:
        config.check_tendencies(len(model.agents))
    except ValueError as error:
        raise AssemblyGymError(str(error)) from None
    logs: list[DebateLogger] = [] if args.quiet else [loggers.ConsoleLogger()]
    if args.log_json is not None:
        logs.append(loggers.JSONLogger(args.log_json))
    if args.tensorboard is not None:
        logs.append(loggers.TensorBoardLogger(args.tensorboard))
    if args.wandb is not None:
        logs.append(loggers.WandbLogger(args.wandb, model.name))
    history, _ = model.train(config, logger=logs, seed=args.seed, claim_model=claim_model)
    if history.claims_all_failed:  # nothing came from the command: not a model of what was asked
        raise ClaimModelError(
            f"claim command {args.claim_command!r} failed on all {history.claim_batches} "
            f"batches, nothing saved; first failure: {history.first_claim_error}"
        )
    model.save(args.out)
    if args.plot is not None:
        plot_allocations(history, args.plot, bounds=(config.min_allocation, config.max_allocation),
                         title=f"Debate allocations: {model.name}")  # fmt: skip
    print(f"{model.summary()}\nSaved {args.out}")
    return 0


def run_generate(args: argparse.Namespace) -> int:
    """Write a synthetic person's observations and say what was planted."""
    document, owners, weights = synthetic_person(
        args.observations, rng=np.random.default_rng(args.seed), noise=args.noise
    )
    atomic_write_text(args.out, json.dumps(document, indent=1) + "\n")
    shares = ", ".join(
        f"{tendency.value} {share:.1%}"
        for tendency, share in zip(PersonTendency, weights, strict=True)
    )
    counts = np.bincount(owners, minlength=len(PersonTendency))
    majority, chance = counts.max() / len(owners), 1 / len(PersonTendency)
    print(f"Planted mixture (the file's \"planted\"): {shares}\nPlanted owners: majority rate "
          f"{majority:.3f}, chance 1/K {chance:.3f}")  # fmt: skip
    print(f"Wrote {args.out} ({args.observations} observations, about a person)")
    return 0


def run_show(args: argparse.Namespace) -> int:
    """Print a saved model."""
    print(DebateModel.load(args.model).summary())
    return 0
