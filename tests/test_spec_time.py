"""``time:`` fields (generator/spec/times.py): a timestamp of an earlier seconds field plus
a fraction in units the data may choose, on ``tests/data/user_specs/stamps.yaml`` (a magic
choosing microseconds or nanoseconds, as pcap's does, and an NTP timestamp): the model's
nanoseconds, the JSON form's time, Spark's columns, exact rebuilds, and the spec
mistakes, each named by file, line and key."""

from __future__ import annotations

import datetime
import json
import struct

import pytest

from generator import ROOT
from generator.emit.user_spec import import_spec, spec_model
from generator.spec.loader import load_text
from runtime.core.errors import SpecError

SPEC = ROOT / "tests" / "data" / "user_specs" / "stamps.yaml"
MICROS, NANOS = 0xA1B2C3D4, 0xA1B23C4D
NTP_1970 = 2208988800  # seconds from 1900 to 1970


@pytest.fixture(scope="module")
def stamps():
    return import_spec(SPEC)


def stamped(magic: int, fraction: int, seconds: int = 1764342000, ntp_frac: int = 1 << 31):
    packet = struct.pack("<II", seconds, fraction) + struct.pack(
        ">II", seconds + NTP_1970, ntp_frac
    )
    return struct.pack("<I", magic) + packet + b"\x02ab"


@pytest.mark.parametrize(
    "magic, fraction, nanos, text",
    [
        (MICROS, 123456, 123456000, "2025-11-28T15:00:00.123456000Z"),
        (NANOS, 123456789, 123456789, "2025-11-28T15:00:00.123456789Z"),
        (NANOS, 999999999, 999999999, "2025-11-28T15:00:00.999999999Z"),
    ],
)
def test_the_magic_chooses_the_unit_and_no_nanosecond_is_lost(stamps, magic, fraction, nanos, text):
    data = stamped(magic, fraction)
    model = stamps.parse(data)
    packet = model.packets[0]
    assert (packet.ts_sec, packet.ts_frac) == (1764342000, fraction)  # the wire's, kept
    assert packet.ts == 1764342000 * 10**9 + nanos
    assert packet.ntp == 1764342000 * 10**9 + 500_000_000  # 2**31 / 2**32 of a second
    assert stamps.parse_construct(data) == model
    form = json.loads(json.dumps(stamps.to_dict(model)))
    assert form["packets"][0]["ts_time"] == text
    assert form["packets"][0]["ntp_time"] == "2025-11-28T15:00:00.500000000Z"
    assert stamps.build(model) == stamps.build_construct(model) == data
    assert stamps.build(stamps.from_dict(form)) == data


def test_the_json_form_is_built_from_the_wire_fields_not_the_time(stamps):
    """The time is computed, like every derived value: from_dict and build take the
    seconds and the fraction, so an edited time cannot write other bytes."""
    data = stamped(NANOS, 5)
    form = stamps.to_dict(stamps.parse(data))
    form["packets"][0]["ts_sec"] += 1
    built = stamps.build(stamps.from_dict(form))
    assert stamps.parse(built).packets[0].ts == (1764342001 * 10**9) + 5


def test_spark_has_the_number_and_a_timestamp(stamps):
    pytest.importorskip("pyspark")
    names = stamps.spark_schema().fieldNames()
    assert names[:4] == ["ts_sec", "ts_frac", "ts", "ts_ts"]
    assert str(stamps.spark_schema()["ts_ts"].dataType) == "TimestampType()"
    (row,) = stamps.iter_rows(stamped(NANOS, 123456789))
    assert row[2] == 1764342000123456789  # the nanoseconds, in the number
    assert row[3] == datetime.datetime(
        2025, 11, 28, 15, 0, 0, 123456, tzinfo=datetime.timezone.utc
    )  # TimestampType holds microseconds


def test_a_fraction_unit_of_zero_from_the_data_is_a_decode_error(stamps, tmp_path):
    text = SPEC.read_text().replace(
        '"1000000000 if _parent.magic == 0xa1b23c4d else 1000000"', "_parent.magic - 7"
    )
    path = tmp_path / "stamps.yaml"
    path.write_text(text)
    module = import_spec(path)
    from runtime.core.errors import DecodeError

    with pytest.raises(DecodeError, match="packets.0..ts"):
        module.parse(struct.pack("<I", 7) + stamped(MICROS, 1)[4:])


@pytest.mark.parametrize(
    "old, new, where, says",
    [
        (
            "        time:\n          seconds: ts_sec\n",
            "        type: u32\n        time:\n          seconds: ts_sec\n",
            ":25: records.packet.fields[2].type: ",
            "a time: field is computed from earlier fields, never on the wire: no 'type'",
        ),
        (
            "per_second: 4294967296}",
            "per_second: 0}",
            ":33: records.packet.fields[5].time.per_second: ",
            "per_second is the fraction's units in a second (1000000 for microseconds",
        ),
        (
            "          fraction: ts_frac\n",
            "          fraction: ts_fraction\n",
            ":27: records.packet.fields[2].time.fraction: ",
            "expression uses 'ts_fraction', which is not an earlier field (did you mean 'ts_frac'?)",
        ),
        (
            'seconds: "ntp_sec - 2208988800"',
            'seconds: "ntp_secs - 2208988800"',
            ":33: records.packet.fields[5].time.seconds: ",
            "'ntp_secs', which is not an earlier field",
        ),
        (
            "per_second: 4294967296}",
            "per_sec: 4294967296}",
            ":33: records.packet.fields[5].time.per_sec: ",
            "unknown key 'per_sec' (did you mean 'per_second'?)",
        ),
    ],
)
def test_a_time_mistake_names_file_line_key_and_the_fix(tmp_path, old, new, where, says):
    good = SPEC.read_text()
    assert good.count(old) == 1, old
    path = tmp_path / "stamps.yaml"
    path.write_text(good.replace(old, new))
    with pytest.raises(SpecError) as err:
        spec_model(load_text(path.read_text(), path, "myspecs/stamps.yaml"))
    assert str(err.value).startswith("myspecs/stamps.yaml" + where), str(err.value)
    assert says in str(err.value)


def test_the_compiled_tier_reads_times_and_hex_as_pure_python(stamps, tmp_path):
    """``generate --specs DIR --out PKG --compiled``: the compiled reader computes the
    same nanoseconds (both units, NTP) and the JSON form shows the same times and hex."""
    import shutil

    from tests.user_packages import build_package, import_module, skip_unless_compiled

    skip_unless_compiled()
    (tmp_path / "myspecs").mkdir()
    shutil.copy(SPEC, tmp_path / "myspecs")
    out = build_package(tmp_path / "myspecs", tmp_path / "mypkg")
    compiled = import_module(out / "stamps.py", "user_mypkg_stamps")
    assert compiled._COMPILED is not None
    for magic, fraction in ((MICROS, 999999), (NANOS, 123456789), (NANOS, 0)):
        data = stamped(magic, fraction, ntp_frac=0xFFFFFFFF)
        assert compiled.to_dict(compiled.parse(data)) == stamps.to_dict(stamps.parse(data))
        assert compiled.build(compiled.parse(data)) == data


NANOS_COLUMN = """\
format: tn
title: t
doc: t
endian: le
default_record: items
records:
  items:
    doc: items
    spark: {row: items}
    fields:
      - {name: items, type: item, repeat: eos, doc: "x"}
  item:
    doc: item
    fields:
      - {name: n, type: s64, logical: unix_nanos, spark: {type: timestamp_ns}, doc: "n"}
"""


INT_TIMES = {
    "nanos": ("unix_nanos", "timestamp_ns"),
    "millis": ("unix_millis", "timestamp_ms"),  # BSON's UTC datetime
}
TIME_VALUES = [-1, -1000, -1001, 0, 999, 1764342000123456789, -(2**63), 2**63 - 1]
"""Negative times, int64's ends, and millis whose microseconds overflow an int64 or leave
Python's datetime (years 1 to 9999): a null timestamp beside the number."""


@pytest.mark.parametrize("unit", INT_TIMES)
def test_the_compiled_arrow_writer_writes_integer_times_as_python(tmp_path, unit):
    """A plain s64 time with ``spark: {type: timestamp_ns}`` (or ``timestamp_ms``): the
    compiled tier writes its two Arrow columns from the bytes (dividing as C does, so the
    rounding is written out; multiplying where it fits) exactly as the Python rows,
    negative times and int64's ends too."""
    import importlib.util
    import shutil
    import sys

    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("pyspark")
    from pyspark.sql.pandas.types import to_arrow_schema

    from generator.cli.main import main
    from runtime.core import tier
    from runtime.core.limits import DEFAULT

    pytest.importorskip("Cython")
    if tier.pure_python_forced() or not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("the compiled tier is not loaded here (forced pure Python, or no compiler)")
    (tmp_path / "myspecs").mkdir()
    logical, spark_type = INT_TIMES[unit]
    spec = NANOS_COLUMN.replace("unix_nanos", logical).replace("timestamp_ns", spark_type)
    (tmp_path / "myspecs" / "tn.yaml").write_text(spec)
    out = tmp_path / "mypkg"
    argv = ["generate", "--specs", str(tmp_path / "myspecs"), "--out", str(out), "--compiled"]
    assert main(argv) == 0
    module_spec = importlib.util.spec_from_file_location("user_mypkg_tn", out / "tn.py")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_spec.name] = module
    module_spec.loader.exec_module(module)
    assert "items" in module._COMPILED.bind_arrow(vars(module))
    values = TIME_VALUES + (
        [253402300799999, 253402300800000, -62135596800001] * (unit == "millis")
    )
    data = b"".join(struct.pack("<q", v) for v in values)
    schema = to_arrow_schema(module.spark_schema("items"), timezone="UTC")
    arrow = tier.compiled("runtime._compiled.arrow")
    builder, counts = arrow.builder_for(pa.struct(list(schema))), []
    assert module._COMPILED.write_arrow("items", pa.array([data]), 0, 1, builder, counts, DEFAULT)
    written = builder.finish().to_pylist()
    assert [(w["n"], w["n_ts"]) for w in written] == list(module.iter_rows(data, "items"))
    times = [w["n_ts"] for w in written]
    assert times[0] < datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    if unit == "millis":  # the last millisecond of 9999, then past either end of datetime
        assert times[-3].year == 9999 and times[-2:] == [None, None]
        assert times[TIME_VALUES.index(2**63 - 1)] is None  # no int64 of microseconds
