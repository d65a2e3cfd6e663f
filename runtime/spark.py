"""Spark glue for every generated codec: one import for users.

* :func:`decode` - binary message columns -> typed rows (``mapInArrow``), FAILFAST or
  PERMISSIVE (:mod:`runtime.spark_decode`);
* the ``wirespec`` Python data source, batch and streaming (:mod:`runtime.spark_source`);
  call :func:`register` once per session;
* :func:`change_frames`, :func:`resolved_watermark`, :func:`apply_changes` - MERGE-ready
  TiCDC change tables (:mod:`runtime.spark_cdc`).
"""

from .spark_cdc import (  # noqa: F401
    apply_changes,
    change_frames,
    event_schema,
    key_columns,
    latest_changes,
    merge_sql,
    resolved_watermark,
)
from .spark_decode import CORRUPT_COL, ERROR_COL, decode, known_formats  # noqa: F401
from .spark_source import register  # noqa: F401
