"""Spark glue for every generated codec: one import for users.

* :func:`from_wirespec` - a binary column -> a struct (or an array of structs), in
  ``select`` and, once registered, in SQL (:mod:`runtime.spark.functions`);
* :func:`decode` - binary message columns -> typed rows with the input's columns
  (``mapInArrow``), FAILFAST or PERMISSIVE (:mod:`runtime.spark.decode`);
* the ``wirespec`` Python data source, batch and streaming (:mod:`runtime.spark.source`);
* :func:`register` - the data source and the SQL function, once per session;
* :func:`change_frames`, :func:`resolved_watermark`, :func:`apply_changes` - MERGE-ready
  TiCDC change tables (:mod:`runtime.spark.cdc`).
"""

from runtime.spark.cdc import (  # noqa: F401
    apply_changes,
    change_frames,
    event_schema,
    key_columns,
    latest_changes,
    merge_sql,
    resolved_watermark,
)
from runtime.spark.decode import (  # noqa: F401
    CORRUPT_COL,
    ERROR_COL,
    INDEX_COL,
    decode,
    known_formats,
)
from runtime.spark.functions import from_wirespec, register_sql  # noqa: F401
from runtime.spark.source import register as register_source


def register(spark) -> None:
    """Register the ``wirespec`` data source and the SQL function ``from_wirespec``."""
    register_source(spark)
    register_sql(spark)
