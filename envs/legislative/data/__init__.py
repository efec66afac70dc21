"""Roll-call data: one in-memory shape, loaders for two real layouts, and validation.

Two layouts load into :class:`RollCallData` (:mod:`.schema`):

* the Voeten/``unvotes`` folder of three gzip CSVs (:func:`load_unvotes`);
* the UN Digital Library GA voting CSV, one row per (resolution, member state) with
  ``ms_vote`` in Y/N/A/X (:func:`load_undl_votes`).

:func:`load_roll_calls` detects which; every problem with the input raises
:class:`~assembly_gym.core.errors.DataError` (:mod:`.reading`).

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
