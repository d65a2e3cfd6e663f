"""import-thrift (a real .thrift with every construct) and the Thrift command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from thrift_support import DATA, apache_classes, norm, struct_strategy, thrift_model

from generated import thrift_compact as tc
from generator.emit.user_spec import import_spec
from generator.importers.thrift_idl import import_thrift
from generator.spec.thrift import TType


def wirespec(*args, stdin: bytes = b""):
    return subprocess.run(
        [sys.executable, "-m", "generator.cli.main", *args],
        input=stdin,
        capture_output=True,
        check=False,
    )


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    path = tmp_path_factory.mktemp("idl") / "everything.yaml"
    path.write_text(import_thrift(DATA / "everything.thrift"))
    return path, thrift_model(path), import_spec(path)


def test_import_keeps_every_construct(imported):
    _, spec, mod = imported
    assert set(spec.structs) == {"Point", "Record", "Envelope", "Value", "Oops"}
    assert (spec.structs["Value"].kind, spec.structs["Oops"].kind) == ("union", "exception")
    rec = {f.name: f for f in spec.structs["Record"].fields}
    assert rec["id"].type.kind == "i64" and rec["id"].required  # typedef resolved
    assert rec["tag"].type.kind == "uuid"
    assert rec["aliases"].type.describe() == "list<string>"
    assert rec["paths"].type.describe() == "map<string, list<Point>>"  # included struct
    assert mod.Record().limit == 50 and mod.Record().name == "hello"  # consts as defaults
    assert mod.Record().kind is mod.Kind.B
    assert mod.Level.HIGH == 10


def test_idl_values_round_trip_through_apache_classes(imported):
    _, spec, mod = imported
    apache = apache_classes(spec)
    t = TType("struct", name="Envelope")

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    @given(struct_strategy(spec, mod, "Envelope"))
    def check(model):
        data = mod.build(model)
        peer = apache.read("Envelope", data)
        assert norm(spec, peer, t) == norm(spec, model, t)
        again = apache.write(peer)
        assert norm(spec, mod.parse(again, "Envelope"), t) == norm(spec, model, t)

    check()


def test_cli_decode_raw_encode_raw_round_trip(tmp_path):
    user = tc.User(id=1, name="ann", tags=["x"], addresses=[tc.Address("a", "b")], shard=9)
    src = tmp_path / "user.bin"
    src.write_bytes(tc.build(user))
    out = wirespec("decode", "thrift_compact", "--raw", str(src))
    assert out.returncode == 0, out.stderr
    tree = json.loads(out.stdout)
    assert tree["fields"][0] == {"id": 1, "type": "I64", "value": 1}
    assert tree["fields"][-1] == {"id": 16, "type": "I16", "value": 9}
    back = wirespec("encode", "thrift_compact", "--raw", "-", "-o", "-", stdin=out.stdout)
    assert back.returncode == 0, back.stderr
    assert back.stdout == src.read_bytes()


def test_cli_decode_with_a_user_spec_and_struct(tmp_path, imported):
    spec_path, _, mod = imported
    data = mod.build(mod.Value(rec=mod.Record(id=5, origin=mod.Point(1.0, 2.0))))
    src = tmp_path / "v.bin"
    src.write_bytes(data)
    out = wirespec(
        "decode", "thrift_compact", "--spec", str(spec_path), "--struct", "Value", str(src)
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["rec"]["origin"] == {"x": 1.0, "y": 2.0}
    back = wirespec(
        "encode",
        "thrift_compact",
        "--spec",
        str(spec_path),
        "--struct",
        "Value",
        "-",
        "-o",
        "-",
        stdin=out.stdout,
    )
    assert back.stdout == data
    schema = wirespec(
        "schema", "thrift_compact", "--spec", str(spec_path), "--struct", "Point", "--ddl"
    )
    assert schema.stdout.decode().strip() == "`x` DOUBLE NOT NULL, `y` DOUBLE NOT NULL"


def test_cli_takes_the_idl_itself_as_ingest_does(tmp_path, imported, capsys):
    """--spec FILE.thrift on decode/schema: the IDL imported in memory (it was read as YAML:
    'not valid YAML'); for another format, one line saying what an IDL is for."""
    from generator.cli.main import main

    _, _, mod = imported
    data = mod.build(mod.Point(1.0, 2.0), "Point")
    (tmp_path / "p.bin").write_bytes(data)
    idl = str(DATA / "everything.thrift")
    argv = ["decode", "thrift_compact", "--spec", idl, "--struct", "Point", str(tmp_path / "p.bin")]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == {"x": 1.0, "y": 2.0}
    assert main(["schema", "png", "--spec", idl]) == 2
    assert "a .thrift IDL is for thrift_compact, not png" in capsys.readouterr().err


def test_cli_message_with_a_body_struct(tmp_path):
    msg = tc.Message("get_user", tc.MessageType.CALL, -7, tc.get_user_args(key=tc.Lookup(id=3)))
    src = tmp_path / "m.bin"
    src.write_bytes(tc.build(msg))
    out = wirespec(
        "decode", "thrift_compact", "--record", "message", "--struct", "get_user_args", str(src)
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {
        "name": "get_user",
        "type": "CALL",
        "seqid": -7,
        "body": {"key": {"id": 3}},
    }
    back = wirespec(
        "encode",
        "thrift_compact",
        "--record",
        "message",
        "--struct",
        "get_user_args",
        "-",
        "-o",
        "-",
        stdin=out.stdout,
    )
    assert back.stdout == src.read_bytes()
    raw = wirespec("decode", "thrift_compact", "--raw", str(src))
    assert json.loads(raw.stdout)["body"]["fields"][0]["type"] == "STRUCT"


def test_cli_bad_input_names_offset_and_field(tmp_path):
    src = tmp_path / "bad.bin"
    src.write_bytes(b"\x80\x21\x00\x00\x00")
    out = wirespec("decode", "thrift_compact", "--record", "message", str(src))
    assert out.returncode != 0
    err = out.stderr.decode()
    assert "offset 0" in err and "protocol_id" in err and "Traceback" not in err
    src.write_bytes(tc.build(tc.Address("street", "city"))[:5])
    out = wirespec("decode", "thrift_compact", "--struct", "Address", str(src))
    assert (
        out.returncode != 0 and "offset" in out.stderr.decode() and "street" in out.stderr.decode()
    )


def test_spark_schema_and_rows_agree():
    pytest.importorskip("pyspark")
    from pyspark.sql.types import (
        ArrayType,
        BinaryType,
        ByteType,
        IntegerType,
        LongType,
        MapType,
        ShortType,
        StringType,
    )

    schema = tc.spark_schema("User")
    types = {f.name: f for f in schema.fields}
    assert isinstance(types["id"].dataType, LongType) and not types["id"].nullable
    assert isinstance(types["age"].dataType, ByteType) and types["age"].nullable
    assert isinstance(types["shard"].dataType, ShortType)
    assert isinstance(types["logins"].dataType, IntegerType)
    assert isinstance(types["token"].dataType, StringType)  # uuid as string
    assert isinstance(types["status"].dataType, StringType)  # enum name
    assert isinstance(types["avatar"].dataType, BinaryType)
    assert isinstance(types["tags"].dataType, ArrayType)
    assert isinstance(types["prefs"].dataType, MapType)
    import uuid

    user = tc.User(id=1, name="a", token=uuid.UUID(int=5), addresses=[tc.Address("s", "c")])
    (row,) = list(tc.to_rows(user))
    assert len(row) == len(schema.fields)
    # verify every value against its declared type
    from pyspark.sql.types import _make_type_verifier

    _make_type_verifier(schema)(row)
    assert row[schema.fieldNames().index("status")] == "ACTIVE"
    assert row[schema.fieldNames().index("addresses")] == [("s", "c", None)]


def test_fuzz_of_a_thrift_spec_fuzzes_that_spec(tmp_path, capsys):
    """fuzz thrift_compact --spec SPEC fuzzed the shipped thrift_compact module: the spec's
    module was held under its own format: (shop), and looked up as thrift_compact."""
    from generator.cli.main import main

    (tmp_path / "shop.thrift").write_text("struct User {\n  1: i64 id\n  2: string name\n}\n")
    spec = tmp_path / "shop.yaml"
    spec.write_text(import_thrift(tmp_path / "shop.thrift"))
    for path in (spec, tmp_path / "shop.thrift"):
        argv = ["fuzz", "thrift_compact", "--spec", str(path), "--seconds", "0.2", "--no-save"]
        assert main(argv) == 0
        assert capsys.readouterr().out.startswith("shop (User, message): ")


@pytest.mark.parametrize("kind", ["i8", "i16", "i32", "i64"])
def test_an_integer_default_may_be_any_value_of_its_type_and_no_other(kind):
    from generator.spec.thrift import check_default

    bits = int(kind[1:])
    for v in (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1):
        assert check_default(TType(kind), v, {}, {}, {}, None) == v
    for v in (-(2 ** (bits - 1)) - 1, 2 ** (bits - 1), True):
        with pytest.raises(Exception, match=f"default {v!r} is not an {kind}"):
            check_default(TType(kind), v, {}, {}, {}, None)
