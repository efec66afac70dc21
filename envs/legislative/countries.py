"""One country-name table that maps names and codes across every data source.

The canonical name of a country is its name in the Voeten/``unvotes`` roll-call data
("United States", "Côte d’Ivoire"); UN documents use official names ("United States of
America", "Türkiye", "Netherlands (Kingdom of the)") and the UN Digital Library uses
ISO-3 codes. Historical names resolve to the record the roll-call data uses: "Soviet Union"
and "Burma" to the renamed states' records, "East Germany" and "Czechoslovakia" to their own.
:meth:`CountryTable.match` maps any of them to the canonical name and reports what it could
not match, so nothing is dropped silently; unknown names get "did you mean" hints that count
aliases (:meth:`CountryTable.did_you_mean`).

Example:
    >>> table = default_country_table()
    >>> table.canonical("Netherlands (Kingdom of the)")
    'Netherlands'
    >>> table.match(["Türkiye", "Atlantis"]).unmatched
    ('Atlantis',)
"""

from __future__ import annotations

import csv
import difflib
import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from assembly_gym.core.errors import DataError

__all__ = ["Country", "CountryTable", "NameMatch", "default_country_table", "name_key"]

_TABLE_PATH = Path(__file__).with_name("countries.csv")


@dataclass(frozen=True)
class Country:
    """A country: canonical name, ISO 3166 alpha-2 and alpha-3 codes ("" when none exists)."""

    name: str
    iso2: str = ""
    iso3: str = ""


@dataclass(frozen=True)
class NameMatch:
    """Result of matching a list of names: canonical names and the names left unmatched."""

    canonical: dict[str, str] = field(default_factory=dict)
    unmatched: tuple[str, ...] = ()

    def report(self) -> str:
        """One line per unmatched name, or a line saying everything matched."""
        if not self.unmatched:
            return f"all {len(self.canonical)} names matched"
        return f"{len(self.unmatched)} names not matched: " + "; ".join(self.unmatched)


def name_key(name: str) -> str:
    """Normalise a country name for lookup: accents, case, '&', 'St.', apostrophes, spaces."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.casefold().replace("’", "'").replace("‘", "'").replace("`", "'")
    text = text.replace("&", " and ")
    text = re.sub(r"\bst\b\.?\s*", "saint ", text)
    text = re.sub(r"[^a-z0-9'()]+", " ", text)
    text = re.sub(r"^the\s+", "", text.strip())
    return re.sub(r"\s+", " ", text).strip()


class CountryTable:
    """Maps names, aliases and ISO codes to canonical :class:`Country` records.

    Raises:
        DataError: when a country is listed twice or a name, alias or code would stand for
            two different countries.
    """

    def __init__(self, countries: Iterable[tuple[Country, Iterable[str]]]) -> None:
        self._by_name: dict[str, Country] = {}
        self._spellings: dict[str, tuple[str, ...]] = {}  # canonical name -> name and aliases
        self._lookup: dict[str, Country] = {}
        for country, aliases in countries:
            if country.name in self._by_name:
                raise DataError("country table", f"duplicate country {country.name!r}")
            self._by_name[country.name] = country
            self._spellings[country.name] = (country.name, *aliases)
            keys = [name_key(alias) for alias in self._spellings[country.name]]
            keys += [code.casefold() for code in (country.iso2, country.iso3) if code]
            for key in filter(None, keys):  # a name of only non-Latin letters has no key
                other = self._lookup.setdefault(key, country)
                if other != country:
                    raise DataError(
                        "country table",
                        f"{key!r} would name both {other.name!r} and {country.name!r}",
                        field="aliases",
                    )

    @classmethod
    def from_csv(cls, path: str | Path) -> CountryTable:
        """Read a table with columns ``name, iso2, iso3, aliases`` (aliases ';'-separated)."""
        try:
            with open(path, encoding="utf-8", newline="") as handle:
                rows = list(csv.DictReader(handle))
        except (OSError, UnicodeDecodeError, csv.Error) as error:
            raise DataError(path, f"cannot read the country table ({error})") from error
        entries = []
        for line, row in enumerate(rows, start=2):
            for column in ("name", "iso2", "iso3", "aliases"):
                if row.get(column) is None:
                    raise DataError(path, "missing field", row=line, field=column)
            if not row["name"].strip():
                raise DataError(path, "empty country name", row=line, field="name")
            aliases = [a.strip() for a in row["aliases"].split(";") if a.strip()]
            country = Country(row["name"].strip(), row["iso2"].strip(), row["iso3"].strip())
            entries.append((country, aliases))
        try:
            return cls(entries)
        except DataError as error:
            raise DataError(path, error.problem, field=error.field) from error

    def __len__(self) -> int:
        return len(self._by_name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    @property
    def names(self) -> tuple[str, ...]:
        """All canonical names, in table order."""
        return tuple(self._by_name)

    def find(self, name_or_code: str) -> Country | None:
        """The country for a name, alias or ISO code, or None when nothing matches."""
        if not isinstance(name_or_code, str) or not name_or_code.strip():
            return None
        text = name_or_code.strip()
        key = name_key(text)
        return (self._lookup.get(key) if key else None) or self._lookup.get(text.casefold())

    def get(self, name_or_code: str) -> Country:
        """Like :meth:`find` but raises :class:`DataError` with close matches when unknown."""
        country = self.find(name_or_code)
        if country is None:
            hint = self.did_you_mean(str(name_or_code))
            raise DataError(
                "country table", f"unknown country {name_or_code!r}{hint}", field="country"
            )
        return country

    def did_you_mean(self, name: str, among: Iterable[str] | None = None) -> str:
        """A hint naming up to three countries whose name or alias is close to ``name``.

        Aliases and historical names count, shown with the record they stand for: "Sovjet
        Union" gives ``"; did you mean 'Soviet Union' (Russia)?"``.

        Args:
            name: a name that matched nothing.
            among: the names to suggest (say, the countries of one data set); a name the
                table knows brings its aliases, one it does not is offered as written.
                None: every country of the table.

        Returns:
            ``"; did you mean ...?"``, or "" when nothing is close.
        """
        candidates: dict[str, tuple[str, str]] = {}  # key -> (spelling, name to suggest)
        for record in self.names if among is None else among:
            country = self.find(record)
            for spelling in self._spellings[country.name] if country else (record,):
                candidates.setdefault(name_key(spelling), (spelling, record))
        candidates.pop("", None)
        close = difflib.get_close_matches(name_key(name), list(candidates), n=12, cutoff=0.6)
        shown: dict[str, str] = {}  # one suggestion per record, the closest spelling
        for key in close:
            spelling, record = candidates[key]
            same = key == name_key(record)
            shown.setdefault(record, repr(record) if same else f"{spelling!r} ({record})")
        suggestions = list(shown.values())[:3]
        return f"; did you mean {', '.join(suggestions)}?" if suggestions else ""

    def canonical(self, name_or_code: str) -> str:
        """The canonical name of a country; raises :class:`DataError` when unknown."""
        return self.get(name_or_code).name

    def match(self, names: Iterable[str]) -> NameMatch:
        """Map each name to its canonical name; unmatched names are listed, never dropped."""
        canonical: dict[str, str] = {}
        unmatched: list[str] = []
        for name in names:
            country = self.find(name)
            if country is None:
                if name not in unmatched:
                    unmatched.append(name)
            else:
                canonical[name] = country.name
        return NameMatch(canonical, tuple(unmatched))


@functools.cache
def default_country_table() -> CountryTable:
    """The table shipped with the package (``envs/legislative/countries.csv``)."""
    return CountryTable.from_csv(_TABLE_PATH)
