"""Loader of the stage/timestep JSON layout (``*.trajectory.json``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assembly_gym.envs.legislative.countries import CountryTable, default_country_table
from assembly_gym.envs.legislative.data.reading import read_bytes
from assembly_gym.envs.legislative.documents.json_reader import JsonReader, describe
from assembly_gym.envs.legislative.documents.parsing import parse_json
from assembly_gym.envs.legislative.documents.text import (
    clean_title,
    committee_from_text,
    session_from_symbol,
)
from assembly_gym.envs.legislative.documents.trajectory import (
    STAGES,
    RecordedVote,
    Trajectory,
    TrajectoryStep,
)

__all__ = ["load_stage_trajectory", "stage_trajectory"]


def load_stage_trajectory(path: str | Path, *, table: CountryTable | None = None) -> Trajectory:
    """Load one trajectory in the stage/timestep JSON schema.

    The schema: ``{trajectory_id, metadata{symbol, title, session, committee, agenda_item,
    final_outcome}, timesteps[{t, date, stage, action_type, state, action, observation}]}``.
    Every ``stage`` is one of :data:`~.trajectory.STAGES`. A step whose ``action_type`` is
    ``recorded_vote``, whose ``action`` has ``votes`` (``in_favour``/``against``/
    ``abstaining`` lists) or whose ``observation`` has a ``vote_tally`` (``yes``/``no``/
    ``abstain``) is a recorded vote, and must carry the three lists with at least one
    country: a committee vote when its stage name contains "committee", else a plenary vote
    (the last one of each kind counts). Draft symbol, text and sponsors come from
    ``state``/``action``/``observation`` keys of any step (``draft_symbol``, ``draft_text``,
    ``sponsors``, ``co_sponsors``, ``resolution_symbol``, ``outcome``), whatever its stage.

    Args:
        path: the ``.json`` file.
        table: country table (default: the shipped one).

    Returns:
        The trajectory, with every raw step in :attr:`Trajectory.steps`.

    Raises:
        DataError: the file is missing, empty or not JSON; ``trajectory_id`` or
            ``timesteps`` is missing; a field has the wrong type; a stage is unknown; a
            recorded vote has no country lists; a tally is negative or not an integer; a NaN
            appears; a country votes twice.
    """
    path = Path(path)
    return stage_trajectory(
        parse_json(path, read_bytes(path)), path, table or default_country_table()
    )


def stage_trajectory(data: Any, path: Path, table: CountryTable) -> Trajectory:
    """The trajectory of a parsed stage/timestep JSON document (:func:`load_stage_trajectory`)."""
    reader = JsonReader(str(path), table)
    data = reader.root(data, "trajectory_id and timesteps")
    trajectory_id = reader.text(data, "trajectory_id", None, required=True)
    meta = reader.mapping(data, "metadata", None) or {}
    found, steps = _Found(), []
    for index, raw in enumerate(_timesteps(reader, data)):
        row = f"timesteps[{index}]"
        steps.append(_step(reader, row, raw))
        found.read_draft(reader, steps[-1], row)
        found.read_decision(reader, steps[-1], row)
        found.read_vote(reader, steps[-1], row)
    return _trajectory(reader, trajectory_id, meta, found, _in_time_order(reader, steps))


def _timesteps(reader: JsonReader, data: dict) -> list:
    """The ``timesteps`` list, required and not empty."""
    timesteps = data.get("timesteps")
    if timesteps is None:
        reader.fail("missing required field", None, "timesteps")
    if not isinstance(timesteps, list):
        reader.fail(f"expected a list of steps, got {describe(timesteps)}", None, "timesteps")
    if not timesteps:
        reader.fail("no steps: expected at least one timestep", None, "timesteps")
    return timesteps


def _step(reader: JsonReader, row: str, raw: Any) -> TrajectoryStep:
    """One timestep: ``t`` (an integer >= 0), a known ``stage``, and its raw parts."""
    if not isinstance(raw, dict):
        reader.fail(f"expected an object, got {describe(raw)}", row, None)
    t = raw.get("t")
    if t is None:
        reader.fail("missing required field", row, "t")
    if isinstance(t, bool) or not isinstance(t, int) or t < 0:
        reader.fail(f"expected a non-negative integer, got {describe(t)}", row, "t")
    stage = reader.text(raw, "stage", row, required=True)
    if stage not in STAGES:
        reader.fail(f"unknown stage {stage!r}; expected one of {', '.join(STAGES)}", row, "stage")
    parts = {key: reader.mapping(raw, key, row) or {} for key in ("state", "action", "observation")}
    action_type = reader.text(raw, "action_type", row)
    actor = reader.text(parts["action"], "actor", row, "action.")
    return reader.step(raw, row, t=t, stage=stage, actor=actor, action_type=action_type, **parts)


@dataclass
class _Found:
    """What the steps say, read step by step in file order, whatever their stage."""

    draft_symbol: str | None = None
    draft_text: str | None = None
    sponsors: list[str] = field(default_factory=list)
    additional: list[str] = field(default_factory=list)
    resolution_symbol: str | None = None
    outcome: str | None = None
    votes: dict[str, RecordedVote] = field(default_factory=dict)

    def read_draft(self, reader: JsonReader, step: TrajectoryStep, row: str) -> None:
        """The first draft symbol and text; every sponsor and co-sponsor."""
        for part, prefix in ((step.state, "state."), (step.observation, "observation.")):
            self.draft_symbol = self.draft_symbol or reader.text(part, "draft_symbol", row, prefix)
        self.draft_text = self.draft_text or reader.text(step.action, "draft_text", row, "action.")
        self.sponsors += reader.sponsors(step.action, "sponsors", row, "action.")
        self.additional += reader.sponsors(step.action, "co_sponsors", row, "action.")

    def read_decision(self, reader: JsonReader, step: TrajectoryStep, row: str) -> None:
        """The last resolution symbol and the last outcome a step states."""
        for part, prefix in ((step.state, "state."), (step.observation, "observation.")):
            symbol = reader.text(part, "resolution_symbol", row, prefix)
            self.resolution_symbol = symbol or self.resolution_symbol
        outcome = reader.outcome(step.observation, "outcome", row, "observation.")
        self.outcome = outcome or self.outcome

    def read_vote(self, reader: JsonReader, step: TrajectoryStep, row: str) -> None:
        """A recorded vote: lists from ``action.votes``, tally from ``observation.vote_tally``."""
        lists = reader.mapping(step.action, "votes", row, "action.")
        tally = reader.mapping(step.observation, "vote_tally", row, "observation.")
        if lists is None and tally is None and step.action_type != "recorded_vote":
            return
        if lists is None:
            reader.fail(
                "recorded vote without country lists: expected in_favour, against and abstaining",
                row,
                "action.votes",
            )
        countries = reader.votes(lists, row, "action.votes.")
        counts = reader.tally(tally, row, "observation.vote_tally.") if tally else None
        vote = reader.recorded_vote(countries, counts, row, "action.votes")
        self.votes["committee" if "committee" in step.stage.lower() else "plenary"] = vote


def _in_time_order(reader: JsonReader, steps: list[TrajectoryStep]) -> tuple[TrajectoryStep, ...]:
    """The steps sorted by ``t``, which must be unique."""
    times = [step.t for step in steps]
    if len(set(times)) != len(times):
        duplicate = next(t for t in times if times.count(t) > 1)
        reader.fail(
            f"two steps have t={duplicate}; expected unique step times",
            f"timesteps[{times.index(duplicate)}]",
            "t",
        )
    return tuple(sorted(steps, key=lambda step: step.t))


def _trajectory(
    reader: JsonReader,
    trajectory_id: str,
    meta: dict,
    found: _Found,
    steps: tuple[TrajectoryStep, ...],
) -> Trajectory:
    """The trajectory of what the steps say, completed by ``metadata``."""
    meta_symbol = reader.text(meta, "symbol", None, "metadata.")
    resolution_symbol = found.resolution_symbol
    if resolution_symbol is None and meta_symbol and meta_symbol.startswith("A/RES/"):
        resolution_symbol = meta_symbol
    symbol = resolution_symbol or found.draft_symbol or meta_symbol or trajectory_id
    outcome = reader.outcome(meta, "final_outcome", None, "metadata.")
    session = reader.integer(meta, "session", None, "metadata.")
    committee = reader.committee(meta, "committee", None, "metadata.")
    subjects = reader.names(meta, "subjects", None, "metadata.") or []
    dates = [step.date for step in steps if step.date]
    return reader.trajectory(
        symbol=symbol,
        title=clean_title(reader.text(meta, "title", None, "metadata.")),
        session=session if session is not None else session_from_symbol(symbol),
        committee=(
            committee if committee is not None else committee_from_text(found.draft_symbol or "")
        ),
        agenda_item=reader.code(meta, "agenda_item", None, "metadata."),
        date=dates[-1] if dates else None,
        draft_symbol=found.draft_symbol,
        draft_text=found.draft_text,
        sponsors=tuple(dict.fromkeys(found.sponsors)),
        additional_sponsors=tuple(dict.fromkeys(found.additional)),
        subjects=tuple(subjects),
        committee_vote=found.votes.get("committee"),
        plenary_vote=found.votes.get("plenary"),
        outcome=outcome or found.outcome,
        resolution_symbol=resolution_symbol,
        steps=steps,
        source=f"{reader.source}#{trajectory_id}",
    )
