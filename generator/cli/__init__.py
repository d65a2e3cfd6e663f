"""The ``wirespec`` command: one module per verb."""
