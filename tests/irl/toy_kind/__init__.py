"""A toy reward kind from this folder alone: "habit", each country does what it did most.

``habit`` (the kind and the one line that registers it), ``test_habit`` (it is fitted by
name, saved and loaded, explained, simulated, played in ``assembly_v0`` and benched).
Nothing outside this folder names it.
"""
