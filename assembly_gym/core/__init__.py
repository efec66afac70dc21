"""The ground floor every package stands on: errors, atomic saving, data paths and rendering.

Nothing here imports another :mod:`assembly_gym` package.
"""
