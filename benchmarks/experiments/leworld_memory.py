"""Does the LeWorld system use its memory? Held-out next-state MSE against the baselines.

On the held-out sequences of a ``--checkpoint`` (written by ``assembly-gym leworld train``;
``--seed``, default the checkpoint's data seed), the one-step next-state MSE per sequence of
the system (with and without the info request) and of (a) a memory-less MLP of equal size
trained as long as phases 1 + 2, (a') the analytic memory-less predictor (seed_t replaced by
its training mean), (b) the noise floor (true transition mean) and the trained BLM fed oracle
reads, (c) the system with random reads; paired differences by sequence with 95 % t
intervals. ``--still-control`` also fits the memory-less MLP on the same world with still
regions (``hopping=False``), where the states reveal the seed.

Run: ``assembly-gym experiment leworld_memory --checkpoint runs/leworld``
"""

from __future__ import annotations

import argparse
import functools
import time
from dataclasses import replace

import numpy as np

from assembly_gym.benchmarks.commands.arguments import POSITIVE_INT
from assembly_gym.envs.memory.world import Episodes, MemoryWorld
from assembly_gym.world_models.leworld.baselines import fit_memoryless
from assembly_gym.world_models.leworld.datasets import held_out_episodes, make_datasets
from assembly_gym.world_models.leworld.evaluation import (
    noise_floor,
    paired_difference,
    sequence_mse,
)
from assembly_gym.world_models.leworld.model import LeWorldModel
from assembly_gym.world_models.leworld.system import LeWorldSystem

__all__ = ["add_arguments", "analytic_memoryless_mse", "run"]


def analytic_memoryless_mse(world: MemoryWorld, train: Episodes, test: Episodes) -> np.ndarray:
    """Per-sequence MSE of the true dynamics with seed_t replaced by its training mean."""
    mean_term = train.memory_terms.mean(axis=(0, 1))
    s = test.states[:, :-1].astype(np.float64)
    c = test.c[:, None, :].astype(np.float64)
    prediction = world.transition_mean(s, mean_term, c)
    return ((prediction - test.states[:, 1:]) ** 2).mean(axis=(1, 2))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The checkpoint, the baseline's epochs and the control; one thread by default."""
    parser.add_argument(
        "--checkpoint", required=True, help="a folder written by `assembly-gym leworld train`"
    )
    parser.add_argument(
        "--memoryless-epochs", type=POSITIVE_INT, default=None,
        help="epochs of the memory-less MLP (default: phase 1 + phase 2 epochs)",
    )  # fmt: skip
    parser.add_argument(
        "--still-control", action="store_true",
        help="also fit the memory-less MLP on the same world with still regions",
    )  # fmt: skip
    parser.set_defaults(seed=None, threads=1)


def run(args: argparse.Namespace) -> None:
    """Print the table of per-sequence MSEs and the paired differences."""
    model = LeWorldModel.load(args.checkpoint)
    system, world, config = model.system, model.world, model.system.config
    seed = int(model.extra.get("data_seed", 0)) if args.seed is None else args.seed
    test = held_out_episodes(world, config, seed)
    data = make_datasets(world, config, seed)
    floor = noise_floor(test)
    started = time.perf_counter()
    epochs = args.memoryless_epochs or config.phase1_epochs + config.phase2_epochs
    fit = functools.partial(fit_memoryless, epochs=epochs, seed=seed, progress=not args.quiet)
    baseline = fit(world, system, data)
    baseline_seconds = time.perf_counter() - started
    system_name = "LeWorld system" + (" (with info request)" if system.use_query else "")
    rows = {
        system_name: sequence_mse(system, test),
        "LeWorld, no info request": sequence_mse(system, test, use_query=False),
        "(a) memory-less MLP, equal size": sequence_mse(baseline, test),
        "(a') analytic, no memory": analytic_memoryless_mse(world, data.train, test),
        "(b) noise floor (true dynamics)": floor,
        "(b) trained BLM, oracle reads": sequence_mse(system, test, read_mode="oracle"),
        "(c) trained system, random reads": sequence_mse(system, test, read_mode="random",
                                                         seed=seed),
    }  # fmt: skip
    cfg = world.config
    size = sum(p.numel() for p in system.parameters())
    print(
        f"World: {cfg.difficulty}, {cfg.population} memory of {cfg.num_words} × {cfg.word_size} "
        f"bits (memory seed {cfg.memory_seed}), hopping regions: {cfg.hopping}; {len(test)} "
        f"held-out sequences × {cfg.sequence_length} steps (data seed {seed}); checkpoint "
        f"{args.checkpoint}"
    )
    print(
        f"LeWorld parameters {size:,}; memory-less MLP "
        f"{sum(p.numel() for p in baseline.parameters()):,} "
        f"({epochs} epochs, {baseline_seconds / 60:.1f} min)"
    )
    print()
    print("| predictor | MSE | × noise floor |")
    print("|---|---|---|")
    for name, values in rows.items():
        print(f"| {name} | {values.mean():.5f} | {values.mean() / floor.mean():.2f} |")
    print()
    system_mse = rows[system_name]
    print("Paired differences (system − other), mean and 95 % CI over held-out sequences:")
    print("| other | difference | 95 % CI |")
    print("|---|---|---|")
    for name, values in list(rows.items())[1:]:
        d = paired_difference(system_mse, values)
        print(f"| {name} | {d.difference:+.5f} | [{d.low:+.5f}, {d.high:+.5f}] |")
    print()
    if system.use_query:
        info = paired_difference(rows["LeWorld, no info request"], system_mse)
        print(
            f"Info request: MSE without − with = {info.difference:+.6f}, 95 % CI "
            f"[{info.low:+.6f}, {info.high:+.6f}] (n = {info.n}; positive: the request helps)"
        )
    else:
        print("Info request: not passed (no phase 3 ran, or it kept phase 2's model without it)")
    ratio = system_mse.mean() / floor.mean()
    a = paired_difference(system_mse, rows["(a) memory-less MLP, equal size"])
    c = paired_difference(system_mse, rows["(c) trained system, random reads"])
    print(
        f"Goal (within 1.5× the noise floor, clearly below (a) and (c)): ratio {ratio:.2f}; "
        f"below (a): {a.high < 0}; below (c): {c.high < 0}"
    )
    if args.still_control:
        still = MemoryWorld(replace(world.config, hopping=False), memory=world.memory)
        still_data = make_datasets(still, config, seed)
        # the same size as `system`
        still_system = LeWorldSystem(still.config, still.memory, config, seed=seed)
        control = fit(still, still_system, still_data)
        mse = sequence_mse(control, still_data.test)
        print(
            f"Control, still regions (hopping=False): memory-less MLP MSE {mse.mean():.5f} = "
            f"{mse.mean() / noise_floor(still_data.test).mean():.2f} × its noise floor"
        )
