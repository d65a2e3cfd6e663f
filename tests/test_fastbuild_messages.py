"""The fast writer of ``layout: serializable`` messages (generator/emit/fastbuild_messages.py),
held equal to construct's ``SerializableMessage`` build and to MySQL's own encoder.

MySQL's bytes (the vectors' bodies and events, the samples, the fuzz findings) come back from
the writer itself, byte for byte; on hypothesis-drawn models with the header values a model
may carry (a kept size, MySQL's off-by-one size, a size only wider varints can keep, a kept
``last_non_ignorable_field_id``) and a newer writer's fields kept as ``unknown_fields``, the
writer gives construct's bytes, or raises where construct does (``build`` then gives
construct's error), and never writes bytes where construct refuses the model.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated import mysql_serialization as ms
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.msbvarint import encode_uvar, encode_uvar_wide, uvar_size

ROOT = Path(__file__).resolve().parent.parent
VECTORS = json.loads((ROOT / "tests/data/vectors/mysql_serialization.json").read_text())
MYSQL_BYTES = [
    (v["name"], "gtid_tagged_body" if "body" in v["name"] else "gtid_tagged_event")
    for v in VECTORS
    if v["name"].startswith("gtid_tagged_")
]
"""The vectors of whole bodies and events: MySQL's (and Percona's) encoder wrote them."""
BODY = "gtid_tagged_body"
SEED_BODY = bytes.fromhex(
    next(v["hex"] for v in VECTORS if v["name"] == "gtid_tagged_body_seed_blog_9.2.0")
)


def written(model, record=BODY) -> bytes:
    """The fast writer's own bytes (``build`` would fall back to construct)."""
    out = bytearray()
    ms.FAST_WRITERS[record](model, out)
    return bytes(out)


def test_the_body_has_a_fast_writer_and_no_fallback():
    assert BODY in ms.FAST_WRITERS
    assert BODY not in ms.FALLBACKS["build"]
    # the events write it with it, not through its construct object
    assert "gtid_tagged_body.build" not in (ROOT / "generated/mysql_serialization.py").read_text()


@pytest.mark.parametrize(("name", "record"), MYSQL_BYTES)
def test_mysqls_own_bytes_come_back_from_the_writer(name, record):
    data = bytes.fromhex(next(v["hex"] for v in VECTORS if v["name"] == name))
    model = ms.parse(data, record)
    assert written(model, record) == data == ms.build_construct(model, record)
    if record != BODY:
        assert written(model.body) == ms.build_construct(model.body, BODY)


def _files():
    for folder in (
        ROOT / "samples/mysql_serialization",
        ROOT / "tests/fuzz/crashes/mysql_serialization",
    ):
        yield from sorted(folder.glob("*.bin"))


@pytest.mark.parametrize("path", list(_files()), ids=lambda p: p.name)
def test_samples_and_fuzz_findings_write_the_bytes_of_construct(path):
    checked = 0
    for record in (BODY, "gtid_tagged_event", "gtid_tagged_event_no_checksum"):
        try:
            model = ms.parse(path.read_bytes(), record)
        except DecodeError:
            continue
        assert ms.build(model, record) == ms.build_construct(model, record)
        # the writers of its values (bytes it keeps are build's to write, runtime.core.kept)
        values = dataclasses.replace(model, wire_form=None)
        expected = _outcome(ms.build_construct, values, record)
        try:
            assert written(values, record) == expected
        except (TypeError, ValueError):  # construct writes it: then construct must refuse it
            assert isinstance(expected, tuple), "the writer gave up on a model construct writes"
        checked += 1
    assert checked or path.name.startswith("binlog")  # a file of events: its own writer's


def _unknown(draw, last_present: bool) -> bytes | None:
    """Fields a newer writer added: what a reader keeps (an id past the known ones, or any
    bytes after a present last field), or bytes a reader would not take back."""
    kind = draw(st.sampled_from(["none", "newer", "any", "junk"]))
    if kind == "none":
        return None
    if kind == "newer" or (kind == "any" and not last_present):
        first = encode_uvar(draw(st.integers(12, 2**64 - 1)))
        return first + draw(st.binary(max_size=12))
    return draw(st.binary(max_size=12))


@st.composite
def models(draw):
    """A drawn body with the header values and unknown fields a parsed model may carry."""
    model = draw(ms.strategies(BODY))
    model.unknown_fields = _unknown(draw, model.commit_group_ticket not in (None, 0))
    try:
        canonical = len(ms.build_construct(model, BODY))
    except EncodeError:  # unknown fields a reader would not take back
        canonical = draw(st.integers(0, 200))
    model.serializable_field_size = draw(
        st.one_of(
            st.none(),
            st.just(canonical),
            st.just(canonical - 1),  # MySQL's off-by-one where the size varint grows
            st.integers(canonical - 3, canonical + 18),  # kept by wider varints, or not
            st.integers(0, 2**64),
            st.booleans(),
        )
    )
    model.last_non_ignorable_field_id = draw(st.one_of(st.none(), st.integers(-1, 14)))
    return model


def _outcome(build, model, record=BODY):
    try:
        return build(model, record)
    except EncodeError as err:
        return str(err), err.path


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(models())
def test_drawn_models_write_the_bytes_of_construct(model):
    expected = _outcome(ms.build_construct, model)
    try:
        own = written(model)
    except Exception:  # noqa: BLE001 - construct writes it: then construct must refuse it
        assert isinstance(expected, tuple), "the writer gave up on a model construct writes"
    else:
        assert own == expected
    assert _outcome(ms.build, model) == expected
    if isinstance(expected, bytes):  # what it wrote reads back and is written again the same
        assert written(ms.parse(expected, BODY)) == expected


def test_the_strategies_draw_what_a_parsed_body_carries():
    """``strategies()`` draws a body as another writer sends it: unknown fields, a
    ``last_non_ignorable_field_id`` above what the known fields need, sizes kept by MySQL's
    off-by-one or by wider header varints; build parses back to the same model, and the
    writer gives construct's bytes."""
    seen = {"unknown": 0, "lnifid": 0, "size": 0}

    @settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
    @given(ms.strategies(BODY))
    def draw(model):
        built = ms.build_construct(model, BODY)
        assert written(model) == ms.build(model, BODY) == built
        assert ms.parse(built, BODY) == ms.parse_construct(built, BODY) == model
        canonical = ms.parse(ms.build_construct(_without_header(model), BODY), BODY)
        seen["unknown"] += model.unknown_fields is not None
        seen["lnifid"] += model.last_non_ignorable_field_id > canonical.last_non_ignorable_field_id
        seen["size"] += model.serializable_field_size != canonical.serializable_field_size

    draw()
    assert all(seen.values()), seen


def _without_header(model):
    model = ms.parse(ms.build_construct(model, BODY), BODY)
    model.serializable_field_size = model.last_non_ignorable_field_id = None
    return model


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(models(), st.integers(0, 8), st.integers(0, 8))
def test_bodies_with_wide_header_varints_come_back(model, lnifid_pad, size_pad):
    """Bytes a writer may send, header varints longer than needed: the model keeps the
    size, and the writer keeps it as construct does (the room in the lnifid varint first,
    so a wide lnifid comes back byte for byte)."""
    model.serializable_field_size = model.last_non_ignorable_field_id = None
    try:
        data = ms.build_construct(model, BODY)
    except EncodeError:
        return
    payload = data[2 + uvar_size(ms.parse(data, BODY).serializable_field_size) :]
    lnifid = encode_uvar_wide(0, 1 + lnifid_pad)
    size = 1 + len(lnifid) + len(payload) + 1
    size += uvar_size(size) - 1  # the size's own varint may take more than one byte
    wide = b"\x02" + encode_uvar(size) + lnifid + payload
    model = ms.parse(wide, BODY)
    assert written(model) == wide == ms.build_construct(model, BODY)
    # the size varint wider too: the writer moves the room as construct does
    size += size_pad
    widest = b"\x02" + encode_uvar_wide(size, uvar_size(size) + size_pad) + lnifid + payload
    try:
        model = ms.parse(widest, BODY)
    except DecodeError:  # wider than 9 bytes: no such message
        return
    model.wire_form = None  # the writers of its values: widened as build widens them
    rebuilt = written(model)
    assert rebuilt == ms.build_construct(model, BODY)
    assert len(rebuilt) == len(widest) and ms.parse(rebuilt, BODY) == model


@pytest.mark.parametrize(
    "change",
    [
        {"gtid_flags": 256},
        {"gtid_flags": True},
        {"gtid_flags": None},
        {"gno": 2**63},
        {"tag": b"foobaz"},
        {"tag": "x" * 33},
        {"uuid": [0] * 15},
        {"uuid": [0] * 15 + [256]},
        {"original_commit_timestamp": -1},
        {"commit_group_ticket": "5"},
        {"unknown_fields": "18"},
        {"unknown_fields": b"\x01"},  # a 2-byte field id cut short
    ],
    ids=repr,
)
def test_models_the_writer_refuses_get_constructs_error(change):
    model = ms.parse(SEED_BODY, BODY)
    for name, value in change.items():
        setattr(model, name, value)
    with pytest.raises(Exception):  # noqa: B017 - any: build() then asks construct
        written(model)
    with pytest.raises(EncodeError) as err:
        ms.build(model, BODY)
    assert (str(err.value), err.value.path) == _outcome(ms.build_construct, model)


def test_a_dict_model_writes_the_same():
    model = ms.parse(SEED_BODY, BODY)
    as_dict = dict(model.items())
    assert written(as_dict) == written(model) == ms.build_construct(as_dict, BODY)
