"""Entry point for `python -m execugraph`."""

import sys

from execugraph.cli import main

sys.exit(main())
