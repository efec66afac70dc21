"""Roll-call data: one in-memory shape, loaders for two real layouts, and validation.

:class:`RollCallData` holds a compact vote matrix (countries × roll calls, ``int8``, with
:data:`ABSENT` for "did not vote") and a table of roll-call attributes, sorted in time.
Two layouts load into it:

* the Voeten/``unvotes`` folder of three gzip CSVs (:func:`load_unvotes`);
* the UN Digital Library GA voting CSV, one row per (resolution, member state) with
  ``ms_vote`` in Y/N/A/X (:func:`load_undl_votes`).

:func:`load_roll_calls` detects which (:func:`load_roll_calls_cached` keeps the last few
loads of the process, keyed on the files read). Every problem with the input raises
:class:`~assembly_gym.core.errors.DataError` naming the file, the line, the field and what
was expected; a table is never truncated silently.

Modules: ``schema`` (votes, issue codes, :class:`RollCallData`), ``reading`` (the one byte
reader of every data file, with its cap on inflated gzip data, strict CSV reading, field
parsers), ``unvotes`` and ``undl`` (one loader each), ``loading`` (either layout, cached or
not).

Example:
    >>> from assembly_gym.envs.legislative.data import RollCallData, Vote, load_unvotes
    >>> Vote.YES, int(Vote.ABSTAIN)
    (<Vote.YES: 0>, 2)
"""

from assembly_gym.envs.legislative.data.loading import load_roll_calls
from assembly_gym.envs.legislative.data.schema import (
    ABSENT,
    ADOPTION,
    ISSUE_CODES,
    RollCallData,
    Vote,
)
from assembly_gym.envs.legislative.data.undl import load_undl_votes
from assembly_gym.envs.legislative.data.unvotes import load_unvotes

__all__ = [
    "ABSENT",
    "ADOPTION",
    "ISSUE_CODES",
    "RollCallData",
    "Vote",
    "load_roll_calls",
    "load_undl_votes",
    "load_unvotes",
]
