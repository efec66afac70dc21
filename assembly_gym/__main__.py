"""``python -m assembly_gym``: the same command line as ``assembly-gym``."""

import sys

try:  # Ctrl-C before main's own handler: while the command line is imported, or main called
    from assembly_gym.benchmarks.cli import main

    code = main()
except KeyboardInterrupt:
    print("assembly-gym: interrupted", file=sys.stderr)
    code = 130
sys.exit(code)
