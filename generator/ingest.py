"""``wirespec ingest FORMAT INPUT... --output DIR``: message files -> Parquet tables on Spark.

Reads every INPUT (a file or a directory) with the ``wirespec`` data source (one Spark
partition per file; the input kind is detected per file, or forced with
``--input-kind``), and writes:

* ``DIR/<format>/`` the decoded rows as Parquet, or for the TiCDC formats one table per
  upstream table, ``DIR/<format>/<schema>/<table>/`` (MERGE-ready change rows), plus
  ``DIR/<format>/_events/`` (every event) and ``DIR/<format>/_watermark/``;
* ``DIR/<format>.binlog_file/`` the events of MySQL binlog files, when the inputs mix
  them with single messages (which decode to another schema);
* ``DIR/_corrupt/<table>/`` the bad records (PERMISSIVE): ``_corrupt_record``,
  ``_error``, ``_source_file`` and ``_position``.

It prints a summary: records, events (rows), corrupt records, rows/s, output tables.
``records`` counts the input records (a raw file, a frame, a Parquet row; a whole binlog
file is one) that decoded to at least one row or were corrupt; ``corrupt`` those that were
corrupt, ``events`` the rows of the others. So records = corrupt + decoded records, and a
record that decodes to no rows at all (an empty batch) is in no count.
Spark itself logs errors only (see :func:`quiet_log_config`); progress is a rich bar.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

CDC_FORMATS = ("ticdc_craft", "ticdc_open_protocol")
BINLOG_RECORD = "binlog_file"


QUIET_LOG4J2 = """\
# wirespec ingest: Spark's own logging, errors only (no startup banner or warnings)
rootLogger.level = error
# A PySpark driver resets the root level to its own logger's level, WARN (announcing it on
# stderr) unless that logger is configured: configure every Spark logger.
logger.spark.name = org.apache.spark
logger.spark.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
"""


def quiet_log_config() -> Path:
    """A log4j2 configuration that keeps Spark to ERROR from the JVM's start: with it,
    Spark prints neither its "default log4j profile" banner nor startup warnings."""
    import tempfile

    path = Path(tempfile.gettempdir()) / "wirespec-ingest-log4j2.properties"
    if not path.exists() or path.read_text() != QUIET_LOG4J2:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(QUIET_LOG4J2)
        tmp.replace(path)
    return path


def session(master: str | None):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from runtime.spark_source import register

    log_config = f"-Dlog4j2.configurationFile=file:{quiet_log_config()}"
    spark = (
        SparkSession.builder.master(master or "local[*]")
        .appName("wirespec-ingest")
        .config("spark.driver.extraJavaOptions", log_config)
        .config("spark.executor.extraJavaOptions", log_config)
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.bindAddress", os.environ.get("SPARK_BIND", "127.0.0.1"))
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    return spark


def groups(fmt, files, input_kind="auto") -> list[tuple[str, list[str]]]:
    """``(table name, paths)`` per table an ingest writes.

    Files of one format decode to one schema, except binlog files (read as the format's
    ``binlog_file`` record, one row per event) next to single messages (the default
    record): those go to their own table, ``<format>.binlog_file``."""
    from runtime.spark_decode import codec, load_module
    from runtime.spark_source import detect_kind

    mod = load_module(fmt)
    paths = [p for p, _ in files]
    if BINLOG_RECORD not in getattr(mod, "RECORDS", {}) or input_kind != "auto":
        return [(fmt, paths)]
    keyed = codec(fmt).needs_key
    binlogs = [p for p in paths if detect_kind(p, keyed) == "binlog"]
    others = [p for p in paths if p not in set(binlogs)]
    if not binlogs or not others:
        return [(fmt, paths)]
    return [(fmt, others), (f"{fmt}.{BINLOG_RECORD}", binlogs)]


def ingest(
    fmt, inputs, output, *, mode="PERMISSIVE", master=None, input_kind="auto", spark=None
) -> dict:
    """Run one ingest; returns the summary dict (also what the CLI prints).

    ``spark``: an existing session to use (the ``wirespec`` data source is registered
    with it); without one, a local session is started (:func:`session`)."""
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from runtime.spark_decode import load_module
    from runtime.spark_source import list_files, register

    load_module(fmt)  # unknown formats fail before Spark starts
    files = list_files(inputs)
    if not files:
        raise ValueError(f"no input files in {', '.join(map(str, inputs))}")
    jobs = groups(fmt, files, input_kind)
    output = Path(output)
    started = time.perf_counter()
    totals = {"records": 0, "rows": 0, "corrupt": 0}
    tables: list[str] = []
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        transient=not sys.stderr.isatty(),
    ) as progress:
        steps = 1 + len(jobs) * (3 if fmt not in CDC_FORMATS else 4)
        task = progress.add_task(f"{fmt}: starting Spark", total=steps)
        if spark is None:
            spark = session(master)
        else:
            register(spark)
        progress.update(task, advance=1)
        for name, paths in jobs:
            stats = _ingest_table(
                spark, fmt, name, paths, output, mode, input_kind, tables, progress, task
            )
            for k in totals:
                totals[k] += stats[k]
    seconds = time.perf_counter() - started
    return {
        "format": fmt,
        "files": len(files),
        "records": totals["records"],
        "events": totals["rows"],
        "corrupt": totals["corrupt"],
        "seconds": round(seconds, 2),
        "rows_per_s": round(totals["rows"] / seconds, 1) if seconds else 0.0,
        "tables": tables,
    }


def _ingest_table(spark, fmt, name, paths, output, mode, input_kind, tables, progress, task):
    """Decode ``paths`` into the table ``output/name`` (and ``output/_corrupt/name``)."""
    from pyspark.sql import functions as F

    from runtime import spark_cdc
    from runtime.spark_decode import CORRUPT_COL

    progress.update(task, description=f"{name}: decoding {len(paths)} file(s)")
    df = (
        spark.read.format("wirespec")
        .option("format", fmt)
        .option("mode", mode)
        .option("inputKind", input_kind)
        .option("paths", json.dumps([str(p) for p in paths]))
        .load()
    ).cache()
    permissive = mode.upper() == "PERMISSIVE"
    stats = df.agg(
        F.count_distinct("_source_file", "_position").alias("records"),
        (
            F.sum(F.when(F.col(CORRUPT_COL).isNull(), 1).otherwise(0))
            if permissive
            else F.count(F.lit(1))
        ).alias("rows"),
        (
            F.count_distinct(
                F.when(F.col(CORRUPT_COL).isNotNull(), F.struct("_source_file", "_position"))
            )
            if permissive
            else F.lit(0)
        ).alias("corrupt"),
    ).first()
    stats = {k: stats[k] or 0 for k in ("records", "rows", "corrupt")}
    progress.update(task, advance=1, description=f"{name}: writing tables")
    good = df.where(F.col(CORRUPT_COL).isNull()).drop(CORRUPT_COL, "_error") if permissive else df
    target = output / name
    if fmt in CDC_FORMATS:
        good.write.mode("overwrite").parquet(str(target / "_events"))
        tables.append(str(target / "_events"))
        events = spark.read.parquet(str(target / "_events"))
        spark_cdc.resolved_watermark(events).write.mode("overwrite").parquet(
            str(target / "_watermark")
        )
        tables.append(str(target / "_watermark"))
        progress.update(task, advance=1, description=f"{name}: change tables")
        if events.where(F.col("_op").isin(*spark_cdc.ROW_OPS)).limit(1).count():
            for table_name, frame in spark_cdc.change_frames(events).items():
                schema, table = table_name.split(".", 1)
                path = target / schema / table
                frame.write.mode("overwrite").parquet(str(path))
                tables.append(str(path))
    else:
        good.write.mode("overwrite").parquet(str(target))
        tables.append(str(target))
    progress.update(task, advance=1)
    if permissive and stats["corrupt"]:
        bad = df.where(F.col(CORRUPT_COL).isNotNull()).select(
            CORRUPT_COL, "_error", "_source_file", "_position"
        )
        bad.write.mode("overwrite").parquet(str(output / "_corrupt" / name))
        tables.append(str(output / "_corrupt" / name))
    progress.update(task, advance=1, description=f"{name}: done")
    df.unpersist()
    return stats


def print_summary(results: list[dict], console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    table = Table(title="wirespec ingest")
    for col in ("format", "files", "records", "events", "corrupt", "rows/s", "seconds"):
        table.add_column(col, justify="left" if col == "format" else "right")
    for r in results:
        table.add_row(
            r["format"],
            str(r["files"]),
            str(r["records"]),
            str(r["events"]),
            str(r["corrupt"]),
            f"{r['rows_per_s']:,.1f}",
            f"{r['seconds']:.1f}",
        )
    console.print(table)
    console.print("output tables:", soft_wrap=True)
    for r in results:
        for path in r["tables"]:
            console.print(f"  {path}", soft_wrap=True, highlight=False)


def cmd_ingest(args) -> int:
    """The CLI verb (registered in :mod:`generator.cli`). FORMAT ``all`` ingests every
    sub-directory of each INPUT that is named after a format (``samples/<format>/``) in
    one Spark session."""
    from runtime.spark_decode import known_formats

    if args.format == "all":
        jobs = [
            (d.name, [d])
            for root in args.inputs
            for d in sorted(Path(root).iterdir())
            if d.is_dir() and d.name in known_formats()
        ]
    else:
        jobs = [(args.format, args.inputs)]
    spark = session(args.master) if jobs else None
    results = [
        ingest(
            fmt,
            inputs,
            args.output,
            mode=args.mode,
            input_kind=args.input_kind,
            spark=spark,
        )
        for fmt, inputs in jobs
    ]
    print_summary(results)
    return 0


def add_parser(verbs) -> None:
    ing = verbs.add_parser("ingest", help="decode message files on Spark into Parquet tables")
    ing.add_argument("format", help="a format, or all (INPUT/<format>/ directories)")
    ing.add_argument("inputs", nargs="+", metavar="INPUT", help="files or directories")
    ing.add_argument("--output", required=True, help="table directory")
    ing.add_argument("--mode", default="PERMISSIVE", choices=["FAILFAST", "PERMISSIVE"])
    ing.add_argument("--master", help="Spark master URL (default: local[*])")
    ing.add_argument(
        "--input-kind",
        default="auto",
        choices=["auto", "raw", "delimited", "binlog", "parquet"],
        help="override the detected input kind",
    )
    ing.set_defaults(run=cmd_ingest)
