"""``wirespec ingest FORMAT INPUT... --output DIR``: message files -> Parquet tables on Spark.

Reads every INPUT (a file or a directory) with the ``wirespec`` data source (one Spark
partition per file; the input kind is detected per file, or forced with
``--input-kind``; a file that reads as one message and as length-delimited frames alike is
refused before Spark starts, asking for ``--input-kind``: :mod:`runtime.spark.input_kind`),
and writes under ``DIR``:

* ``<format>/`` the decoded rows as Parquet; for the TiCDC formats ``<format>/_events/``
  (every event), ``<format>/_watermark/`` and one MERGE-ready change table per upstream
  table, ``<format>/tables/<slug>-<hash>/`` (:func:`table_dir`), listed with its schema and
  table name in ``<format>/_tables.json``;
* ``<format>.binlog_file/`` the events of MySQL binlog files (one row per event), when the
  inputs mix them with single messages (which decode to another schema);
* ``_corrupt/<table>/`` the bad records (PERMISSIVE): ``_corrupt_record``, ``_error``,
  ``_source_file`` and ``_position``;
* ``_empty/<table>/`` the records that hold no event (an Open Protocol key/value pair of
  zero events, say): ``_source_file`` and ``_position``;
* ``parquet_metadata/files/``, ``parquet_metadata/row_groups/`` and
  ``parquet_metadata/column_chunks/`` for FORMAT ``parquet_metadata``: a lake's Parquet
  files described from their footers alone (:func:`ingest_parquet_metadata`);
* ``.wirespec-ingest``, the marker that says ingest owns ``DIR``, and ``_ingest.log``,
  Spark's and the JVM's log of the last run.

Upstream names never become paths as they are: a folder is named by a slug of the names
plus a hash of them, so no name can leave ``DIR`` or share a folder with another table
(the names stay data, the ``_schema`` and ``_table`` columns). Ingest writes and deletes
only inside ``DIR``, and refuses a non-empty ``DIR`` without its marker unless
``--overwrite`` is given. A re-run replaces the tables of the formats it ingests.

Every argument is checked before Spark starts; a bad one, or a failed run, is one line on
stderr and a non-zero exit. The summary counts: ``records``, the input records (a raw
file, a frame, a Parquet row, a binlog event) that became rows, a corrupt row or an empty
one; ``corrupt``, those that were corrupt; ``empty``, those that held no event; ``events``,
the rows of the others. So records = corrupt + empty + decoded records; ``cut``, the
decoded ones whose input ends inside an element (``on_cut: keep``: their rows' ``_cut``).
The rates are over the decode alone (not the JVM's start).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path

from generator.cli.common import EXIT_BAD_INPUT as EXIT_FAILED
from generator.cli.common import EXIT_USAGE, CliError, counted, examples
from generator.cli.ingest_progress import Progress, rate, watch_tasks
from generator.cli.target import spec_as_format
from runtime.core.errors import did_you_mean

CDC_FORMATS = ("ticdc_craft", "ticdc_open_protocol")
PARQUET_METADATA = "parquet_metadata"
"""The input kind that is a lake of Parquet files, read as metadata (not a format)."""
BINLOG_RECORD = "binlog_file"
MARKER = ".wirespec-ingest"
LOG_NAME = "_ingest.log"


class IngestError(CliError):
    """A bad ingest argument or a failed run: one line, with an exit status (usage by
    default: most are found before Spark starts)."""

    def __init__(self, message: str, status: int = EXIT_USAGE):
        super().__init__(message, status)


SPARK_LOG4J2 = """\
# wirespec: Spark's own logging at one level to stderr, which ingest points at the run's
# log file while the JVM starts (the terminal gets none of it)
rootLogger.level = {level}
# A PySpark driver resets the root level to its own logger's level unless that logger is
# configured: configure every Spark logger.
logger.spark.name = org.apache.spark
logger.spark.level = {level}
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
"""


def log_config(level: str = "warn") -> Path:
    """A log4j2 configuration file (:data:`SPARK_LOG4J2`) that logs ``level`` and above
    from the JVM's start: no "default log4j profile" banner, no INFO lines."""
    import tempfile

    text = SPARK_LOG4J2.replace("{level}", level)
    path = Path(tempfile.gettempdir()) / f"wirespec-ingest-log4j2-{level}.properties"
    if not path.exists() or path.read_text() != text:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        tmp.replace(path)
    return path


def session(master: str | None, log_path: Path | None = None):
    """A local Spark session with the ``wirespec`` data source registered. With
    ``log_path``, the JVM (and the Python workers it starts) write their stderr there."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from runtime.spark.source import register

    java_options = f"-Dlog4j2.configurationFile=file:{log_config()}"
    builder = (
        SparkSession.builder.master(master or "local[*]")
        .appName("wirespec-ingest")
        .config("spark.driver.extraJavaOptions", java_options)
        .config("spark.executor.extraJavaOptions", java_options)
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.bindAddress", os.environ.get("SPARK_BIND", "127.0.0.1"))
        .config("spark.sql.shuffle.partitions", "4")
    )
    if log_path is None:
        spark = builder.getOrCreate()
    else:
        # The JVM inherits the stderr it is started with: the log file, not the terminal
        sys.stderr.flush()
        saved = os.dup(2)
        with open(log_path, "ab") as log:
            os.dup2(log.fileno(), 2)
            try:
                spark = builder.getOrCreate()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
    spark.sparkContext.setLogLevel("WARN")
    register(spark)
    return spark


# -- arguments, checked before Spark starts ----------------------------------------------------


def parse_limits(pairs) -> dict[str, int]:
    """``["max_count=5000000", ...]`` (``--limit``) as parser limits, validated."""
    from runtime.core.limits import LIMIT_NAMES, limits_from_options

    given = {}
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        if not sep:
            raise IngestError(f"--limit takes NAME=VALUE, got {pair!r}")
        if name.strip() not in LIMIT_NAMES:
            raise IngestError(
                f"--limit: unknown limit {name.strip()!r}; limits: {', '.join(LIMIT_NAMES)}"
            )
        given[name.strip()] = value
    try:
        return limits_from_options(given)
    except ValueError as err:
        raise IngestError(f"--limit: {err}") from None


def schema_options(fmt: str, record=None, spec=None, struct=None) -> dict[str, str]:
    """The data source options of ``--record``, ``--spec`` and ``--struct``, checked (a
    spec is rendered here, before Spark starts; a bad one is an IngestError)."""
    from runtime.spark.decode import codec

    given = {"record": record, "spec": spec, "struct": struct}
    options = {k: v for k, v in given.items() if v is not None}
    if not options:
        return {}
    if fmt == "all":
        raise IngestError("--record, --spec and --struct need one FORMAT, not all")
    if spec is not None:
        check_spec(spec)
    try:
        codec(fmt, record, spec=spec, struct=struct)
    except ValueError as err:
        raise IngestError(str(err)) from None
    return options


def check_spec(spec: str) -> None:
    """A YAML ``--spec`` that is not valid: an IngestError naming it as typed, with the
    line (as decode's ``--spec`` does), before the data source renders it (its errors name
    the file)."""
    from generator.emit.user_spec import spec_model
    from generator.spec.loader import load
    from runtime.core.errors import SpecError

    path = Path(spec)
    if path.suffix == ".thrift" or not path.is_file():  # the data source's to say
        return
    try:
        spec_model(load(path, spec))
    except SpecError as err:
        raise IngestError(str(err).splitlines()[0]) from None


def plan_jobs(fmt: str, inputs, spec=None) -> list[tuple[str, list[tuple[str, str]]]]:
    """``(format, input files)`` per format to ingest; FORMAT ``all`` takes every
    sub-directory of each INPUT named after a format. Raises :class:`IngestError` for an
    unknown format (one of ``generated/``, or the ``format:`` of ``--spec``), a missing input
    or no input files at all."""
    from runtime.spark.decode import known_formats, load_module

    known = known_formats()
    for root in inputs:
        if not Path(root).exists():
            raise IngestError(f"no such file or directory: {root}", EXIT_FAILED)
    if fmt == "all":
        dirs = [
            (d.name, [d])
            for root in map(Path, inputs)
            if root.is_dir()
            for d in sorted(root.iterdir())
            if d.is_dir() and d.name in known
        ]
        if not dirs:
            raise IngestError(
                f"no <format>/ directories in {', '.join(map(str, inputs))} "
                f"(formats: {', '.join(known)})",
                EXIT_FAILED,
            )
    else:
        try:
            if spec is None:  # else schema_options checks the spec's format
                load_module(fmt)
        except ValueError:
            raise IngestError(
                spec_as_format(fmt)
                or f"unknown format {fmt!r}{did_you_mean(fmt, ['all', *known])}; "
                f"known: all, {', '.join(known)}"
            ) from None
        dirs = [(fmt, list(inputs))]
    from runtime.spark.source import list_files  # imports pyspark: after the quick checks

    jobs = []
    for name, roots in dirs:
        files = list_files(roots)
        if files:
            jobs.append((name, files))
    if not jobs:
        raise IngestError(f"no input files in {', '.join(map(str, inputs))}", EXIT_FAILED)
    return jobs


def claim_output(output, overwrite: bool = False) -> Path:
    """``output``, made if missing and marked as ingest's (:data:`MARKER`). A non-empty
    directory without the marker is refused unless ``overwrite``."""
    out = Path(output)
    if out.exists() and not out.is_dir():
        raise IngestError(f"--output {out} is not a directory")
    if out.is_dir() and not _written_by_ingest(out) and not overwrite:
        raise IngestError(
            f"--output {out} is not empty and was not written by wirespec ingest "
            "(no .wirespec-ingest marker); give --overwrite to write into it anyway"
        )
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text(json.dumps({"written_by": "wirespec ingest"}) + "\n")
    return out


def _written_by_ingest(out: Path) -> bool:
    """Whether ``out`` is empty, has the marker, or holds only names ingest writes (an
    output of an ingest from before the marker)."""
    from runtime.spark.decode import known_formats

    if (out / MARKER).exists():
        return True
    ours = {"_corrupt", "_empty", PARQUET_METADATA, LOG_NAME}
    for fmt in known_formats():
        ours |= {fmt, f"{fmt}.{BINLOG_RECORD}"}
    return all(p.name in ours and p.is_dir() == (p.name != LOG_NAME) for p in out.iterdir())


def inside(output: Path, *parts: str) -> Path:
    """``output/parts...``, checked to stay inside ``output`` (no part may climb out)."""
    path = output.joinpath(*parts)
    root = output.resolve()
    if root not in path.resolve().parents:
        raise IngestError(f"refusing to write {path}: outside --output {output}", EXIT_FAILED)
    return path


def _slug(name) -> str:
    text = re.sub(r"[^A-Za-z0-9]+", "_", name or "").strip("_")
    return text[:40].rstrip("_") or "x"


def table_dir(schema, table) -> str:
    """The folder name of one upstream table: a readable slug of both names (ASCII letters
    and digits, at most 83 bytes) and the first 16 hex digits of the SHA-256 of the exact
    names. It never holds ``/``, ``..`` or a leading ``.``/``_``, fits any filesystem's
    name limit, and two tables share one only if the hashes collide (which
    :func:`_write_change_tables` refuses too).

    >>> table_dir("shop", "orders")
    'shop.orders-6847e4a87e274092'
    """
    exact = json.dumps([schema, table], ensure_ascii=False).encode()
    return f"{_slug(schema)}.{_slug(table)}-{hashlib.sha256(exact).hexdigest()[:16]}"


def groups(fmt, files, input_kind="auto", spec=None) -> list[tuple[str, list[str]]]:
    """``(table name, paths)`` per table an ingest writes.

    Files of one format decode to one schema, except binlog files (read as the format's
    ``binlog_file`` record, one row per event) next to single messages (the default
    record): those go to their own table, ``<format>.binlog_file``."""
    from runtime.spark.decode import codec
    from runtime.spark.source import detect_kind

    mod = codec(fmt, spec=spec).module
    paths = [p for p, _ in files]
    framed = getattr(mod, "FRAMED_FILES", {})
    if BINLOG_RECORD not in framed or input_kind != "auto":
        return [(fmt, paths)]
    keyed, magics = codec(fmt, spec=spec).needs_key, (framed[BINLOG_RECORD]["magic"],)
    binlogs = [p for p in paths if detect_kind(p, keyed, magics=magics) == "binlog"]
    others = [p for p in paths if p not in set(binlogs)]
    if not binlogs or not others:
        return [(fmt, paths)]
    return [(fmt, others), (f"{fmt}.{BINLOG_RECORD}", binlogs)]


def check_input_kinds(jobs, input_kind, options) -> None:
    """Detect every file's input kind before Spark starts (``input_kind`` ``auto``): a file
    that reads as one message and as length-delimited frames alike
    (:class:`runtime.spark.input_kind.AmbiguousInputKind`) is an IngestError asking for
    ``--input-kind``. ``options``: the data source's limits and schema options."""
    if input_kind != "auto":
        return
    from runtime.spark.input_kind import AmbiguousInputKind
    from runtime.spark.source import _Plan

    for fmt, files in jobs:
        paths = json.dumps([p for p, _ in files])
        given = {k: str(v) for k, v in options.items()}
        try:
            _Plan({**given, "format": fmt, "inputKind": "auto", "paths": paths}).files()
        except AmbiguousInputKind as err:
            raise IngestError(str(err.asking_with("--input-kind"))) from None


# -- the run -----------------------------------------------------------------------------------


def ingest(
    fmt,
    inputs,
    output,
    *,
    mode="PERMISSIVE",
    master=None,
    input_kind="auto",
    spark=None,
    limits=None,
    overwrite=False,
    progress=None,
    files=None,
    schema_options=None,
) -> dict:
    """Run one ingest; returns the summary dict (also what the CLI prints).

    ``spark``: an existing session to use (the ``wirespec`` data source is registered
    with it); without one, a local session is started (:func:`session`). ``limits``:
    parser limits (``{"max_count": 5_000_000}``), per message, per binlog event.
    ``schema_options``: the data source's ``record``, ``spec`` (your spec), and Thrift's ``struct``
    (:func:`schema_options`)."""
    from runtime.spark.decode import load_module
    from runtime.spark.source import list_files, register

    schema_options = schema_options or {}
    if "spec" not in schema_options:
        load_module(fmt)  # unknown formats fail before Spark starts
    files = files if files is not None else list_files(inputs)
    if not files:
        raise IngestError(f"no input files in {', '.join(map(str, inputs))}", EXIT_FAILED)
    output = claim_output(output, overwrite)
    jobs = groups(fmt, files, input_kind, schema_options.get("spec"))
    if spark is None:
        spark = session(master, output / LOG_NAME)
    else:
        register(spark)
    for name in (fmt, f"{fmt}.{BINLOG_RECORD}"):  # this format's tables of an earlier run
        for path in (
            inside(output, name),
            *(inside(output, d, name) for d in ("_corrupt", "_empty")),
        ):
            if path.is_dir():
                shutil.rmtree(path)
    started = time.perf_counter()
    totals = {"records": 0, "rows": 0, "corrupt": 0, "empty": 0, "cut": 0, "decode_seconds": 0.0}
    tables: list[str] = []
    own = progress is None
    progress = progress or Progress()
    with progress if own else _nothing():
        progress.start(len(files))
        for name, paths in jobs:
            options = {**(limits or {}), **schema_options}
            stats = _ingest_table(
                spark, fmt, name, paths, output, mode, input_kind, options, tables, progress
            )
            for k in totals:
                totals[k] += stats[k]
    seconds = time.perf_counter() - started
    decode = totals["decode_seconds"]
    return {
        "format": fmt,
        "files": len(files),
        "records": totals["records"],
        "events": totals["rows"],
        "corrupt": totals["corrupt"],
        "empty": totals["empty"],
        "cut": totals["cut"],
        "seconds": round(seconds, 2),
        "decode_seconds": round(decode, 2),
        "events_per_s": round(totals["rows"] / decode, 1) if decode else 0.0,
        "tables": tables,
    }


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _ingest_table(spark, fmt, name, paths, output, mode, input_kind, limits, tables, progress):
    """Decode ``paths`` into the table ``output/name`` (and ``output/_corrupt/name``);
    ``limits``: the data source's options on top of the ingest's own."""
    from pyspark.sql import functions as F

    from generator.emit.spark_columns import CUT_COLUMN
    from runtime.spark import cdc as spark_cdc
    from runtime.spark.decode import CORRUPT_COL
    from runtime.spark.source import _Plan

    options = {
        "format": fmt,
        "mode": mode,
        "inputKind": input_kind,
        "paths": json.dumps([str(p) for p in paths]),
        **{k: str(v) for k, v in limits.items()},
    }
    plan = _Plan(options)  # the schema made here: Spark need not ask a Python worker for it
    reader = spark.read.format("wirespec").schema(plan.schemas(plan.files())[1])
    df = reader.options(**options).load().cache()
    permissive = mode.upper() == "PERMISSIVE"
    corrupt = F.col(CORRUPT_COL).isNotNull() if permissive else F.lit(False)
    empty = F.col("_event_index").isNull() & ~corrupt
    cut = F.col(CUT_COLUMN).isNotNull() if CUT_COLUMN in df.columns else F.lit(False)
    group = f"wirespec-ingest-{name}"
    spark.sparkContext.setJobGroup(group, f"wirespec ingest {name}")
    base = dict(progress.state)
    progress.update(force=True, step=f"{name}: decoding {counted(len(paths), 'file')}")
    stop = threading.Event()
    watcher = threading.Thread(
        target=watch_tasks, args=(spark, group, len(paths), progress, stop), daemon=True
    )
    watcher.start()
    began = time.perf_counter()
    try:
        # A corrupt record is one row with a null _event_index, and so is an empty record
        # (no _corrupt_record); a decoded record's first row has _event_index 0: so no
        # distinct count (and no shuffle) is needed.
        row_ops = F.col("_op").isin(*spark_cdc.ROW_OPS) if fmt in CDC_FORMATS else F.lit(False)
        stats = df.agg(
            F.count(F.when(corrupt | empty | (F.col("_event_index") == 0), 1)).alias("records"),
            F.count(F.when(~corrupt & ~empty, 1)).alias("rows"),
            F.count(F.when(corrupt, 1)).alias("corrupt"),
            F.count(F.when(empty, 1)).alias("empty"),
            F.count(F.when(cut & (F.col("_event_index") == 0), 1)).alias("cut"),
            F.count(F.when(~corrupt & row_ops, 1)).alias("row_ops"),
        ).first()
    finally:
        stop.set()
        watcher.join()
    decode_seconds = time.perf_counter() - began
    row_ops = stats["row_ops"]
    stats = {k: stats[k] or 0 for k in ("records", "rows", "corrupt", "empty", "cut")}
    progress.decoded(decode_seconds)
    progress.update(
        force=True,
        step=f"{name}: writing tables",
        files=base["files"] + len(paths),
        records=base["records"] + stats["records"],
        events=base["events"] + stats["rows"],
    )
    good = df.where(~corrupt & ~empty)
    if permissive:
        good = good.drop(CORRUPT_COL, "_error")
    target = inside(output, name)
    if fmt in CDC_FORMATS:
        _write_cdc(good, target, tables, row_ops)
    else:
        good.write.mode("overwrite").parquet(str(target))
        tables.append(str(target))
    if permissive and stats["corrupt"]:
        bad = df.where(F.col(CORRUPT_COL).isNotNull()).select(
            CORRUPT_COL, "_error", "_source_file", "_position"
        )
        path = inside(output, "_corrupt", name)
        bad.write.mode("overwrite").parquet(str(path))
        tables.append(str(path))
    if stats["empty"]:  # a record of no events: listed, so the counts add up
        path = inside(output, "_empty", name)
        df.where(empty).select("_source_file", "_position").write.mode("overwrite").parquet(
            str(path)
        )
        tables.append(str(path))
    progress.update(force=True, step=f"{name}: done")
    spark.sparkContext.setJobGroup("wirespec-ingest", "wirespec ingest")
    df.unpersist()
    return {**stats, "decode_seconds": decode_seconds}


def parquet_files(inputs) -> list[str]:
    """The ``.parquet`` files under ``inputs`` (:func:`runtime.spark.source.list_files`:
    names starting with ``.`` or ``_`` are skipped), or :class:`IngestError`."""
    for root in inputs:
        if not Path(root).exists():
            raise IngestError(f"no such file or directory: {root}", EXIT_FAILED)
    from runtime.spark.source import list_files

    files = [p for p, _ in list_files(inputs) if p.endswith(".parquet")]
    if not files:
        raise IngestError(f"no .parquet files in {', '.join(map(str, inputs))}", EXIT_FAILED)
    return files


def ingest_parquet_metadata(
    inputs, output, *, mode="PERMISSIVE", master=None, spark=None, overwrite=False, files=None
) -> dict:
    """FORMAT ``parquet_metadata``: one table per level of the ``.parquet`` files under
    ``inputs`` (``parquet_metadata/files``, ``row_groups``, ``column_chunks``; see
    :mod:`generator.cli.parquet_metadata`), read from the footers on Spark, files spread over
    the tasks. A file whose footer does not decode fails the run (FAILFAST) or is one row
    of ``_corrupt/parquet_metadata`` (``file``, ``_error``). Returns the summary dict."""
    from pyspark.sql.types import StringType, StructField, StructType

    from generator.cli import parquet_metadata
    from runtime.spark.decode import RECORD_ERRORS, RecordDecodeError, error_text

    files = files if files is not None else parquet_files(inputs)
    output = claim_output(output, overwrite)
    spark = spark or session(master, output / LOG_NAME)
    for path in (inside(output, PARQUET_METADATA), inside(output, "_corrupt", PARQUET_METADATA)):
        if path.is_dir():
            shutil.rmtree(path)
    failfast = mode.upper() == "FAILFAST"
    schemas = {t: parquet_metadata.spark_schema(t) for t in parquet_metadata.TABLES}
    names = {t: schema.names for t, schema in schemas.items()}  # workers have no JVM to ask

    def rows_of(paths):
        for path in paths:
            try:
                rows = parquet_metadata.footer_rows(path)
            except RECORD_ERRORS as err:
                if failfast:
                    raise RecordDecodeError(f"cannot read {path}: {error_text(err)}") from err
                yield "_corrupt", (path, error_text(err))
                continue
            for table, table_names in names.items():
                for row in rows[table]:
                    yield table, tuple(row[n] for n in table_names)

    started = time.perf_counter()
    context = spark.sparkContext
    slices = min(len(files), context.defaultParallelism * 4)
    tagged = context.parallelize(files, slices).mapPartitions(rows_of).cache()
    counts = tagged.map(lambda t: t[0]).countByValue()
    decode_seconds = time.perf_counter() - started
    corrupt_schema = StructType(
        [StructField("file", StringType(), False), StructField("_error", StringType(), False)]
    )
    targets = [(t, schema, (PARQUET_METADATA, t)) for t, schema in schemas.items()]
    targets.append(("_corrupt", corrupt_schema, ("_corrupt", PARQUET_METADATA)))
    tables = []
    for tag, schema, parts in targets:
        if tag == "_corrupt" and not counts.get(tag):
            continue
        rows = tagged.filter(lambda t, tag=tag: t[0] == tag).map(lambda t: t[1])
        path = inside(output, *parts)
        spark.createDataFrame(rows, schema).write.mode("overwrite").parquet(str(path))
        tables.append(str(path))
    tagged.unpersist()
    rows = sum(counts.get(t, 0) for t in parquet_metadata.TABLES)
    return {
        "format": PARQUET_METADATA,
        "files": len(files),
        "records": len(files),
        "events": rows,
        "corrupt": counts.get("_corrupt", 0),
        "empty": 0,
        "seconds": round(time.perf_counter() - started, 2),
        "decode_seconds": round(decode_seconds, 2),
        "events_per_s": round(rows / decode_seconds, 1) if decode_seconds else 0.0,
        "tables": tables,
    }


def _write_cdc(events, target: Path, tables: list[str], row_ops: int) -> None:
    """``_events``, ``_watermark`` and, when there are ``row_ops`` row events, one change
    table per upstream table (a folder named by :func:`table_dir`), listed in
    ``_tables.json``."""
    from runtime.spark import cdc as spark_cdc

    events.write.mode("overwrite").parquet(str(inside(target, "_events")))
    tables.append(str(target / "_events"))
    spark_cdc.resolved_watermark(events).write.mode("overwrite").parquet(
        str(inside(target, "_watermark"))
    )
    tables.append(str(target / "_watermark"))
    listed = []
    if row_ops:
        frames = spark_cdc.change_frames_by_table(events)
        folders: dict[str, tuple] = {}
        for (schema, table), frame in frames.items():
            folder = table_dir(schema, table)
            if folders.setdefault(folder, (schema, table)) != (schema, table):
                raise IngestError(f"tables {folders[folder]} and {(schema, table)} share {folder}")
            path = inside(target, "tables", folder)
            frame.write.mode("overwrite").parquet(str(path))
            tables.append(str(path))
            listed.append({"schema": schema, "table": table, "path": f"tables/{folder}"})
    text = json.dumps(listed, indent=1, ensure_ascii=False) + "\n"
    inside(target, "_tables.json").write_text(text, encoding="utf-8")


# -- the CLI -----------------------------------------------------------------------------------


def print_summary(results: list[dict], console=None) -> None:
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table

    console = console or Console()
    table = Table(title="wirespec ingest")
    cut = any(r.get("cut") for r in results)  # a column only when an input was cut
    columns = ("format", "files", "records", "events", "corrupt", "empty") + ("cut",) * cut
    columns += ("decode s", "events/s", "total s")
    for col in columns:
        table.add_column(col, justify="left" if col == "format" else "right")
    for r in results:
        counts = (r["files"], r["records"], r["events"], r["corrupt"], r.get("empty", 0))
        counts += (r.get("cut", 0),) * cut
        table.add_row(
            r["format"],
            *(f"{n:,}" for n in counts),
            f"{r['decode_seconds']:.1f}",
            rate(r["events"], r["decode_seconds"]),
            f"{r['seconds']:.1f}",
        )
    if not console.is_terminal:  # a log (80 columns): at its full width, no format name cut
        unbounded = console.options.update_width(1 << 16)
        console.width = max(console.width, Measurement.get(console, unbounded, table).maximum)
    console.print(table)
    console.print("output tables:", soft_wrap=True)
    for r in results:
        for path in r["tables"]:
            console.print(f"  {path}", soft_wrap=True, highlight=False)


def short_error(err: BaseException) -> str:
    """The one line that says why a Spark job failed: the decode error of the first bad
    record (FAILFAST), else the first line of the exception."""
    text = str(err)
    for kind in ("RecordDecodeError", "DecodeError|LimitError|WirespecError"):  # most telling
        found = re.search(rf"(?:{kind}): ([^\n]+)", text)
        if found:
            return found.group(1).strip()
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(err).__name__)
    return first[:300]


def run_command(args) -> int:
    """The CLI verb (registered in :mod:`generator.cli.main`). FORMAT ``all`` ingests every
    sub-directory of each INPUT that is named after a format (``samples/<format>/``) in
    one Spark session."""
    log_path = None
    try:
        limits = parse_limits(args.limit)
        if args.format == PARQUET_METADATA:
            run = _parquet_metadata_run(args)
        else:
            jobs = plan_jobs(args.format, args.inputs, args.spec)
            options = schema_options(args.format, args.record, args.spec, args.struct)
            check_input_kinds(jobs, args.input_kind, {**limits, **options})

            def run(output, spark, progress):
                return [
                    ingest(
                        fmt,
                        None,
                        output,
                        mode=args.mode,
                        input_kind=args.input_kind,
                        spark=spark,
                        limits=limits,
                        overwrite=True,
                        progress=progress,
                        files=files,
                        schema_options=options,
                    )
                    for fmt, files in jobs
                ]

        output = claim_output(args.output, args.overwrite)
        log_path = output / LOG_NAME
        log_path.write_text("")
        with Progress() as progress:
            progress.update(force=True, step="starting Spark")
            spark = session(args.master, log_path)
            results = run(output, spark, progress)
    except IngestError as err:
        print(f"wirespec ingest: {err}", file=sys.stderr)
        return err.status
    except KeyboardInterrupt:
        print("wirespec ingest: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # noqa: BLE001 - Spark's and py4j's errors: one line, not a stack
        where = f" (Spark's log: {log_path})" if log_path else ""
        print(f"wirespec ingest: {short_error(err)}{where}", file=sys.stderr)
        return EXIT_FAILED
    print_summary(results)
    return 0


def _parquet_metadata_run(args):
    """``run(output, spark, progress)`` of ``wirespec ingest parquet_metadata LAKE_DIR``,
    its arguments checked."""
    if args.record or args.spec or args.struct or args.limit or args.input_kind != "auto":
        raise IngestError("parquet_metadata reads footers: no --record/--spec/--struct/--limit")
    files = parquet_files(args.inputs)

    def run(output, spark, progress):
        progress.start(len(files))
        progress.update(force=True, step=f"reading {counted(len(files), 'footer')}")
        result = ingest_parquet_metadata(
            None, output, mode=args.mode, spark=spark, overwrite=True, files=files
        )
        progress.update(
            force=True, step="done", files=len(files), records=len(files), events=result["events"]
        )
        return [result]

    return run


def add_parser(verbs) -> None:
    ing = verbs.add_parser(
        "ingest",
        help="decode message files on Spark into Parquet tables",
        **examples(
            "wirespec ingest png samples/png --output out/tables",
            "wirespec ingest all samples --output out/tables   # samples/<format>/ each",
            "wirespec ingest parquet_metadata out/tables --output out/lake_metadata",
        ),
    )
    ing.add_argument(
        "format",
        metavar="FORMAT",
        help="a format, all (INPUT/<format>/ directories), or parquet_metadata (a lake's "
        "Parquet files: one table per file, row group and column chunk, from the footers); "
        "or your spec's format: with --spec",
    )
    ing.add_argument("inputs", nargs="+", metavar="INPUT", help="files or directories")
    ing.add_argument("--output", required=True, help="table directory")
    ing.add_argument(
        "--mode",
        default="PERMISSIVE",
        choices=["FAILFAST", "PERMISSIVE"],
        help="PERMISSIVE (default): bad records go to OUTPUT/_corrupt/; FAILFAST: the first "
        "one stops the run",
    )
    ing.add_argument("--master", help="Spark master URL (default: local[*])")
    ing.add_argument(
        "--input-kind",
        default="auto",
        choices=["auto", "raw", "delimited", "binlog", "parquet"],
        help="override the detected input kind",
    )
    ing.add_argument(
        "--limit",
        action="append",
        metavar="NAME=VALUE",
        help="a parser limit, per message or binlog event (repeatable): max_message_bytes, "
        "max_depth, max_count, max_string",
    )
    ing.add_argument("--record", help="the record of each message (default: the format's)")
    ing.add_argument(
        "--spec",
        help="your spec YAML (FORMAT is its format:; Thrift: or a .thrift IDL), rendered in "
        "memory (nothing is generated)",
    )
    ing.add_argument(
        "--struct",
        help="Thrift: the struct of each message (its body with --record message)",
    )
    ing.add_argument(
        "--overwrite",
        action="store_true",
        help="write into a non-empty --output that wirespec ingest did not create",
    )
    ing.set_defaults(run=run_command)
