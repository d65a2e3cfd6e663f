"""Spark decode() cost per event, stage by stage, against the plain Python loop (not a test).

    .venv/bin/python benchmarks/spark_ingest.py [--events 1000000] [--others 50000]
        [--runs 3] [--master local[2]] [--batch 10000] [--only ticdc_craft,...]
        [--stages scan,arrow,...]

Builds Craft messages holding ``--events`` row events (16 per message, as tiflow batches
them) plus a mix of the other formats (PlainBuffer: the small row of
``benchmarks/plainbuffer.py``, 64 distinct rows cycled), writes them as Kafka-shaped Parquet (four files),
then for each format measures, on the same input and in the same run:

* ``loop``: the plain Python loop on one core, no Spark: ``parse`` alone, then ``parse`` +
  ``to_rows`` (the rows a Python user gets; the baseline the overhead is taken from);
* ``py-batch``: :class:`BatchDecoder` (what each Spark worker runs) over the Parquet
  record batches read by pyarrow in this process, with the full schema and with the flat
  projection, so the Python share of the Spark cost is known without Spark; with the
  compiled tier's ``write_arrow`` (bytes to Arrow, when built) and without it (``py-rows``:
  the row tuples then ``pa.array``);
* Spark stages, each written to the ``noop`` sink (which copies every output column into
  Spark's row format, nested arrays included):
  ``scan`` (the Parquet read alone), ``arrow`` (an identity ``mapInArrow`` returning one
  trivial column: the JVM<->Python Arrow round trip and worker cost), ``replay`` (a
  ``mapInArrow`` that decodes nothing: it yields slices of a batch ``decode`` made
  beforehand, as many rows as ``decode`` would, with ``decode``'s whole output schema: what
  Spark itself costs for these rows), ``flat`` (``decode`` with only the flat fields, e.g.
  ``_op``, ``_commit_ts``, ``table``) and ``full`` (``decode`` with the whole schema);
  ``column`` (``from_wirespec`` in ``select``, exploded: an Arrow UDF) and ``sql`` (the
  SQL table function ``LATERAL from_wirespec(...)``, a row-at-a-time Python UDTF);
  ``from_json`` (Spark's built-in ``from_json`` with ``decode``'s schema, over the same rows
  as JSON text: ``to_json`` of ``decode``'s output, written to Parquet beforehand): the
  ratio ``full`` / ``from_json`` in rows/s is what a user compares.

Costs are CPU time, not wall time, because the 2-core machine is shared: each Spark stage
is charged the user+system CPU of the JVM and of the Python workers (the process tree
below this one, read from ``/proc``) plus this driver's; the loop is charged its own
``time.process_time``. So "core-us per event" is what the stage costs whatever else runs.
Wall time and events/s are printed too (on a quiet machine, Spark's wall events/s is what
the cores x wall accounting of the issue uses). Runs are interleaved (run 1 of every stage,
then run 2, ...) after one warm-up run, and medians are printed.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

STAGES = ("scan", "arrow", "replay", "flat", "full", "from_json", "column", "sql")


def craft_messages(n_events: int):
    from spark_cases import craft_encode

    from generated.models.ticdc_types import Column, RowChangedEvent

    events = [
        RowChangedEvent(
            400000000000000000 + i,
            "shop",
            "orders",
            new=[
                Column("id", 8, 0x0A, i),
                Column("qty", 3, 0, i % 1000),
                Column("price", 246, 0, f"{i % 10000}.{i % 100:02d}"),
                Column("note", 15, 0, b"order note %d" % i),
                Column("at", 12, 0, "2024-05-01 12:00:00"),
            ],
        )
        for i in range(n_events)
    ]
    return [(None, m) for m in craft_encode(events, max_batch_size=16)]


def other_messages(n: int):
    from spark_cases import CASES

    from benchmarks.plainbuffer import pb_small

    small = [(None, pb_small(i)) for i in range(64)]
    out = {}
    for fmt in ("plainbuffer", "ticdc_open_protocol"):
        vectors = small if fmt == "plainbuffer" else [kv for kv in CASES[fmt][0]()]
        out[fmt] = (vectors * (n // len(vectors) + 1))[:n]
    return out


def flat_fields(fmt) -> list[str]:
    """The decoded fields of atomic type (no arrays, structs or maps)."""
    from pyspark.sql.types import ArrayType, MapType, StructType

    from runtime.spark.decode import codec

    nested = (ArrayType, MapType, StructType)
    return [f.name for f in codec(fmt).schema().fields if not isinstance(f.dataType, nested)]


# -- CPU accounting ------------------------------------------------------------------------


def _proc_stats():
    """{pid: (ppid, comm, cpu seconds incl. reaped children)} of every process."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                text = f.read()
        except OSError:  # the process ended meanwhile
            continue
        comm = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
        out[int(entry.name)] = (int(fields[1]), comm, (utime + stime + cutime + cstime) / tick)
    return out


def tree_cpu() -> dict:
    """CPU seconds so far of the JVM and of the Python workers below it (children that
    ended are in their parent's reaped-children time) and of this driver."""
    stats = _proc_stats()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    jvm = python = 0.0
    todo = list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        ppid, comm, cpu = stats[pid]
        if comm == "java":
            jvm += cpu
        else:
            python += cpu
        todo.extend(children.get(pid, []))
    return {"jvm": jvm, "python": python, "driver": time.process_time()}


# -- the stages ----------------------------------------------------------------------------


def _lengths(batches):
    """The identity stage's function: one int per input row, computed in Arrow."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for batch in batches:
        yield pa.RecordBatch.from_arrays([pc.binary_length(batch.column("value"))], ["n"])


def _replayer(sample: bytes, rows_per_record: float):
    """The replay stage's function: slices of ``sample`` (an Arrow IPC stream of decoded
    rows), ``rows_per_record`` rows per input row."""

    def replay(batches):
        import pyarrow as pa

        rows = pa.ipc.open_stream(sample).read_next_batch()
        owed = 0.0
        for batch in batches:
            owed += batch.num_rows * rows_per_record
            while owed >= 1:
                n = min(int(owed), rows.num_rows)
                yield rows.slice(0, n)
                owed -= n

    return replay


def _function_stage(spark, stage, fmt, df):
    """``from_wirespec`` over ``df``: in ``select`` (``column``) or in SQL (``sql``)."""
    from pyspark.sql import functions as F

    from runtime.spark import from_wirespec
    from runtime.spark.decode import codec

    keyed = codec(fmt).needs_key
    if stage == "column":
        col = from_wirespec("value", fmt, key="key" if keyed else None)
        one = codec(fmt).one_row
        return df.select("offset", (col if one else F.explode(col)).alias("m")).select(
            "offset", "m.*"
        )
    df.createOrReplaceTempView("bench_input")
    args = f"k.value, '{fmt}', map(), k.key" if keyed else f"k.value, '{fmt}'"
    return spark.sql(f"SELECT k.offset, d.* FROM bench_input k, LATERAL from_wirespec({args}) d")


def json_input(spark, fmt, path, out: str) -> str:
    """``decode``'s rows of the Parquet files at ``path`` as JSON text (one column, and the
    offset passed through), written as Parquet to ``out``: the ``from_json`` stage's input."""
    from pyspark.sql import functions as F

    from runtime.spark import decode
    from runtime.spark.decode import codec

    names = codec(fmt).schema().names
    rows = decode(spark.read.parquet(path), fmt)
    rows.select("offset", F.to_json(F.struct(*names)).alias("json")).write.parquet(out)
    return out


def replay_sample(fmt, path, events_per_record: float) -> bytes:
    """About 4096 rows ``decode`` makes of the first records, as an Arrow IPC stream."""
    import pyarrow as pa

    decoder, batches = batch_decoder(fmt, path, max(1, int(4096 / events_per_record)), False)
    rows = decoder.decode(batches[0])
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, rows.schema) as out:
        out.write_batch(rows)
    return sink.getvalue().to_pybytes()


def spark_stage(spark, stage, fmt, path, replay=None, json_path=None):
    from pyspark.sql import functions as F

    from runtime.spark import decode
    from runtime.spark.decode import codec

    df = spark.read.parquet(path)
    if stage == "from_json":
        parsed = F.from_json("json", codec(fmt).schema()).alias("r")
        df = spark.read.parquet(json_path).select("offset", parsed).select("offset", "r.*")
    elif stage == "arrow":
        df = df.mapInArrow(_lengths, "n int")
    elif stage == "replay":
        df = df.mapInArrow(replay, decode(df, fmt).schema)
    elif stage == "flat":
        df = decode(df, fmt, columns=flat_fields(fmt))
    elif stage == "full":
        df = decode(df, fmt)
    elif stage in ("column", "sql"):
        df = _function_stage(spark, stage, fmt, df)
    before, start = tree_cpu(), time.perf_counter()
    df.write.format("noop").mode("overwrite").save()
    wall, after = time.perf_counter() - start, tree_cpu()
    return wall, {k: after[k] - before[k] for k in after}


def loop(fmt, messages, with_rows: bool):
    from runtime.spark.decode import codec

    c = codec(fmt)
    step = c.rows if with_rows else c.model
    start = time.process_time()
    for k, v in messages:
        step(k, v)
    return time.process_time() - start


def batch_decoder(fmt, path, batch_rows: int, flat: bool, arrow: bool = True):
    """The :class:`BatchDecoder` a Spark worker runs for ``decode`` of the Parquet files at
    ``path``, and those files' record batches of ``batch_rows``."""
    import pyarrow.parquet as pq
    from pyspark.sql.pandas.types import from_arrow_schema

    from runtime.spark.decode import INDEX_COL, BatchDecoder, codec, output_schema

    c = codec(fmt, None, None, flat_fields(fmt) if flat else None)
    files = sorted(Path(path).glob("*.parquet"))
    schema = pq.read_schema(files[0])
    consumed = ["key", "value"] if c.needs_key else ["value"]
    out_schema, renames = output_schema(
        from_arrow_schema(schema), c, "FAILFAST", consumed, INDEX_COL
    )
    decoder = BatchDecoder(
        c,
        out_schema,
        key_col="key" if c.needs_key else None,
        passthrough=list(renames),
        index_col=INDEX_COL,
    )
    if not arrow:
        decoder.reader = None  # the row tuples
    batches = [b for f in files for b in pq.ParquetFile(f).iter_batches(batch_size=batch_rows)]
    return decoder, batches


def py_batches(fmt, path, batch_rows: int, flat: bool, arrow: bool = True):
    """CPU seconds of the Spark worker's decoding, run here over the same Parquet input."""
    decoder, batches = batch_decoder(fmt, path, batch_rows, flat, arrow)
    start = time.process_time()
    for b in batches:
        decoder.decode(b)
    return time.process_time() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--others", type=int, default=50_000, help="messages per other format")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument(
        "--batch", type=int, default=10_000, help="spark.sql.execution.arrow.maxRecordsPerBatch"
    )
    parser.add_argument("--only", default="", help="comma-separated formats")
    parser.add_argument("--stages", default=",".join(STAGES), help="comma-separated stages")
    args = parser.parse_args(argv)
    stages = [s for s in STAGES if s in args.stages.split(",")]
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession

    from runtime.spark.decode import codec

    only = (
        args.only.split(",") if args.only else ["ticdc_craft", "plainbuffer", "ticdc_open_protocol"]
    )
    workloads = {}
    if "ticdc_craft" in only:
        print(f"building {args.events:,} Craft events ...", flush=True)
        workloads["ticdc_craft"] = craft_messages(args.events)
    workloads.update({f: m for f, m in other_messages(args.others).items() if f in only})
    tmp = Path(tempfile.mkdtemp(prefix="wirespec-bench-"))
    paths = {}
    for fmt, msgs in workloads.items():
        path = tmp / fmt
        path.mkdir()
        for part in range(4):  # four files -> four input splits
            chunk = msgs[part::4]
            pq.write_table(
                pa.table(
                    {
                        "key": pa.array([k for k, _ in chunk], pa.binary()),
                        "value": pa.array([v for _, v in chunk], pa.binary()),
                        "offset": pa.array(range(len(chunk)), pa.int64()),
                    }
                ),
                path / f"part-{part}.parquet",
            )
        paths[fmt] = str(path)
    spark = (
        SparkSession.builder.master(args.master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.python.worker.reuse", "true")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(args.batch))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    from runtime.spark import register

    register(spark)
    from runtime.core import tier

    arrow_built = tier.compiled("runtime._compiled.arrow") is not None
    print(f"compiled Arrow builders: {'built' if arrow_built else 'not built (pure Python)'}")
    cores = spark.sparkContext.defaultParallelism
    for fmt, msgs in workloads.items():
        events = sum(len(codec(fmt).rows(k, v)) for k, v in msgs)
        replay = _replayer(replay_sample(fmt, paths[fmt], events / len(msgs)), events / len(msgs))
        json_path = json_input(spark, fmt, paths[fmt], str(tmp / f"{fmt}-json"))
        run = functools.partial(spark_stage, spark, fmt=fmt, path=paths[fmt], replay=replay,
                                json_path=json_path)  # fmt: skip
        # every stage once to warm up the workers and the JIT, then interleaved runs
        for stage in stages:
            run(stage=stage)
        res: dict[str, list] = {}
        for _ in range(args.runs):
            res.setdefault("parse", []).append(loop(fmt, msgs, with_rows=False))
            res.setdefault("loop", []).append(loop(fmt, msgs, with_rows=True))
            for name, flat, arrow in (
                ("py-flat", True, True),
                ("py-full", False, True),
                ("py-rows", False, False),
            ):
                res.setdefault(name, []).append(
                    py_batches(fmt, paths[fmt], args.batch, flat, arrow)
                )
            for stage in stages:
                res.setdefault(stage, []).append(run(stage=stage))
        report(fmt, len(msgs), events, res, cores, stages)
    spark.stop()
    shutil.rmtree(tmp)


def report(fmt, n_msgs, events, res, cores, stages=STAGES):
    def us(seconds):
        return seconds / events * 1e6

    med = statistics.median
    parse, base = med(res["parse"]), med(res["loop"])
    cpu = {stage: med(sum(c.values()) for _, c in res[stage]) for stage in stages}
    print(f"\n{fmt}: {n_msgs:,} messages, {events:,} events; core-us per event, median")
    print(f"  loop (1 core)   parse {us(parse):7.2f}  parse+to_rows {us(base):7.2f}"
          f"  = {events / base:,.0f} ev/s")  # fmt: skip
    for name in ("py-flat", "py-full", "py-rows"):
        print(f"  {name:15} {us(med(res[name])):7.2f}  (BatchDecoder here, no Spark)")
    print(f"  {'spark stage':15} {'total':>7} {'jvm':>7} {'python':>7} {'driver':>7}"
          f" {'wall s':>7} {'ev/s':>9} {'cores x wall - loop':>19}")  # fmt: skip
    for stage in stages:
        wall = med(w for w, _ in res[stage])
        parts = {k: med(c[k] for _, c in res[stage]) for k in ("jvm", "python", "driver")}
        print(
            f"  {stage:15} {us(cpu[stage]):7.2f} {us(parts['jvm']):7.2f}"
            f" {us(parts['python']):7.2f} {us(parts['driver']):7.2f} {wall:7.2f}"
            f" {events / wall:9,.0f} {us(cores * wall - base):19.2f}"
        )
    if {"full", "from_json"} <= set(stages):
        walls = {s: med(w for w, _ in res[s]) for s in ("full", "from_json")}
        print(
            f"  decode() vs from_json: {events / walls['full']:,.0f} vs"
            f" {events / walls['from_json']:,.0f} rows/s = {walls['from_json'] / walls['full']:.2f}x"
            f" (wall); core-us/row {us(cpu['full']):.2f} vs {us(cpu['from_json']):.2f} ="
            f" {cpu['from_json'] / cpu['full']:.2f}x (CPU)"
        )
    if not {"scan", "arrow", "replay", "full", "flat"} <= set(stages):
        return
    print(
        f"  the workers' own cost (full - replay): {us(cpu['full'] - cpu['replay']):.2f} core-us/row"
    )
    steps = [
        ("Parquet scan, query and task fixed costs", cpu["scan"]),
        ("+ Arrow round trip to the workers", cpu["arrow"] - cpu["scan"]),
        ("+ shipping and converting the rows (replay)", cpu["replay"] - cpu["arrow"]),
        ("+ decoding in the workers (full - replay)", cpu["full"] - cpu["replay"]),
    ]
    print("  where full's core-us go:")
    for label, seconds in steps:
        print(f"    {label:46} {us(seconds):7.2f}")
    print(
        f"  Spark overhead over the loop (full - parse+to_rows): {us(cpu['full'] - base):.2f}"
        f" core-us/event; flat: {us(cpu['flat'] - base):.2f}"
    )


if __name__ == "__main__":
    main()
