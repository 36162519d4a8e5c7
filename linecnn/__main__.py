"""Allow ``python -m linecnn``."""

import sys

from linecnn.cli.main import main

sys.exit(main())
