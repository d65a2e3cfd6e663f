"""The contract every generated module keeps: ``parse``, ``build``, the JSON form and the Spark
rows of its records, made from the tables the module declares.

A generated module declares its records, readers, writers and row types, hands them to a
:class:`Contract` and exports its functions under the contract's names::

    _CONTRACT = rt_contract.Contract(globals(), records=RECORDS, fast_readers=FAST_READERS, ...)
    parse = _CONTRACT.parse

The functions belong to the module (``__module__``, ``__qualname__``): ``help()`` lists them
there and pickle sends them by reference (Spark ships ``parse`` to its workers that way).
``parse`` tries the tiers in order: the compiled readers (from C, when built), the Python quick
tier, then the exact fast path, which gives the model or the exact ``DecodeError``.

    >>> from construct import Int8ul
    >>> from runtime.core.limits import DEFAULT
    >>> from runtime.core.record import Record
    >>> tables = dict(fast_readers={}, quick_readers={}, fast_writers={}, row_iterators={})
    >>> contract = Contract(
    ...     {"__name__": "example"}, default_record="byte", limits=DEFAULT,
    ...     records={"byte": Record("value" / Int8ul)}, json_views={}, spark_rows={},
    ...     spark_paths={}, **tables,
    ... )
    >>> contract.parse(b"\\x07").value, contract.build({"value": 7})
    (7, b'\\x07')
    >>> contract.parse.__module__, contract.parse.__qualname__
    ('example', 'parse')
"""

# no ``from __future__ import annotations``: help() shows the annotations as the module did

import operator

from runtime.core import codec as rt_codec
from runtime.core import kept as rt_kept
from runtime.core import tier
from runtime.core import unknown_bytes as rt_unknown_bytes
from runtime.core.errors import WirespecError


def exported(fn, namespace: dict):
    """``fn`` as a function of the generated module whose ``namespace`` it is for (text run
    by ``exec`` in a bare namespace has no module name: its functions keep this module's)."""
    fn.__module__ = namespace.get("__name__", fn.__module__)
    fn.__qualname__ = fn.__name__
    return fn


def row_lists(module, record):
    """``rows(model)`` of the generated ``module``: the list of the rows its ``to_rows(model,
    record)`` yields, made without a generator (:meth:`Contract.row_lists`; a Thrift module's
    ``record`` may be None, its message), for a caller that converts message after message
    (``runtime.spark.decode.Codec.rows_function``). A generated module keeps its contract as
    ``_CONTRACT`` (see above): this is the way to it from outside the module.

    >>> import generated.msgpack as msgpack
    >>> model = msgpack.parse(b"\\x93\\x01\\x02\\x03")
    >>> row_lists(msgpack, "stream")(model) == list(msgpack.to_rows(model, "stream"))
    True
    """
    return module._CONTRACT.row_lists(record)


def keeps_unknown_of(unknown_bytes: dict):
    """``keeps_unknown(model)`` of a generated module whose ``UNKNOWN_BYTES`` is
    ``unknown_bytes`` (shared by :class:`Contract` and Thrift's contract)."""

    def keeps_unknown(model) -> bool:
        """Whether a parsed model keeps bytes its spec does not know (unknown fields, records
        kept as they came), in it or in a model inside it: where, its ``UNKNOWN_BYTES`` says."""
        return rt_unknown_bytes.keeps_unknown(model, unknown_bytes)

    return keeps_unknown


class Contract:
    """The contract functions of the generated module whose globals are ``namespace``.

    Tables (each a dict keyed by record name): ``records`` the construct objects (the
    oracle), ``fast_readers``/``quick_readers``/``fast_writers`` the Python fast path,
    ``compiled_readers`` (``reader(data, limits)``, from ``compiled``, the module's compiled
    tier) and ``table_readers`` (``reader(data, limits dict)``, run from C by
    ``runtime._compiled.dispatch``) the compiled tier, ``row_iterators`` and
    ``table_row_iterators`` the records read one row element at a time, ``spark_rows`` and
    ``spark_paths`` the records whose rows are a field or a path. ``json_views``: model class
    -> {field -> view}. ``kafka``: the module's Kafka codec when a record is a Kafka message
    of several columns (``kafka_message``: its model class, ``kafka_records``: the records it
    reads, the message first, ``kafka_columns``: the columns). ``kept``: a model read from
    forms build writes otherwise keeps the message's bytes (``runtime.core.kept``).
    Per-record functions (``<record>_from_dict``, ``<record>_spark_type``) are found in
    ``namespace`` by name, the ``<record>_to_row`` ones once, when the module binds
    (:meth:`row_functions`)."""

    def __init__(
        self,
        namespace: dict,
        *,
        default_record: str,
        limits,
        records: dict,
        fast_readers: dict,
        quick_readers: dict,
        fast_writers: dict,
        row_iterators: dict,
        json_views: dict,
        spark_rows: dict,
        spark_paths: dict,
        compiled=None,
        compiled_readers: dict | None = None,
        table_readers: dict | None = None,
        table_row_iterators: dict | None = None,
        kafka=None,
        kafka_message: type | None = None,
        kafka_records: tuple = (),
        kafka_columns: tuple = (),
        kept: bool = False,
        unknown_bytes: dict | None = None,
    ):
        self.namespace = namespace
        self.default_record = default_record
        self.limits = limits
        self.records = records
        self.fast_readers = fast_readers
        self.quick_readers = quick_readers
        self.fast_writers = fast_writers
        self.row_iterators = row_iterators
        self.json_views = json_views
        self.spark_rows = spark_rows
        self.spark_paths = spark_paths
        self.compiled_readers = compiled_readers or {}
        self.table_readers = table_readers or {}
        self.table_row_iterators = table_row_iterators or {}
        self.kafka = kafka
        self.kafka_message = kafka_message
        self.kafka_records = kafka_records
        self.kafka_columns = kafka_columns
        self.unknown_bytes = unknown_bytes or {}
        self._row_functions = self.row_functions()
        # kept: a model read from forms build writes otherwise keeps the message's bytes
        parse = python_parse = self._parse(kept)
        if self.table_readers:
            dispatch = tier.compiled("runtime._compiled.dispatch")
            if dispatch is not None:  # tried first from C: no Python frame a message
                parse = dispatch.TablesFirst(parse, self.table_readers, default_record)
        if self.compiled_readers:  # tried first from C: no Python frame a message
            parse = compiled.parse_first(parse, default_record, limits)
        self.parse = parse
        for make in (
            self._parse_construct,
            self._build,
            self._build_construct,
            self._to_dict,
            self._from_dict,
            self._spark_schema,
            self._to_rows,
            self._iter_rows,
            self._keeps_unknown,
        ):
            fn = exported(make(), self.namespace)
            setattr(self, fn.__name__, fn)
        if kept:
            construct = exported(rt_kept.keeping(self.parse_construct), namespace)
            self.parse_construct = construct
            to_dict, from_dict = self.to_dict, self.from_dict

            def values(model, record):  # what build sees of a model: computed fields left out
                return from_dict(to_dict(model), record)

            self.build = exported(
                rt_kept.writing_kept(self.build, python_parse, default_record, values), namespace
            )
            self.build_construct = exported(
                rt_kept.writing_kept(self.build_construct, construct, default_record, values),
                namespace,
            )

    def check_record(self, record: str) -> None:
        """Refuse a record the module does not have, naming the ones it has."""
        if record not in self.records:
            name = self.namespace.get("FORMAT", self.namespace.get("__name__"))
            raise WirespecError(
                f"{name} has no record {record!r}; records: {', '.join(self.records)}"
            )

    def _kafka_only(self, record: str) -> bool:
        """Whether ``record`` is a Kafka message of several columns, read only as a pair."""
        return bool(self.kafka_records) and record == self.kafka_records[0]

    def _parse(self, kept: bool):
        default_record, defaults = self.default_record, self.limits
        records, fast_readers, quick_readers = self.records, self.fast_readers, self.quick_readers
        compiled_readers, table_readers = self.compiled_readers, self.table_readers
        kafka_only, columns = self._kafka_only, " + ".join(self.kafka_columns)
        parse_fast, Limits, check = rt_codec.parse_fast, rt_codec.Limits, self.check_record
        readable = rt_codec.readable_bytes
        seen = rt_kept.SEEN

        def parse(data: bytes, record: str = default_record, **limits):
            """Decode ``data`` as one ``record``; raises ``runtime.DecodeError`` on bad bytes."""
            if columns and kafka_only(record):
                raise rt_codec.DecodeError(f"a {record} is {columns}: use parse_pair()", offset=0)
            quick = quick_readers.get(record)
            if compiled_readers:
                compiled = compiled_readers.get(record)
                if compiled is not None:
                    if type(data) is not bytes:  # what the Python readers read (kept, a copy)
                        data = readable(data)
                    model = compiled(
                        data, Limits.from_kwargs(limits, defaults) if limits else defaults
                    )
                    if model is not None:
                        return model
                    quick = None  # it takes what the quick tier takes: the exact reader decides
            if table_readers:
                compiled = table_readers.get(record)
                if compiled is not None:
                    model = compiled(data, limits)  # None: declined, the Python readers decide
                    if model is not None:
                        return model
            if kept:  # the notes this reading makes (the compiled readers decline the forms)
                before = seen.count
            reader = fast_readers.get(record)
            if reader is None:
                check(record)
                model = rt_codec.parse(records[record], data, limits, defaults=defaults)
            else:
                model = parse_fast(reader, data, limits, defaults, quick)
            if kept and seen.count != before:
                rt_kept.keep(model, data)
            return model

        return exported(parse, self.namespace)

    def _parse_construct(self):
        records, defaults, check = self.records, self.limits, self.check_record

        def parse_construct(data: bytes, record: str = self.default_record, **limits):
            """:func:`parse` through the construct objects: the oracle the fast path is held to."""
            check(record)
            return rt_codec.parse(records[record], data, limits, defaults=defaults)

        return parse_construct

    def _build(self):
        records, fast_writers, check = self.records, self.fast_writers, self.check_record
        defaults = self.limits
        kafka_only, columns = self._kafka_only, " + ".join(self.kafka_columns)

        def build(model, record: str = self.default_record) -> bytes:
            """Encode a model; raises ``runtime.EncodeError`` if it cannot be written."""
            if columns and kafka_only(record):
                raise rt_codec.EncodeError(f"a {record} is {columns}: use build_pair()")
            writer = fast_writers.get(record)
            if writer is None:
                check(record)
                return rt_codec.build(records[record], model, defaults)
            return rt_codec.build_fast(writer, records[record], model, defaults)

        return build

    def _build_construct(self):
        records, check, defaults = self.records, self.check_record, self.limits

        def build_construct(model, record: str = self.default_record) -> bytes:
            """:func:`build` through the construct objects: the oracle the fast path is held to."""
            check(record)
            return rt_codec.build(records[record], model, defaults)

        return build_construct

    def _to_dict(self):
        views, kafka, message = self.json_views, self.kafka, self.kafka_message

        def to_dict(model) -> dict:
            """The stable JSON form of a model (bytes as ``{"$hex": ...}``, readable fields
            through ``JSON_VIEWS``)."""
            if message is not None and isinstance(model, message):
                return kafka.to_dict(model)
            return rt_codec.to_jsonable(model, views)

        return to_dict

    def _from_dict(self):
        namespace, kafka, kafka_records = self.namespace, self.kafka, self.kafka_records
        check = self.check_record

        def from_dict(d: dict, record: str = self.default_record):
            """The model of a JSON form made by :func:`to_dict`."""
            check(record)
            converter = (
                kafka.from_dict if record in kafka_records else namespace[f"{record}_from_dict"]
            )
            return rt_codec.from_jsonable_checked(converter, d)

        return from_dict

    def _spark_schema(self):
        namespace, kafka, kafka_records = self.namespace, self.kafka, self.kafka_records
        spark_rows, spark_paths, check = self.spark_rows, self.spark_paths, self.check_record

        def spark_schema(record: str = self.default_record):
            """The Spark schema of the rows :func:`to_rows` yields."""
            check(record)
            if record in kafka_records:
                return kafka.spark_schema()
            if record in spark_paths:
                return spark_paths[record][0]()
            _, row_record = spark_rows.get(record, (None, record))
            return namespace[f"{row_record}_spark_type"]()

        return spark_schema

    def row_functions(self) -> tuple[dict, dict]:
        """``(one, many)``, looked up once when the module binds: ``one`` maps a record whose
        model is its one row to its ``<record>_to_row``; ``many`` maps a record of several rows
        to ``(items_of, to_row)``, its rows being ``to_row`` of each of ``items_of(model)``
        (its ``spark: {row: ...}`` field), or ``items_of(model)`` itself when ``to_row`` is
        None (a Kafka message's or a row path's generator). A record in neither has no row
        function in the module.

        >>> import dataclasses
        >>> @dataclasses.dataclass
        ... class Pair:
        ...     items: list
        >>> tables = dict(fast_readers={}, quick_readers={}, fast_writers={}, row_iterators={})
        >>> namespace = {"__name__": "example", "item_to_row": lambda m: (m,)}
        >>> contract = Contract(
        ...     namespace, default_record="pair", limits=None, records={"pair": 1, "item": 2},
        ...     json_views={}, spark_rows={"pair": ("items", "item")}, spark_paths={}, **tables,
        ... )
        >>> one, many = contract.row_functions()
        >>> list(one), list(many), list(contract.to_rows(Pair([1, 2])))
        (['item'], ['pair'], [(1,), (2,)])
        """
        namespace, spark_rows = self.namespace, self.spark_rows
        one, many = {}, {}
        for record in self.records:
            if record in self.kafka_records:
                many[record] = (self.kafka.to_rows, None)
            elif record in self.spark_paths:
                many[record] = (self.spark_paths[record][1], None)
            else:
                row_field, row_record = spark_rows.get(record, (None, record))
                to_row = namespace.get(f"{row_record}_to_row")
                if to_row is None:
                    continue
                if row_field is None:
                    one[record] = to_row
                else:
                    many[record] = (operator.attrgetter(row_field), to_row)
        return one, many

    def row_lists(self, record: str):
        """``rows(model)``: the list of the rows ``to_rows(model, record)`` yields, made
        without a generator (``record``'s row function found once, here), for a caller that
        converts message after message (``runtime.spark.decode.Codec.rows_function``).

        >>> tables = dict(fast_readers={}, quick_readers={}, fast_writers={}, row_iterators={})
        >>> contract = Contract(
        ...     {"__name__": "example", "byte_to_row": lambda m: (m,)}, default_record="byte",
        ...     limits=None, records={"byte": 1}, json_views={}, spark_rows={}, spark_paths={},
        ...     **tables,
        ... )
        >>> contract.row_lists("byte")(7), list(contract.to_rows(7))
        ([(7,)], [(7,)])
        """
        one, many = self._row_functions
        to_row = one.get(record)
        if to_row is not None:
            return lambda model: [to_row(model)]
        items_of, to_row = many.get(record, (None, None))
        if to_row is not None:
            return lambda model: [to_row(item) for item in items_of(model)]
        to_rows = self.to_rows  # a generator's rows, or the error of a record without rows
        return lambda model: list(to_rows(model, record))

    def _to_rows(self):
        spark_rows, check = self.spark_rows, self.check_record
        one, many = self._row_functions

        def to_rows(model, record: str = self.default_record):
            """Yield the Spark rows of one decoded model, as tuples in schema order."""
            to_row = one.get(record)
            if to_row is not None:
                yield to_row(model)
                return
            found = many.get(record)
            if found is None:  # no such record, or one without rows: the error names it
                check(record)
                raise KeyError(f"{spark_rows.get(record, (None, record))[1]}_to_row")
            items_of, to_row = found
            if to_row is None:
                yield from items_of(model)
            else:
                for item in items_of(model):
                    yield to_row(item)

        return to_rows

    def _keeps_unknown(self):
        return keeps_unknown_of(self.unknown_bytes)

    def _iter_rows(self):
        namespace, defaults, row_iterators = self.namespace, self.limits, self.row_iterators
        table_row_iterators, check = self.table_row_iterators, self.check_record
        many = self._row_functions[1]

        def iter_rows(data: bytes, record: str = self.default_record, **limits):
            """Yield the Spark rows of ``data`` decoded as one ``record``: the rows
            ``to_rows(parse(data, record), record)`` yields, and its ``DecodeError`` (same offset and
            path), raised when the decode reaches the bad bytes. A record whose ``spark: {row: ...}``
            field is its last, a ``repeat: eos`` of records, is read one element at a time (the
            elements are not kept: memory is the input plus one element), and the limits apply to
            each element, not to the input (a binlog file of any size and event count streams
            through; ``max_message_bytes`` bounds one event); any other is parsed whole first."""
            rows = row_iterators.get(record)
            if rows is None:
                check(record)
                # the module's parse and to_rows by name, as its own code would call them
                model = namespace["parse"](data, record, **limits)
                yield from namespace["to_rows"](model, record)
                return
            to_row = many[record][1]
            compiled = table_row_iterators.get(record)
            items = compiled(data, limits) if compiled is not None else None
            if items is None:  # declined: the Python readers decide
                items = rt_codec.iter_fast(rows, data, limits, defaults)
            for item in items:
                yield to_row(item)

        return iter_rows
