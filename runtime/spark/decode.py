"""Decode binary message columns into typed rows, the way ``from_protobuf`` does.

    >>> from runtime.spark import decode                      # doctest: +SKIP
    >>> rows = decode(kafka_df, "plainbuffer", mode="PERMISSIVE")   # doctest: +SKIP

Everything here works over the generated module contract (``parse``, ``to_rows``,
``spark_schema``, ``RECORDS``, ``DEFAULT_RECORD``), so a format works the moment its
``generated/<format>.py`` exists. One optional hook widens the input:

``SPARK_INPUT = ("key", "value")`` and ``parse_kafka(key, value, record, **limits)``
    Defined by formats whose messages need the Kafka key as well as the value (TiCDC Open
    Protocol). ``SPARK_INPUT`` names the Kafka columns one message is made of (default
    ``("value",)``); when it includes ``"key"``, :func:`decode` reads ``key_col`` too and
    calls ``parse_kafka`` instead of ``parse``, and the data source pairs ``<stem>.key``
    files with their value files.

The decoding itself (:class:`BatchDecoder`) turns a batch of messages into one Arrow
record batch: each message is parsed once, its ``to_rows`` are exploded, the input's
metadata columns are gathered with an Arrow ``take`` (exact types, no Python round trip),
and the decoded columns are built column-wise. The TiCDC formats skip the row tuples: their
columns, nested images included, are built straight from the events
(:func:`runtime.formats.ticdc_rows.arrow_columns`); with the compiled tier built, so do the other
shipped formats: their messages are read from the bytes into Arrow buffers by the compiled
tier's ``write_arrow`` (:meth:`Codec.arrow_reader`), with the same results. A user's spec
(rendered in memory, no compiled tier) goes through the row tuples. :func:`decode` runs it in
``mapInArrow``; the Python data source (:mod:`runtime.spark.source`) runs the same code per
file. What each step costs per event is measured by ``benchmarks/spark_ingest.py``
(benchmarks/README.md).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import importlib
import operator
from collections.abc import Sequence
from pathlib import Path

from runtime.core import contract as rt_contract
from runtime.core.errors import DecodeError, OptionError, WirespecError
from runtime.core.limits import LIMIT_NAMES, limits_from_options

CORRUPT_COL = "_corrupt_record"
ERROR_COL = "_error"
INDEX_COL = "_event_index"
"""The row's index within its message; null on the one row of an empty or corrupt record."""
MODES = ("FAILFAST", "PERMISSIVE")
RECORD_ERRORS = (WirespecError, ValueError, UnicodeError)
"""What bad bytes raise: a corrupt record in PERMISSIVE, the query's failure in FAILFAST."""
UNFIT_ERRORS = (ValueError, TypeError, OverflowError)
"""What pyarrow raises for a value its type does not hold (``ArrowInvalid`` is a ValueError)."""
RENAMED_PREFIX = "_input_"
"""Input columns whose names clash with decoded fields are passed through with this prefix."""


ARROW_READ = "read into Arrow"
"""``explode``'s items when the compiled tier wrote the rows straight into Arrow."""


class RecordDecodeError(WirespecError):
    """FAILFAST: one input record could not be decoded. Names the record and the offset."""


def check_mode(mode) -> str:
    """``mode`` upper-cased, or :class:`OptionError` when it is not one of :data:`MODES`."""
    if not isinstance(mode, str) or mode.upper() not in MODES:
        raise OptionError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    return mode.upper()


def format_options(fmt: str, options: dict, spec: str | None = None) -> dict:
    """The parse options of ``fmt`` (or of the module of option ``spec``) in ``options``:
    the limits (validated by :func:`runtime.core.limits.limits_from_options`) and the keyword
    options of the format's ``spark_schema`` (Thrift's ``body``). Any other name raises
    :class:`OptionError`."""
    mod = spec_module(*read_spec(fmt, spec)) if spec else load_module(fmt)
    keywords = _keywords(mod.spark_schema)
    unknown = [k for k in options if k.lower() not in LIMIT_NAMES and k not in keywords]
    if unknown:
        known = sorted(LIMIT_NAMES + tuple(keywords))
        raise OptionError(f"unknown option(s) {unknown} for {fmt}; known: {', '.join(known)}")
    return {**{k: v for k, v in options.items() if k in keywords}, **limits_from_options(options)}


def known_formats() -> list[str]:
    """The formats that have a generated module."""
    import generated

    return sorted(
        p.stem for p in Path(generated.__file__).parent.glob("*.py") if p.stem != "__init__"
    )


@functools.cache
def load_module(fmt: str):
    """``generated.<fmt>``."""
    if not fmt.isidentifier():
        raise OptionError(f"unknown format {fmt!r}")
    try:
        return importlib.import_module(f"generated.{fmt}")
    except ModuleNotFoundError as err:
        if err.name != f"generated.{fmt}":
            raise
    raise OptionError(f"unknown format {fmt!r}; known: {', '.join(known_formats())}")


THRIFT = "thrift_compact"
"""The format whose ``spec`` option also takes a ``.thrift`` IDL (any spec's ``format:``
takes its own YAML)."""


def read_spec(fmt: str, spec: str) -> tuple[str, str]:
    """``(spec text, absolute path)`` of option ``spec``: a spec YAML of format ``fmt`` (for
    Thrift, one from ``import-thrift``) as it is, or a ``.thrift`` IDL imported (its includes
    followed), here on the driver: the workers get the text and render it
    (:func:`spec_module`). Anything wrong is one line of :class:`OptionError`."""
    # Lazy, and only for this option: rendering a user's spec is the generator's work
    from generator.emit import user_spec
    from runtime.core.errors import SpecError

    path = Path(spec)
    if path.suffix == ".thrift" and fmt != THRIFT:
        raise OptionError(f"option spec: a .thrift IDL is for {THRIFT}, not {fmt}")
    if not path.is_file():
        raise OptionError(f"no spec file {spec}")
    try:
        text = user_spec.spec_text(path)
        declared = user_spec.answers_to(text, path)
        if fmt == THRIFT and declared != THRIFT:
            raise OptionError(f"{spec} is not a Thrift spec (no protocol: {THRIFT})")
        if declared != fmt:
            raise OptionError(f"{spec} is the spec of {declared!r}, not {fmt!r}")
        spec_module(text, str(path.resolve()))  # a spec that does not render fails here
    except SpecError as err:
        raise OptionError(_spec_error(spec, err)) from None
    except UnicodeDecodeError as err:
        raise OptionError(f"spec {spec}: not UTF-8 text (byte {err.start})") from None
    except OSError as err:  # an include that cannot be read
        raise OptionError(f"spec {spec}: cannot read {err.filename}: {err.strerror}") from None
    return text, str(path.resolve())


def _spec_error(spec: str, err) -> str:
    """The one line option ``spec`` says for the :class:`SpecError` ``err``: the spec as
    the caller named it once, with the line, when the error is in it (its loader names it
    by its file name); else the file it is in too (a ``.thrift`` include).

    >>> from runtime.core.errors import SpecError
    >>> _spec_error("my/x.yaml", SpecError("unknown key 'rwo'", file="x.yaml", line=3, key="a"))
    "spec my/x.yaml:3: a: unknown key 'rwo'"
    >>> _spec_error("my/a.thrift", SpecError("unknown type 'i3'", file="my/b.thrift", line=2))
    "spec my/a.thrift: my/b.thrift:2: unknown type 'i3'"
    """
    message = (err.message.splitlines() or [""])[0]
    where = spec if err.file in ("", spec, Path(spec).name) else f"{spec}: {err.file}"
    where += f":{err.line}" if err.line is not None else ""
    return ": ".join(part for part in (f"spec {where}", err.key, message) if part)


@functools.cache
def spec_module(text: str, path: str):
    """The module of a user's spec ``text``, rendered and run once per process (a
    worker renders it the first time a task needs it, then finds it here)."""
    # Lazy, and only for the spec option: the runtime does not import the generator else
    from generator.emit.user_spec import import_spec

    return import_spec(Path(path), text=text)


@dataclasses.dataclass(frozen=True)
class Codec:
    """One format and record, as the Spark glue uses it (picklable: names, and the text
    of a user's spec, never a module)."""

    format: str
    record: str
    limits: tuple = ()
    columns: tuple = ()
    """The decoded fields to keep, in schema order (empty: all of them)."""
    spec: str = ""
    """A user's spec (YAML text; option ``spec``), used instead of the generated module of
    :attr:`format`."""
    spec_path: str = ""
    """Where :attr:`spec` was read (for messages and the protocol spec beside it)."""

    @property
    def module(self):
        if self.spec:
            return spec_module(self.spec, self.spec_path)
        return load_module(self.format)

    @property
    def needs_key(self) -> bool:
        """Whether a message is the Kafka key and value (a keyed format's Kafka record; its
        other records, such as Open Protocol's claim-check object, are the value alone)."""
        mod = self.module
        keyed = "key" in getattr(mod, "SPARK_INPUT", ("value",)) and hasattr(mod, "parse_kafka")
        return keyed and self.record == getattr(mod, "KAFKA_RECORD", self.record)

    def full_schema(self):
        """The module's ``spark_schema(record)``; options that also shape the schema (the
        keyword parameters of ``spark_schema``, e.g. Thrift's ``body=STRUCT``) go to it as
        well as to ``parse``."""
        fn = self.module.spark_schema
        return fn(self.record, **{k: v for k, v in self.limits if k in _keywords(fn)})

    def schema(self):
        """:meth:`full_schema`, only the kept :attr:`columns`."""
        from pyspark.sql.types import StructType

        full = self.full_schema()
        return StructType([full[n] for n in self.columns]) if self.columns else full

    def columnar(self):
        """``(events_of(model), build(events, arrow_fields))`` when this record's rows are
        TiCDC events (its schema is :func:`runtime.formats.ticdc_rows.spark_schema`, one row per event of
        the message): the decoder then builds the Arrow columns straight from the events
        (:func:`runtime.formats.ticdc_rows.arrow_columns`) instead of through the row tuples. None for
        other formats: their rows are ``to_rows`` tuples, converted column by column."""
        from runtime.formats import ticdc_rows

        if self.full_schema() != ticdc_rows.spark_schema():
            return None
        return operator.attrgetter("events"), ticdc_rows.arrow_columns

    def model(self, key, value):
        """The parsed model of one message (raises :class:`WirespecError` on bad bytes)."""
        mod = self.module
        if value is None:
            raise WirespecError("the message value is null")
        limits = dict(self.limits)
        if self.needs_key:
            return mod.parse_kafka(key, value, self.record, **limits)
        return mod.parse(value, self.record, **limits)

    def rows(self, key, value) -> list[tuple]:
        """The Spark rows of one message, every field (raises :class:`WirespecError`)."""
        return self.rows_of(self.model(key, value))

    def rows_function(self):
        """:meth:`rows` with the module, its functions and the limits looked up once, for
        a caller that decodes message after message (:class:`BatchDecoder`)."""
        record, limits, mod = self.record, dict(self.limits), self.module
        parse = mod.parse_kafka if self.needs_key else mod.parse
        keyed, rows_of = self.needs_key, rt_contract.row_lists(mod, record)

        def rows(key, value) -> list[tuple]:
            if value is None:
                raise WirespecError("the message value is null")
            model = parse(key, value, record, **limits) if keyed else parse(value, record, **limits)
            return rows_of(model)

        return rows

    def rows_of(self, model) -> list[tuple]:
        """The Spark rows of one parsed message."""
        return list(self.module.to_rows(model, self.record))

    def arrow_reader(self, fields):
        """``(write_arrow, record, builder, limits)`` when the compiled tier reads this
        record's bytes straight into Arrow (``generated/_compiled/<format>.pyx``'s
        ``write_arrow``, or protobuf's: no models, no rows) as the Arrow ``fields`` (the
        kept columns): ``builder`` is a struct of every column of the record (the kept ones
        are picked from it, :attr:`keep`), ``limits`` the
        :class:`runtime.core.limits.Limits` of :attr:`limits`. None when it is not built,
        for a user's spec or keyed records, or columns it does not write."""
        from runtime.core import tier

        arrow = tier.compiled("runtime._compiled.arrow")
        if arrow is None or self.spec or self.needs_key:
            return None
        if self.columnar() is not None or self.record not in _arrow_records(self.format):
            return None
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_schema

        from runtime.core.limits import Limits

        kept = {f.name: f for f in fields}
        every = to_arrow_schema(self.full_schema(), timezone="UTC")
        try:
            builder = arrow.builder_for(pa.struct([kept.get(f.name, f) for f in every]))
        except TypeError:  # a column type the builders do not make
            return None
        mod = self.module
        limits = Limits.from_kwargs({k: v for k, v in self.limits if k in LIMIT_NAMES}, mod._LIMITS)
        write = _arrow_source(self.format)[0]
        try:  # columns it does not write raise here, once
            write(self.record, pa.array([], pa.binary()), 0, 0, builder, [], limits)
        except TypeError:
            return None
        return write, self.record, builder, limits

    @functools.cached_property
    def keep(self) -> list[int]:
        """The positions of the kept :attr:`columns` in a row of :meth:`rows`."""
        full = self.full_schema().names
        return [full.index(n) for n in self.schema().names]

    @property
    def one_row(self) -> bool:
        """Whether every message of this record is exactly one row: the record is not one
        whose elements explode (a spec's ``spark: {row: ...}`` records, the generated
        module's ``_SPARK_ROWS`` and ``_SPARK_PATHS``), nor a keyed format's Kafka record,
        nor TiCDC events. A Thrift module, generated from IDL, has no exploding records."""
        if self.needs_key or self.columnar() is not None:
            return False
        exploding = (getattr(self.module, name, {}) for name in ("_SPARK_ROWS", "_SPARK_PATHS"))
        return not any(self.record in records for records in exploding)


@functools.cache
def _arrow_source(fmt: str) -> tuple:
    """``(write_arrow, records)``: what writes ``fmt``'s messages from bytes into Arrow and
    which records it takes: the ``write_arrow`` of ``generated/_compiled/<fmt>.pyx``, or for
    ``layout: protobuf`` messages the one over the protobuf reader's tables
    (``runtime/_compiled/protobuf_arrow.pyx``); ``(None, frozenset())`` when neither is built."""
    from runtime.core import tier

    compiled = tier.compiled(f"generated._compiled.{fmt}")
    bind = getattr(compiled, "bind_arrow", None)
    if bind is not None:
        return compiled.write_arrow, bind(vars(load_module(fmt)))
    tables = tier.compiled("runtime._compiled.protobuf_arrow")
    if tables is not None:
        reader = tables.ProtobufArrow(getattr(load_module(fmt), "RECORDS", {}))
        if reader.records:
            return reader.write_arrow, reader.records
    return None, frozenset()


def _arrow_records(fmt: str) -> frozenset:
    """The records whose Arrow columns ``fmt``'s compiled tier writes from bytes."""
    return _arrow_source(fmt)[1]


@functools.cache
def _keywords(fn) -> frozenset:
    import inspect

    params = inspect.signature(fn).parameters.values()
    return frozenset(p.name for p in params if p.kind is p.KEYWORD_ONLY)


def codec(
    fmt: str,
    record: str | None = None,
    limits: dict | None = None,
    columns=None,
    *,
    spec: str | None = None,
    struct: str | None = None,
) -> Codec:
    """The :class:`Codec` of ``fmt``; ``columns`` keeps only those decoded fields.

    ``spec`` is the path of your own spec YAML of format ``fmt`` (Thrift: or a ``.thrift``
    IDL), rendered in memory, on the driver and once per worker; nothing is generated into
    the repo. Thrift: ``struct`` is the struct of the payload: the record itself, or a message's body with
    ``record="message"`` (as ``wirespec decode --struct``)."""
    text, path = read_spec(fmt, spec) if spec is not None else ("", "")
    mod = spec_module(text, path) if text else load_module(fmt)
    limits = dict(limits or {})
    if struct is not None:
        structs = [r for r in mod.RECORDS if r != "message"]
        if not hasattr(mod, "parse_raw"):
            raise OptionError(f"option struct is for Thrift formats; {fmt} has record")
        if struct not in structs:
            raise OptionError(f"{fmt} has no struct {struct!r}; structs: {', '.join(structs)}")
        if record == "message":
            limits["body"] = struct
        elif record in (None, struct):
            record = struct
        else:
            raise OptionError(
                f"record {record} and struct {struct} disagree: struct is the payload's "
                f"struct (a message's body with record message)"
            )
    record = record or mod.DEFAULT_RECORD
    if record not in mod.RECORDS:
        raise OptionError(f"{fmt} has no record {record!r}; records: {', '.join(mod.RECORDS)}")
    c = Codec(fmt, record, tuple(sorted(limits.items())), spec=text, spec_path=path)
    if columns:
        names = c.full_schema().names
        unknown = [n for n in columns if n not in names]
        if unknown:
            raise OptionError(f"{fmt} {record} has no field {unknown}; fields: {', '.join(names)}")
        c = dataclasses.replace(c, columns=tuple(n for n in names if n in columns))
    return c


def output_schema(input_schema, codec_: Codec, mode: str, consumed: Sequence[str], index_col=None):
    """The schema :func:`decode` returns and the renames of clashing input columns.

    Input columns other than ``consumed`` come first (renamed ``_input_<name>`` if a
    decoded field has the same name), then ``index_col`` if asked for, then the decoded
    fields (nullable: an empty record's row has them null, as a corrupt record's), then
    ``_corrupt_record`` and ``_error`` in PERMISSIVE."""
    from pyspark.sql.types import BinaryType, IntegerType, StringType, StructField, StructType

    decoded = codec_.schema()
    permissive = mode == "PERMISSIVE"
    taken = set(decoded.names) | ({CORRUPT_COL, ERROR_COL} if permissive else set())
    if index_col:
        taken.add(index_col)
    fields, renames = [], {}
    for f in input_schema.fields:
        if f.name in consumed:
            continue
        name = RENAMED_PREFIX + f.name if f.name in taken else f.name
        renames[f.name] = name
        fields.append(StructField(name, f.dataType, f.nullable))
    if index_col:
        fields.append(StructField(index_col, IntegerType(), True))
    for f in decoded.fields:
        fields.append(StructField(f.name, f.dataType, True))
    if permissive:
        fields.append(StructField(CORRUPT_COL, BinaryType(), True))
        fields.append(StructField(ERROR_COL, StringType(), True))
    return StructType(fields), renames


DESCRIBED_BY = (("topic", "partition", "offset"), ("_source_file", "_position"))
"""The input columns that name a record in FAILFAST's message, the first group present."""


def _error_parts(err: Exception) -> tuple:
    """``(offset or None, field path, message)`` of a record's error."""
    path = getattr(err, "path", "") or "<message>"
    return getattr(err, "offset", None), path, getattr(err, "message", None) or str(err)


def failure_message(fmt: str, meta: dict, err: Exception) -> str:
    """FAILFAST's one line: the record (``meta``: its topic/partition/offset or file and
    position, when known), the byte offset, the field path and what was wrong."""
    offset, path, message = _error_parts(err)
    where = f"byte offset {offset}" if offset is not None else "byte offset unknown"
    record = "a record"
    for names in DESCRIBED_BY:  # ``topic=t partition=0 offset=42``, or file and position
        parts = [f"{n}={meta[n]}" for n in names if meta.get(n) is not None]
        if parts:
            record = "record " + " ".join(parts)
            break
    return f"cannot decode {fmt} {record}: {where}, field {path}: {message}"


class BatchDecoder:
    """Decodes Arrow batches of messages into Arrow batches of rows (runs on workers).

    ``passthrough`` lists the input column names that are copied to the output, in
    order; ``out_schema`` is the Spark schema from :func:`output_schema`."""

    def __init__(
        self,
        codec_: Codec,
        out_schema,
        *,
        value_col: str = "value",
        key_col: str | None = None,
        mode: str = "FAILFAST",
        passthrough: Sequence[str] = (),
        index_col: str | None = None,
    ):
        from pyspark.sql.pandas.types import to_arrow_schema

        self.codec = codec_
        self.value_col, self.key_col, self.mode = value_col, key_col, mode
        self.passthrough = list(passthrough)
        self.index_col = index_col
        # Timestamps are instants: Arrow carries them as UTC, as pyspark's workers expect
        self.arrow_schema = to_arrow_schema(out_schema, timezone="UTC")
        start = len(self.passthrough) + (1 if index_col else 0)
        self.decoded_fields = list(self.arrow_schema)[start : start + len(codec_.schema())]
        self.keep = codec_.keep
        self.columnar = codec_.columnar()
        is_codec = isinstance(codec_, Codec)
        self.reader = codec_.arrow_reader(self.decoded_fields) if is_codec else None
        """``(write_arrow, record, builder, limits)`` when bytes go straight into Arrow
        (:meth:`explode_read`)."""
        self.stats = {"records": 0, "rows": 0, "corrupt": 0}

    def decode(self, batch, errors=None):
        """One output ``pyarrow.RecordBatch`` for one input batch (or table).

        ``errors`` maps input row numbers to errors found before decoding (a frame that
        runs past the end of its file, say): those rows are corrupt records as they are."""
        # The batch's rows (or events) stay alive until its arrays are built: that many
        # tracked objects made the cyclic GC rescan them over and over (measured: a quarter
        # of the decoding time for 16-event Craft messages). Decoding makes no cycles.
        with self.gc_paused():
            return self._decode(batch, errors)

    @staticmethod
    @contextlib.contextmanager
    def gc_paused():
        """No cyclic GC inside: see :meth:`decode`."""
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            yield
        finally:
            if was_enabled:
                gc.enable()

    def explode(self, batch, errors=None):
        """``(items, counts, corrupt)`` of one input batch: the rows (tuples) or events of
        its good records in order, how many each record has (0 for an empty or a corrupt
        record), and ``{input row: (raw bytes, error text)}`` of the corrupt ones
        (PERMISSIVE; FAILFAST raises :class:`RecordDecodeError` instead).

        With the compiled tier's Arrow reader (:attr:`reader`) the rows go into its columns
        instead (:meth:`explode_read`); a batch it hands back whole (a row the columns do not
        take) is decoded here, the Python way."""
        if self.reader is not None:
            read = self.explode_read(batch, errors)
            if read is not None:
                return read
        values = batch.column(self.value_col).to_pylist()
        keys = batch.column(self.key_col).to_pylist() if self.key_col else None
        codec_ = self.codec
        if self.columnar is not None:
            events_of = self.columnar[0]

            def items_of(key, value):
                return events_of(codec_.model(key, value))

        else:
            items_of = codec_.rows_function() if isinstance(codec_, Codec) else codec_.rows

        items: list = []
        counts: list[int] = []
        corrupt: dict[int, tuple] = {}
        for i, value in enumerate(values):
            key = keys[i] if keys is not None else None
            try:
                if errors and i in errors:
                    raise errors[i]
                got = items_of(key, value)
            except RECORD_ERRORS as err:
                self.bad_record(batch, i, value, err, corrupt, counts)
                continue
            items.extend(got)
            counts.append(len(got))
        self.stats["records"] += len(values)
        self.stats["rows"] += sum(counts)
        self.stats["corrupt"] += len(corrupt)
        return items, counts, corrupt

    def bad_record(self, batch, i, value, err, corrupt, counts) -> None:
        """Input row ``i`` does not decode: FAILFAST raises :class:`RecordDecodeError`
        naming it, PERMISSIVE notes it in ``corrupt`` (its one row, no decoded fields)."""
        if self.mode != "PERMISSIVE":
            names = batch.schema.names
            described = [c for group in DESCRIBED_BY for c in group if c in names]
            meta = {c: batch.column(c)[i].as_py() for c in described}
            raise RecordDecodeError(failure_message(self.codec.format, meta, err)) from err
        corrupt[i] = (value, error_text(err))
        counts.append(0)

    def explode_read(self, batch, errors=None):
        """:meth:`explode` with the compiled tier reading the bytes straight into Arrow
        (:attr:`reader`; ``items`` is then :data:`ARROW_READ`): no model, no row tuple, and
        the messages read where the input column's buffers hold them (no bytes object a
        message, so a big message is held once). A message it does not take (one it
        declines, or an error found before) is decoded the Python way, its rows appended
        to the same columns, or it is the corrupt record as in :meth:`explode`. None
        (nothing written) when a row does not fit the columns: the caller then decodes the
        batch the other way."""
        import pyarrow as pa

        write, record, out, limits = self.reader
        counts: list[int] = []
        corrupt: dict[int, tuple] = {}
        stops = sorted(errors or ())
        out.clear()
        base = 0  # the batch's row number of the chunk's first message
        try:
            column = batch.column(self.value_col)
            if not (pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type)):
                column = column.cast(pa.binary())
            for chunk in column.chunks if isinstance(column, pa.ChunkedArray) else [column]:
                i, n = 0, len(chunk)
                while i < n:
                    stop = min(next((s for s in stops if s >= base + i), base + n) - base, n)
                    i = write(record, chunk, i, stop, out, counts, limits)
                    if i == n:
                        break
                    value = chunk[i].as_py()
                    try:
                        if errors and base + i in errors:
                            raise errors[base + i]
                        rows = self.codec.rows(None, value)
                    except RECORD_ERRORS as err:
                        self.bad_record(batch, base + i, value, err, corrupt, counts)
                        i += 1
                        continue
                    for row in rows:
                        out.append(row)
                    counts.append(len(rows))
                    i += 1
                base += n
        except RecordDecodeError:
            out.clear()
            raise
        except Exception:  # noqa: BLE001 - a row the columns do not take: the other way
            out.clear()
            return None
        self.stats["records"] += len(counts)
        self.stats["rows"] += sum(counts)
        self.stats["corrupt"] += len(corrupt)
        return ARROW_READ, counts, corrupt

    def decoded_arrays(self, items) -> list:
        """One Arrow array per kept decoded field, one element per item."""
        import pyarrow as pa

        if items is ARROW_READ:
            written = self.reader[2].finish()
            return [written.field(i) for i in self.keep]
        if self.columnar is not None:
            arrays = self.columnar[1](items, self.decoded_fields)
        else:
            columns = list(zip(*items)) if items else [[]] * len(self.codec.full_schema())
            arrays = [pa.array(columns[i], f.type) for i, f in zip(self.keep, self.decoded_fields)]
        return [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in arrays]

    def drop_unfit(self, batch, items, counts, corrupt) -> list:
        """``items`` without those of the records a Spark column cannot hold (a model's
        uint64 past a LongType, ...): each such record is corrupt, its error naming the
        column (FAILFAST raises it), so a batch is never failed by a pyarrow error."""
        fields = self.decoded_fields
        values = batch.column(self.value_col)
        kept, at = [], 0
        for i, n in enumerate(counts):
            mine, at = items[at : at + n], at + n
            unfit = next(((f, e) for f in fields if n and (e := self.unfit(mine, f))), None)
            if unfit is None:
                kept.extend(mine)
                continue
            self.stats["rows"] -= n
            self.stats["corrupt"] += 1
            field, reason = unfit
            err = DecodeError(f"the Spark column does not hold a value ({reason})", path=field.name)
            self.bad_record(batch, i, values[i].as_py(), err, corrupt, [])
            counts[i] = 0
        return kept

    def unfit(self, items, field) -> str | None:
        """Why ``field``'s Arrow type does not hold its values of ``items`` (rows or events);
        None when it does."""
        import pyarrow as pa

        try:
            if self.columnar is not None:
                self.columnar[1](items, [field])
            else:
                at = self.keep[self.decoded_fields.index(field)]
                pa.array([row[at] for row in items], field.type)
        except UNFIT_ERRORS as err:
            return str(err)
        return None

    def _decode(self, batch, errors):
        import pyarrow as pa

        items, counts, corrupt = self.explode(batch, errors)
        try:
            decoded = self.decoded_arrays(items)
        except UNFIT_ERRORS:
            if not isinstance(items, list):
                raise
            items = self.drop_unfit(batch, items, counts, corrupt)
            decoded = self.decoded_arrays(items)
        # Every record gives max(count, 1) rows: an empty or corrupt record gives one row
        # with null decoded fields, so input records = distinct records of the output.
        if 0 in counts:
            at, good = [], 0
            for n in counts:
                if n:
                    at.extend(range(good, good + n))
                    good += n
                else:
                    at.append(None)
            decoded = [a.take(pa.array(at, pa.int64())) for a in decoded]

        # one row per record (the common case): the input's columns as they are, no lists
        one_each = 0 not in counts and sum(counts) == len(counts)
        arrays = []
        if self.passthrough:
            taken = batch.select(self.passthrough)
            if not one_each:
                src = [i for i, n in enumerate(counts) for _ in range(max(n, 1))]
                taken = taken.take(pa.array(src, pa.int64()))
            arrays.extend(taken.columns if hasattr(taken, "columns") else taken.itercolumns())
        if self.index_col:
            if one_each:
                arrays.append(pa.repeat(pa.scalar(0, pa.int32()), len(counts)))
            else:
                index = [j for n in counts for j in (range(n) if n else (None,))]
                arrays.append(pa.array(index, pa.int32()))
        arrays.extend(decoded)
        if self.mode == "PERMISSIVE" and not corrupt:
            rows = sum(max(n, 1) for n in counts)
            arrays.extend([pa.nulls(rows, pa.binary()), pa.nulls(rows, pa.string())])
        elif self.mode == "PERMISSIVE":
            raw, text = [], []
            for i, n in enumerate(counts):
                bad_raw, bad_text = corrupt.get(i, (None, None))
                raw.extend([bad_raw] * max(n, 1))
                text.extend([bad_text] * max(n, 1))
            arrays.append(pa.array(raw, pa.binary()))
            arrays.append(pa.array(text, pa.string()))
        arrays = [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in arrays]
        arrays = [  # e.g. a passed-through timestamp labelled with another zone name
            a if a.type == f.type else a.cast(f.type) for a, f in zip(arrays, self.arrow_schema)
        ]
        return pa.RecordBatch.from_arrays(arrays, schema=self.arrow_schema)


def error_text(err: Exception) -> str:
    """PERMISSIVE's ``_error``: ``path at offset N: message``."""
    offset, path, message = _error_parts(err)
    return f"{path} at offset {'?' if offset is None else offset}: {message}"


def decode(
    df,
    format: str,
    value_col="value",
    key_col="key",
    mode="FAILFAST",
    *,
    record=None,
    index_col=INDEX_COL,
    columns=None,
    spec=None,
    struct=None,
    **options,
):
    """Rows of the records of ``df[value_col]``, with ``format``'s Spark schema: the
    DataFrame form of :func:`runtime.spark.functions.from_wirespec`, exploded, with the
    input's columns alongside.

    ``df`` is any DataFrame with a binary message column (Spark's Kafka source gives
    ``key, value, topic, partition, offset, timestamp``). Its other columns pass through
    (renamed ``_input_<name>`` if a decoded field has the same name); ``value_col`` is
    dropped, ``key_col`` too when the format consumes the key (``SPARK_INPUT``).

    Every input record gives rows or exactly one row, so input records = distinct records
    of the output, always:

    * a record with N >= 1 rows or events: N rows, ``index_col`` 0..N-1;
    * an empty record (it decodes, to zero rows or events): one row with ``index_col``
      null and every decoded field null (and ``_corrupt_record`` null);
    * a bad record: ``mode="FAILFAST"`` (default, as ``from_protobuf``) fails the query,
      naming the record (topic/partition/offset when present) and the byte offset;
      ``mode="PERMISSIVE"`` gives one row with ``index_col`` and the decoded fields null,
      ``_corrupt_record`` (the raw bytes) and ``_error``.

    Options: ``record`` (default: the format's default record), ``index_col`` (default
    ``_event_index``; None drops it, and an empty record's row is then only told by its
    null decoded fields), ``columns`` (the decoded fields to keep, e.g. ``["_op",
    "_commit_ts", "table"]``; the others are not built at all), every limit of
    :mod:`runtime.core.limits` (``max_count=5_000_000``), the format's schema options
    (Thrift's ``body``), and Thrift's ``spec`` (your spec YAML or ``.thrift`` IDL) and
    ``struct`` (see :func:`codec`). A bad mode, option name, limit, spec or struct raises
    :class:`OptionError`."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BinaryType

    mode = check_mode(mode)
    c = codec(format, record, format_options(format, options), columns, spec=spec, struct=struct)
    if value_col not in df.columns:
        raise OptionError(f"no column {value_col!r} in {df.columns}")
    use_key = c.needs_key
    if use_key and key_col not in df.columns:
        raise OptionError(f"{format} needs the message key too; no column {key_col!r}")
    for col in (value_col, key_col) if use_key else (value_col,):
        if not isinstance(df.schema[col].dataType, BinaryType):
            df = df.withColumn(col, F.col(col).cast("binary"))
    consumed = [value_col, key_col] if use_key else [value_col]
    out_schema, renames = output_schema(df.schema, c, mode, consumed, index_col)
    passthrough = list(renames)
    decoder_args = {
        "value_col": value_col,
        "key_col": key_col if use_key else None,
        "mode": mode,
        "passthrough": passthrough,
        "index_col": index_col,
    }

    def run(batches):
        decoder = BatchDecoder(c, out_schema, **decoder_args)
        for batch in batches:
            yield decoder.decode(batch)

    return df.mapInArrow(run, out_schema)
