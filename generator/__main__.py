"""``python -m generator`` is the ``wirespec`` command (handy in a checkout without an install)."""

import sys

from generator.cli.main import main

sys.exit(main())
