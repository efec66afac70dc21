"""Resolution trajectories from real UN documents: one :class:`Trajectory` type, three loaders.

A trajectory follows one draft resolution through the General Assembly: agenda item,
draft with sponsors and text, committee vote, plenary vote, outcome. Three real layouts
load into it:

* the stage/timestep JSON schema (``*.trajectory.json``, :func:`load_stage_trajectory`);
* the genealogy JSON schema (``*.genealogy.json``, :func:`load_genealogy`);
* UN Digital Library MARC21-XML draft records (``*.marcxml[.gz]``, :func:`load_marc_drafts`).

:func:`load_trajectories` detects the layout of a file, or loads every such file of a folder.

Country names go through the country table (unmatched ones are kept:
:attr:`Trajectory.unmatched_names`); bad input raises
:class:`~assembly_gym.core.errors.DataError` naming the file, the record or JSON path and the field.

Example:
    >>> from assembly_gym.envs.legislative.documents import load_stage_trajectory
    >>> from assembly_gym.core.paths import documents_dir
    >>> folder = documents_dir()
    >>> if folder is not None:
    ...     trajectory = load_stage_trajectory(folder / "A_RES_78_196.trajectory.json")
    ...     print(trajectory.symbol, trajectory.outcome, trajectory.plenary_vote.counts)
    A/RES/78/196 adopted {'yes': 91, 'no': 54, 'abstain': 6}
"""

from assembly_gym.envs.legislative.documents.genealogy import load_genealogy
from assembly_gym.envs.legislative.documents.loading import load_trajectories
from assembly_gym.envs.legislative.documents.marc import load_marc_drafts
from assembly_gym.envs.legislative.documents.stage_json import load_stage_trajectory
from assembly_gym.envs.legislative.documents.trajectory import Trajectory
from assembly_gym.envs.legislative.documents.writing import write_stage_trajectories

__all__ = [
    "Trajectory",
    "load_genealogy",
    "load_marc_drafts",
    "load_stage_trajectory",
    "load_trajectories",
    "write_stage_trajectories",
]
