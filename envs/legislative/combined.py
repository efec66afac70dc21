"""Several roll-call sources as one table, each roll call once.

A roll call may lie in two sources: the 1946–2015 votes and a newer UN Digital Library CSV
both hold session 69's resolutions, say: the same :func:`overlap_keys` (case and spacing
aside), kept from the first source given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from assembly_gym.core.errors import DataError
from assembly_gym.envs.legislative.data.schema import sort_roll_calls

__all__ = ["CombinedRollCalls", "combine_roll_calls", "overlap_keys"]


@dataclass(frozen=True)
class CombinedRollCalls:
    """Roll calls of several sources in one table.

    Attributes:
        roll_calls: one row per roll call with
            :data:`~assembly_gym.envs.legislative.data.schema.ROLL_CALL_COLUMNS`, in time order,
            index 0..n_roll_calls-1.
        sources: the sources' names, in the order given.
        kept: roll calls taken from each source, (n_sources,).
        overlaps: roll calls of each source left out because an earlier source holds them,
            (n_sources,); 0 for the first.
    """

    roll_calls: pd.DataFrame
    sources: tuple[str, ...]
    kept: tuple[int, ...]
    overlaps: tuple[int, ...]


def _normalised(values: pd.Series) -> pd.Series:
    """Text upper-cased with runs of spaces as one space, stripped; missing as ""."""
    text = values.fillna("").astype(str)
    return text.str.upper().str.replace(r"\s+", " ", regex=True).str.strip()


def overlap_keys(roll_calls: pd.DataFrame) -> pd.Series:
    """What names a roll call across sources: session and symbol, else date and title.

    Args:
        roll_calls: attributes with ``session``, ``date``, ``symbol`` and ``descr`` (the
            title), (R rows).

    Returns:
        One key per roll call, (R,): ``"S|SYMBOL"``, or ``"YYYY-MM-DD|TITLE"`` where the
        symbol is blank; "" where both are blank (never an overlap).
    """
    symbol = _normalised(roll_calls["symbol"]).str.replace(" ", "", regex=False)
    title = _normalised(roll_calls["descr"])
    day = pd.to_datetime(roll_calls["date"]).dt.strftime("%Y-%m-%d")
    by_symbol = roll_calls["session"].astype(str) + "|" + symbol
    by_title = (day + "|" + title).where(title != "", "")
    return by_symbol.where(symbol != "", by_title)


def combine_roll_calls(
    tables: Sequence[pd.DataFrame],
    sources: Sequence[str],
    *,
    first: int | None = None,
    last: int | None = None,
) -> CombinedRollCalls:
    """One roll-call table from several, overlaps kept from the first source that has them.

    Roll calls repeated within one source (votes on paragraphs of one resolution) all stay;
    a roll call of a later source is left out when an earlier one holds its
    :func:`overlap_keys` key.

    Args:
        tables: each source's roll calls (the layout of
            :func:`~assembly_gym.envs.legislative.sources.roll_call_attributes`).
        sources: their names, for messages (paths), as many as ``tables``.
        first: keep sessions from this one on (inclusive; None: unbounded).
        last: keep sessions up to this one (inclusive; None: unbounded).

    Raises:
        DataError: a source without roll calls in ``first..last`` (naming it and its
            sessions), or two different roll calls with one ``rcid`` (naming both sources).
    """
    if len(tables) != len(sources) or not tables:
        raise ValueError(f"give one name per table, got {len(tables)} tables, {len(sources)} names")
    seen: set[str] = set()
    owner: dict[int, str] = {}
    parts, kept, overlaps = [], [], []
    for table, source in zip(tables, sources, strict=True):
        session = table["session"].to_numpy()
        inside = np.ones(len(table), dtype=bool)
        if first is not None:
            inside &= session >= first
        if last is not None:
            inside &= session <= last
        if not inside.any():
            held = f"sessions {session.min()}–{session.max()}" if len(table) else "no roll calls"
            raise DataError(source, f"no roll calls in sessions {_span(first, last)} (it holds "
                            f"{held})", field="session")  # fmt: skip
        table = table[inside]
        keys = overlap_keys(table)
        known = keys.isin(seen).to_numpy() & (keys != "").to_numpy()
        part = table[~known]
        for rcid in part["rcid"]:
            if owner.setdefault(int(rcid), source) != source:
                raise DataError(source, f"roll-call id {rcid} names another roll call in "
                                f"{owner[int(rcid)]}: ids must differ across sources",
                                field="rcid")  # fmt: skip
        seen.update(keys[keys != ""])
        parts.append(part)
        kept.append(len(part))
        overlaps.append(int(known.sum()))
    return CombinedRollCalls(
        roll_calls=sort_roll_calls(pd.concat(parts, ignore_index=True), sources[0]),
        sources=tuple(sources),
        kept=tuple(kept),
        overlaps=tuple(overlaps),
    )


def _span(first: int | None, last: int | None) -> str:
    """``"61–69"``, ``"61–"`` or ``"–60"``."""
    return f"{'' if first is None else first}–{'' if last is None else last}"
