"""A toy security council: a second env family with a veto, from this folder alone.

``env`` (the env, its declaration and its batched core), ``vector`` (its native vector env),
``family`` (its transitions, its bench suite, the family object and the one line that
registers it). Nothing outside this folder names it.
"""
