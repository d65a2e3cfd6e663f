"""Messages of every format for the Spark tests: shared vectors and property strategies.

``CASES[fmt]`` gives ``vectors()`` (a list of ``(key, value)`` messages) and
``strategy`` (a hypothesis strategy of such lists). A format enters the Spark tests by
appearing here; :func:`formats` lists those whose codec loads.
"""

from __future__ import annotations

import datetime
import json
import math
from pathlib import Path

from hypothesis import strategies as st

from generated.models.ticdc_types import Column, DdlEvent, ResolvedEvent, RowChangedEvent

VECTORS = Path(__file__).resolve().parent / "data" / "vectors"
SAMPLES = Path(__file__).resolve().parents[1] / "samples"

SEED_ROW = bytes.fromhex(
    "7500000001"
    "03040300000070 6b31050a0000000305000000 69616d706b0a98"
    "0304030000 00706b3205090000000064000000000000000a05"
    "02"
    "030407000000636f6c756d6e3105080000000303000000626164 07e9030000000000000a30"
    "030407000000636f6c756d6e3205090000000080000000000000 0007ea030000000000000a69"
    "030407000000636f6c756d6e33050900000001 9a99999999194140 07eb030000000000000a cf"
    "030407000000636f6c756d6e3406010aa7"
    "0922".replace(" ", "")
)

# -- PlainBuffer ---------------------------------------------------------------------------

_pb_values = st.one_of(
    st.builds(lambda v: {"type": "INTEGER", "value": v}, st.integers(-(2**63), 2**63 - 1)),
    st.builds(lambda v: {"type": "DOUBLE", "value": v}, st.floats(allow_nan=False)),
    st.builds(lambda v: {"type": "BOOLEAN", "value": v}, st.booleans()),
    st.builds(lambda v: {"type": "STRING", "value": v}, st.text(max_size=10)),
    st.builds(lambda v: {"type": "BLOB", "value": {"$hex": v.hex()}}, st.binary(max_size=10)),
    st.sampled_from([{"type": t, "value": None} for t in ("INF_MIN", "INF_MAX", "NULL")]),
)
_pb_cells = st.fixed_dictionaries(
    {
        "name": st.text(min_size=1, max_size=6),
        "value": st.none() | _pb_values,
        "op": st.none() | st.sampled_from(["DELETE_ALL_VERSION", "INCREMENT"]),
        "timestamp": st.none() | st.integers(0, 2**62),
    }
)
_pb_rows = st.fixed_dictionaries(
    {
        "primary_key": st.lists(_pb_cells, max_size=3),
        "attributes": st.lists(_pb_cells, min_size=1, max_size=4),
        "delete_marker": st.booleans(),
    }
)


def _pb_message(rows):
    from generated import plainbuffer

    return (None, plainbuffer.build(plainbuffer.from_dict({"rows": rows})))


_pb_strategy = st.lists(
    st.lists(_pb_rows, min_size=1, max_size=3).map(_pb_message), min_size=5, max_size=25
)


def _pb_vectors():
    return [(None, SEED_ROW), (None, SEED_ROW + SEED_ROW[4:])]


# -- TiCDC ---------------------------------------------------------------------------------

_codes = [1, 3, 8, 4, 5, 246, 10, 12, 7, 15, 252, 253, 254, 16, 248, 13]


def _cdc_value(code, flags):
    if code in (1, 3, 8, 16, 248, 13):
        if code in (16, 248) or (flags & 0x80 and code != 13):
            return st.integers(0, 2**64 - 1)
        return st.integers(-(2**63), 2**63 - 1)
    if code in (4, 5):
        return st.floats(allow_nan=False)
    if code in (15, 252, 253, 254):
        return st.binary(max_size=8)
    return st.sampled_from(["1.50", "2021-01-02", "2021-01-02 03:04:05", "{}"])


@st.composite
def _cdc_columns(draw):
    out = []
    for i in range(draw(st.integers(0, 4))):
        code = draw(st.sampled_from(_codes))
        flags = draw(st.sampled_from([0, 0x80, 0x01, 0x0A]))
        out.append(Column(f"c{i}", code, flags, draw(st.none() | _cdc_value(code, flags))))
    return out


@st.composite
def _cdc_event(draw):
    kind = draw(st.sampled_from(["insert", "update", "delete", "ddl", "resolved"]))
    ts = draw(st.integers(1, 2**63 - 1))
    if kind == "ddl":
        return DdlEvent(ts, "s", "t", 3, "CREATE TABLE t (a INT)")
    if kind == "resolved":
        return ResolvedEvent(ts)
    return RowChangedEvent(
        ts,
        draw(st.sampled_from(["s", "db"])),
        draw(st.sampled_from(["t", "u"])),
        new=draw(_cdc_columns()) if kind != "delete" else None,
        old=draw(_cdc_columns()) if kind != "insert" else None,
    )


def _craft_messages(events):
    return [(None, m) for m in craft_encode(events, max_batch_size=4)]


def craft_encode(events, **options):
    """Craft messages of events, by the generated module."""
    from runtime.spark.decode import load_module

    return list(load_module("ticdc_craft").encode_events(events, **options))


def _op_messages(events):
    from runtime.core.errors import DecodeError, EncodeError
    from runtime.spark.decode import load_module

    mod = load_module("ticdc_open_protocol")
    try:
        messages = list(mod.encode_events(events, max_batch_size=4))
        for k, v in messages:  # keep the values this generator renders validly
            mod.parse_kafka(k, v)
    except (EncodeError, DecodeError):
        return None
    return messages


def _safe_for_op(events):
    # Open Protocol renders floats and texts as JSON; keep the values it carries exactly.
    for ev in events:
        for c in (getattr(ev, "new", None) or []) + (getattr(ev, "old", None) or []):
            if isinstance(c.value, float) and not math.isfinite(c.value):
                return False
    return True


def _json_vectors(name):
    data = json.loads((VECTORS / f"{name}.json").read_text())
    return data["vectors"] if isinstance(data, dict) else data


def _craft_vectors():
    return [(None, bytes.fromhex(v["hex"])) for v in _json_vectors("ticdc_craft")]


def _op_vectors():
    out = []
    for v in _json_vectors("ticdc_open_protocol"):
        if v["hex"].get("key"):
            out.append((bytes.fromhex(v["hex"]["key"]), bytes.fromhex(v["hex"]["value"])))
    return out


# -- Thrift Compact: message envelopes of the demo service (default record ``message``) ------

_utf8 = st.text(st.characters(codec="utf-8"), max_size=12)
_i64 = st.integers(-(2**63), 2**63 - 1)


def _thrift():
    from generated import thrift_compact

    return thrift_compact


def _th_lookup():
    t = _thrift()
    return st.one_of(st.builds(t.Lookup, id=_i64), st.builds(t.Lookup, name=_utf8))


def _th_user():
    t = _thrift()
    opt = st.none().__or__
    address = st.builds(t.Address, street=opt(_utf8), city=opt(_utf8), zip=opt(_utf8))
    return st.builds(
        t.User,
        id=_i64,
        name=_utf8,
        status=st.sampled_from(list(t.Status)),
        admin=st.booleans(),
        age=opt(st.integers(-128, 127)),
        logins=st.integers(-(2**31), 2**31 - 1),
        score=opt(st.floats()),
        avatar=opt(st.binary(max_size=12)),
        token=opt(st.uuids()),
        tags=opt(st.lists(_utf8, max_size=3, unique=True)),
        addresses=opt(st.lists(address, max_size=2)),
        prefs=opt(st.dictionaries(_utf8, _utf8, max_size=2)),
        shard=opt(st.integers(-(2**15), 2**15 - 1)),
    )


@st.composite
def _th_message(draw):
    t = _thrift()
    kind = draw(st.sampled_from(["call", "reply", "not_found", "exception"]))
    seqid = draw(st.integers(-(2**31), 2**31 - 1))
    if kind == "call":
        body, mtype = t.get_user_args(draw(_th_lookup())), t.MessageType.CALL
    elif kind == "reply":
        body, mtype = t.get_user_result(success=draw(_th_user())), t.MessageType.REPLY
    elif kind == "not_found":
        body, mtype = t.get_user_result(nf=t.NotFound(draw(_th_lookup()))), t.MessageType.REPLY
    else:
        code = draw(st.sampled_from(list(t.TApplicationExceptionType)))
        body, mtype = t.TApplicationException(draw(_utf8), code), t.MessageType.EXCEPTION
    name = draw(st.sampled_from(["get_user", "get_usr", "gét_üser"]))
    return (None, t.build(t.Message(name, mtype, seqid, body)))


def _sample_files(fmt, pattern="*.bin"):
    return [(None, p.read_bytes()) for p in sorted((SAMPLES / fmt).glob(pattern))]


def _thrift_vectors():
    vectors = _sample_files("thrift_compact")
    assert vectors, "run samples/make_samples.py"
    # hand-written: a ONEWAY "ping" with an empty struct; get_user(Lookup(id=2)), seqid 1
    vectors.append((None, bytes.fromhex("82810004") + b"ping" + b"\x00"))
    vectors.append((None, bytes.fromhex("82210108") + b"get_user" + bytes.fromhex("1c16040000")))
    return vectors


# -- MySQL: GTID_TAGGED_LOG_EVENTs (default record ``gtid_tagged_event``) -------------------


def _mysql():
    from generated import mysql_serialization

    return mysql_serialization


def _u(bits):
    return st.integers(0, 2**bits - 1)


def _gtid_event(header, body):
    ms = _mysql()
    size = 19 + len(ms.build(body, "gtid_tagged_body")) + 4
    return (None, ms.build(ms.GtidTaggedEvent(body=body, event_size=size, **header)))


_gtid_strategy = st.lists(
    st.builds(
        _gtid_event,
        st.fixed_dictionaries(
            {"timestamp": _u(32), "server_id": _u(32), "log_pos": _u(32), "flags": _u(16)}
        ),
        st.builds(
            lambda **kw: _mysql().GtidTaggedBody(**kw),
            gtid_flags=_u(8),
            uuid=st.lists(_u(8), min_size=16, max_size=16),
            gno=_i64,
            tag=st.from_regex(r"[a-z_][a-z0-9_]{0,31}", fullmatch=True) | st.just(""),
            last_committed=_i64,
            sequence_number=_i64,
            immediate_commit_timestamp=_u(64) | st.integers(0, 253402300799999999),
            original_commit_timestamp=st.none() | _u(64),
            transaction_length=_u(64),
            immediate_server_version=_u(32),
            original_server_version=st.none() | _u(32),
            commit_group_ticket=st.none() | _u(64),
        ),
    ),
    min_size=3,
    max_size=15,
)


def _mysql_vectors():
    vectors = _sample_files("mysql_serialization")
    assert vectors, "run samples/make_samples.py"
    seed = {v["name"]: v for v in _json_vectors("mysql_serialization")}
    return vectors + [(None, bytes.fromhex(seed["gtid_tagged_event_seed_blog_full"]["hex"]))]


CASES = {
    "plainbuffer": (_pb_vectors, _pb_strategy),
    "thrift_compact": (_thrift_vectors, st.lists(_th_message(), min_size=3, max_size=15)),
    "mysql_serialization": (_mysql_vectors, _gtid_strategy),
    "ticdc_craft": (
        _craft_vectors,
        st.lists(_cdc_event(), min_size=3, max_size=20).map(_craft_messages),
    ),
    "ticdc_open_protocol": (
        _op_vectors,
        st.lists(_cdc_event(), min_size=3, max_size=20)
        .filter(_safe_for_op)
        .map(_op_messages)
        .filter(bool),
    ),
}


def formats() -> list[str]:
    return list(CASES)


def normal(value):
    """Rows and tuples as comparable plain data (NaN by its bits, lists as tuples)."""
    if isinstance(value, (tuple, list)):
        return tuple(normal(v) for v in value)
    if isinstance(value, float) and math.isnan(value):
        import struct

        return ("nan", struct.pack("<d", value))
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        # to_rows gives aware UTC datetimes; Spark's collect gives naive ones in local time
        return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


def output_fields(schema) -> list:
    """The decoded fields as the Spark glue outputs them: the generated types, each field
    nullable (an empty record's one row has them null)."""
    from pyspark.sql.types import StructField

    return [StructField(f.name, f.dataType, True) for f in schema.fields]
