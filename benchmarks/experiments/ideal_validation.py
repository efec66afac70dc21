"""Choosing the ideal points' dimensions and random walk on validation votes, never the test's.

``bench --suite masked`` hides a seeded 10% of the cast votes (its test, seed ``--seed``).
Here a second 10% of the *visible* votes (seed ``--seed`` + 1) is hidden as validation:
each setting of :data:`GRID` is fitted on the rest and scored on those votes (accuracy,
macro-F1, log-loss), and the lowest log-loss is the choice (the kind's ``DEFAULT_DIMS`` and
``DEFAULT_WALK``). The RollCall-v0 features are built once and shared by every fit.

Run: ``assembly-gym experiment ideal_validation [--data DIR]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from scipy.special import softmax

from assembly_gym.benchmarks.experiments import add_data_argument, real_votes
from assembly_gym.benchmarks.splits import MaskedSplit
from assembly_gym.core.metrics import classification_metrics
from assembly_gym.envs.legislative.data import ABSENT, RollCallData, load_unvotes
from assembly_gym.irl.ideal import DEFAULT_DIMS, DEFAULT_WALK, IdealPointModel
from assembly_gym.irl.rollcall import rollcall_decisions

__all__ = ["GRID", "add_arguments", "run", "validation_scores"]

GRID = ((1, 0.5), (2, 0.5), (3, 0.25), (3, 0.5), (3, 1.0))
"""The (dims, walk) settings compared."""
METRICS = ("accuracy", "macro_f1", "log_loss")


def validation_scores(
    fit_part: RollCallData, validation: RollCallData, grid: tuple[tuple[int, float], ...]
) -> pd.DataFrame:
    """Each setting fitted on ``fit_part``, scored on the votes cast in ``validation``; printed.

    Both hold the same roll calls and countries (a :class:`MaskedSplit`'s train and test).
    """
    decisions = rollcall_decisions(fit_part)
    country, column = np.nonzero(validation.votes != ABSENT)
    truth = validation.votes[country, column].astype(np.int64)
    rcid = validation.roll_calls["rcid"].to_numpy(np.int64)[column]
    rows = []
    for dims, walk in grid:
        began = time.perf_counter()
        model = IdealPointModel.fit(decisions, dims=dims, walk=walk)
        seconds = time.perf_counter() - began
        items, known = model.items_of(rcid)  # a roll call with every vote hidden: left out
        known &= np.isin(np.array(validation.country_names)[country], model.countries)
        names = np.array(validation.country_names)[country[known]]
        model_rows = np.array([model.country_index(name) for name in names])
        probs = softmax(model.item_logits(model_rows, items[known]), axis=1)
        scores = classification_metrics(truth[known], probs)
        rows.append({"dims": dims, "walk": walk, **{m: scores[m] for m in METRICS},
                     "votes": int(known.sum()), "iterations": model.info["iterations"],
                     "fit s": round(seconds, 1)})  # fmt: skip
        print(f"  dims {dims}, walk {walk:g}: log-loss {scores['log_loss']:.4f}, accuracy "
              f"{scores['accuracy']:.4f}, macro-F1 {scores['macro_f1']:.4f} ({seconds:.0f} s)",
              flush=True)  # fmt: skip
    return pd.DataFrame(rows)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The data."""
    add_data_argument(parser)


def run(args: argparse.Namespace) -> None:
    """Hide the test votes, cut validation votes from the visible ones, compare the grid."""
    data = load_unvotes(real_votes(args))
    test = MaskedSplit.of(data, args.seed)
    validation = MaskedSplit.of(test.train, args.seed + 1)
    print(f"Data {data.source}. Test (never read): {test.describe()}.")
    print(f"Validation: {validation.describe()}, cut from the visible votes.")
    table = validation_scores(validation.train, validation.test, GRID)
    print(table.to_markdown(index=False, floatfmt=("g", "g", ".4f", ".4f", ".4f", "g", "g", ".1f")))
    best = table.iloc[int(table["log_loss"].to_numpy().argmin())]
    default = "the default" if (best["dims"], best["walk"]) == (DEFAULT_DIMS, DEFAULT_WALK) else (
        f"the default is dims {DEFAULT_DIMS}, walk {DEFAULT_WALK:g}")  # fmt: skip
    print(f"Chosen by log-loss: dims {int(best['dims'])}, walk {best['walk']:g} ({default}).")
