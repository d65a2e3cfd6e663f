"""A ``kafka_message:``'s ``class_by:`` and ``classes:`` (generator/spec/kafka_classes.py):
the loader's refusals at the spec's file:line, and that the codec and the compiled kernel
take Open Protocol's event types from the rendered ``EVENT_CLASSES`` (their bytes and
errors are held by tests/test_open_protocol*.py)."""

from __future__ import annotations

import pytest

from generated import ticdc_open_protocol as op
from generated.models.ticdc_types import Column, ResolvedEvent
from generator.emit.generate import render_spec
from runtime.core.errors import DecodeError, SpecError
from runtime.formats import open_protocol as rt_op
from tests.test_open_protocol_spec import edited_spec

ROW = "    ROW: {model: ticdc_types.RowChangedEvent, value: row_value, write_first: value}"
DDL = "    DDL: {model: ticdc_types.DdlEvent, value: ddl_value}"
RESOLVED = "    RESOLVED: {model: ticdc_types.ResolvedEvent, value: resolved_value}"


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("class_by: event_key.t ", "class_by: event_key.x ", "'event_key.x' is not DOCUMENT.KEY of a json: document"),
        ("class_by: event_key.t ", "class_by: nothing.t ", "'nothing.t' is not DOCUMENT.KEY"),
        ("class_by: event_key.t ", "class_by: event_key.ts ", "'event_key.ts' is not an event-type key"),
        ("class_by: event_key.t ", "class_by: ddl_value.t ", "'ddl_value.t' is not an event-type key"),
        ("class_by: event_key.t ", "class_by: event_key ", "does not match"),
        (ROW, ROW.replace("ROW:", "ROWS:"), "'ROWS' is not a member of message_type"),
        (RESOLVED, "", "message_type RESOLVED has no class"),
        (DDL, DDL.replace("ticdc_types.DdlEvent", "ticdc_types.Ddl"), "'ticdc_types.Ddl' is not one of"),
        (DDL, DDL.replace("ddl_value", "nothing"), "'nothing' is not a json: document beside event_key"),
        (DDL, DDL.replace("ddl_value", "event_key"), "'event_key' is not a json: document beside"),
        (ROW, ROW.replace("row_value", "column"), "'column' is not a value document"),
        (DDL, DDL.replace("ticdc_types.DdlEvent", "ticdc_types.RowChangedEvent"), "has field 'row_id', which event_key.rid does not carry for DDL"),
        (RESOLVED, RESOLVED.replace("ticdc_types.ResolvedEvent", "ticdc_types.DdlEvent"), "ticdc_types.DdlEvent has field 'schema', which event_key.scm does not carry for RESOLVED"),
        (ROW, ROW.replace("ticdc_types.RowChangedEvent", "ticdc_types.DdlEvent"), "ticdc_types.DdlEvent has no field 'row_id', which event_key.rid carries for ROW"),
        (RESOLVED, RESOLVED.replace("resolved_value", "ddl_value"), "ddl_value.q's field 'query' is no field of ticdc_types.ResolvedEvent"),
        (DDL, DDL.replace("ddl_value", "resolved_value"), "ticdc_types.DdlEvent field 'ddl_type' is in neither event_key (for DDL) nor resolved_value"),
        ("write_first: value", "write_first: both", "is not one of"),
        ("  class_by: event_key.t ", "  # no class_by ", "kafka_message: missing key 'class_by'"),
    ],
)  # fmt: skip
def test_bad_classes_are_a_spec_error_at_their_line(tmp_path, old, new, message):
    with pytest.raises(SpecError) as info:
        render_spec(edited_spec(tmp_path, old, new))
    assert message in str(info.value)
    assert "ticdc_open_protocol.yaml:" in str(info.value)  # file:line


def test_a_value_document_field_the_key_has_too_is_refused(tmp_path):
    q = '      - {name: q, type: string, field: query, doc: "the DDL statement"}'
    with pytest.raises(SpecError) as info:
        render_spec(edited_spec(tmp_path, q, q.replace("field: query", "field: schema")))
    assert "ddl_value.q's field 'schema' is event_key's too" in str(info.value)


def test_the_batch_is_by_class_bys_enum(tmp_path):
    spec = edited_spec(tmp_path, "alone: [DDL, RESOLVED]", "alone: [DDL, BEGIN]")
    with pytest.raises(SpecError) as info:
        render_spec(spec)
    assert "'BEGIN' is not a member of message_type" in str(info.value)
    assert "ticdc_open_protocol.yaml:" in str(info.value)


def test_the_codec_dispatches_on_the_rendered_classes():
    assert list(op._KAFKA.classes.values()) == list(op.EVENT_CLASSES)
    assert [int(c.member) for c in op.EVENT_CLASSES] == [m.value for m in op.MessageType]
    key, value = op.encode_event(ResolvedEvent(5))
    assert (key, value) == (b'{"ts":5,"t":3}', b"")
    # the RESOLVED class's value document has no keys: a value there is refused by name
    pair = op.RECORDS["message"].build_pair(op.Message([ResolvedEvent(5)]))
    with pytest.raises(DecodeError, match="a resolved event has no value") as info:
        op.RECORDS["message"].parse_pair(pair[0], (2).to_bytes(8, "big") + b"{}")
    assert (info.value.offset, info.value.path) == (8, "events[0].value")


def test_the_compiled_kernel_takes_its_classes_from_the_codec():
    if op._KAFKA._compiled is None:
        pytest.skip("the compiled tier is not built")
    plan = rt_op.OpenProtocol(
        op.JSON_DOCUMENTS, op.JSON_CODE, op.EVENT_CLASSES, key="event_key", models=op._KAFKA.models
    )._compiled
    message = plan.documents([b'{"ts":5,"t":3}'], [b""])
    assert message.events == [ResolvedEvent(5)]
    # the model is the class's: another one (whose fields the documents do not give) declines
    classes = [c._replace(model=Column) if c.document == "resolved_value" else c
               for c in op.EVENT_CLASSES]  # fmt: skip
    plan = rt_op.OpenProtocol(
        op.JSON_DOCUMENTS, op.JSON_CODE, classes, key="event_key", models=op._KAFKA.models
    )._compiled
    assert plan.documents([b'{"ts":5,"t":3}'], [b""]) is None
