"""What a political scientist reads from dynamic ideal points: fit, agreement, maps, shifts.

Functions over an :class:`~assembly_gym.irl.ideal.IdealPointModel` and its training votes
(``model.history``): the fit statistics W-NOMINATE reports, in-sample (APRE, GMP, the share
correctly classified; :func:`fit_statistics`), each chosen country's position once a decade
(:func:`positions_by_decade`), dyadic agreement and ideal-point distances, the roll calls
that best separate two countries, the predicted outcomes that change when one country moves
(:func:`shift_outcomes`), and three plots (positions over time with 95% bands, a map per
block of sessions, the agreement heatmap; matplotlib is imported when one is drawn).
docs/irl.md, "Ideal points", shows them.

Example:
    >>> from assembly_gym.envs.legislative.synthetic import SyntheticConfig, generate_assembly
    >>> from assembly_gym.irl.rollcall import fit_reward_model
    >>> data = generate_assembly(SyntheticConfig(n_countries=6, n_sessions=3)).data
    >>> model = fit_reward_model(data, kind="ideal", dims=1)
    >>> overall, by_roll_call = fit_statistics(model)
    >>> bool(overall["correct"] > 0.8), list(by_roll_call.columns)
    (True, ['rcid', 'session', 'n_votes', 'correct', 'apre', 'gmp'])
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import log_softmax, softmax

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data import ABSENT, ADOPTION, RollCallData, Vote
from assembly_gym.irl.ideal import IdealPointModel

__all__ = [
    "DEFAULT_COUNTRIES",
    "agreement",
    "distances",
    "fit_statistics",
    "pick_countries",
    "plot_agreement",
    "plot_maps",
    "plot_positions",
    "positions_by_decade",
    "separating_roll_calls",
    "session_years",
    "shift_outcomes",
]

DEFAULT_COUNTRIES = ("France", "United States", "India", "China", "Brazil")
"""The countries shown when none are named (those the model knows)."""
FIRST_DECADE = 1946
"""The year the first decade begins (the first session's): decades 1946–1955, 1956–1965, …"""


def _training_votes(
    model: IdealPointModel, data: RollCallData | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every recorded vote of the model's countries on its training roll calls.

    Args:
        model: the fitted model.
        data: the votes (default the model's history); roll calls the model was not fitted
            on and countries it does not know are left out.

    Returns:
        The model's country rows (N,), items (N,) (rows of ``model.rcids``) and votes (N,)
        (0 yes, 1 no, 2 abstain).

    Raises:
        DataError: no vote is left.
    """
    data = model.require_history() if data is None else data
    rcids = data.roll_calls["rcid"].to_numpy(np.int64)
    items, known_items = model.items_of(rcids)
    trained = np.flatnonzero(known_items)
    known = [(row, data.country_index(name)) for row, name in enumerate(model.countries)
             if name in data.country_names]  # fmt: skip
    rows, data_rows = np.array(known, dtype=np.int64).reshape(-1, 2).T
    votes = data.votes[data_rows][:, trained]
    k, r = np.nonzero(votes != ABSENT)
    if not len(k):
        raise DataError(data.source, "no vote of the model's countries on its training roll calls")
    return rows[k], items[trained[r]], votes[k, r].astype(np.int64)


def fit_statistics(
    model: IdealPointModel, data: RollCallData | None = None
) -> tuple[dict[str, float], pd.DataFrame]:
    """APRE, GMP and the share correctly classified, overall and per roll call, in-sample.

    A vote is classified as its most probable category; roll call j's minority is its votes
    minus those of its modal category. APRE = Σ_j (minority_j − errors_j) / Σ_j minority_j
    (NaN for a unanimous roll call), GMP = exp(mean log P(recorded vote)). Computed on the
    training votes, as W-NOMINATE reports them: they measure fit, not forecasts.

    Args:
        model: the fitted model.
        data: the votes to score (default its training history; only roll calls it was
            fitted on count).

    Returns:
        ``{"apre", "gmp", "correct", "n_votes", "n_roll_calls"}``, and one row per roll call:
        ``rcid``, ``session``, ``n_votes``, ``correct`` (a share), ``apre``, ``gmp``.

    Raises:
        DataError: no vote of the model's countries on its training roll calls.
    """
    rows, items, votes = _training_votes(model, data)
    log_p = log_softmax(model.item_logits(rows, items), axis=1)
    recorded = log_p[np.arange(len(votes)), votes]
    correct = log_p.argmax(axis=1) == votes
    used, item = np.unique(items, return_inverse=True)
    n = np.bincount(item)
    right = np.bincount(item, correct)
    counts = np.bincount(item * 3 + votes, minlength=3 * len(used)).reshape(-1, 3)
    minority = n - counts.max(axis=1)
    reduced = minority - (n - right)
    table = pd.DataFrame({
        "rcid": model.rcids[used], "session": model.item_session[used], "n_votes": n,
        "correct": right / n, "apre": reduced / np.where(minority > 0, minority, np.nan),
        "gmp": np.exp(np.bincount(item, recorded) / n),
    })  # fmt: skip
    overall = {
        "apre": float(reduced.sum() / minority.sum()) if minority.sum() else float("nan"),
        "gmp": float(np.exp(recorded.mean())), "correct": float(correct.mean()),
        "n_votes": len(votes), "n_roll_calls": len(used),
    }  # fmt: skip
    return overall, table


def session_years(model: IdealPointModel) -> np.ndarray:
    """The calendar year each fitted session began in (its first roll call's), (T,) int64."""
    roll_calls = model.require_history().roll_calls
    first = pd.to_datetime(roll_calls["date"]).dt.year.groupby(roll_calls["session"]).min()
    return first.reindex(model.sessions).to_numpy(np.int64)


def pick_countries(
    model: IdealPointModel, named: Sequence[str] = (), *, total: int = 0
) -> list[str]:
    """Canonical names of the countries to show.

    Args:
        model: the fitted model.
        named: the countries asked for (names, aliases or ISO codes); none: those of
            :data:`DEFAULT_COUNTRIES` the model knows, or if none, the five with most votes.
        total: then add the countries with the most votes until there are this many.

    Raises:
        DataError: a named country the model does not know.
    """
    chosen = list(dict.fromkeys(model.countries[model.country_index(name)] for name in named))
    rows, _, _ = _training_votes(model)
    ranked = [model.countries[row] for row in np.argsort(-np.bincount(rows), kind="stable")]
    if not named:
        chosen = [name for name in DEFAULT_COUNTRIES if name in model.countries] or ranked[:5]
    return chosen + [name for name in ranked if name not in chosen][: max(total - len(chosen), 0)]


def positions_by_decade(model: IdealPointModel, countries: Sequence[str]) -> pd.DataFrame:
    """The countries' positions at the first fitted session of each decade (1946, 1956, …).

    Returns:
        The rows of :meth:`~assembly_gym.irl.ideal.IdealPointModel.position_table` of those
        countries (in the given order) and sessions, with the session's ``year`` after
        ``session``.

    Raises:
        DataError: an unknown country.
    """
    names = [model.countries[model.country_index(name)] for name in countries]
    years = session_years(model)
    decade = (years - FIRST_DECADE) // 10
    starts = model.sessions[np.r_[True, decade[1:] != decade[:-1]]]
    table = model.position_table()
    table = table[table["session"].isin(starts) & table["country"].isin(names)].copy()
    table.insert(3, "year", table["session"].map(dict(zip(model.sessions, years, strict=True))))
    order = table["country"].map({name: i for i, name in enumerate(names)})
    return table.assign(order=order).sort_values(["order", "session"]).drop(columns="order")


def agreement(
    data: RollCallData, countries: Sequence[str], sessions: tuple[int, int] | None = None
) -> pd.DataFrame:
    """Dyadic agreement: the share of the roll calls both countries voted on, voted alike.

    Alike: the same yes, no or abstain. The plain agreement share: the field also uses
    Signorino and Ritter's S-score, which weighs disagreements by their distance; this does not.

    Returns:
        (K, K) named by the countries; NaN for a pair that shares no roll call.

    Raises:
        DataError: an unknown country, or no roll call in ``sessions``.
    """
    if sessions is not None:
        data = data.select_sessions(*sessions)
    data = data.select_countries(countries)
    votes = data.votes
    same = sum((votes == v).astype(np.float64) @ (votes == v).T.astype(np.float64) for v in Vote)
    cast = (votes != ABSENT).astype(np.float64)
    both = cast @ cast.T
    share = np.where(both > 0, same / np.maximum(both, 1), np.nan)
    return pd.DataFrame(share, index=list(data.country_names), columns=list(data.country_names))


def _in_sessions(model: IdealPointModel, sessions: tuple[int, int] | None) -> np.ndarray:
    """Which fitted sessions lie in ``sessions`` (None: all), (T,) bool.

    Raises:
        DataError: none does.
    """
    if sessions is None:
        return np.ones(len(model.sessions), dtype=bool)
    inside = (model.sessions >= sessions[0]) & (model.sessions <= sessions[1])
    if not inside.any():
        first, last = model.sessions[0], model.sessions[-1]
        raise DataError("ideal points", f"no fitted session in {sessions[0]}–{sessions[1]} "
                        f"(the model's: {first}–{last})", field="sessions")  # fmt: skip
    return inside


def _mean_positions(model: IdealPointModel, periods: np.ndarray) -> np.ndarray:
    """Each country's mean position over the chosen sessions it voted in, (C, D) (NaN: none)."""
    chosen = model.voted & periods
    total = np.where(chosen[..., None], model.positions, 0.0).sum(axis=1)
    count = chosen.sum(axis=1)[:, None]
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def distances(
    model: IdealPointModel, countries: Sequence[str], sessions: tuple[int, int] | None = None
) -> pd.DataFrame:
    """Euclidean distances between the countries' mean positions over ``sessions`` (None: all).

    Returns:
        (K, K) named by the countries; NaN for a country that voted in none of the sessions.

    Raises:
        DataError: an unknown country, or no fitted session in ``sessions``.
    """
    rows = [model.country_index(name) for name in countries]
    mean = _mean_positions(model, _in_sessions(model, sessions))[rows]
    names = [model.countries[row] for row in rows]
    table = np.linalg.norm(mean[:, None] - mean[None], axis=2)
    return pd.DataFrame(table, index=names, columns=names)


def _roll_calls(model: IdealPointModel, items: np.ndarray) -> pd.DataFrame:
    """``rcid``, ``session`` and ``short`` (description) of training roll calls (rows of rcids)."""
    roll_calls = model.require_history().roll_calls.set_index("rcid")
    rcids = model.rcids[items]
    short = roll_calls["short"].reindex(rcids).fillna("").astype(str).to_numpy()
    return pd.DataFrame({"rcid": rcids, "session": model.item_session[items], "short": short})


def _recorded(model: IdealPointModel, row: int, items: np.ndarray) -> np.ndarray:
    """A country's recorded votes on training roll calls, by name ("absent": none), (N,)."""
    history = model.require_history()
    columns = pd.Index(history.roll_calls["rcid"]).get_indexer(model.rcids[items])
    votes = history.votes[history.country_index(model.countries[row]), columns]
    names = np.array([*model.action_names, "absent"])
    return names[np.where(votes == ABSENT, len(model.action_names), votes)]


def separating_roll_calls(
    model: IdealPointModel, first: str, second: str, top: int = 10
) -> pd.DataFrame:
    """The training roll calls that best separate two countries.

    Of the roll calls of sessions both voted in whose cut lies between them (η of one > 0 >
    η of the other: one more likely yes than no, the other the reverse), the ``top`` with
    the largest |m_a − m_b|, m = P(yes) − P(no) of each country at the roll call's session.

    Returns:
        ``rcid``, ``session``, ``short``, ``separation`` (|m_a − m_b|), ``margin_a``,
        ``margin_b``, and the recorded ``vote_a``, ``vote_b`` ("absent": none), a being
        ``first``.

    Raises:
        DataError: an unknown country, or the same one twice.
    """
    a, b = model.country_index(first), model.country_index(second)
    if a == b:
        raise DataError("ideal points", f"A and B are both {model.countries[a]}: name two")
    periods = np.searchsorted(model.sessions, model.item_session)
    items = np.flatnonzero(model.voted[a, periods] & model.voted[b, periods])
    margins = []
    for row in (a, b):
        p = softmax(model.item_logits(np.full(len(items), row), items), axis=1)
        margins.append(p[:, Vote.YES] - p[:, Vote.NO])
    between = margins[0] * margins[1] < 0
    separation = np.abs(margins[0] - margins[1])
    best = np.flatnonzero(between)[np.argsort(-separation[between], kind="stable")][:top]
    table = _roll_calls(model, items[best])
    table["separation"] = separation[best]
    table["margin_a"], table["margin_b"] = margins[0][best], margins[1][best]
    table["vote_a"], table["vote_b"] = (_recorded(model, row, items[best]) for row in (a, b))
    return table


def _expected_outcome(
    model: IdealPointModel, rows: np.ndarray, items: np.ndarray, size: int
) -> np.ndarray:
    """Whether each roll call is adopted on the voters' expected yes and no votes, (size,)."""
    p = softmax(model.item_logits(rows, items), axis=1)
    yes, no = (np.bincount(items, p[:, k], size) for k in (Vote.YES, Vote.NO))
    return np.asarray(ADOPTION.passed(yes, no))


def shift_outcomes(
    model: IdealPointModel, country: str, delta: Sequence[float],
    sessions: tuple[int, int] | None = None,
) -> pd.DataFrame:  # fmt: skip
    """The training roll calls whose predicted outcome changes when one country moves.

    A roll call's predicted outcome is the General Assembly's rule on the expected votes of
    the countries that voted on it: adopted iff Σ P(yes) > Σ P(no). The country moves by
    ``delta`` in every session (:meth:`~assembly_gym.irl.ideal.IdealPointModel.shifted`).

    Args:
        model: the fitted model.
        country: the country that moves.
        delta: its move, one number per dimension (fewer: the others 0).
        sessions: only the roll calls of sessions A to B (None: all).

    Returns:
        ``rcid``, ``session``, ``short``, the outcome ``before`` and ``after`` ("adopted",
        "rejected"), and the country's most likely vote ``vote_before`` and ``vote_after``.

    Raises:
        DataError: an unknown country, or no fitted session in ``sessions``.
        ValueError: more numbers in ``delta`` than dimensions.
    """
    row = model.country_index(country)
    move = np.asarray(delta, dtype=np.float64).ravel()
    if len(move) > model.dims:
        raise ValueError(f"delta has {len(move)} numbers; the model has {model.dims} dimensions")
    moved = model.shifted(model.countries[row], np.pad(move, (0, model.dims - len(move))))
    rows, items, _ = _training_votes(model)
    inside = _in_sessions(model, sessions)[np.searchsorted(model.sessions, model.item_session)]
    keep = inside[items]
    rows, items, size = rows[keep], items[keep], len(model.rcids)
    before, after = (_expected_outcome(m, rows, items, size) for m in (model, moved))
    changed = np.flatnonzero(inside & (before != after) & (np.bincount(items, minlength=size) > 0))
    table = _roll_calls(model, changed)
    outcome, names = np.array(["rejected", "adopted"]), np.array(model.action_names)
    table["before"], table["after"] = (outcome[v[changed].astype(int)] for v in (before, after))
    for when, fit in (("before", model), ("after", moved)):
        own = fit.item_logits(np.full(len(changed), row), changed).argmax(axis=1)
        table[f"vote_{when}"] = names[own]
    return table


# ---------------------------------------------------------------------- plots


def _labels(model: IdealPointModel) -> list[str]:
    """Each country's ISO code, its name where it has none."""
    codes = model.position_table().drop_duplicates("country").set_index("country")["country_code"]
    return [str(codes.get(name, "")) or name for name in model.countries]


def plot_positions(model: IdealPointModel, countries: Sequence[str], path: str | Path) -> Path:
    """The countries' positions over the sessions with 95% bands, written as a PNG.

    One panel per axis x1 (and x2 when D ≥ 2), one line per country, by the year each
    session began.

    Raises:
        DataError: an unknown country.
    """
    from matplotlib.figure import Figure

    from assembly_gym.irl.analysis import save_png

    names = [model.countries[model.country_index(name)] for name in countries]
    table = model.position_table()
    year = dict(zip(model.sessions, session_years(model), strict=True))
    axes_shown = min(model.dims, 2)
    figure = Figure(figsize=(7.5, 3.4 * axes_shown), layout="constrained")
    axes = np.atleast_1d(figure.subplots(axes_shown, 1, sharex=True))
    for k, axis in enumerate(axes, 1):
        for name in names:
            rows = table[table["country"] == name]
            x = rows["session"].map(year)
            (line,) = axis.plot(x, rows[f"x{k}"], label=name)
            axis.fill_between(x, rows[f"x{k}_lo"], rows[f"x{k}_hi"], color=line.get_color(),
                              alpha=0.2, linewidth=0)  # fmt: skip
        axis.axhline(0.0, color="grey", linewidth=0.6)
        axis.set_ylabel(f"x{k}")
    axes[-1].set_xlabel("year the session began")
    axes[0].legend(fontsize=8, loc="best")
    figure.suptitle(f"Ideal points by session, 95% intervals ({model.reference} on the positive "
                    "side of every axis)", fontsize=10)  # fmt: skip
    return save_png(figure, path, dpi=110)


def plot_maps(model: IdealPointModel, path: str | Path, block: int = 10) -> Path:
    """A map of every country's mean position per block of ``block`` sessions, as a PNG.

    D ≥ 2: one x1–x2 panel per block, each country labelled by its ISO code (its name
    without one); D = 1: one row per block on the x1 axis.
    """
    from matplotlib.figure import Figure

    from assembly_gym.irl.analysis import save_png

    years = session_years(model)
    group = (model.sessions - model.sessions[0]) // block
    blocks = [group == g for g in np.unique(group)]
    titles = [f"sessions {model.sessions[b][0]}–{model.sessions[b][-1]} "
              f"({years[b][0]}–{years[b][-1]})" for b in blocks]  # fmt: skip
    means = [_mean_positions(model, b) for b in blocks]
    labels = _labels(model)
    if model.dims == 1:
        figure = Figure(figsize=(9, 0.9 * len(blocks) + 1.2), layout="constrained")
        axis = figure.subplots()
        for g, mean in enumerate(means):
            for label, x in zip(labels, mean[:, 0], strict=True):
                if not np.isnan(x):
                    axis.plot(x, g, "o", color="tab:blue", markersize=3)
                    axis.annotate(label, (x, g), xytext=(0, 4), textcoords="offset points",
                                  rotation=90, fontsize=6, ha="center")  # fmt: skip
        axis.set_yticks(range(len(blocks)), titles, fontsize=8)
        axis.invert_yaxis()
        axis.set_xlabel("x1")
    else:
        columns = min(3, len(blocks))
        shape = (-(-len(blocks) // columns), columns)
        figure = Figure(figsize=(4.2 * shape[1], 4.0 * shape[0]), layout="constrained")
        axes = np.atleast_1d(figure.subplots(*shape, sharex=True, sharey=True)).ravel()
        for axis, mean, title in zip(axes, means, titles, strict=False):
            shown = ~np.isnan(mean[:, 0])
            axis.scatter(mean[shown, 0], mean[shown, 1], s=6, color="tab:blue")
            for label, (x1, x2) in zip(np.array(labels)[shown], mean[shown, :2], strict=True):
                axis.annotate(label, (x1, x2), fontsize=6, ha="center", va="bottom")
            axis.set_title(title, fontsize=9)
            axis.set_xlabel("x1")
            axis.set_ylabel("x2")
        for axis in axes[len(blocks) :]:
            axis.set_visible(False)
    figure.suptitle(f"Mean ideal points per {block} sessions", fontsize=10)
    return save_png(figure, path, dpi=110)


def plot_agreement(table: pd.DataFrame, path: str | Path) -> Path:
    """A heatmap of :func:`agreement`'s table (or any square table in [0, 1]), as a PNG."""
    from matplotlib.figure import Figure

    from assembly_gym.irl.analysis import save_png

    size = 0.22 * len(table) + 2.0
    figure = Figure(figsize=(size + 1.2, size), layout="constrained")
    axis = figure.subplots()
    image = axis.imshow(table.to_numpy(np.float64), vmin=0.0, vmax=1.0, cmap="viridis",
                        interpolation="nearest")  # fmt: skip
    axis.set_xticks(range(len(table)), table.columns, rotation=90, fontsize=7)
    axis.set_yticks(range(len(table)), table.index, fontsize=7)
    figure.colorbar(image, ax=axis, label="share of shared roll calls voted alike", shrink=0.8)
    axis.set_title("Dyadic agreement", fontsize=10)
    return save_png(figure, path, dpi=110)
