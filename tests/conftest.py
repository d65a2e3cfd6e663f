"""Shared fixtures: one local SparkSession for the whole test run.

Spark tests are marked ``@pytest.mark.spark``; ``pytest -m "not spark"`` runs the codec
tests without starting a JVM. The session is created lazily, the first time a Spark test
asks for it, with the settings measured in ``research/spark_construct.md``.
"""

from __future__ import annotations

import os
import sys
import time

import pytest
from hypothesis import HealthCheck, settings

# The suite runs on machines shared with other jobs: how long drawing a big model (a TiCDC
# message, a binlog file) or running one example takes there says nothing about the code, so
# the health checks on generation time and size and the per-example deadline are off for
# every test here (a test's own settings start from this); every assertion stays.
settings.register_profile(
    "loaded",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# CI replays the same examples on every run, so a red build is about the change, not about
# which random examples a run happened to draw; locally every run explores new ones.
settings.register_profile(
    "ci", parent=settings.get_profile("loaded"), derandomize=True, database=None
)
settings.load_profile("ci" if os.environ.get("CI") else "loaded")


@pytest.fixture(scope="session")
def spark():
    # collect() turns timestamps into naive local datetimes: make local time UTC, the
    # session time zone, so they compare with the codecs' UTC datetimes
    os.environ["TZ"] = "UTC"
    time.tzset()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from generator.cli.ingest import log_config  # Spark logs errors only, from the start
    from runtime.spark.source import register

    session = (
        SparkSession.builder.master("local[2]")
        .appName("wirespec-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.python.worker.reuse", "true")
        # tiny test queries: compiling whole-stage Java code costs more than running it
        .config("spark.sql.codegen.wholeStage", "false")
        .config(
            "spark.driver.extraJavaOptions",
            f"-XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile=file:{log_config('error')}",
        )
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    register(session)
    yield session
    session.stop()
