"""TiCDC events on Spark: the event row shape, MERGE-ready change frames, watermarks.

Both TiCDC formats decode into ``generated.models.ticdc_types`` events; on Spark an event is one row
of :func:`runtime.formats.ticdc_rows.spark_schema` (``_op``, ``_commit_ts``, ``schema``, ``table``, the
``new``/``old`` images as arrays of ``(name, type, flags, value)`` cells, ...). Each cell
keeps its MySQL type code and flags and its value exactly (``int``, ``uint`` as
Decimal(20,0), ``float``, ``bytes`` or ``text``), so nothing is lost on the way.

:func:`change_frames` turns such rows into one MERGE-ready DataFrame per upstream table,
with real column types derived from the type codes and flags (see :func:`spark_type`),
``_op``, ``_commit_ts``, ``_seq`` (order within a commit), ``_before`` (the before image)
and ``_resolved_ts`` (the watermark: every change with ``_commit_ts <= _resolved_ts`` has
arrived). :func:`apply_changes` is the MERGE written as plain Spark (anti-join + union),
for Parquet tables without Delta.
"""

from __future__ import annotations

from runtime.formats import ticdc_rows
from runtime.formats.ticdc_rows import FLAG_BINARY, FLAG_HANDLE_KEY, FLAG_UNSIGNED

FLAG_PRIMARY_KEY = 0x08

# -- the event row -------------------------------------------------------------------------

event_schema = ticdc_rows.spark_schema
"""The Spark schema of one TiCDC event row (``runtime.formats.ticdc_rows.spark_schema``)."""


# -- typed columns -------------------------------------------------------------------------

INT_SMALL = {1, 2, 9, 13}  # TINYINT, SMALLINT, MEDIUMINT, YEAR
BYTES_KINDS = {15, 253, 254, 249, 250, 251, 252}
DECIMAL = 246
ROW_OPS = ("insert", "update", "delete")


def spark_type(type_code: int, flags: int, decimal=None):
    """The Spark type of a column with this MySQL type code and flags.

    TINYINT..MEDIUMINT and YEAR -> INT; INT -> INT, or BIGINT if unsigned; BIGINT ->
    BIGINT, or DECIMAL(20,0) if unsigned; BIT and SET -> DECIMAL(20,0); ENUM -> BIGINT;
    FLOAT/DOUBLE -> FLOAT/DOUBLE; DECIMAL -> DECIMAL(p,s) when ``decimal=(p, s)`` is known,
    else STRING; the string kinds -> BINARY with the binary flag, else STRING; DATE ->
    DATE; DATETIME -> TIMESTAMP_NTZ (wall clock); TIMESTAMP -> TIMESTAMP (read in the
    session time zone); TIME, JSON, VECTOR and the rest -> STRING."""
    from pyspark.sql import types as T

    unsigned = bool(flags & FLAG_UNSIGNED)
    if type_code in INT_SMALL:
        return T.IntegerType()
    if type_code == 3:
        return T.LongType() if unsigned else T.IntegerType()
    if type_code == 8:
        return T.DecimalType(20, 0) if unsigned else T.LongType()
    if type_code in (16, 248):
        return T.DecimalType(20, 0)
    if type_code == 247:
        return T.LongType()
    if type_code == 4:
        return T.FloatType()
    if type_code == 5:
        return T.DoubleType()
    if type_code == DECIMAL:
        return T.DecimalType(*decimal) if decimal else T.StringType()
    if type_code in BYTES_KINDS:
        return T.BinaryType() if flags & FLAG_BINARY else T.StringType()
    if type_code in (10, 14):
        return T.DateType()
    if type_code == 12:
        return T.TimestampNTZType()
    if type_code == 7:
        return T.TimestampType()
    return T.StringType()


def _typed(cell, type_code: int, flags: int, decimal=None):
    """Spark column: the typed value of a cell struct column (null when the cell is)."""
    from pyspark.sql import functions as F

    target = spark_type(type_code, flags, decimal)
    name = target.typeName()
    value = cell["value"]
    if type_code in INT_SMALL | {3, 8, 16, 247, 248}:
        return F.coalesce(value["int"].cast(target), value["uint"].cast(target))
    if type_code in (4, 5):
        return value["float"].cast(target)
    if type_code in BYTES_KINDS:
        return value["bytes"].cast(target)
    text = value["text"]
    if type_code in (10, 14):
        return F.coalesce(F.try_to_date(text, "yyyy-MM-dd"), F.try_to_date(text, "yyyy/MM/dd"))
    if type_code in (7, 12):
        norm = F.regexp_replace(text, "/", "-")
        ts = F.try_to_timestamp(norm)
        return ts.cast(target) if name == "timestamp_ntz" else ts
    if type_code == DECIMAL and decimal:
        return text.cast(target)
    return text


# -- change frames --------------------------------------------------------------------------

ORDER_COLS = ("_input_partition", "offset", "_source_file", "_position", "_event_index")
"""Input columns that order events within one commit ts, when present (in this order)."""


def _column_catalog(events):
    """[(schema, table, column, position, type, flags, frac_min, frac_max, int_max)]:
    the columns of every table, their last type and flags, and the digits of DECIMALs."""
    from pyspark.sql import functions as F

    rows = events.where(F.col("_op").isin(*ROW_OPS))
    cells = rows.select(
        "schema",
        "table",
        F.col("_commit_ts").alias("commit_ts"),
        F.posexplode(F.concat(F.coalesce("new", F.array()), F.coalesce("old", F.array()))),
    ).select("schema", "table", "commit_ts", "pos", "col.*")
    text = F.col("value.text")
    frac = F.when(text.contains("."), F.length(F.substring_index(text, ".", -1))).otherwise(0)
    whole = F.length(F.regexp_replace(F.substring_index(text, ".", 1), "^-", ""))
    dec = F.col("type") == DECIMAL
    agg = cells.groupBy("schema", "table", "name").agg(
        F.min("pos").alias("pos"),
        F.max_by(F.struct("type", "flags"), "commit_ts").alias("tf"),
        F.min(F.when(dec, frac)).alias("frac_min"),
        F.max(F.when(dec, frac)).alias("frac_max"),
        F.max(F.when(dec, whole)).alias("int_max"),
        F.max(F.when(dec & text.isNotNull() & ~text.rlike(r"^-?[0-9]+(\.[0-9]+)?$"), 1)).alias(
            "odd"
        ),
    )
    flat = ("schema", "table", "name", "pos", "tf.type", "tf.flags", "frac_min", "frac_max")
    return [tuple(r) for r in agg.select(*flat, "int_max", "odd").collect()]


def _decimal_of(frac_min, frac_max, int_max, odd, declared):
    if declared:
        return declared
    if odd or frac_min is None or frac_min != frac_max:
        return None
    scale = frac_max
    return (38, scale) if max(int_max or 1, 1) + scale <= 38 else None


def resolved_watermark(events, by=None):
    """A one-row DataFrame ``resolved_ts``: the commit ts up to which every change has
    arrived; null when no resolved event was seen.

    TiCDC sends resolved events to every Kafka partition, so with the Kafka partition
    column (``_input_partition`` after :func:`~runtime.spark.decode.decode`, or ``by``)
    it is the smallest, over partitions, of the largest resolved ts of each."""
    from pyspark.sql import functions as F

    resolved = events.where(F.col("_op") == "resolved")
    by = by or ("_input_partition" if "_input_partition" in events.columns else None)
    if by:
        per = resolved.groupBy(by).agg(F.max("_commit_ts").alias("ts"))
        return per.agg(F.min("ts").alias("resolved_ts"))
    return resolved.agg(F.max("_commit_ts").alias("resolved_ts"))


def change_frames(events, table=None, *, decimals=None, split_key_updates=True):
    """MERGE-ready change rows per upstream table from decoded TiCDC events.

    Returns ``{"schema.table": DataFrame}``, or one DataFrame when ``table`` names one
    (``"schema.table"`` or a bare table name). Each frame has the table's columns, typed
    by :func:`spark_type`, holding the after image (the before image for deletes), then
    ``_op`` (``insert``/``update``/``delete``), ``_commit_ts``, ``_seq`` (a struct that
    orders changes of one commit: the Kafka partition/offset or file/position and event
    index when present), ``_before`` (struct of the before image; null for inserts),
    ``_schema``, ``_table`` and ``_resolved_ts``.

    ``decimals``: ``{"schema.table.column" or "column": (precision, scale)}`` for DECIMAL
    columns; otherwise the scale is taken from the data when every value has the same
    number of fraction digits (TiCDC renders a DECIMAL with its declared scale), else the
    column stays a string. With ``split_key_updates`` an update that changes a handle-key
    (or primary-key) column becomes a delete of the old key and an insert of the new one,
    so a MERGE on the key gives the right final state."""

    frames = change_frames_by_table(
        events, table, decimals=decimals, split_key_updates=split_key_updates
    )
    if table is not None:
        return frames
    named = {}
    for (schema, tbl), frame in frames.items():
        name = f"{schema}.{tbl}"
        if name in named:  # schema "a.b" + table "c" and schema "a" + table "b.c"
            raise ValueError(f"two tables are named {name!r}: use change_frames_by_table")
        named[name] = frame
    return named


def change_frames_by_table(events, table=None, *, decimals=None, split_key_updates=True):
    """:func:`change_frames` keyed by ``(schema, table)``: the names as they are, so no two
    upstream tables share a key whatever their names hold (dots included)."""
    decimals = decimals or {}
    catalog = _column_catalog(events)
    tables: dict[tuple, list] = {}
    for schema, tbl, name, pos, type_code, flags, fmin, fmax, imax, odd in catalog:
        declared = decimals.get(f"{schema}.{tbl}.{name}") or decimals.get(name)
        dec = _decimal_of(fmin, fmax, imax, odd, declared) if type_code == DECIMAL else None
        tables.setdefault((schema, tbl), []).append((pos, name, type_code, flags, dec))
    if table is not None:
        wanted = [k for k in tables if f"{k[0]}.{k[1]}" == table or k[1] == table]
        if not wanted:
            raise ValueError(f"no row events for table {table!r}; tables: {sorted(tables)}")
        tables = {wanted[0]: tables[wanted[0]]}
    watermark = resolved_watermark(events)
    order = [c for c in ORDER_COLS if c in events.columns]
    frames = {}
    for (schema, tbl), cols in sorted(tables.items(), key=lambda kv: tuple(map(str, kv[0]))):
        cols.sort()
        frames[(schema, tbl)] = _frame(
            events, schema, tbl, cols, order, watermark, split_key_updates
        )
    if table is not None:
        return next(iter(frames.values()))
    return frames


def _frame(events, schema, tbl, cols, order, watermark, split):
    from pyspark.sql import functions as F

    rows = events.where(
        F.col("_op").isin(*ROW_OPS)
        & F.col("schema").eqNullSafe(schema)
        & F.col("table").eqNullSafe(tbl)
    )

    def as_map(image):
        return F.map_from_entries(F.transform(F.col(image), lambda c: F.struct(c["name"], c)))

    rows = rows.withColumn("_new_m", as_map("new")).withColumn("_old_m", as_map("old"))
    keys = [c for c in cols if c[3] & FLAG_HANDLE_KEY] or [
        c for c in cols if c[3] & FLAG_PRIMARY_KEY
    ]
    changed = F.lit(False)
    for _, name, *_ in keys:
        changed = changed | ~F.col("_new_m")[name].eqNullSafe(F.col("_old_m")[name])
    split_now = (F.col("_op") == "update") & F.col("old").isNotNull() & changed
    if not split or not keys:
        split_now = F.lit(False)
    parts = F.when(
        split_now,
        F.array(
            F.struct(F.lit("delete").alias("op"), F.lit(0).alias("part")),
            F.struct(F.lit("insert").alias("op"), F.lit(1).alias("part")),
        ),
    ).otherwise(F.array(F.struct(F.col("_op").alias("op"), F.lit(0).alias("part"))))
    rows = rows.withColumn("_part", F.explode(parts))
    op = F.col("_part.op")
    image = F.when(op == "delete", F.col("_old_m")).otherwise(F.col("_new_m"))
    rows = rows.withColumn("_img", image)
    key_names = {k[1] for k in keys}
    after = [
        _typed(F.col("_img")[name], t, fl, dec).alias(
            name, metadata={"key": name in key_names, "mysql_type": t, "mysql_flags": fl}
        )
        for _, name, t, fl, dec in cols
    ]
    before = F.when(
        F.col("old").isNotNull() & (op != "insert"),
        F.struct(
            *[_typed(F.col("_old_m")[name], t, fl, dec).alias(name) for _, name, t, fl, dec in cols]
        ),
    )
    seq = F.struct(*[F.col(c) for c in order], F.col("_part.part").alias("_split"))
    out = rows.select(
        *after,
        op.alias("_op"),
        F.col("_commit_ts"),
        seq.alias("_seq"),
        before.alias("_before"),
        F.lit(schema).cast("string").alias("_schema"),
        F.lit(tbl).cast("string").alias("_table"),
    )
    return out.crossJoin(F.broadcast(watermark.withColumnRenamed("resolved_ts", "_resolved_ts")))


def key_columns(frame) -> list[str]:
    """The key of a change frame: its handle-key columns (else its primary-key columns),
    as marked in the column metadata by :func:`change_frames`."""
    return [f.name for f in frame.schema.fields if f.metadata.get("key")]


def latest_changes(frame, keys):
    """The last change per key (by ``_commit_ts`` then ``_seq``): the MERGE source."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    w = Window.partitionBy(*keys).orderBy(F.col("_commit_ts").desc(), F.col("_seq").desc())
    return frame.withColumn("_rn", F.row_number().over(w)).where("_rn = 1").drop("_rn")


def apply_changes(base, frame, keys):
    """``MERGE INTO base USING latest_changes(frame) ON keys`` (delete / update / insert),
    written as plain Spark so it runs on Parquet: the result DataFrame."""
    from pyspark.sql import functions as F

    data_cols = [c for c in base.columns]
    latest = latest_changes(frame, keys)
    kept = base.join(latest.select(*keys), on=keys, how="left_anti")
    upserts = latest.where(F.col("_op") != "delete").select(*data_cols)
    return kept.unionByName(upserts)


def merge_sql(target: str, source: str, columns: list[str], keys: list[str]) -> str:
    """The Delta Lake ``MERGE INTO`` statement of the README recipe for one table."""
    on = " AND ".join(f"t.`{k}` = s.`{k}`" for k in keys)
    sets = ", ".join(f"`{c}` = s.`{c}`" for c in columns)
    names = ", ".join(f"`{c}`" for c in columns)
    values = ", ".join(f"s.`{c}`" for c in columns)
    return (
        f"MERGE INTO {target} t USING {source} s ON {on}\n"
        f"WHEN MATCHED AND s._op = 'delete' THEN DELETE\n"
        f"WHEN MATCHED THEN UPDATE SET {sets}\n"
        f"WHEN NOT MATCHED AND s._op != 'delete' THEN INSERT ({names}) VALUES ({values})"
    )
