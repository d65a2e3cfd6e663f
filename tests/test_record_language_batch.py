"""The ``batch:`` language (generator/spec/batching.py) where Open Protocol uses it, on its
``kafka_message:`` (its bytes and errors are held by tests/test_open_protocol*.py), and
what it refuses on a ``map:`` (Craft's): the loader's refusals at the spec's file:line,
spec text that stays data, and that the codec runs the rendered batching."""

from __future__ import annotations

import ast

import pytest

from generated import ticdc_open_protocol as op
from generated.models.ticdc_types import Column, DdlEvent, ResolvedEvent, RowChangedEvent
from generator.emit.generate import render_spec
from generator.spec import batching
from runtime.core.errors import EncodeError, SpecError
from tests.test_open_protocol_spec import edited_spec
from tests.test_record_language_map import spec_copy
from tests.test_record_language_map import spec_error as craft_spec_error

ESTIMATE = 'estimate: {message: "8 + 36", model: "sizeof(key) + sizeof(value) + 16"}'


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("    alone: [DDL", "    enum: message_type\n    alone: [DDL", "batch.enum: unknown key 'enum'"),
        ("alone: [DDL, RESOLVED]", "alone: [DDL, RESOLVE]", "'RESOLVE' is not a member of message_type"),
        ("max_bytes: {argument: max_message_bytes", "max_bytes: {argument: max_batch_size", "are two arguments"),
        ("max_bytes: {argument: max_message_bytes", "max_bytes: {argument: size", "'size' is a name the rendered batch uses"),
        ("max_count: {argument: max_batch_size", "max_count: {argument: batch", "'batch' is a name the rendered batch uses"),
        (ESTIMATE, ESTIMATE.replace("sizeof(key)", "sizeof(keys)"), "unknown name 'keys'"),
        (ESTIMATE, ESTIMATE.replace("sizeof(key)", "len(key)"), "the only call is sizeof(NAME)"),
        (ESTIMATE, ESTIMATE.replace("sizeof(key)", "key.__class__"), "Attribute is not allowed here"),
        (ESTIMATE, ESTIMATE.replace('"8 + 36"', '"8 + key"'), "unknown name 'key'"),
        (ESTIMATE, ESTIMATE.replace('"8 + 36"', "\"'8'\""), "constants are integers or None"),
        (ESTIMATE, ESTIMATE[:-1] + ', column: "16"}', "has no estimate: {column:} (a map:'s has)"),
        ('    messages:\n', '    messages:\n      empty: "none"\n', "has no messages: {empty:}"),
        ("exceeding: opens", "exceeding: closes", "is not one of"),
    ],
)  # fmt: skip
def test_a_bad_kafka_batch_is_a_spec_error_at_its_line(tmp_path, old, new, message):
    with pytest.raises(SpecError) as info:
        render_spec(edited_spec(tmp_path, old, new))
    assert message in str(info.value)
    assert "ticdc_open_protocol.yaml:" in str(info.value)  # file:line


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("      batch:      ", "      batch:\n        enum: event_type\n", "batch.enum: unknown key 'enum'"),
        (', column: "sizeof(name) + sizeof(value) + 16"}', "}", "needs estimate: {column:}"),
        ('          empty: "a message holds at least one event"\n', "", "needs messages: {empty:}"),
        ('          alone: "a message holds row events, or one DDL or resolved event"\n', "", "needs messages: {alone:}"),
    ],
)  # fmt: skip
def test_a_map_batch_refuses_what_only_a_kafka_message_says(tmp_path, old, new, message):
    err = craft_spec_error(tmp_path, old, new)
    assert message in str(err)
    assert "ticdc_craft.yaml:" in str(err)


def test_the_too_large_message_stays_data(tmp_path):
    hostile = "x'); import os; ('"
    old = '"message of {size} bytes exceeds max_message_bytes={limit}"'
    tree = ast.parse(render_spec(edited_spec(tmp_path, old, f'"{hostile} {{size}}"'))[1])
    constants = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert hostile + " {size}" in constants
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import)]
    assert not any(alias.name == "os" for n in imports for alias in n.names)


def test_the_codec_runs_the_rendered_batch():
    assert op._KAFKA.batch is op._batch_message
    row = RowChangedEvent(1, "s", "t", new=[Column("a", 3, 0, 1)])
    messages = list(op.encode_events([row, row, DdlEvent(2, "s", "t", 3, "q"), row, row, row],
                                     max_batch_size=2))  # fmt: skip
    assert [len(op.decode_message(*message)) for message in messages] == [2, 1, 2, 1]
    # a row past max_message_bytes alone: the spec's too_large:, at its index
    key, value = op.encode_event(row)
    alone = 8 + 36 + 16 + len(key) + len(value)  # tiflow's Message.Length() of it alone
    with pytest.raises(EncodeError, match=rf"events\[1\]: message of {alone} bytes exceeds "
                       rf"max_message_bytes={alone - 1}"):  # fmt: skip
        list(op.encode_events([ResolvedEvent(1), row], max_message_bytes=alone - 1))
    # exceeding: opens: the row that would pass the limit opens the next message
    assert len(list(op.encode_events([row, row], max_message_bytes=2 * alone - 44))) == 1
    assert len(list(op.encode_events([row, row], max_message_bytes=2 * alone - 45))) == 2


def test_the_batch_grammar_has_a_working_example():
    import doctest

    assert doctest.testmod(batching).failed == 0


def test_a_map_batch_may_say_too_large_and_opens_too(tmp_path):
    """The same renderer: Craft's batch: with Open Protocol's additions renders them."""
    old = '          alone: "a message holds row events, or one DDL or resolved event"\n'
    new = (
        old
        + '          too_large: "event of {size} bytes, over {limit}"\n        exceeding: opens\n'
    )
    source = render_spec(spec_copy(tmp_path, old, new))[1]
    tree = ast.parse(source)
    batch = next(n for n in ast.walk(tree) if getattr(n, "name", "") == "_batch_message")
    text = ast.unparse(batch)
    assert "'event of {size} bytes, over {limit}'.replace('{size}', str(size))" in text
    assert (
        "if batch and (len(batch) >= max_batch_size or estimate + size > max_message_bytes)" in text
    )
    assert "max_batch_size < 1 or max_message_bytes < 1" in text  # positive: by default
