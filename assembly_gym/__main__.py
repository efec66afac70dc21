"""``python -m assembly_gym``: the same command line as ``assembly-gym``."""

import sys

from assembly_gym.benchmarks.cli import main

sys.exit(main())
