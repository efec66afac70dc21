"""One-command benchmark programs: ``assembly-gym experiment NAME [args]``."""
