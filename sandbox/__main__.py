"""`python -m sandbox ...` (see sandbox/cli.py)."""

import sys

from sandbox.cli import main

sys.exit(main())
