from pathlib import Path

__version__ = "0.1.0"
ROOT = Path(__file__).resolve().parent.parent
"""The checkout: ``specs/``, ``generated/`` and ``docs/`` are found from here."""
