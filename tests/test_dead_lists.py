"""What the writers leave out of what they render: the lists nothing reads
(generator/emit/dead_lists.py), and the compiled writers' sizes as C integers and ``const``
tests (generator/emit/compiled_sizes.py, ``compiled_writers.const_tests``); the values
those writers take by one C call (an enum's member, UTF-8 text sized by another field)
give the bytes they gave before, in both tiers."""

from __future__ import annotations

import doctest

import pytest

from generated import bson, msgpack
from generator.emit import compiled_sizes, compiled_writers, dead_lists
from generator.emit.compiled_sizes import mark_sizes
from generator.emit.dead_lists import without_dead_lists
from runtime.core.errors import EncodeError


@pytest.mark.parametrize("module", [dead_lists, compiled_sizes, compiled_writers])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


LIST = """    items1 = []
    for i2, item3 in enumerate(f_x or ()):
        item3 = _write_e(item3, out)
        items1.append(item3)
    f_x = items1"""


def test_a_list_read_below_is_kept():
    body = LIST + "\n    return rt_fast.Parent(x=f_x)"
    assert without_dead_lists(body) == body.replace(
        "i2, item3 in enumerate(f_x or ())", "item3 in f_x or ()"
    )


def test_a_list_that_becomes_a_field_inside_a_loop_is_kept():
    body = "    for n in ns:\n" + "\n".join("    " + line for line in LIST.split("\n"))
    assert "items1 = []" in without_dead_lists(body)


def test_a_counter_read_is_kept():
    body = LIST.replace(
        "        item3 = _write_e", "        ctx._index = i2\n        item3 = _write_e"
    )
    assert "enumerate(" in without_dead_lists(body)


def test_an_unread_list_is_dropped_with_its_marks():
    body = """    s_x = []
    for i2, item3 in enumerate(f_x or ()):
        at4 = len(out)
        item3 = _write_e(item3, out)
        s_x.append(len(out) - at4)
    return rt_fast.EMPTY_PARENT"""
    assert without_dead_lists(body) == (
        "    for item3 in f_x or ():\n"
        "        item3 = _write_e(item3, out)\n"
        "    return rt_fast.EMPTY_PARENT"
    )


def test_sizes_bound_twice_or_in_a_block_stay_python_ints():
    body = "    s_x = a - b\n    s_y = a - b\n    s_y = s_y + 1\n    if c:\n        s_z = a - b"
    assert mark_sizes(body, ["a", "b"]) == ["s_x"]


def test_the_shipped_writers_build_no_list_nothing_reads():
    import inspect

    assert "items" not in inspect.getsource(bson._write_element_list)


DOCUMENT = bytes.fromhex(  # {"a": "hé", "n": 5, "sub": {"x": "yz"}}, by pymongo
    "2b0000000261000400000068c3a900106e000500000003737562000f00000002780003000000797a000000"
)


@pytest.mark.parametrize("given", [2, "STRING", bson.ElementType.STRING])
def test_an_element_type_given_any_way_builds_the_same(given):
    stream = bson.parse(DOCUMENT)
    stream.documents[0].elements.elements[0].type = given
    assert bson.build(stream) == DOCUMENT


@pytest.mark.parametrize("text", ["", "abc", "hé", "日本語" * 3])
def test_fixstr_text_sized_ahead(text):
    data = bytes([0xA0 | len(text.encode())]) + text.encode()
    assert msgpack.build(msgpack.parse(data)) == data


@pytest.mark.parametrize("text", ["a" * 40, "\ud800"])
def test_a_fixstr_text_its_form_cannot_hold_is_refused(text):
    stream = msgpack.parse(bytes([0xA2]) + b"ab")
    stream.values[0].form.data = text  # too long for 5 bits, or no UTF-8: construct says so
    with pytest.raises(EncodeError):
        msgpack.build(stream)
