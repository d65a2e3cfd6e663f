# cython: language_level=3
"""The compiled protobuf writer (protobuf_write.pyx), as the reader's module (protobuf.pyx)
calls it: the bytes of a model appended to ``Out`` over the shared C tables."""

from runtime._compiled.out cimport Out
from runtime._compiled.protobuf_tables cimport Tables


cdef int write_message(Tables* t, Out* o, int mi, object m, int depth) except -1
