"""``python -m generator`` is the ``wirespec`` command (handy in a checkout without an install)."""

import sys

from .cli import main

sys.exit(main())
