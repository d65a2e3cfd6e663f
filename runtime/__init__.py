"""wirespec's hand-written runtime: only what construct lacks, plus the Spark glue.

Generated modules import from here; nothing here knows a format beyond the primitives it
names.
"""

from .errors import DecodeError, EncodeError, LimitError, SpecError, WirespecError
from .limits import Limits

__all__ = ["DecodeError", "EncodeError", "LimitError", "Limits", "SpecError", "WirespecError"]
