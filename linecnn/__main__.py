"""Allow ``python -m linecnn``."""

import sys

from linecnn.cli import main

sys.exit(main())
