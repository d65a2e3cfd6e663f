"""``from_wirespec``: decode a binary column in ``select`` and in SQL, as ``from_protobuf`` does.

    >>> from runtime.spark import from_wirespec                        # doctest: +SKIP
    >>> df.select(from_wirespec("value", "thrift_compact").alias("m"))  # doctest: +SKIP
    >>> df.select(F.explode(from_wirespec("value", "plainbuffer")))     # doctest: +SKIP

The column function returns, per input record:

* a struct of the decoded fields when the format's message is one row (Thrift Compact's
  ``message``, MySQL's single events);
* else an array of those structs, one per row or event, for ``explode`` (PlainBuffer's
  rows, the TiCDC events, a binlog file's events); an empty record gives an empty array;
* null for a null input, and for a bad record in ``PERMISSIVE`` (like ``from_protobuf``);
  ``FAILFAST`` (default) fails the query. :func:`runtime.spark.decode.decode` and the data
  source keep the bad record's bytes and error instead.

SQL cannot type a scalar function by an argument's value (``'plainbuffer'``), so
:func:`register_sql` registers ``from_wirespec`` as a table function whose schema its
``analyze`` derives from the constant format and options, used with ``LATERAL`` (a
row-at-a-time Python UDTF: about 1.8x the cost of ``decode()``, see
``benchmarks/HISTORY.md``)::

    SELECT k.offset, d.* FROM kafka k,
      LATERAL from_wirespec(k.value, 'plainbuffer', map('mode', 'PERMISSIVE')) d
    SELECT d.* FROM kafka k, LATERAL from_wirespec(k.value, 'ticdc_open_protocol', map(), k.key) d

Its rows are :func:`~runtime.spark.decode.decode`'s, per record: ``_event_index`` and the
decoded fields (an empty record: one row of nulls), plus ``_corrupt_record`` and
``_error`` in ``PERMISSIVE``.
"""

from __future__ import annotations

import functools

from runtime.core.errors import OptionError
from runtime.spark.decode import (
    INDEX_COL,
    RECORD_ERRORS,
    BatchDecoder,
    RecordDecodeError,
    check_mode,
    codec,
    error_text,
    failure_message,
    format_options,
    output_schema,
)

SQL_NAME = "from_wirespec"


@functools.cache
def column_codec(fmt: str, options: tuple):
    """``(codec, mode)`` of ``fmt`` and the ``(name, value)`` pairs of ``options``."""
    opts = {str(k): v for k, v in options}
    mode = check_mode(opts.pop("mode", "FAILFAST"))
    record = opts.pop("record", None)
    spec, struct = opts.pop("spec", None), opts.pop("struct", None)
    return codec(fmt, record, format_options(fmt, opts, spec), spec=spec, struct=struct), mode


def _input_schema(keyed: bool):
    from pyspark.sql.types import BinaryType, StructField, StructType

    names = ("key", "value") if keyed else ("value",)
    return StructType([StructField(n, BinaryType(), True) for n in names])


def return_type(codec_):
    """The Spark type :func:`from_wirespec` returns for ``codec_``."""
    from pyspark.sql.types import ArrayType, StructField, StructType

    row = StructType([StructField(f.name, f.dataType, True) for f in codec_.schema().fields])
    return row if codec_.one_row else ArrayType(row, containsNull=False)


def from_wirespec(data, format: str, options: dict | None = None, key=None):
    """Column: the decoded ``data`` (a binary column or its name) of ``format``.

    ``options`` (names and values as strings or ints, like ``from_protobuf``'s):
    ``mode`` (``FAILFAST``, the default, or ``PERMISSIVE``: null for a bad record),
    ``record``, every limit of :mod:`runtime.core.limits`, the format's schema options
    (Thrift's ``body``), and Thrift's ``spec`` and ``struct`` (as :func:`decode`'s). ``key``: the Kafka key column, needed by the formats whose
    messages are a key and a value (TiCDC Open Protocol). Returns a struct, or an array
    of structs to ``explode`` (see the module doc). Bad options raise
    :class:`~runtime.core.errors.OptionError` here, on the driver."""
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql.functions import arrow_udf
    from pyspark.sql.pandas.types import to_arrow_type

    c, mode = column_codec(format, tuple(sorted((options or {}).items())))
    if c.needs_key and key is None:
        raise OptionError(f"{format} needs the message key too: from_wirespec(..., key=column)")
    rtype = return_type(c)
    out_schema, _ = output_schema(_input_schema(c.needs_key), c, mode, ("key", "value"))
    names = ["key", "value"] if c.needs_key else ["value"]

    def run(*columns):
        present = [i for i, ok in enumerate(columns[-1].is_valid().to_pylist()) if ok]
        take = pa.array(present, pa.int64())
        batch = pa.RecordBatch.from_arrays([a.take(take) for a in columns], names=names)
        decoder = BatchDecoder(c, out_schema, key_col="key" if c.needs_key else None, mode=mode)
        with decoder.gc_paused():
            items, counts, corrupt = decoder.explode(batch)
            rows = pa.StructArray.from_arrays(
                decoder.decoded_arrays(items), fields=decoder.decoded_fields
            )
        per_record = [None] * len(columns[-1])  # rows of each input; None: a null result
        for j, i in enumerate(present):
            per_record[i] = None if j in corrupt else counts[j]
        if c.one_row:
            at, good = [], 0
            for n in per_record:
                at.append(good if n else None)
                good += n or 0
            return rows.take(pa.array(at, pa.int64()))
        offsets = [0]
        for n in per_record:
            offsets.append(offsets[-1] + (n or 0))
        return pa.ListArray.from_arrays(
            pa.array(offsets, pa.int32()),
            rows,
            type=to_arrow_type(rtype, timezone="UTC"),
            mask=pa.array([n is None for n in per_record]),
        )

    udf = arrow_udf(run, rtype)
    columns = [key, data] if c.needs_key else [data]
    return udf(*[(F.col(x) if isinstance(x, str) else x).cast("binary") for x in columns])


class WirespecTable:
    """The SQL table function ``from_wirespec(value, format [, options map] [, key])``."""

    @staticmethod
    def analyze(value, fmt, *rest):
        from pyspark.sql.types import BinaryType, MapType, StructField, StructType
        from pyspark.sql.udtf import AnalyzeResult

        if not fmt.isConstantExpression or not isinstance(fmt.value, str):
            raise OptionError("from_wirespec(value, format, ...): format must be a constant")
        options, keyed = {}, False
        for arg in rest:
            if isinstance(arg.dataType, MapType):
                if not arg.isConstantExpression:
                    raise OptionError("from_wirespec: the options map must be a constant")
                options = dict(arg.value or {})
            elif isinstance(arg.dataType, BinaryType):
                keyed = True
            else:
                raise OptionError(
                    f"from_wirespec(value, format [, options map] [, key binary]): "
                    f"unexpected {arg.dataType.simpleString()} argument"
                )
        c, mode = column_codec(fmt.value, tuple(sorted(options.items())))
        if c.needs_key and not keyed:
            raise OptionError(f"{fmt.value} needs the message key too: add the key column")
        out, _ = output_schema(_input_schema(keyed), c, mode, ("key", "value"), INDEX_COL)
        return AnalyzeResult(schema=StructType([StructField(f.name, f.dataType) for f in out]))

    def eval(self, value, fmt, *rest):
        options = next((a for a in rest if isinstance(a, dict)), None) or {}
        key = next((a for a in rest if isinstance(a, (bytes, bytearray))), None)
        c, mode = column_codec(fmt, tuple(sorted(options.items())))
        tail = (None, None) if mode == "PERMISSIVE" else ()
        try:
            rows = c.rows(key, value)
        except RECORD_ERRORS as err:
            if not tail:
                raise RecordDecodeError(failure_message(fmt, {}, err)) from err
            yield (None, *([None] * len(c.keep)), value, error_text(err))
            return
        if not rows:  # an empty record: one row that says so
            yield (None, *([None] * len(c.keep)), *tail)
        for i, row in enumerate(rows):
            yield (i, *(row[k] for k in c.keep), *tail)


def register_sql(spark) -> None:
    """Register the SQL table function ``from_wirespec`` with a session."""
    from pyspark.sql.functions import udtf

    # Pickled rows, not Arrow: measured on 5,000 PlainBuffer messages, the Arrow-optimized
    # UDTF took 65 s and this one 7 s (its per-row Arrow conversion of nested structs)
    spark.udtf.register(SQL_NAME, udtf(WirespecTable, useArrow=False))
