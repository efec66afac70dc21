"""Loader of the stage/timestep JSON layout (``*.trajectory.json``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assembly_gym.envs.legislative.countries import CountryTable, default_country_table
from assembly_gym.envs.legislative.data.reading import read_bytes
from assembly_gym.envs.legislative.documents.json_reader import JsonReader, describe
from assembly_gym.envs.legislative.documents.names import NameCollector
from assembly_gym.envs.legislative.documents.parsing import build, parse_json
from assembly_gym.envs.legislative.documents.text import (
    clean_title,
    committee_from_text,
    iso_date,
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
        table: country table; default
            :func:`~assembly_gym.envs.legislative.countries.default_country_table`.

    Returns:
        The trajectory, with every raw step in :attr:`Trajectory.steps`.

    Raises:
        DataError: the file is missing, empty or not JSON; ``trajectory_id`` or
            ``timesteps`` is missing; a field has the wrong type; a stage is unknown; a
            recorded vote has no country lists; a tally is negative or not an integer; a NaN
            appears; a country votes twice.
    """
    path = Path(path)
    data = parse_json(path, read_bytes(path))
    return stage_trajectory(data, path, table or default_country_table())


def stage_trajectory(data: Any, path: Path, table: CountryTable) -> Trajectory:
    """The trajectory of a parsed stage/timestep JSON document (:func:`load_stage_trajectory`)."""
    reader = JsonReader(str(path))
    if not isinstance(data, dict):
        reader.fail(
            f"expected a JSON object with trajectory_id and timesteps, got {describe(data)}",
            None,
            None,
        )
    trajectory_id = reader.text(data, "trajectory_id", None, required=True)
    meta = reader.mapping(data, "metadata", None) or {}
    timesteps = data.get("timesteps")
    if timesteps is None:
        reader.fail("missing required field", None, "timesteps")
    if not isinstance(timesteps, list):
        reader.fail(f"expected a list of steps, got {describe(timesteps)}", None, "timesteps")
    if not timesteps:
        reader.fail("no steps: expected at least one timestep", None, "timesteps")

    names = NameCollector(table)
    steps: list[TrajectoryStep] = []
    draft_symbol = draft_text = resolution_symbol = step_outcome = None
    sponsors: list[str] = []
    additional: list[str] = []
    votes: dict[str, RecordedVote] = {}
    for index, raw in enumerate(timesteps):
        row = f"timesteps[{index}]"
        if not isinstance(raw, dict):
            reader.fail(f"expected an object, got {describe(raw)}", row, None)
        t = raw.get("t")
        if t is None:
            reader.fail("missing required field", row, "t")
        if isinstance(t, bool) or not isinstance(t, int) or t < 0:
            reader.fail(f"expected a non-negative integer, got {describe(t)}", row, "t")
        stage = reader.text(raw, "stage", row, required=True)
        if stage not in STAGES:
            reader.fail(
                f"unknown stage {stage!r}; expected one of {', '.join(STAGES)}", row, "stage"
            )
        state = reader.mapping(raw, "state", row) or {}
        action = reader.mapping(raw, "action", row) or {}
        observation = reader.mapping(raw, "observation", row) or {}
        action_type = reader.text(raw, "action_type", row)
        step = build(
            TrajectoryStep,
            reader.source,
            row,
            None,
            t=t,
            stage=stage,
            date=iso_date(reader.text(raw, "date", row)),
            actor=reader.text(action, "actor", row, "action."),
            action_type=action_type,
            state=state,
            action=action,
            observation=observation,
        )
        steps.append(step)

        for part, prefix in ((state, "state."), (observation, "observation.")):
            draft_symbol = draft_symbol or reader.text(part, "draft_symbol", row, prefix)
            resolution_symbol = reader.text(part, "resolution_symbol", row, prefix) or (
                resolution_symbol
            )
        draft_text = draft_text or reader.text(action, "draft_text", row, "action.")
        sponsors += names.canonical(reader.names(action, "sponsors", row, "action.") or [])
        additional += names.canonical(reader.names(action, "co_sponsors", row, "action.") or [])
        if "outcome" in observation:
            found = reader.outcome(observation["outcome"], row, "observation.outcome")
            step_outcome = found or step_outcome

        vote_lists = reader.mapping(action, "votes", row, "action.")
        tally_map = reader.mapping(observation, "vote_tally", row, "observation.")
        if vote_lists is None and tally_map is None and action_type != "recorded_vote":
            continue
        if vote_lists is None:
            reader.fail(
                "recorded vote without country lists: expected in_favour, against and abstaining",
                row,
                "action.votes",
            )
        lists = reader.votes(vote_lists, row, "action.votes.")
        tally = reader.tally(tally_map, row, "observation.vote_tally.") if tally_map else None
        kind = "committee" if "committee" in stage.lower() else "plenary"
        votes[kind] = reader.recorded_vote(names, lists, tally, row, "action.votes")

    times = [step.t for step in steps]
    if len(set(times)) != len(times):
        duplicate = next(t for t in times if times.count(t) > 1)
        reader.fail(
            f"two steps have t={duplicate}; expected unique step times",
            f"timesteps[{times.index(duplicate)}]",
            "t",
        )
    steps.sort(key=lambda step: step.t)

    meta_symbol = reader.text(meta, "symbol", None, "metadata.")
    if resolution_symbol is None and meta_symbol and meta_symbol.startswith("A/RES/"):
        resolution_symbol = meta_symbol
    symbol = resolution_symbol or draft_symbol or meta_symbol or trajectory_id
    outcome = reader.outcome(meta.get("final_outcome"), None, "metadata.final_outcome")
    session = reader.integer(meta, "session", None, "metadata.")
    committee = reader.committee(meta, "committee", None, "metadata.")
    subjects = reader.names(meta, "subjects", None, "metadata.") or []
    dates = [step.date for step in steps if step.date]
    return build(
        Trajectory,
        reader.source,
        None,
        None,
        symbol=symbol,
        title=clean_title(reader.text(meta, "title", None, "metadata.")),
        session=session if session is not None else session_from_symbol(symbol),
        committee=committee if committee is not None else committee_from_text(draft_symbol or ""),
        agenda_item=reader.code(meta, "agenda_item", None, "metadata."),
        date=dates[-1] if dates else None,
        draft_symbol=draft_symbol,
        draft_text=draft_text,
        sponsors=tuple(dict.fromkeys(sponsors)),
        additional_sponsors=tuple(dict.fromkeys(additional)),
        subjects=tuple(subjects),
        committee_vote=votes.get("committee"),
        plenary_vote=votes.get("plenary"),
        outcome=outcome or step_outcome,
        resolution_symbol=resolution_symbol,
        steps=tuple(steps),
        source=f"{path}#{trajectory_id}",
        unmatched_names=tuple(names.unmatched),
    )
