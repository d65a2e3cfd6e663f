"""The contract of a generated Thrift module: ``parse``, ``parse_raw``, ``build``, the JSON form
and the Spark rows, made from the readers, writers and views the module declares.

It is :class:`runtime.core.contract.Contract` for Thrift, whose calls take more than a record:
``strings=`` (what invalid UTF-8 gives), ``body=`` (the struct a message's body decodes as)
and ``message`` as a record. A generated Thrift module declares its tables and exports the
functions under their names::

    _CONTRACT = rt_contract.ThriftContract(globals(), readers=_READERS, writers=_WRITERS, ...)
    parse = _CONTRACT.parse

The model, JSON and Spark functions of one struct are found in the module by name:
``_d_<struct>``/``_s_<struct>``/``_row_<struct>``, and ``_d_message``, ``_f_message``,
``_f_raw``, ``_s_message``, ``_row_message`` for messages. The compiled tier is the module's
``_LOOP`` (its typed loop over the field tables, or None), read per call as the module's own
readers read it.

    >>> import generated.thrift_compact as module
    >>> module.parse.__module__, module.parse.__qualname__
    ('generated.thrift_compact', 'parse')
    >>> module.parse(b"\\x00", "nope")
    Traceback (most recent call last):
    ...
    runtime.core.errors.WirespecError: thrift_compact has no record 'nope'; records: ...
"""

# no ``from __future__ import annotations``: help() shows the annotations as the module did

from runtime.core import codec as rt_codec
from runtime.core.contract import exported, keeps_unknown_of
from runtime.core.errors import EncodeError, WirespecError
from runtime.formats import thrift_compact as rt


class ThriftContract:
    """The contract functions of the generated Thrift module whose globals are ``namespace``.

    ``records``: record (a struct name or ``message``) -> its construct object;
    ``readers``/``writers``: record -> the Python reader, and model class name -> the writer; ``from_dict``: record -> the model of a JSON form;
    ``to_dict``: model class name -> its JSON form; ``message``: the module's ``Message`` class;
    ``struct_type``: the compact type of a struct, what a schemaless JSON form decodes as;
    ``unknown_bytes``: struct class -> {``"wire_layout"``: its test for unknown fields}
    (``keeps_unknown``, ``runtime.core.unknown_bytes``)."""

    def __init__(
        self,
        namespace: dict,
        *,
        format_name: str,
        default_record: str,
        limits: dict,
        records: dict,
        readers: dict,
        writers: dict,
        to_dict: dict,
        from_dict: dict,
        message: type,
        struct_type: int,
        unknown_bytes: dict | None = None,
    ):
        self.namespace = namespace
        self.format_name = format_name
        self.default_record = default_record
        self.limits = limits
        self.records = records
        self.readers = readers
        self.writers = writers
        self.to_dict_of = to_dict
        self.from_dict_of = from_dict
        self.message = message
        self.struct_type = struct_type
        self.unknown_bytes = unknown_bytes or {}
        for make in (
            self._parse,
            self._parse_raw,
            self._build,
            self._to_dict,
            self._from_dict,
            self._spark_schema,
            self._to_rows,
            self._keeps_unknown,
        ):
            fn = exported(make(), namespace)
            setattr(self, fn.__name__, fn)

    def check_record(self, record: str, body) -> None:
        """Refuse a record or a message body the module does not have."""
        if record not in self.records:
            names = ", ".join(self.records)
            raise WirespecError(f"{self.format_name} has no record {record!r}; records: {names}")
        if body is not None and body not in self.from_dict_of:
            raise WirespecError(f"{self.format_name} has no struct {body!r} for a message body")

    def options(self, limits: dict, strings: str = "strict", body: str | None = None):
        """The per-call options: the module's limits under the call's, and how to read."""
        return rt.Options.make({**self.limits, **limits}, strings, body)

    def _parse(self):
        check, options, readers, namespace = (
            self.check_record,
            self.options,
            self.readers,
            self.namespace,
        )

        def parse(
            data: bytes,
            record: str = self.default_record,
            *,
            strings: str = "strict",
            body: str | None = None,
            **limits,
        ):
            """Decode ``data`` as one ``record`` (a struct name or ``message``).

            ``strings``: what invalid UTF-8 in a string field gives (``strict``: DecodeError,
            ``replace``: U+FFFD, ``bytes``: the raw bytes). ``body``: the struct of a message's
            body (without it the body is a :class:`RawStruct`). Limits: see
            :class:`runtime.Limits`. Raises ``runtime.DecodeError`` (with offset and field path)
            on bad bytes.
            """
            check(record, body)
            cx = options(limits, strings, body)
            loop = namespace["_LOOP"]
            if loop is not None:  # the compiled tier: the same model, or None when not its case
                model = loop.parse(record, data, cx)
                if model is not None:
                    return model
            return rt.parse_with(readers[record], data, cx)

        return parse

    def _parse_raw(self):
        options, namespace = self.options, self.namespace

        def parse_raw(data: bytes, *, message: bool = False, **limits):
            """Decode any compact struct (or message) without a schema: field ids and wire
            types."""
            reader = namespace["_r_message" if message else "_r_raw"]
            return rt.parse_with(reader, data, options(limits, "bytes"))

        return parse_raw

    def _build(self):
        check, writers = self.check_record, self.writers
        namespace, format_name = self.namespace, self.format_name

        def build(model, record: str | None = None) -> bytes:
            """Encode a model (a struct dataclass, :class:`Message` or :class:`RawStruct`)."""
            name = type(model).__name__
            if record is not None:
                check(record, None)
                expected = "Message" if record == "message" else record
                if name != expected:
                    raise EncodeError(
                        f"expected a {expected} model for record {record!r}, got {name}"
                    )
            writer = writers.get(name)
            if writer is None or type(model) is not namespace.get(name):
                raise EncodeError(f"not a model of {format_name}: {name}")
            loop = namespace["_LOOP"]
            if loop is not None:  # the compiled tier: the same bytes, or None when not its case
                data = loop.build(name, model)
                if data is not None:
                    return data
            return rt.build_with(writer, model)

        return build

    def _to_dict(self):
        to_dict_of, namespace, message = self.to_dict_of, self.namespace, self.message

        def to_dict(model) -> dict:
            """The stable JSON form of a model (bytes as ``{"$hex": ...}``, big ints as
            strings)."""
            if isinstance(model, message):
                return namespace["_d_message"](model)
            return to_dict_of[type(model).__name__](model)

        return to_dict

    def _from_dict(self):
        check, from_dict_of, namespace = self.check_record, self.from_dict_of, self.namespace
        struct_type = self.struct_type

        def from_dict(
            d: dict, record: str = self.default_record, *, body: str | None = None, raw=False
        ):
            """The model of a JSON form made by :func:`to_dict` (``raw``: a schemaless
            struct)."""
            check(record, body)

            def convert(d):  # ``d``: what json_paths calls a converter's whole form
                if raw and "fields" in d:
                    return namespace["_f_raw"](d, struct_type)
                if record == "message":
                    return namespace["_f_message"](d, body)
                return from_dict_of[record](d)

            return rt_codec.from_jsonable_checked(convert, d)

        return from_dict

    def _spark_schema(self):
        check, namespace = self.check_record, self.namespace

        def spark_schema(record: str = self.default_record, *, body: str | None = None):
            """The Spark ``StructType`` of the rows :func:`to_rows` yields for ``record``."""
            check(record, body)
            if record == "message":
                return namespace["_s_message"](body)
            return namespace[f"_s_{record}"]()

        return spark_schema

    def row_of(self):
        """``row(model)``: the Spark row of one model (a :class:`message` or a struct), by
        the module's ``_row_<struct>`` functions, found by name once (they are defined
        before the contract)."""
        message, format_name = self.message, self.format_name
        row_message = self.namespace["_row_message"]
        by_name = {k[5:]: v for k, v in self.namespace.items() if k.startswith("_row_")}

        def row(model) -> tuple:
            if isinstance(model, message):
                return row_message(model)
            to_row = by_name.get(type(model).__name__)
            if to_row is None:
                raise WirespecError(f"not a model of {format_name}: {type(model).__name__}")
            return to_row(model)

        return row

    def row_lists(self, record: str | None):
        """``rows(model)``: the list of the rows ``to_rows(model, record)`` yields (the
        contract of ``runtime.core.contract.Contract.row_lists``), with no generator."""
        check, row = self.check_record, self.row_of()

        def rows(model) -> list:
            if record is not None:
                check(record, None)
            return [row(model)]

        return rows

    def _keeps_unknown(self):
        return keeps_unknown_of(self.unknown_bytes)

    def _to_rows(self):
        check, row = self.check_record, self.row_of()

        def to_rows(model, record: str | None = None):
            """Yield the Spark row (a tuple in schema order) of one decoded model."""
            if record is not None:
                check(record, None)
            yield row(model)

        return to_rows
