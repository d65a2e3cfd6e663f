"""The ``wirespec`` Python data source: message files -> typed rows, batch and streaming.

    >>> register(spark)                                                # doctest: +SKIP
    >>> df = (spark.read.format("wirespec").option("format", "plainbuffer")
    ...       .option("mode", "PERMISSIVE").load("samples/plainbuffer"))  # doctest: +SKIP

``path`` is a file or a directory (read recursively; names starting with ``.`` or ``_``
are skipped); option ``paths`` takes a JSON list instead. Each file is one partition, and
its kind is detected, or set with option ``inputKind``:

``raw``        one message per file. A format that needs the Kafka key (``parse_kafka``)
               takes it from the sibling ``<stem>.key`` file (absent: null key).
``delimited``  length-delimited records: ``u32 big-endian length + message`` back to back;
               a keyed format writes ``u32 len + key`` then ``u32 len + value`` per record
               (length ``0xFFFFFFFF`` is a null key). Detected by the suffix ``.ldr``,
               ``.delimited`` or ``.records``, else when the frames tile the file exactly
               (and no ``<stem>.key`` sibling exists) and the whole file does not decode
               as one message; a file that reads both ways is raw when only the whole
               decodes cleanly, else refused, asking for ``inputKind``
               (:mod:`runtime.spark.input_kind`).
``binlog``     a framed file (a spec's ``framed:`` record, option ``binlogRecord``: a MySQL
               binlog), decoded record by record in bounded memory: each record is one
               input record (``_position``: its byte offset) and one row, or one corrupt
               record; the records after a bad one still land, framed by the size field of
               their headers (:func:`framed_records`).
``parquet``    Parquet files of the Kafka shape (``key``, ``value``, and metadata columns
               such as ``topic, partition, offset, timestamp``, which pass through).

Rows carry ``_source_file``, ``_position`` (byte offset of the record's frame, or its row
number in a Parquet file) and ``_event_index`` (the row's index within its message), then
the Kafka columns when Parquet inputs are read, then the format's fields. Every record
gives rows or one row, as :func:`runtime.spark.decode.decode` says: an empty record one
row with ``_event_index`` null, a bad one fails the query (``mode`` ``FAILFAST``, the
default) or is one row with ``_corrupt_record`` and ``_error`` (``PERMISSIVE``).
A framed file's records (a binlog's events) are its input records: limits apply to each.

Options (names case-insensitive): ``format`` (required), ``mode``, ``inputKind``,
``record``, ``binlogRecord``, ``paths``, every limit of :mod:`runtime.core.limits`
(``.option("max_count", "5000000")``), the format's schema options (Thrift's ``body``),
Thrift's ``spec`` (your spec YAML or ``.thrift`` IDL, rendered in memory) and ``struct``,
and for streaming ``maxFilesPerTrigger`` and ``rememberSeconds``. An unknown option or a
bad value fails the query's analysis with one line naming it.

Streaming (``spark.readStream.format("wirespec")``) watches the paths and reads each new
file once, in order of arrival. A file's arrival is its ``st_ctime``, which creating or
renaming it sets, so a file with an earlier name, or an old mtime (``rsync -a``, ``cp
-p``), arriving later is still read, in the next micro-batch. The offset holds the latest
arrival read, A, and the path, size and mtime of every file read that arrived at or after
``A - rememberSeconds`` (default 3600): its size is bounded by the files arriving within
that window, not by the stream's age. A file is new when it is not in that set and
arrived at or after ``A - rememberSeconds`` (the slack covers a file renamed in while a
listing runs, and clock steps).

Writers must create each file atomically: write it elsewhere (a dot- or
underscore-named file, or another directory on the same file system) and rename it into
the watched directory when complete (a keyed raw file's ``<stem>.key`` before its value
file), and never reuse a name. A file that is still being
written, or that changes after it was listed, would be read in part: the reader
therefore checks each file's size and mtime when it reads it and on every later listing
while it is remembered, and fails the query (:class:`ChangedFileError`, naming the file)
when they changed. A file changed after it was forgotten looks new and is read again.
``maxFilesPerTrigger`` limits a micro-batch; ``Trigger.AvailableNow`` reads the files
present when the query started, honouring that limit per batch. A checkpoint of the earlier
name-ordered reader (offset ``{"file": name}``) resumes: the files named up to it count as
read.
"""

from __future__ import annotations

import itertools
import json
import os
import struct
from pathlib import Path

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    InputPartition,
)

from runtime.core.errors import DecodeError, LimitError, OptionError, WirespecError
from runtime.core.limits import DEFAULT as DEFAULT_LIMITS
from runtime.spark.decode import (
    INDEX_COL,
    BatchDecoder,
    check_mode,
    codec,
    format_options,
    output_schema,
)
from runtime.spark.input_kind import KINDS, detect_kind, split_frames

try:  # Spark 4.2+
    from pyspark.sql.streaming.datasource import (
        ReadAllAvailable,
        ReadMaxFiles,
        SupportsTriggerAvailableNow,
    )
except ImportError:  # pragma: no cover - Spark 4.0/4.1
    ReadAllAvailable = ReadMaxFiles = None

    class SupportsTriggerAvailableNow:  # type: ignore[no-redef]
        pass


CHUNK = 4096
"""Records per Arrow batch a reader yields."""
SOURCE_OPTIONS = (
    "format",
    "mode",
    "inputkind",
    "path",
    "paths",
    "record",
    "binlogrecord",
    "maxfilespertrigger",
    "rememberseconds",
    "spec",
    "struct",
)
"""The data source's own options (lower case: Spark's option names are case-insensitive);
the limits and the format's schema options (Thrift's ``body``) come on top."""
DEFAULT_REMEMBER_SECONDS = 3600


def register(spark) -> None:
    """Register the ``wirespec`` data source with a session."""
    spark.dataSource.register(WirespecDataSource)


# -- files -------------------------------------------------------------------------------


def list_files(paths) -> list[tuple[str, str]]:
    """``(absolute path, name relative to its root)`` of every input file, sorted."""
    out = []
    for root in paths:
        root = Path(root)
        if root.is_file():
            out.append((str(root.resolve()), root.name))
            continue
        if not root.is_dir():
            raise FileNotFoundError(f"no such file or directory: {root}")
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "_")))
            for name in filenames:
                if name.startswith((".", "_")) or name.endswith((".key", ".crc")):
                    continue
                full = Path(dirpath) / name
                out.append((str(full.resolve()), str(full.relative_to(root))))
    return sorted(out, key=lambda f: (f[1], f[0]))


# -- the data source ------------------------------------------------------------------------


def positive_option(options: dict, name: str, default: int) -> int:
    """The whole number >= 1 of option ``name`` (``default`` when absent)."""
    value = options.get(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise OptionError(f"option {name} must be a whole number >= 1, got {value!r}")
    return number


class FilePartition(InputPartition):
    """One input file: its path, its name relative to its root, and its kind."""

    def __init__(self, path, name, kind):
        super().__init__((path, name, kind))
        self.path, self.name, self.kind = path, name, kind


class _Plan:
    """What every reader needs: the codec, the kinds, the schemas (made on the driver)."""

    def __init__(self, options):
        self.options = {str(k).lower(): v for k, v in dict(options).items()}
        fmt = self.options.get("format")
        if not fmt:
            raise OptionError('the wirespec data source needs .option("format", NAME)')
        self.mode = check_mode(self.options.get("mode", "FAILFAST"))
        self.kind = self.options.get("inputkind", "auto").lower()
        if self.kind not in KINDS + ("auto",):
            raise OptionError(
                f"inputKind must be one of {', '.join(KINDS)}, auto; got {self.kind!r}"
            )
        if "paths" in self.options:
            try:
                self.paths = json.loads(self.options["paths"])
            except json.JSONDecodeError:
                self.paths = None
            if not isinstance(self.paths, list) or not all(isinstance(p, str) for p in self.paths):
                raise OptionError(
                    f"paths must be a JSON list of strings, got {self.options['paths']!r}"
                )
        elif "path" in self.options:
            self.paths = [self.options["path"]]
        else:
            raise OptionError("give a path: .load(path) or .option('paths', json_list)")
        self.max_files = positive_option(self.options, "maxfilespertrigger", 0)
        self.remember_ns = (
            positive_option(self.options, "rememberseconds", DEFAULT_REMEMBER_SECONDS) * 10**9
        )
        spec = self.options.get("spec")
        parse_options = format_options(
            fmt, {k: v for k, v in self.options.items() if k not in SOURCE_OPTIONS}, spec
        )
        base = codec(
            fmt,
            self.options.get("record"),
            parse_options,
            spec=spec,
            struct=self.options.get("struct"),
        )
        self.codec = base
        self.keyed = base.needs_key
        self.consumed = ["key", "value"] if self.keyed else ["value"]
        """The input columns a message is made of (the others pass through)."""
        framed = getattr(base.module, "FRAMED_FILES", {})
        file_record = self.options.get("binlogrecord", next(iter(framed), None))
        self.framed_codec, self.magics = None, ()
        if file_record in framed:  # the file record a framed file (kind binlog) is read as
            self.framed_codec = codec(fmt, file_record, parse_options, spec=spec)
            self.magics = (framed[file_record]["magic"],)

    def files(self):
        return [(p, n, self.kind_of(p)) for p, n in list_files(self.paths)]

    def kind_of(self, path):
        if self.kind != "auto":
            return self.kind
        module = self.codec.module
        recognise = getattr(module, "detect_record", None)
        decode, keeps_unknown = self.codec.model, module.keeps_unknown
        return detect_kind(path, self.keyed, recognise, self.magics, decode, keeps_unknown)

    def codec_for(self, kind):
        if kind == "binlog":
            if self.framed_codec is None:
                raise ValueError(f"{self.codec.format} has no framed file record to read a binlog")
            return self.framed_codec
        return self.codec

    def input_schema(self, files):
        from pyspark.sql.types import BinaryType, LongType, StringType, StructField, StructType

        fields = [
            StructField("_source_file", StringType(), False),
            StructField("_position", LongType(), False),
        ]
        parquet = [p for p, _, k in files if k == "parquet"]
        if parquet:
            import pyarrow.parquet as pq
            from pyspark.sql.pandas.types import from_arrow_type

            for f in pq.read_schema(parquet[0]):
                if f.name not in ("key", "value", "_source_file", "_position"):
                    fields.append(StructField(f.name, from_arrow_type(f.type), True))
        if self.keyed:
            fields.append(StructField("key", BinaryType(), True))
        fields.append(StructField("value", BinaryType(), True))
        return StructType(fields)

    def schemas(self, files):
        kinds = {k for _, _, k in files}
        codec_ = self.codec_for("binlog") if "binlog" in kinds else self.codec
        mixed = "binlog" in kinds and kinds - {"binlog"}
        if mixed and self.codec.schema() != codec_.schema():
            raise ValueError(f"cannot mix binlog files with other kinds: {sorted(kinds)}")
        in_schema = self.input_schema(files)
        out, _ = output_schema(in_schema, codec_, self.mode, self.consumed, INDEX_COL)
        return in_schema, out


class WirespecDataSource(DataSource):
    """``spark.read.format("wirespec").option("format", F).load(path)``."""

    @classmethod
    def name(cls):
        return "wirespec"

    def _plan(self):
        if not hasattr(self, "_cached_plan"):
            self._cached_plan = _Plan(self.options)
        return self._cached_plan

    def schema(self):
        plan = self._plan()
        return plan.schemas(plan.files())[1]

    def reader(self, schema):
        return WirespecReader(self.options, schema)

    def streamReader(self, schema):
        return WirespecStreamReader(self.options, schema)


def read_file(plan: _Plan, part: FilePartition, in_schema, out_schema):
    """The output Arrow batches of one file."""
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_in = to_arrow_schema(in_schema)
    codec_, key_col = plan.codec_for(part.kind), "key" if plan.keyed else None
    if part.kind == "binlog":  # the records' rows come decoded ahead, found by position
        codec_, inputs = _framed_inputs(part, arrow_in, codec_)
        key_col = "_position"
    else:
        inputs = _records(plan, part, arrow_in)
    decoder = BatchDecoder(
        codec_,
        out_schema,
        value_col="value",
        key_col=key_col,
        mode=plan.mode,
        passthrough=[n for n in in_schema.names if n not in plan.consumed],
        index_col=INDEX_COL,
    )
    for batch, errors in inputs:
        yield decoder.decode(batch, errors)


def _input_batch(arrow_in, path, positions, values, keys=None):
    """One input batch of schema ``arrow_in``: the records of file ``path`` at ``positions``
    (its other columns null)."""
    import pyarrow as pa

    cols = {n: [None] * len(positions) for n in arrow_in.names}
    cols.update(_source_file=[path] * len(positions), _position=positions, value=values)
    if keys is not None:
        cols["key"] = keys
    return pa.RecordBatch.from_pydict(cols, schema=arrow_in)


def _records(plan, part, arrow_in):
    """(input batch, errors found before decoding) pairs of one file, in the input schema."""
    import pyarrow as pa

    def batch(rows, errors=None, values=None):
        keys = [r[1] for r in rows] if plan.keyed else None
        values = [r[2] for r in rows] if values is None else values
        return _input_batch(arrow_in, part.path, [r[0] for r in rows], values, keys), errors or {}

    if part.kind == "parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(part.path)
        n = table.num_rows
        cols = []
        for f in arrow_in:
            if f.name == "_source_file":
                cols.append(pa.array([part.path] * n, f.type))
            elif f.name == "_position":
                cols.append(pa.array(range(n), f.type))
            elif f.name in table.column_names:
                cols.append(table.column(f.name).cast(f.type))
            else:
                cols.append(pa.nulls(n, f.type))
        table = pa.Table.from_arrays(cols, schema=arrow_in).combine_chunks()
        for chunk in table.to_batches(max_chunksize=CHUNK):
            yield chunk, None
        return
    data = Path(part.path).read_bytes()
    if part.kind == "raw":
        key = None
        if plan.keyed:
            key_path = Path(part.path).with_suffix(".key")
            key = key_path.read_bytes() if key_path.exists() else None
        if len(data) >= 2**31 or not pa.types.is_binary(arrow_in.field("value").type):
            yield batch([(0, key, data)])
            return
        # the file's bytes are the value column's data buffer: a big file is held once
        offsets = pa.array([0, len(data)], pa.int32()).buffers()[1]
        value = pa.Array.from_buffers(pa.binary(), 1, [None, offsets, pa.py_buffer(data)])
        yield batch([(0, key, None)], values=value)
        return
    records, tail = split_frames(data, plan.keyed)
    for i in range(0, len(records), CHUNK):
        yield batch(records[i : i + CHUNK])
    if tail is not None:
        err = DecodeError(
            f"length-delimited frame at {tail} runs past the end of the file ({len(data)} bytes)",
            offset=tail,
        )
        err.add_path("frame")
        yield batch([(tail, None, data[tail:])], {0: err})


# -- framed files, record by record ---------------------------------------------------------

BATCH_BYTES = 4 << 20
"""Record bytes per Arrow batch (with at most :data:`CHUNK` records): memory stays bounded
whatever the file's size."""


def framed_records(path, record: str, framing: dict, max_bytes: int):
    """``(prefix, records)`` of a file of ``record``, read record by record in bounded
    memory as ``framing`` (the generated module's ``FRAMED_FILES[record]``) says.

    ``prefix`` is the magic and the leading records (what every later record needs to be
    decoded); ``records`` yields ``(position, record bytes, framing error or None)`` for
    each later record, framed by the size field of its header. A header whose size cannot
    frame a record (smaller than the header it counts, or past the end of the file) loses
    the framing: the rest of the file is one record with that error. A record over
    ``max_bytes`` is one record holding only its header (it is not read), and the records
    after it are read on. A file without the magic is one record with the error. A record
    with an error holds at most ``max_bytes`` bytes."""
    header, each, size_name = framing["header"], framing["each"], framing["size"]
    size_field = struct.Struct(framing["size_format"])
    f = open(path, "rb")  # noqa: SIM115 - closed by the generator below
    size = os.fstat(f.fileno()).st_size

    def rest(pos, message):
        f.seek(pos)
        err = DecodeError(message, offset=pos)
        err.add_path(each)
        return pos, f.read(max_bytes), err

    def lost(message):  # no framing from the start: the file is one record
        record = rest(0, message)
        f.close()
        return b"", iter([record])

    def framed(pos):
        """The size of the record at ``pos``, or a framing error text."""
        f.seek(pos)
        head = f.read(header)
        if len(head) < header:
            return f"truncated {each} header: needs {header} bytes, {len(head)} remain"
        (value,) = size_field.unpack_from(head, framing["size_at"])
        n = value if framing["counts_header"] else header + value
        if n < header:
            return f"{size_name} {value} is less than the {header}-byte header"
        if pos + n > size:
            return f"{size_name} {value} runs past the end of the file ({size - pos} bytes remain)"
        return n

    magic = f.read(len(framing["magic"]))
    if magic != framing["magic"]:
        return lost(f"not a {record.replace('_', ' ')}: starts with {magic.hex()!r}")
    end = len(magic)
    for _, leading in framing["leading"]:
        n = framed(end)
        if not isinstance(n, str) and n > max_bytes:
            n = f"{n} bytes exceed the limit max_message_bytes={max_bytes}"
        if isinstance(n, str):
            return lost(f"{leading.replace('_', ' ')}: {n}")
        end += n
    f.seek(0)
    prefix = f.read(end)

    def records():
        with f:
            pos = len(prefix)
            while pos < size:
                n = framed(pos)
                if isinstance(n, str):
                    yield rest(pos, n)
                    return
                f.seek(pos)
                if n > max_bytes:
                    err = LimitError(
                        f"{each} of {n} bytes exceeds the limit max_message_bytes="
                        f"{max_bytes} (only its header is kept)",
                        offset=pos,
                    )
                    err.add_path(each)
                    yield pos, f.read(header), err
                else:
                    yield pos, f.read(n), None
                pos += n

    return prefix, records()


class _DecodedRecords:
    """A codec for :class:`BatchDecoder` over a framed file's records decoded ahead, a batch
    at a time (:meth:`decode_records`): ``rows(position, record)`` returns the rows (or
    raises the error) found for the record at ``position``. Decoding a run of records in
    one ``iter_rows`` pass reads the prefix (the leading records) once per run, not once
    per record."""

    def __init__(self, base, framing: dict, prefix: bytes):
        self.base, self.framing, self.prefix = base, framing, prefix
        self.results: dict = {}
        self.prefix_error = None
        """Why the magic and leading records do not decode (then no record can)."""
        if prefix:
            try:
                base.module.parse(prefix, base.record, **dict(base.limits))
            except (WirespecError, ValueError) as err:
                self.prefix_error = err

    def __getattr__(self, name):  # the rest (schema, keep, ...) is the file record's codec
        return getattr(self.__dict__["base"], name)

    def decode_records(self, records) -> None:
        """Decode ``[(position, record bytes, error or None)]``: one ``iter_rows`` pass over
        the prefix and the records, restarted after each bad record."""
        mod, limits, each = self.base.module, dict(self.base.limits), self.framing["each"]
        todo = [(p, r) for p, r, err in records if err is None]
        self.results = {p: err for p, _, err in records if err is not None}
        if self.prefix_error is not None:
            needs = " and ".join(f.replace("_", " ") for f, _ in self.framing["leading"])
            for position, _ in todo:
                err = DecodeError(
                    f"no {needs} to decode it with ({self.prefix_error})", offset=position
                )
                err.add_path(each)
                self.results[position] = err
            return
        span = len(todo)  # after a bad record, runs restart small and double: no quadratic copy
        while todo:
            buf = self.prefix + b"".join(r for _, r in todo[:span])
            rows = mod.iter_rows(buf, self.base.record, **limits)
            done, at = 0, len(self.prefix)
            try:
                for position, record in todo[:span]:
                    self.results[position] = [next(rows)]
                    done += 1
                    at += len(record)
                span *= 2
            except (WirespecError, ValueError, UnicodeError, StopIteration) as err:
                position = todo[done][0]
                if isinstance(err, StopIteration):
                    err = DecodeError(f"the {each} decoded to no row", offset=position)
                elif getattr(err, "offset", None) is not None and err.offset >= len(self.prefix):
                    err.offset += position - at  # from the run's buffer to the file
                in_list = [f"[{done}]", self.framing["field"]]
                if isinstance(err, DecodeError) and err._segments[-2:] == in_list:
                    err._segments[-2:] = [each]
                self.results[position] = err
                done += 1
                span = 1
            todo = todo[done:]

    def rows(self, position, _record):
        got = self.results.pop(position)
        if isinstance(got, Exception):
            raise got
        return got


def _framed_inputs(part, arrow_in, codec_):
    """``(codec, input batches)`` of one framed file: the records decoded ahead a batch at
    a time (:class:`_DecodedRecords`), and one input record per framed record (position:
    its offset in the file), at most :data:`CHUNK` records or :data:`BATCH_BYTES` bytes per
    batch."""
    framing = codec_.module.FRAMED_FILES[codec_.record]
    limit = dict(codec_.limits).get("max_message_bytes", DEFAULT_LIMITS.max_message_bytes)
    prefix, records = framed_records(part.path, codec_.record, framing, limit)
    decoded = _DecodedRecords(codec_, framing, prefix)
    if decoded.prefix_error is not None:  # the leading records: one corrupt record
        records = itertools.chain([(0, prefix, decoded.prefix_error)], records)

    def flush(run):
        decoded.decode_records(run)
        positions, values = [p for p, _, _ in run], [r for _, r, _ in run]
        return _input_batch(arrow_in, part.path, positions, values), None

    def batches():
        run, size = [], 0
        for record in records:
            run.append(record)
            size += len(record[1])
            if len(run) >= CHUNK or size >= BATCH_BYTES:
                yield flush(run)
                run, size = [], 0
        if run:
            yield flush(run)

    return decoded, batches()


class WirespecReader(DataSourceReader):
    def __init__(self, options, schema):
        self.plan = _Plan(options)
        self.out_schema = schema
        self.in_schema = self.plan.schemas(self.plan.files())[0]

    def partitions(self):
        return [FilePartition(p, n, k) for p, n, k in self.plan.files()]

    def read(self, partition):
        yield from read_file(self.plan, partition, self.in_schema, self.out_schema)


class StreamFilePartition(FilePartition):
    """A file of a micro-batch, with the size and mtime it had when it was listed."""

    def __init__(self, path, name, kind, size, mtime_ns):
        super().__init__(path, name, kind)
        self.size, self.mtime_ns = size, mtime_ns


class ChangedFileError(WirespecError):
    """A streamed file changed after it was listed or read (see the module doc)."""


def check_unchanged(path: str, size: int, mtime_ns: int, when: str) -> None:
    """Raise :class:`ChangedFileError` if ``path`` no longer has ``size`` and ``mtime_ns``."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ChangedFileError(f"{path} was removed {when}") from None
    if (st.st_size, st.st_mtime_ns) != (size, mtime_ns):
        raise ChangedFileError(
            f"{path} changed {when} (size {size} -> {st.st_size}, mtime_ns {mtime_ns} -> "
            f"{st.st_mtime_ns}): writers must create each file elsewhere and rename it into "
            "the watched directory when complete; move this file out (or restore it) to go on"
        )


class WirespecStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """New files of the watched paths, each read exactly once, in order of arrival.

    The offset is ``{"arrived_ns": A, "files": {path: [size, mtime_ns, ctime_ns]}}``: A is
    the latest arrival time (``st_ctime_ns``, which a create or rename sets) of a file
    read, and ``files`` the files read that arrived at or after ``A - rememberSeconds``.
    A listed file is new when it is not in ``files`` and arrived at or after
    ``A - rememberSeconds``; a file of ``files`` whose size or mtime differs fails the
    query (:class:`ChangedFileError`)."""

    def __init__(self, options, schema):
        WirespecReader.__init__(self, options, schema)  # its plan and schemas, as read() uses
        self.target = None
        """Trigger.AvailableNow: the files present when the query started."""

    def _listing(self) -> dict:
        """``{path: (size, mtime_ns, ctime_ns)}`` of the files present now."""
        out = {}
        for path, _ in list_files(self.plan.paths):
            try:
                st = os.stat(path)
            except FileNotFoundError:  # removed while listing: it never arrived
                continue
            out[path] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        return out

    def initialOffset(self):
        return {"arrived_ns": 0, "files": {}}

    def prepareForTriggerAvailableNow(self):
        self.target = set(self._listing())

    def getDefaultReadLimit(self):
        if self.plan.max_files and ReadMaxFiles is not None:
            return ReadMaxFiles(self.plan.max_files)
        return ReadAllAvailable() if ReadAllAvailable is not None else None

    def _upgraded(self, offset: dict) -> dict:
        """An offset of the earlier name-ordered reader, ``{"file": last name read}``, as
        this reader's: the files named up to it count as read (a checkpoint resumes)."""
        if "files" in offset:
            return offset
        read = {
            path: list(stat)
            for path, stat in self._listing().items()
            if self._name(path) <= offset["file"]
        }
        return {"arrived_ns": max((s[2] for s in read.values()), default=0), "files": read}

    def latestOffset(self, start=None, limit=None):
        start = self._upgraded(start or self.initialOffset())
        read, listing = start["files"], self._listing()
        for path, (size, mtime_ns, _) in read.items():
            if path in listing and listing[path][:2] != (size, mtime_ns):
                check_unchanged(path, size, mtime_ns, "after it was read")
        horizon = start["arrived_ns"] - self.plan.remember_ns
        new = sorted(
            (stat[2], path)
            for path, stat in listing.items()
            if path not in read
            and stat[2] >= horizon
            and (self.target is None or path in self.target)
        )
        if limit is None and self.plan.max_files:  # Spark 4.0/4.1: no limit argument
            new = new[: self.plan.max_files]
        elif ReadMaxFiles is not None and isinstance(limit, ReadMaxFiles):
            new = new[: limit.max_files]
        if not new:
            return dict(start)
        arrived = max(start["arrived_ns"], new[-1][0])
        keep_from = arrived - self.plan.remember_ns
        files = {p: stat for p, stat in read.items() if stat[2] >= keep_from}
        files.update((path, list(listing[path])) for _, path in new)
        return {"arrived_ns": arrived, "files": files}

    def _name(self, path: str) -> str:
        """``path`` relative to the watched root that holds it."""
        for root in self.plan.paths:
            root = Path(root).resolve()
            if Path(path).is_relative_to(root) and Path(path) != root:
                return str(Path(path).relative_to(root))
        return Path(path).name

    def partitions(self, start, end):
        start = self._upgraded(start)
        new = sorted(
            (stat[2], path) for path, stat in end["files"].items() if path not in start["files"]
        )
        return [
            StreamFilePartition(
                path, self._name(path), self.plan.kind_of(path), *end["files"][path][:2]
            )
            for _, path in new
        ]

    def read(self, partition):
        check_unchanged(partition.path, partition.size, partition.mtime_ns, "after it was listed")
        yield from WirespecReader.read(self, partition)
        check_unchanged(partition.path, partition.size, partition.mtime_ns, "while it was read")

    def commit(self, end):
        pass
