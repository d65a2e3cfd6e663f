# cython: language_level=3
from runtime._compiled.out cimport Out
from runtime._compiled.protobuf_tables cimport Tables


cdef int write_message(Tables* t, Out* o, int mi, object m, int depth) except -1
