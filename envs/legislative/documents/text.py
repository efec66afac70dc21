"""Repair and parsing of document text: mojibake, dates, symbols, committees and titles."""

from __future__ import annotations

import datetime as _dt
import re

__all__ = [
    "clean_title",
    "committee_from_text",
    "fix_mojibake",
    "iso_date",
    "parse_date",
    "session_from_symbol",
]

# A UTF-8 sequence read as cp1252/Latin-1: a lead byte Â..ô followed by continuation bytes.
_CONTINUATION = "\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc" + (
    "\u2013\u2014\u2018\u2019\u201a\u201c\u201d\u201e\u2020\u2021\u2022\u2026\u2030\u2039"
    "\u203a\u20ac\u2122"
)
_MOJIBAKE = re.compile(f"[\u00c2-\u00f4][{_CONTINUATION}]+")


def _to_byte(char: str) -> int:
    try:
        return char.encode("cp1252")[0]
    except UnicodeEncodeError:
        return ord(char)  # C1 controls, undefined in cp1252, are their own Latin-1 byte


def fix_mojibake(text: str) -> str:
    """Undo UTF-8 text decoded as Latin-1/cp1252 ("TÃ¼rkiye" -> "Türkiye"), run by run.

    Hand-written because the one library for this (ftfy) is not a dependency and the need
    is narrow: only runs that decode as UTF-8 are repaired, other text is left alone.
    """

    def repair(match: re.Match[str]) -> str:
        try:
            return bytes(_to_byte(ch) for ch in match.group()).decode("utf-8")
        except (UnicodeDecodeError, ValueError):
            return match.group()

    return _MOJIBAKE.sub(repair, text)


_MONTHS = tuple(
    "january february march april may june july august september october november december".split()
)


def _month(word: str) -> int | None:
    """1..12 for a month name or its abbreviation of 3+ letters ("Sept."), else None."""
    word = word.lower().rstrip(".")
    if len(word) < 3:
        return None
    return next((n for n, name in enumerate(_MONTHS, start=1) if name.startswith(word)), None)


def iso_date(text: str | None) -> str | None:
    """ISO ``yyyy-mm-dd`` for "2023-12-19", "8 Sept. 2023", "[New York] : UN, 30 Oct. 2023".

    Returns the stripped text unchanged when no valid date is found, None for empty text.
    """
    if text is None or not text.strip():
        return None
    return parse_date(text) or text.strip()


def parse_date(text: str) -> str | None:
    """ISO ``yyyy-mm-dd`` of a valid date written in ``text`` (ISO form first), else None.

    Reads "2023-12-19", "8 Sept. 2023" and "Sept. 8, 2023" anywhere in the text ("[New
    York] : UN, 30 Oct. 2023"); "yesterday", "2023" or "2023-02-30" hold no date.
    """
    candidates: list[tuple[int, int, int]] = []
    for match in re.finditer(r"\b([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})\b", text):
        candidates.append((int(match[1]), int(match[2]), int(match[3])))
    for match in re.finditer(r"\b([0-9]{1,2})\s+([A-Za-z]{3,9})\.?,?\s+([0-9]{4})\b", text):
        month = _month(match[2])
        if month:
            candidates.append((int(match[3]), month, int(match[1])))
    for match in re.finditer(r"\b([A-Za-z]{3,9})\.?\s+([0-9]{1,2}),?\s+([0-9]{4})\b", text):
        month = _month(match[1])
        if month:
            candidates.append((int(match[3]), month, int(match[2])))
    for year, month, day in candidates:
        try:
            return _dt.date(year, month, day).isoformat()
        except ValueError:
            continue
    return None


_ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
_SYMBOL_SESSION = re.compile(r"^A/(?:RES/|DEC/|C\.[0-9]{1,3}/|)([0-9]{1,4})/")
_SYMBOL_COMMITTEE = re.compile(r"^A/C\.([0-9]{1,3})/")


def committee_from_text(text: str) -> int | None:
    """3 for "3", "Third Committee", "3rd Committee" or "A/C.3/..."; None when none is named."""
    text = text.strip()
    match = (
        re.fullmatch(r"([0-9]{1,3})", text)
        or _SYMBOL_COMMITTEE.match(text)
        or re.search(r"\b([0-9]{1,3})\s*(?:st|nd|rd|th)?\s+committee\b", text, re.IGNORECASE)
    )
    if match:
        return int(match[1]) if int(match[1]) >= 1 else None
    match = re.search(rf"\b({'|'.join(_ORDINAL_WORDS)})\s+committee\b", text, re.IGNORECASE)
    return _ORDINAL_WORDS[match[1].lower()] if match else None


def session_from_symbol(symbol: str | None) -> int | None:
    """78 for "A/RES/78/196", "A/DEC/78/5", "A/C.3/78/L.32" or "A/78/481"; else None."""
    match = _SYMBOL_SESSION.match(symbol or "")
    return int(match[1]) if match else None


_TITLE_RESPONSIBILITY = re.compile(
    r"\s*:\s*(?:revised\s+)?(?:draft\s+)?(?:resolution|decision)\s*/.*$", re.IGNORECASE | re.DOTALL
)


def clean_title(title: str | None) -> str:
    """Title without a catalogue's " : resolution / adopted by the General Assembly" tail."""
    return _TITLE_RESPONSIBILITY.sub("", title or "").strip()
