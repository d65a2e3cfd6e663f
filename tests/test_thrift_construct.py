"""A generated Thrift struct as a construct (``<Struct>_codec``, specs/README.md), composed
with others: it reads from where it stands to the struct's stop byte and leaves the stream
right after it, writes the bytes ``build`` writes, says where in the whole input it failed,
and has no fixed size."""

from __future__ import annotations

from pathlib import Path

import pytest
from construct import GreedyBytes, Int8ub, SizeofError, Struct

import generated.thrift_compact as tc
from runtime.core.errors import DecodeError, LimitError
from runtime.formats.thrift_compact import Options

REPLY = Path(__file__).resolve().parents[1] / "samples" / "thrift_compact" / "get_user_reply.bin"
FRAMED = Struct("n" / Int8ub, "message" / tc.message_codec, "rest" / GreedyBytes)
"""A message between a byte and a tail, as a transport might frame it."""


def test_a_message_inside_a_frame_reads_and_writes_as_on_its_own():
    reply = REPLY.read_bytes()
    data = b"\x07" + reply + b"tail"
    got = FRAMED.parse(data)
    assert (got.n, got.message, got.rest) == (7, tc.parse(reply), b"tail")
    assert FRAMED.build(got) == data
    assert tc.message_codec.parse(reply) == tc.parse(reply)
    assert repr(tc.message_codec) == "<StructCodec message>"


def test_a_struct_codec_reads_and_writes_its_struct():
    user = tc.parse(REPLY.read_bytes(), body="get_user_result").body.success
    data = tc.build(user, "User")
    assert tc.User_codec.parse(data) == user
    assert tc.User_codec.build(user) == data
    assert tc.RECORDS["User"] is tc.User_codec and "a user record" in tc.User_codec.__doc__


def test_errors_are_at_their_offset_in_the_whole_input_and_options_apply():
    reply = REPLY.read_bytes()
    with pytest.raises(DecodeError) as err:
        FRAMED.parse(b"\x07" + reply[:5])
    alone = pytest.raises(DecodeError, tc.parse, reply[:5]).value
    assert err.value.offset == alone.offset + 1 and err.value.message == alone.message
    with pytest.raises(LimitError, match="max_string=2"):
        tc.message_codec.parse(reply, thrift_options=Options.make({"max_string": 2}))


def test_a_struct_has_no_fixed_size():
    with pytest.raises(SizeofError, match="a Thrift struct has no fixed size"):
        FRAMED.sizeof()


def test_nesting_past_python_s_stack_is_a_decode_error_in_the_whole_input():
    """A ``max_depth`` so high that Python's stack runs out first: as ``parse`` says it, at
    the field it ran out in, an offset in the whole input."""
    deep = b"\x1c" * 30000 + b"\x00" * 30001  # a struct field nested 30000 times
    framed = Struct("n" / Int8ub, "args" / tc.get_user_args_codec)
    with pytest.raises(DecodeError, match="nesting too deep for this Python stack") as err:
        framed.parse(b"\x07" + deep, thrift_options=Options.make({"max_depth": 10**6}))
    assert 1 < err.value.offset <= len(deep)  # where depends on the stack already in use
