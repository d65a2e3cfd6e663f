"""wirespec's hand-written runtime: only what construct lacks, plus the Spark glue.

Generated modules import from here; nothing here knows a format beyond the primitives it
names.
"""

from runtime.core.errors import DecodeError, EncodeError, LimitError, SpecError, WirespecError
from runtime.core.limits import Limits

__all__ = ["DecodeError", "EncodeError", "LimitError", "Limits", "SpecError", "WirespecError"]
