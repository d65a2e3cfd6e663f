# cython: language_level=3, boundscheck=False, wraparound=False
"""TiCDC Open Protocol's JSON kernel in C: the key and value documents of the common form,
straight from their bytes to TiCDC events (``generated.models.ticdc_types``, the codec's ``models``).

The framing is not here: ``generated/_compiled/ticdc_open_protocol.pyx`` reads the Kafka
key and value by the plans of the spec's ``key_frames`` and ``value_frames`` records
(version, u64 lengths, every limit) and hands their lists of documents to
:meth:`Plan.documents`, a primitive of the spec's ``kafka_message: {codec: open_protocol}``.

:class:`Plan` takes its tables from a :class:`runtime.formats.open_protocol.OpenProtocol` (which
holds the spec's documents): the key and value documents' field plans, the event classes
(the spec's ``kafka_message: classes:``: each event type's model and value document),
the column document's key names, the type code -> reading table, the flag bits and the
row sections. Nothing of the format is written here twice.

:meth:`Plan.documents` gives the :class:`Message` the Python reader gives, or None
("not mine") for anything outside the common form: any error, the legacy layout, JSON
nesting or keys the fast column reader does not take, duplicate keys, ``-0`` or numbers
beyond 64 bits where a column needs an integer, invalid UTF-8, lone surrogates, the
escapes ``\\ufffd``, ``\\u0008`` and ``\\u000c`` (which set the message's escape style
or mark a replaced byte), and anything that raises. The Python reader then runs and
gives the model or the exact DecodeError.

Every read is checked against the end of its document first, and nothing is allocated
from a length field (an escaped string's buffer is at most its own bytes). The JSON
tokens (scanning a document's scalars and punctuation, decoding its strings) are
json_tokens.pxd's; this module reads the documents' values and keys by the plan.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_FromDouble
from cpython.long cimport PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from libc.math cimport isfinite, isinf
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.string cimport memcmp

from runtime._compiled.json_tokens cimport (
    INT64_MAX, T_FALSE, T_FLOAT, T_INT, T_NULL, T_STRING, T_TRUE, Token, decline, expect,
    hex_digit, next_member, scan_literal, scan_scalar, scan_string, skip_ws, text, utf8_bytes,
)
from runtime._compiled.slots cimport atomic, untrack

import dataclasses

from runtime.formats.gojson import go_unquote
from runtime.formats.open_protocol_json import _field_plan

# -- readings: the JSON value types of a kind of the spec's column_type.rendering ---------

cdef enum:
    K_INT, K_UINT, K_SINT, K_FLOAT32, K_FLOAT64, K_TEXT, K_STRING, K_BASE64, K_RAW

RENDERINGS = {
    frozenset({("type", "s64"), ("unsigned", "u64"), ("text", "str")}): K_INT,
    frozenset({("type", "u64")}): K_UINT,
    frozenset({("type", "s64"), ("text", "str")}): K_SINT,
    frozenset({("type", "f32")}): K_FLOAT32,
    frozenset({("type", "f64")}): K_FLOAT64,
    frozenset({("type", "str")}): K_TEXT,
    frozenset({("type", "utf8"), ("binary", "quoted")}): K_STRING,
    frozenset({("type", "base64")}): K_BASE64,
    frozenset({("type", "scalar")}): K_RAW,
}
"""The tiflow readings (a kind's value types where the column has flags:
``OpenProtocol._readings``) this reader implements; a plan over any other refuses to build."""


# -- base64 --------------------------------------------------------------------------------

cdef signed char B64[256]
cdef int _b64_init():
    cdef int k
    alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    for k in range(256):
        B64[k] = -1
    for k in range(64):
        B64[alphabet[k]] = k
    return 0
_b64_init()


cdef object base64_bytes(const uint8_t *s, Token *tok):
    """The bytes of a string that is canonical standard base64 (what
    ``b64encode(b64decode(text, validate=True)) == text`` accepts), else decline."""
    cdef bytes raw = utf8_bytes(s, tok)
    cdef const uint8_t *p = <const uint8_t *>PyBytes_AS_STRING(raw)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(raw), pad = 0, q, o = 0, size
    cdef int a, b, c, d
    cdef bytes out
    cdef uint8_t *w
    if n % 4:
        decline()
    if n == 0:
        return b""
    if p[n - 1] == 61:
        pad = 2 if p[n - 2] == 61 else 1
    size = n // 4 * 3 - pad
    out = PyBytes_FromStringAndSize(NULL, size)
    w = <uint8_t *>PyBytes_AS_STRING(out)
    for q in range(0, n, 4):
        a, b = B64[p[q]], B64[p[q + 1]]
        c = B64[p[q + 2]] if not (q + 4 == n and pad == 2) else 0
        d = B64[p[q + 3]] if not (q + 4 == n and pad >= 1) else 0
        if a < 0 or b < 0 or c < 0 or d < 0:
            decline()
        w[o] = (a << 2) | (b >> 4)
        if o + 1 < size:
            w[o + 1] = ((b & 15) << 4) | (c >> 2)
        elif b & 15:
            decline()  # non-zero bits under the padding: not canonical
        if o + 2 < size:
            w[o + 2] = ((c & 3) << 6) | d
        elif o + 1 < size and c & 3:
            decline()
        o += 3
    return out


# -- values --------------------------------------------------------------------------------

cdef object int_value(Token *tok):
    """A T_INT token as Python's exact int."""
    if not tok.negative:
        return PyLong_FromUnsignedLongLong(tok.magnitude)
    if tok.magnitude <= INT64_MAX:
        return PyLong_FromLongLong(-<int64_t>tok.magnitude)
    return PyLong_FromLongLong(<int64_t>(-INT64_MAX - 1))  # -2**63, the one beyond


cdef object signed_value(Token *tok):
    if tok.kind != T_INT or (not tok.negative and tok.magnitude > INT64_MAX):
        decline()
    return int_value(tok)


cdef object unsigned_value(Token *tok):
    if tok.kind != T_INT or tok.negative:
        decline()
    return PyLong_FromUnsignedLongLong(tok.magnitude)


cdef double number(Token *tok) except? -1.0:
    """``float(v)`` of a number token, which must be finite (a float64 column)."""
    cdef double x
    if tok.kind == T_FLOAT:
        x = tok.number
    elif tok.kind == T_INT:
        x = <double>tok.magnitude  # rounds to nearest even, as float(int) does
        if tok.negative:
            x = -x
    else:
        return decline()
    if not isfinite(x):
        decline()
    return x


cdef object scalar(const uint8_t *s, Token *tok):
    """A JSON scalar as Python's ``json`` (with gojson's -0) reads it."""
    if tok.kind == T_STRING:
        return text(s, tok)
    if tok.kind == T_INT:
        return int_value(tok)
    if tok.kind == T_FLOAT:
        return PyFloat_FromDouble(tok.number)
    if tok.kind == T_TRUE:
        return True
    if tok.kind == T_FALSE:
        return False
    return None


cdef object go_unquoted(bytes data):
    """``gojson.go_unquote`` of text whose UTF-8 bytes are ``data`` (Go's
    ``strconv.Unquote`` without the quotes): ``\\xNN``, octal and the short escapes here;
    text with ``\\u``/``\\U`` escapes goes to the Python function (its DecodeError
    declines). A raw quote or newline, or any other backslash, declines as Go refuses it."""
    cdef const uint8_t *p = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), i = 0, o = 0
    cdef bytes out = PyBytes_FromStringAndSize(NULL, n)  # no escape is shorter than its byte
    cdef uint8_t *w = <uint8_t *>PyBytes_AS_STRING(out)
    cdef uint8_t c
    cdef int hi, lo, value
    while i < n:
        c = p[i]
        i += 1
        if c == 34 or c == 10:
            decline()
        if c != 92:
            w[o] = c
            o += 1
            continue
        if i >= n:
            decline()
        c = p[i]
        i += 1
        if c == 120:  # \xNN
            if n - i < 2:
                decline()
            hi, lo = hex_digit(p[i]), hex_digit(p[i + 1])
            if hi < 0 or lo < 0:
                decline()
            w[o] = hi * 16 + lo
            i += 2
        elif 48 <= c <= 55:  # \NNN, at most \377
            if n - i < 2 or not 48 <= p[i] <= 55 or not 48 <= p[i + 1] <= 55:
                decline()
            value = (c - 48) * 64 + (p[i] - 48) * 8 + (p[i + 1] - 48)
            if value > 255:
                decline()
            w[o] = value
            i += 2
        elif c == 117 or c == 85:  # \u, \U: runes, rare in TiCDC's output
            return go_unquote(data.decode())
        else:
            value = QUOTE_ESCAPES[c]
            if value < 0:
                decline()
            w[o] = value
        o += 1
    return out[:o] if o < n else out


cdef signed char QUOTE_ESCAPES[256]
cdef int _quote_escapes_init():
    cdef int k
    for k in range(256):
        QUOTE_ESCAPES[k] = -1
    for k, v in zip(b"abfnrtv\\\"", b"\a\b\f\n\r\t\v\\\""):
        QUOTE_ESCAPES[k] = v
    return 0
_quote_escapes_init()


cdef extern from *:
    """
    /* object.__new__(cls) without the slot wrapper's argument parsing */
    static PyObject *wirespec_op_new(PyObject *cls) {
        static PyObject *no_args = NULL;
        if (no_args == NULL && (no_args = PyTuple_New(0)) == NULL) return NULL;
        return PyBaseObject_Type.tp_new((PyTypeObject *)cls, no_args, NULL);
    }
    """
    object new_instance "wirespec_op_new"(object cls)


cdef object new_column(object column, object name, object code, object flags, object value):
    """``column(name, code, flags, value)`` (the codec's ``Column`` class) without running
    the dataclass ``__init__`` (same attributes, set in field order)."""
    cdef object c = new_instance(column)
    c.name = name
    c.type = code
    c.flags = flags
    c.value = value
    if atomic(value):  # the rest are text and ints: atomic values only (slots.pxd)
        untrack(c)
    return c


# -- the plan ------------------------------------------------------------------------------

cdef class KeyRule:
    """One key of a flat JSON document: a row of ``OpenProtocol._field_plan``."""

    cdef object name, field, lo, hi, accepted
    cdef int kind  # 0 string, 1 bool, 2 integer
    cdef bint required

    def __init__(self, name, field, type_, required, lo, hi, accepted):
        self.name, self.field, self.required = name, field, required
        self.kind = 0 if type_ == "string" else 1 if type_ == "bool" else 2
        self.lo, self.hi, self.accepted = lo, hi, accepted


cdef list key_rules(tuple plan):
    return [KeyRule(*row) for row in plan]


cdef dict read_fields(list rules, dict obj):
    """The generated ``read_<document>`` (``read_event_key``, ``read_ddl_value``) over
    ``rules`` (``open_protocol_json._field_plan``): field -> value, or decline where it
    raises (the Python reader then raises it)."""
    cdef dict out = {}
    cdef KeyRule r
    for r in rules:
        v = obj.get(r.name)
        if v is None:
            if r.required:
                decline()
            v = False if r.kind == 1 else None
        elif r.kind == 0:
            if type(v) is not str:
                decline()
        elif r.kind == 1:
            if type(v) is not bool:
                decline()
        elif (type(v) is not int or not r.lo <= v <= r.hi
              or (r.accepted is not None and v not in r.accepted)):
            decline()
        out[r.field] = v
    return out


cdef enum:  # an event class's value document: no keys (the value is empty), scalars, rows
    BARE, FLAT, ROWS


cdef object make(model, tuple names, dict values):
    """``model`` of ``values`` by field name, made without ``__init__`` (a field no
    document gives: KeyError, declined)."""
    ev = new_instance(model)
    for name in names:
        setattr(ev, name, values[name])
    return ev


cdef class Plan:
    """The tables of one :class:`runtime.formats.open_protocol.OpenProtocol`, typed for C.

    ``message`` is the Message class, ``check_sections`` the codec's rule for which row
    sections go together (called only for updates and deletes)."""

    cdef uint8_t kinds[256]
    cdef int code_max
    cdef bytes t_name, f_name, v_name, h_name
    cdef uint64_t handle_bit, unsigned_bit, binary_bit, flags_max
    cdef list key_rules
    cdef dict classes  # the key's t -> (value shape, value rules, not carried, model, fields)
    cdef list sections  # (name bytes, field is new, JsonKey), in the row document's order
    cdef object message, check_sections, column

    def __init__(self, codec, message, check_sections):
        cdef int code
        if not 0 <= codec._code_max <= 255:
            raise ValueError("column type codes beyond u8")
        for code in range(256):
            self.kinds[code] = K_RAW
        for code, reading in codec._readings.items():
            self.kinds[code] = RENDERINGS[reading]  # KeyError: a reading not known here
        self.code_max = codec._code_max
        self.t_name, self.f_name, self.v_name = (
            _ascii(codec._t), _ascii(codec._f), _ascii(codec._v)
        )
        self.h_name = _ascii(codec._h) if codec._h is not None else None
        self.handle_bit, self.unsigned_bit = codec.handle_bit, codec.unsigned_bit
        self.column = codec.column
        self.binary_bit, self.flags_max = codec.binary_bit, codec._flags_max
        self.key_rules = key_rules(_field_plan(codec.key_doc))
        self.classes = {  # the spec's classes: (the generated EVENT_CLASSES); not carried:
            # the key members its events lack (events:), refused unless what omit: leaves out
            code: (ROWS if code in codec._rows else FLAT if doc.keys else BARE,
                   key_rules(_field_plan(doc)),
                   [(k.field, k.omit == "empty") for k in codec.key_doc.keys
                    if k.events and c.member.name not in k.events],
                   c.model, tuple(f.name for f in dataclasses.fields(c.model)))
            for code, c in codec.classes.items() for doc in [codec.documents[c.document]]
        }  # fmt: skip
        self.sections = [(_ascii(k.name), k.field == "new", k) for k in codec.row_doc.keys]
        if any(k.field not in ("new", "old") for k in codec.row_doc.keys):
            raise ValueError("a row section that is neither the new nor the old image")
        self.message, self.check_sections = message, check_sections

    def documents(self, list keys, list values):
        """The Message of the events whose key and value JSON documents are ``keys[i]``
        and ``values[i]`` (the lists the generated ``pair_from_kafka`` read by the spec's plans),
        or None: not the common form. ``documents([b'{"ts":1,"t":3}'], [b""])`` is a
        Message of ``[ResolvedEvent(commit_ts=1)]``."""
        cdef list events = []
        cdef bytes k, v
        cdef Py_ssize_t i
        try:
            for i in range(len(keys)):
                k, v = keys[i], values[i]
                events.append(self._event(<const uint8_t *>PyBytes_AS_STRING(k), 0,
                                          PyBytes_GET_SIZE(k),
                                          <const uint8_t *>PyBytes_AS_STRING(v), 0,
                                          PyBytes_GET_SIZE(v)))
        except Exception:  # a decline, and anything else: the Python reader decides
            return None
        return self.message(events, "tiflow", None)

    cdef object _event(self, const uint8_t *k, Py_ssize_t ks, Py_ssize_t ke,
                       const uint8_t *v, Py_ssize_t vs, Py_ssize_t ve):
        cdef dict fields = read_fields(self.key_rules, flat_object(k, ks, ke))
        shape, rules, not_carried, model, names = self.classes[fields["type"]]
        for field, omit_empty in not_carried:
            value = fields[field]
            if value is not None and (not omit_empty or value):
                decline()  # the generated key reader raises
        if shape == BARE:
            if ve != vs:
                decline()
            return make(model, names, fields)
        if shape == FLAT:
            return make(model, names, {**fields, **read_fields(rules, flat_object(v, vs, ve))})
        return make(model, names, self._row(fields, v, vs, ve))

    cdef dict _row(self, dict fields, const uint8_t *s, Py_ssize_t i, Py_ssize_t end):
        cdef object new = None, old = None, cols
        cdef list found = [None] * len(self.sections)
        cdef Token tok
        cdef Py_ssize_t at, n
        cdef bint closed
        i = expect(s, i, end, 123)  # {
        if i < end and s[i] == 125:  # }
            i += 1
        else:
            while True:
                if i >= end or s[i] != 34:
                    decline()
                i = scan_string(s, i, end, &tok)
                at = self._section(s, &tok)
                if found[at] is not None:
                    decline()  # a duplicate section
                i = expect(s, i, end, 58)  # :
                cols, i = self._columns(s, i, end)
                found[at] = cols
                i = next_member(s, i, end, &closed)
                if closed:
                    break
        if skip_ws(s, i, end) != end:
            decline()
        present = []
        for at in range(len(self.sections)):
            if found[at] is not None:
                name, is_new, jkey = self.sections[at]
                present.append(jkey)
                if is_new:
                    new = found[at]
                else:
                    old = found[at]
        if len(present) > 1 or new is None:
            try:
                self.check_sections(present, new)
            except Exception:
                decline()
        if new is None and old is None:
            new = []
        return {**fields, "new": new, "old": old}

    cdef Py_ssize_t _section(self, const uint8_t *s, Token *tok) except -1:
        cdef Py_ssize_t at
        cdef bytes name
        if not tok.escaped:
            for at in range(len(self.sections)):
                name = self.sections[at][0]
                if same_name(s, tok, name):
                    return at
        return decline()

    cdef tuple _columns(self, const uint8_t *s, Py_ssize_t i, Py_ssize_t end):
        """The column map at ``i``: ([Column], its end). What ``_tiflow_columns`` takes,
        with its result; anything else declines."""
        cdef list out = []
        cdef set seen = None
        cdef Token name_tok, t_tok, f_tok, v_tok, key_tok
        cdef bint closed
        cdef const uint8_t *prev = NULL
        cdef Py_ssize_t prev_n = 0, n, m
        cdef int have, bit, kind, code
        cdef uint64_t flags
        cdef bytes tn = self.t_name, fn = self.f_name, vn = self.v_name, hn = self.h_name
        if i >= end or s[i] != 123:
            decline()
        i = skip_ws(s, i + 1, end)
        if i < end and s[i] == 125:
            return out, i + 1
        while True:
            if i >= end or s[i] != 34:
                decline()
            i = scan_string(s, i, end, &name_tok)
            name = text(s, &name_tok)
            # no duplicate names: tiflow's are sorted bytewise, which is checked as they
            # come; any other order (or an escaped name) is checked with a set
            n = name_tok.end - name_tok.start
            if seen is None:
                if name_tok.escaped:
                    seen = {c.name for c in out}
                elif prev != NULL:
                    m = memcmp(prev, s + name_tok.start, n if n < prev_n else prev_n)
                    if m > 0 or (m == 0 and prev_n >= n):
                        seen = {c.name for c in out}
                prev, prev_n = s + name_tok.start, n
            if seen is not None:
                if name in seen:
                    decline()
                seen.add(name)
            i = expect(s, i, end, 58)
            if i >= end or s[i] != 123:
                decline()
            i = skip_ws(s, i + 1, end)
            have = 0
            key_tok.start = key_tok.end = 0  # set by scan_string before any use
            if i < end and s[i] == 125:
                decline()  # an empty column object
            while True:
                if i >= end or s[i] != 34:
                    decline()
                i = scan_string(s, i, end, &key_tok)
                if key_tok.escaped:
                    decline()
                i = expect(s, i, end, 58)
                if same_name(s, &key_tok, tn):
                    bit, i = 1, scan_scalar(s, i, end, &t_tok)
                elif same_name(s, &key_tok, fn):
                    bit, i = 2, scan_scalar(s, i, end, &f_tok)
                elif same_name(s, &key_tok, vn):
                    bit, i = 4, scan_scalar(s, i, end, &v_tok)
                elif hn is not None and same_name(s, &key_tok, hn):
                    bit, i = 8, scan_literal(s, i, end, b"true", 4)
                else:
                    bit = decline()
                if have & bit:
                    decline()  # a duplicate key
                have |= bit
                i = next_member(s, i, end, &closed)
                if closed:
                    break
            if have & 7 != 7:
                decline()
            if (t_tok.kind != T_INT or t_tok.negative or t_tok.magnitude > <uint64_t>self.code_max
                    or f_tok.kind != T_INT or f_tok.negative or f_tok.magnitude > self.flags_max):
                decline()
            code = <int>t_tok.magnitude
            flags = f_tok.magnitude
            if have & 8 and not flags & self.handle_bit:
                decline()
            out.append(new_column(self.column, name, code, PyLong_FromUnsignedLongLong(flags),
                                  self._value(s, &v_tok, self.kinds[code], flags)))
            i = next_member(s, i, end, &closed)
            if closed:
                return out, i

    cdef object _value(self, const uint8_t *s, Token *tok, int kind, uint64_t flags):
        """A column's value by its reading (the generated ``read_column_value``, tiflow
        layout)."""
        cdef float single
        cdef double x
        if tok.kind == T_NULL:
            return None
        if kind == K_INT:
            if tok.kind == T_STRING:
                return text(s, tok)
            if flags & self.unsigned_bit:
                return unsigned_value(tok)
            return signed_value(tok)
        if kind == K_SINT:
            if tok.kind == T_STRING:
                return text(s, tok)
            return signed_value(tok)
        if kind == K_UINT:
            return unsigned_value(tok)
        if kind == K_FLOAT64:
            return PyFloat_FromDouble(number(tok))
        if kind == K_FLOAT32:
            x = number(tok)
            single = <float>x  # Go's float32(x); struct.pack("<f") refuses overflow
            if isinf(single):
                decline()
            return PyFloat_FromDouble(<double>single)
        if tok.kind == T_TRUE or tok.kind == T_FALSE:
            decline()
        if kind == K_RAW:
            return scalar(s, tok)
        if tok.kind != T_STRING:
            decline()
        if kind == K_TEXT:
            return text(s, tok)
        if kind == K_BASE64:
            return base64_bytes(s, tok)
        data = utf8_bytes(s, tok)  # K_STRING
        if flags & self.binary_bit:
            return go_unquoted(data)  # strconv.Quote'd text
        return data


cdef inline bint same_name(const uint8_t *s, Token *tok, bytes name) noexcept:
    cdef Py_ssize_t n = PyBytes_GET_SIZE(name)
    return tok.end - tok.start == n and memcmp(s + tok.start, PyBytes_AS_STRING(name), n) == 0


cdef bytes _ascii(str name):
    return name.encode("ascii")


cdef dict flat_object(const uint8_t *s, Py_ssize_t i, Py_ssize_t end):
    """A JSON object of scalars (the key and DDL documents) as ``json`` reads it: the
    last of duplicate keys wins, as in Python's dict."""
    cdef dict out = {}
    cdef Token tok
    cdef bint closed
    i = expect(s, i, end, 123)
    if i < end and s[i] == 125:
        i += 1
    else:
        while True:
            if i >= end or s[i] != 34:
                decline()
            i = scan_string(s, i, end, &tok)
            name = text(s, &tok)
            i = expect(s, i, end, 58)
            i = scan_scalar(s, i, end, &tok)
            out[name] = scalar(s, &tok)
            i = next_member(s, i, end, &closed)
            if closed:
                break
    if skip_ws(s, i, end) != end:
        decline()
    return out
