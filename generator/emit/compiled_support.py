"""What the compiled tier's renderer parts share: the C types a value is read as, the
line that declines, and :class:`NotCompiled`."""

from __future__ import annotations

DECLINE = "return None"
C_TYPES = {
    "B": "uint8_t",
    "b": "int8_t",
    "H": "uint16_t",
    "h": "int16_t",
    "I": "uint32_t",
    "i": "int32_t",
    "Q": "uint64_t",
    "q": "int64_t",
    "f": "float",
    "d": "double",
}
DECODERS = {"utf8": "_utf8", "ascii": "PyUnicode_DecodeASCII", "latin1": "PyUnicode_DecodeLatin1"}
SHARED_INTS = {"int64_t", "int32_t", "uint32_t", "int16_t", "uint16_t"}
"""C types of numbers made Python ints through ``_int64``, which shares them."""
SMALL_INTS = {"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t"}
"""C types of numbers a model's slot takes through ``_int``, which has the small ones at hand
(a code, a count, a length)."""

C_VALUES = {*C_TYPES.values(), "bint", "Py_ssize_t", "bytes"}
"""C types of variables whose Python value is atomic (a number, a bool, bytes or None)."""


class NotCompiled(Exception):
    """The plan says something this renderer does not write: the record keeps the Python
    quick tier only."""
