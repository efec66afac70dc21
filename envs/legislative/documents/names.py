"""Country names in documents: matching to the country table and splitting free-text lists."""

from __future__ import annotations

import re
from collections.abc import Iterable

from assembly_gym.envs.legislative.countries import Country, CountryTable, default_country_table
from assembly_gym.envs.legislative.documents.text import fix_mojibake

__all__ = ["NameCollector", "parse_sponsor_note", "split_names"]


def _name_variants(name: str) -> Iterable[str]:
    """The name, its mojibake repair, and both without page-header tokens holding digits."""
    yield name
    fixed = fix_mojibake(name)
    if fixed != name:
        yield fixed
    # Country names hold no digits; text extracted from PDFs carries page headers such as
    # "23-41218 A/78/PV.50 Poland": dropping digit tokens recovers the name.
    stripped = " ".join(tok for tok in fixed.split() if not any(ch.isdigit() for ch in tok))
    if stripped and stripped != fixed.strip():
        yield stripped


def _find_country(name: str, table: CountryTable) -> Country | None:
    for candidate in _name_variants(name):
        country = table.find(candidate)
        if country is not None:
            return country
    return None


class NameCollector:
    """Collects canonical names and, in order of first appearance, the unmatched ones.

    Args:
        table: the country table names are matched against.
    """

    def __init__(self, table: CountryTable) -> None:
        self.table = table
        self.unmatched: list[str] = []

    def canonical(self, names: Iterable[str], *, dedupe: bool = True) -> tuple[str, ...]:
        """Canonical names of the matched ``names``, in order; the others go to ``unmatched``.

        Args:
            names: names as written in the source.
            dedupe: keep only the first occurrence of each country.

        Returns:
            The canonical names of the countries found.
        """
        result: list[str] = []
        for name in names:
            country = _find_country(name, self.table)
            if country is None:
                if name.strip() and name not in self.unmatched:
                    self.unmatched.append(name)
            elif not dedupe or country.name not in result:
                result.append(country.name)
        return tuple(result)


def _split_top_level(text: str) -> list[str]:
    """Split at commas and semicolons outside parentheses and brackets."""
    # Hand-written: a regex cannot track nesting depth and csv does not know brackets.
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        if char in ",;" and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _segment_and(piece: str, table: CountryTable) -> list[str]:
    """Split "A and B" where it joins two names, keeping "Bosnia and Herzegovina" whole.

    Chooses the segmentation at " and " that matches the most names in the table, then the
    one with the fewest segments (so an unknown "Foo and Bar" stays one reported name).
    """
    tokens = re.split(r"\s+and\s+", piece)
    if len(tokens) == 1:
        return [piece]
    n = len(tokens)
    # best[i] = (-matched, segments, split points) for tokens[:i]
    best: list[tuple[int, int, list[str]] | None] = [None] * (n + 1)
    best[0] = (0, 0, [])
    for end in range(1, n + 1):
        for start in range(end):
            previous = best[start]
            if previous is None:
                continue
            segment = " and ".join(tokens[start:end])
            matched = _find_country(segment, table) is not None
            candidate = (previous[0] - int(matched), previous[1] + 1, [*previous[2], segment])
            current = best[end]
            if current is None or candidate[:2] < current[:2]:
                best[end] = candidate
    result = best[n]
    assert result is not None
    return result[2]


def split_names(text: str, table: CountryTable) -> list[str]:
    """Names of a free-text list: "A, B (C of), D and E (A/78/481/Add.2)." -> A, B (C of), D, E.

    Args:
        text: the list as written.
        table: the country table used to tell "X and Y" from a name with "and" in it.

    Returns:
        The names as written (not yet canonical), in order.
    """
    text = re.sub(r"\s*\([^()]*/[^()]*\)", "", text)  # document references hold a slash
    text = re.sub(r"\s+", " ", text).strip().rstrip(".;,").strip()
    names: list[str] = []
    for piece in _split_top_level(text):
        piece = re.sub(r"^and\s+", "", piece.strip()).strip()
        if piece:
            names.extend(name.strip() for name in _segment_and(piece, table) if name.strip())
    return names


_SPONSOR_PREFIX = re.compile(r"^\s*additional\s+(?:co-?)?sponsors?\s*:\s*", re.IGNORECASE)


def parse_sponsor_note(
    text: str, table: CountryTable | None = None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split a MARC 515 note into the names of additional sponsors and the other notes.

    Handles the "Additional sponsors:" prefix, commas, a final " and ", document
    references in parentheses such as "(A/78/481/Add.2)", a trailing period and notes
    after " - " ("... and Zimbabwe. - The amendment was rejected by the Committee").
    Names with " and " in them ("Bosnia and Herzegovina") stay whole when the country
    table knows them.

    Args:
        text: the note, e.g. ``"Additional sponsors: Albania, ... and Zambia (A/78/481/Add.2)."``.
        table: the country table used to tell "X and Y" from a name with "and" in it;
            default :func:`~assembly_gym.envs.legislative.countries.default_country_table`.

    Returns:
        ``(names, notes)``: the sponsor names as written (not yet canonical) and the
        remaining sentences (e.g. ``"The amendment was rejected by the Committee."``).

    Example:
        >>> parse_sponsor_note("Additional sponsors: Bosnia and Herzegovina, Türkiye and "
        ...                    "Zambia (A/78/481/Add.2). - The amendment was adopted.")
        (('Bosnia and Herzegovina', 'Türkiye', 'Zambia'), ('The amendment was adopted.',))
    """
    table = table or default_country_table()
    text = fix_mojibake(re.sub(r"\s+", " ", text)).strip()
    names: list[str] = []
    notes: list[str] = []
    for part in re.split(r"\s+[-\u2013\u2014]\s+", text):
        part = part.strip()
        if not part:
            continue
        prefix = _SPONSOR_PREFIX.match(part)
        if prefix:
            names.extend(split_names(part[prefix.end() :], table))
        else:
            notes.append(part)
    return tuple(names), tuple(notes)
