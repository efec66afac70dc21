"""A roll call's lineage: the latest earlier roll call on the same resolution text.

Many resolutions come back every year under the same title ("The right to development",
"Situation of human rights in …"). A roll call's lineage keys are its title's words: the
description when it is a title (under 300 characters), and the title quoted in a meeting
record ("… draft resolution C is entitled _Effects of the use of depleted uranium …"),
each as the sorted set of its words (lower case, letters only, no English stop word), so
that "Right to development" and "The right of development" are one key. Its lineage is the
latest roll call of a strictly earlier session of the history that shares a key: a
country's vote on it is its vote on last year's version
(:class:`~assembly_gym.envs.legislative.observation.RollCallFeatures`' ``lineage_*``).
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

__all__ = ["latest_lineage", "lineage_keys"]

_TITLE_CHARS = 300  # a longer description is a meeting record, not a title
_QUOTED = re.compile(r"entitled _([^<_]{5,200})")  # "_Title<d3>" in the meeting records


def _words(text: str) -> str:
    """``"The right of development"`` → ``"development right"``."""
    words = re.sub(r"[^a-z ]", " ", text.lower()).split()
    return " ".join(sorted({w for w in words if len(w) > 1 and w not in ENGLISH_STOP_WORDS}))


def lineage_keys(roll_calls: pd.DataFrame) -> list[tuple[str, ...]]:
    """Each roll call's lineage keys (none, one or two), from ``descr`` and ``short``."""
    keys = []
    for short, descr in zip(
        roll_calls["short"].fillna(""), roll_calls["descr"].fillna(""), strict=True
    ):
        found = [_words(descr)] if len(descr) < _TITLE_CHARS else []
        quoted = _QUOTED.search(f"{short} {descr}")
        if quoted:
            found.append(_words(quoted.group(1)))
        keys.append(tuple(dict.fromkeys(k for k in found if k)))
    return keys


def latest_lineage(roll_calls: pd.DataFrame, history: pd.DataFrame) -> np.ndarray:
    """Index into ``history`` of each roll call's lineage, shape (R,) int64; −1 where none.

    Args:
        roll_calls: the target roll calls (with ``session``, ``short``, ``descr``).
        history: the roll calls known before them, in time order; only those of sessions
            strictly before a target's session count, the latest (then the last listed) first.
    """
    by_key: dict[str, list[tuple[int, int]]] = defaultdict(list)  # key → (session, index)
    sessions = history["session"].to_numpy()
    for index, keys in enumerate(lineage_keys(history)):
        for key in keys:
            by_key[key].append((int(sessions[index]), index))
    lineage = np.full(len(roll_calls), -1, dtype=np.int64)
    targets = roll_calls["session"].to_numpy()
    for row, keys in enumerate(lineage_keys(roll_calls)):
        best = (-1, -1)
        for key in keys:
            entries = by_key.get(key, [])
            earlier = bisect.bisect_left(entries, (int(targets[row]), -1))
            if earlier:
                best = max(best, entries[earlier - 1])
        lineage[row] = best[1]
    return lineage
