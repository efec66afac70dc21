"""Ideal-point recovery on the synthetic assembly: planted drifting positions against fitted ones.

The synthetic assembly (60 countries, 20 sessions of 40 roll calls; ``--quick``: 20, 5, 20)
gives the countries, roll calls and who voted on what; its votes are replaced by votes drawn
from the ideal-point model itself (:func:`~assembly_gym.irl.spatial.vote_logits`): each
country's position at its first session ~ N(0, I), drifting by a random walk of step
``DEFAULT_WALK`` (0.5) per session, as the fit's prior has it; each roll call's a_j ~ N(0, 1),
b_j ~ N(0, 1.5² I), κ_j ~ N(−1, 0.5²); no country abstention level.
``fit_reward_model(kind="ideal")`` fits them in one and two dimensions.

The fitted positions (every country-session with votes) are rotated onto the planted ones by
orthogonal Procrustes, without scaling (the priors fix the scale). Printed per axis: the
Pearson correlation of recovered and planted positions, the coverage of the 95% intervals
x ± 1.96 se (rotated with the positions: the variance of axis k is Σ_i R_ik² se_i², exact in
1-D, the axes' covariance ignored in 2-D), and, as a diagnostic, the least-squares scale of
the planted on the rotated positions with the coverage after that scaling.

Run: ``assembly-gym experiment ideal_recovery [--quick] [--seed 0]``
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from typing import cast

import numpy as np
from scipy.linalg import orthogonal_procrustes
from scipy.special import softmax

from assembly_gym.envs.legislative.data import ABSENT, RollCallData
from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
from assembly_gym.irl.base import Z95
from assembly_gym.irl.ideal import DEFAULT_WALK, IdealPointModel
from assembly_gym.irl.rollcall import fit_reward_model
from assembly_gym.irl.spatial import vote_logits

__all__ = ["STEP", "add_arguments", "plant", "recovery", "run"]

STEP = DEFAULT_WALK
"""The planted random walk's step standard deviation per session: the fit's default walk, so
the planted drift is the one the fit's prior describes."""


def plant(
    data: RollCallData, dims: int, rng: np.random.Generator
) -> tuple[RollCallData, np.ndarray]:
    """Votes drawn from drifting positions where ``data`` has votes.

    Returns:
        ``data`` with the drawn votes (its ABSENT pattern kept) and the planted positions,
        (C, T, D) over ``data.sessions``.
    """
    (n_countries, n_roll_calls), n_sessions = data.votes.shape, len(data.sessions)
    steps = rng.normal(0.0, STEP, (n_countries, n_sessions - 1, dims))
    positions = np.cumsum(np.concatenate([rng.normal(size=(n_countries, 1, dims)), steps], 1), 1)
    a = rng.normal(size=n_roll_calls)
    b = rng.normal(0.0, 1.5, (n_roll_calls, dims))
    kappa = rng.normal(-1.0, 0.5, n_roll_calls)
    period = np.searchsorted(data.sessions, data.roll_calls["session"].to_numpy())
    eta = a + np.einsum("jd,cjd->cj", b, positions[:, period])  # (C, J)
    probs = softmax(vote_logits(eta.ravel(), np.tile(kappa, n_countries)), axis=1)
    drawn = (rng.random((len(probs), 1)) > probs.cumsum(axis=1)).sum(axis=1)
    votes = np.where(data.votes == ABSENT, ABSENT, drawn.reshape(n_countries, n_roll_calls))
    return replace(data, votes=votes.astype(np.int8)), positions


def recovery(model: IdealPointModel, planted: np.ndarray) -> dict[str, np.ndarray]:
    """Fitted against planted positions over every country-session with votes, per axis.

    Args:
        model: the fit; its countries and sessions are rows of ``planted``.
        planted: the planted positions, (C, T, D).

    Returns:
        ``r``, ``coverage`` (of the 95% intervals), ``scale`` (least squares, 1 for the
        priors' scale) and ``scaled_coverage``, each (D,); ``rotation``, (D, D).
    """
    truth = planted[model.voted]
    fitted, se = model.positions[model.voted], model.position_se[model.voted]
    rotation, _ = orthogonal_procrustes(fitted, truth)
    rotated, rotated_se = fitted @ rotation, np.sqrt(se**2 @ rotation**2)
    scale = (rotated * truth).sum(axis=0) / (rotated**2).sum(axis=0)

    def coverage(factor: np.ndarray) -> np.ndarray:
        return (np.abs(factor * rotated - truth) <= Z95 * factor * rotated_se).mean(axis=0)

    r = np.array([np.corrcoef(rotated[:, k], truth[:, k])[0, 1] for k in range(model.dims)])
    return {"r": r, "coverage": coverage(np.ones(model.dims)), "scale": scale,
            "scaled_coverage": coverage(scale), "rotation": rotation}  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--quick``: a small assembly (a few seconds)."""
    parser.add_argument("--quick", action="store_true",
                        help="20 countries, 5 sessions of 20 roll calls (smoke test)")  # fmt: skip


def run(args: argparse.Namespace) -> None:
    """Plant, fit in 1-D and 2-D, print correlation and coverage per axis."""
    sizes = (20, 5, 20) if args.quick else (60, 20, 40)
    config = SyntheticConfig(n_countries=sizes[0], n_sessions=sizes[1],
                             roll_calls_per_session=sizes[2], seed=args.seed)  # fmt: skip
    data = generate_assembly(config).data
    print(f"Synthetic assembly: {data.n_countries} countries, {len(data.sessions)} sessions, "
          f"{data.n_roll_calls} roll calls, {int((data.votes != ABSENT).sum())} votes, "
          f"seed {args.seed}; planted walk step {STEP}.")  # fmt: skip
    print(f"{'dims':>4} {'axis':>4} {'r':>6} {'cover':>6} {'nominal':>7} {'scale':>6} "
          f"{'cover×scale':>11} {'fit s':>6}")  # fmt: skip
    rng = np.random.default_rng(args.seed)
    for dims in (1, 2):
        votes, planted = plant(data, dims, rng)
        began = time.perf_counter()
        model = cast(IdealPointModel, fit_reward_model(votes, kind="ideal", dims=dims))
        seconds = time.perf_counter() - began
        rows = [data.country_index(c) for c in model.countries]
        found = recovery(model, planted[rows])
        for k in range(dims):
            print(f"{dims:>4} {f'x{k + 1}':>4} {found['r'][k]:>6.3f} {found['coverage'][k]:>6.3f} "
                  f"{0.95:>7.2f} {found['scale'][k]:>6.3f} {found['scaled_coverage'][k]:>11.3f} "
                  f"{seconds:>6.1f}", flush=True)  # fmt: skip
    print("\nr: correlation of recovered (after the Procrustes rotation) and planted positions;")
    print("cover: share of planted positions inside x ± 1.96 se (the se's rotated as variances);")
    print("scale: least-squares factor from recovered to planted (1: the priors' scale);")
    print("cover×scale: the coverage once positions and se's are multiplied by it (a diagnostic).")
    print("Goals: r ≥ 0.95; cover at its nominal 0.95.")
