# cython: language_level=3
"""The value kinds of TiCDC Craft (the ``kinds:`` of ``column_type.craft``, specs/ticdc_craft.yaml:
how a column's value bytes read) as C, shared by the compiled reader (``craft.pyx``) and
writer (``craft_encode.pyx``); runtime/formats/craft.py uses this tier only for those kinds. Inline only: a module that cimports these compiles them in."""

cdef enum Kind:
    K_UNKNOWN = -1
    K_INT = 0
    K_SINT = 1
    K_UINT = 2
    K_F64 = 3
    K_TEXT = 4
    K_BYTES = 5
    K_NULL = 6

cdef enum:
    MAX_VARINT = 10  # bytes of the longest uint64 varint (Go's binary.MaxVarintLen64)


cdef inline int fill_kinds(signed char* kinds, value_encodings) except -1:
    """``kinds[code]``: the Kind of each type code (0..255) the spec's ``COLUMN_TYPE_CRAFT``
    table names, K_UNKNOWN for the rest. The table is checked by ``CraftMessage`` first,
    so another kind name is a KeyError."""
    cdef int code
    for code in range(256):
        kinds[code] = K_UNKNOWN
    for code, name in value_encodings.items():
        if name == "int":
            kinds[code] = K_INT
        elif name == "sint":
            kinds[code] = K_SINT
        elif name == "uint":
            kinds[code] = K_UINT
        elif name == "float64":
            kinds[code] = K_F64
        elif name == "text":
            kinds[code] = K_TEXT
        elif name == "bytes":
            kinds[code] = K_BYTES
        elif name == "null":
            kinds[code] = K_NULL
        else:
            raise KeyError(name)
    return 0
