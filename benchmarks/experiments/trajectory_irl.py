"""Multi-step IRL on real resolution trajectories, fold by fold, against uniform and frequencies.

The trajectory folder's resolutions (default: the real 2023 UN documents) are dealt into
``--folds`` folds (``record_folds``: seeded, the resolutions with recorded votes spread
evenly). In each fold the prior's two precisions (``Prior.draft`` over :data:`DRAFT_GRID`,
then ``Prior.votes`` over :data:`VOTE_GRID`) are chosen on validation resolutions cut from
the training ones, never the test fold: one of four inner folds (the first that holds votes
and leaves some to fit the dynamics on), each precision by the mean log-likelihood of the
validation decisions it governs, drafts or votes (no votes there: the largest, as nothing
checks that votes transfer). The fit on every training resolution then scores each recorded
test decision: the mean log-likelihood per decision (nats; all decisions, then votes alone)
under the fit, uniform choice among the valid actions and the training decisions'
frequencies, and the paired difference IRL − uniform with a 95% interval over decisions.
Printed beside: the weights' spread across countries (the shared term apart), and for the
test resolutions with votes how unlike the training ones with votes they are: the share of
countries whose vote differs from the nearest one's, against the share that would differ if
the two were unrelated (each vote drawn from its resolution's frequencies). A resolution
unlike every one in training cannot be learned from them.

Run: ``assembly-gym experiment trajectory_irl [--data DIR] [--folds 5] [--seed 0]``
"""

from __future__ import annotations

import argparse
import functools
import time
from pathlib import Path

import numpy as np
import pandas as pd

from assembly_gym.benchmarks.commands.arguments import Number
from assembly_gym.benchmarks.splits import record_folds
from assembly_gym.core.errors import AssemblyGymError
from assembly_gym.core.paths import documents_dir, real_data_missing
from assembly_gym.envs.legislative.deliberation import resolution_records
from assembly_gym.envs.legislative.documents.loading import load_trajectories
from assembly_gym.envs.legislative.resolutions import (
    NOT_RECORDED,
    ResolutionRecords,
    records_from_trajectories,
)
from assembly_gym.envs.legislative.spaces import Action
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.deliberation import ACTING, DEFAULT_PRIOR, HeldOut, Prior
from assembly_gym.irl.explanation import Z95

__all__ = ["DRAFT_GRID", "VOTE_GRID", "add_arguments", "choose_prior", "run"]

DRAFT_GRID = (3.0, 10.0, 30.0)
"""The precisions of COSPONSOR's weights tried."""
VOTE_GRID = (10.0, 100.0, 1000.0)
"""The precisions of the vote actions' weights tried."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The data and the folds."""
    parser.add_argument(
        "--data", type=Path, default=None, metavar="DIR",
        help="a folder of trajectory files (default: un_documents of $ASSEMBLY_GYM_DATA or "
        "../shared/data)",
    )  # fmt: skip
    parser.add_argument("--synthetic", action="store_true",
                        help="a small synthetic assembly's resolutions instead (8 countries, "
                        "2 sessions, every stage recorded)")  # fmt: skip
    parser.add_argument("--folds", type=Number(int, low=2), default=5, help="default 5")


def _records(args: argparse.Namespace) -> ResolutionRecords:
    if args.synthetic:
        config = SyntheticConfig(n_countries=8, n_sessions=2, seed=args.seed)
        return resolution_records(generate_assembly(config))
    folder = args.data if args.data is not None else documents_dir()
    if folder is None:
        raise AssemblyGymError(
            real_data_missing("un_documents", "A_RES_78_220.genealogy.json") + ", or --data DIR"
        )
    return records_from_trajectories(load_trajectories(folder))


def _votes(records: ResolutionRecords) -> np.ndarray:
    """Each country's vote on each resolution (C, R): the plenary's, else the committee's."""
    return np.where(records.plenary != NOT_RECORDED, records.plenary, records.committee)


def choose_prior(records: ResolutionRecords, train: np.ndarray, seed: int) -> Prior:
    """The precisions best on validation resolutions cut from ``train`` (indices), printed."""
    voted = (_votes(records) != NOT_RECORDED).any(axis=0)
    inner = [train[f] for f in record_folds(records.select(train), 4, seed)]
    usable = [f for f in inner if voted[np.setdiff1d(train, f)].any()]  # the dynamics need votes
    validation = next((f for f in usable if voted[f].any()), usable[0])
    held_out = HeldOut.split(records, np.setdiff1d(train, validation), validation)

    @functools.cache
    def score(prior: Prior, votes: bool) -> float:
        scores = held_out.scores(prior)[0]
        part = scores[(scores["stage"] > 0) == votes]
        return float(part["irl"].mean()) if len(part) else float("nan")

    draft = max(DRAFT_GRID, key=lambda d: score(Prior(d, DEFAULT_PRIOR.votes), False))
    votes = max(VOTE_GRID)  # no validation votes: the fit cannot check that votes transfer
    if voted[validation].any():
        votes = max(VOTE_GRID, key=lambda v: score(Prior(draft, v), True))
    drafts = [score(Prior(d, DEFAULT_PRIOR.votes), False) for d in DRAFT_GRID]
    tried = ", ".join(f"{d:g}: {value:.3f}" for d, value in zip(DRAFT_GRID, drafts, strict=True))
    line = f"  validation ({len(validation)} resolutions): drafts {tried}"
    if voted[validation].any():
        tried = ", ".join(f"{v:g}: {score(Prior(draft, v), True):.3f}" for v in VOTE_GRID)
        line += f"; votes {tried}"
    print(line, flush=True)
    return Prior(draft, votes)


def _scored(scores: pd.DataFrame) -> dict[str, object]:
    """Decisions, mean log-likelihoods, and IRL − uniform paired by decision with its interval."""
    means = {c: scores[c].mean() if len(scores) else np.nan
             for c in ("irl", "uniform", "frequencies")}  # fmt: skip
    difference = scores["irl"] - scores["uniform"]
    half = Z95 * difference.std(ddof=1) / np.sqrt(len(difference)) if len(scores) > 1 else np.nan
    return {"decisions": len(scores), "IRL": means["irl"], "uniform": means["uniform"],
            "frequencies": means["frequencies"], "IRL − uniform": difference.mean(),
            "low": difference.mean() - half, "high": difference.mean() + half}  # fmt: skip


def _spread(theta: np.ndarray, shared: np.ndarray) -> dict[str, object]:
    """The shared term and the countries' spread around it, for a few weights and overall."""
    sd = theta.std(axis=0)
    out: dict[str, object] = {"largest |weight|": np.abs(theta).max()}
    for action, column in ((Action.COSPONSOR, 0), (Action.YES, 0), (Action.YES, 7)):
        name = f"{action.name.lower()}:{('bias', 'own_cosponsor')[column // 7]}"
        out[name] = f"{shared[action, column]:+.2f} ± {sd[action, column]:.2f}"
    out["sd across countries (mean)"] = sd[ACTING].mean()
    return out


def _unlike(records: ResolutionRecords, train: np.ndarray, test: np.ndarray) -> dict | None:
    """The test resolution with votes most unlike its nearest training one with votes.

    None without a test resolution with votes; ``unlike``: how many are unlike every
    training one with votes (their votes differ at least as often as if unrelated).
    """
    votes = _votes(records)
    recorded = votes != NOT_RECORDED
    symbols = records.resolutions["symbol"].to_numpy()
    rows = []
    for j in test[recorded[:, test].any(axis=0)]:
        nearest = None
        for i in train[recorded[:, train].any(axis=0)]:
            both = recorded[:, i] & recorded[:, j]
            if not both.any():
                continue
            differ = float((votes[both, i] != votes[both, j]).mean())
            shares = [np.bincount(votes[both, k] + 1, minlength=4) / both.sum() for k in (i, j)]
            unrelated = 1.0 - float(shares[0] @ shares[1])
            if nearest is None or differ < nearest["votes differ"]:
                nearest = {"test resolution": symbols[j], "nearest voted in training": symbols[i],
                           "countries": int(both.sum()), "votes differ": differ,
                           "if unrelated": unrelated}  # fmt: skip
        rows.append(nearest or {"test resolution": symbols[j], "nearest voted in training":
                                "none", "votes differ": 1.0, "if unrelated": 0.0})  # fmt: skip
    if not rows:
        return None
    gaps = [row["votes differ"] - row["if unrelated"] for row in rows]
    return {"voted test resolutions": len(rows), "unlike": int((np.array(gaps) >= 0).sum()),
            **rows[int(np.argmax(gaps))]}  # fmt: skip


def run(args: argparse.Namespace) -> None:
    """Choose the prior on validation, fit and score each fold; print the three tables."""
    records = _records(args)
    began = time.perf_counter()
    folds = record_folds(records, args.folds, args.seed)
    print(f"Data {records.source}: {records.n_resolutions} resolutions, "
          f"{records.n_countries} countries. {args.folds} folds by resolution (seed {args.seed}); "
          f"grids: drafts {DRAFT_GRID}, votes {VOTE_GRID}.")  # fmt: skip
    scored, weights, unlike = [], [], []
    for k, test in enumerate(folds, 1):
        train = np.setdiff1d(np.arange(records.n_resolutions), test)
        print(f"Fold {k}: {len(train)} training, {len(test)} test resolutions", flush=True)
        prior = choose_prior(records, train, args.seed)
        scores, fit = HeldOut.split(records, train, test).scores(prior)
        votes = scores[scores["stage"] > 0]
        for name, part in (("all", scores), ("votes", votes)):
            scored.append({"fold": k, "kind": name, "prior (draft, votes)":
                           f"{prior.draft:g}, {prior.votes:g}", **_scored(part)})  # fmt: skip
        weights.append({"fold": k, **_spread(fit.theta, fit.shared)})
        found = _unlike(records, train, test)
        unlike += [] if found is None else [{"fold": k, **found}]
    table = pd.DataFrame(scored)
    print("\nHeld-out mean log-likelihood per recorded decision (nats): the fit, uniform choice "
          "among the valid actions, the training decisions' frequencies; IRL − uniform paired "
          "by decision, its 95% interval (low, high)")  # fmt: skip
    print(table.to_markdown(index=False, floatfmt=".3f"))
    print("\nWeights: the shared term ± the sd across countries (of their total weights), and "
          "the mean sd over every fitted weight")  # fmt: skip
    print(pd.DataFrame(weights).to_markdown(index=False, floatfmt=".3f"))
    if unlike:
        print("\nTest resolutions with votes: how many are unlike every training resolution "
              "with votes, and the most unlike against its nearest (countries voting on both; "
              "'if unrelated': the share expected to differ if each vote were drawn from its "
              "resolution's frequencies)")  # fmt: skip
        print(pd.DataFrame(unlike).to_markdown(index=False, floatfmt=".3f"))
    _verdict(table, pd.DataFrame(unlike))
    print(f"({time.perf_counter() - began:.0f} s)")


def _verdict(table: pd.DataFrame, unlike: pd.DataFrame) -> None:
    """Per kind of decision, the folds where IRL beats uniform (its interval above 0).

    The others say why they cannot be learned when a test resolution is unlike every
    training one.
    """
    for kind in ("all", "votes"):
        rows = table[(table["kind"] == kind) & (table["decisions"] > 0)]
        beaten, name = int((rows["low"] > 0).sum()), "vote" if kind == "votes" else kind
        line = (f"{name} decisions: IRL beats uniform (95% interval above 0) on {beaten} of "
                f"{len(rows)} folds with such decisions")  # fmt: skip
        for fold in rows.loc[~(rows["low"] > 0), "fold"]:
            mine = unlike[unlike["fold"] == fold] if len(unlike) else unlike
            why = [f"{r['test resolution']} is unlike every training resolution with votes (votes "
                   f"differ for {r['votes differ']:.0%} of countries from the nearest's, "
                   f"{r['if unrelated']:.0%} if unrelated)" for _, r in mine.iterrows()
                   if r["unlike"]]  # fmt: skip
            line += f"; fold {fold} cannot be learned: " if why else f"; fold {fold}: "
            line += "; ".join(why) or "no test resolution unlike training"
        print(line)
