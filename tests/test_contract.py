"""The contract functions a generated module gets from ``runtime.core.contract`` are the module's
own, as when the module defined them: ``help()`` lists them there, and pickle sends them by
reference (Spark ships ``parse`` to its workers so)."""

from __future__ import annotations

import importlib
import inspect
import pickle

import pytest

from runtime.core import tier
from runtime.core.errors import WirespecError
from tests.test_core_install import FORMATS

CONTRACT = [
    "parse",
    "parse_construct",
    "build",
    "build_construct",
    "to_dict",
    "from_dict",
    "spark_schema",
    "to_rows",
    "iter_rows",
    "keeps_unknown",
]
THRIFT_CONTRACT = [
    "parse",
    "parse_raw",
    "build",
    "to_dict",
    "from_dict",
    "spark_schema",
    "to_rows",
    "keeps_unknown",
]
MODULES = [f for f in FORMATS if hasattr(importlib.import_module(f"generated.{f}"), "_CONTRACT")]


def contract_of(module) -> list[str]:
    """The contract functions of a module: a Thrift module's take ``strings=`` and ``body=``."""
    return THRIFT_CONTRACT if hasattr(module, "FIELD_TABLES") else CONTRACT


def test_every_generated_module_uses_a_runtime_contract():
    assert set(MODULES) == set(FORMATS)
    assert {"plainbuffer", "mysql_serialization", "protobuf_wire", "thrift_compact"} <= set(MODULES)


@pytest.mark.parametrize("fmt", MODULES)
def test_an_unknown_record_is_refused_by_name_in_every_contract_function(fmt):
    module = importlib.import_module(f"generated.{fmt}")
    calls = {
        "parse": lambda fn: fn(b"\x00", "nope"),
        "parse_construct": lambda fn: fn(b"\x00", "nope"),
        "parse_raw": None,
        "build": lambda fn: fn(object(), "nope"),
        "build_construct": lambda fn: fn(object(), "nope"),
        "to_dict": None,
        "from_dict": lambda fn: fn({}, "nope"),
        "spark_schema": lambda fn: fn("nope"),
        "to_rows": lambda fn: list(fn(object(), "nope")),
        "iter_rows": lambda fn: list(fn(b"\x00", "nope")),
        "keeps_unknown": None,
    }
    for name in contract_of(module):
        if calls[name] is None:
            continue
        with pytest.raises(WirespecError, match=f"{fmt} has no record 'nope'; records: "):
            calls[name](getattr(module, name))


@pytest.mark.parametrize("fmt", MODULES)
def test_the_contract_functions_belong_to_the_module(fmt):
    module = importlib.import_module(f"generated.{fmt}")
    for name in contract_of(module):
        fn = getattr(module, name)
        assert (fn.__module__, fn.__qualname__) == (module.__name__, name)
        assert pickle.loads(pickle.dumps(fn)) is fn
        assert inspect.getdoc(fn)
        record = inspect.signature(fn).parameters.get("record")
        if record is not None and record.default is not None:  # None: the model's own type
            assert record.default == module.DEFAULT_RECORD


def test_tables_first_takes_calls_without_limits_and_hands_the_rest_to_python():
    dispatch = tier.compiled("runtime._compiled.dispatch")
    if dispatch is None:
        pytest.skip("runtime._compiled.dispatch is not built")
    calls = []

    def python_parse(data: bytes, record: str = "a", **limits):
        """The Python parse."""
        calls.append((data, record, limits))
        return "python"

    def reader(data, limits):
        assert limits == {}
        return None if data == b"decline" else ("table", data)

    parse = dispatch.TablesFirst(python_parse, {"a": reader, "b": reader}, "a")
    assert parse(b"x") == parse(b"x", "a") == parse(b"x", "b") == ("table", b"x")
    assert parse(b"x", record="b") == ("table", b"x")
    assert parse(b"decline") == parse(b"x", "c") == "python"
    assert parse(b"x", max_depth=3) == parse(data=b"x") == "python"
    assert calls == [
        (b"decline", "a", {}),
        (b"x", "c", {}),
        (b"x", "a", {"max_depth": 3}),
        (b"x", "a", {}),
    ]
    assert inspect.signature(parse) == inspect.signature(python_parse)
    assert parse.__doc__ == "The Python parse." and inspect.isroutine(parse)
    with pytest.raises(TypeError):
        parse()


def test_entries_first_reads_bytes_without_limits_in_c_and_hands_the_rest_to_python():
    dispatch = tier.compiled("runtime._compiled.dispatch")
    compiled = tier.compiled("generated._compiled.msgpack")
    if dispatch is None or compiled is None:
        pytest.skip("the compiled tier is not built")
    from generated import msgpack
    from runtime.core.limits import DEFAULT

    calls = []

    def python_parse(data: bytes, record: str = "value", **limits):
        """The Python parse."""
        calls.append((bytes(data), record, limits))
        return "python"

    parse = dispatch.EntriesFirst(python_parse, compiled._ENTRIES, "value", DEFAULT)
    data = bytes([0x81, 0xA1, 0x61, 0x01])  # {"a": 1}
    model = msgpack.parse(data, "value")
    assert type(msgpack.parse) is dispatch.EntriesFirst
    assert parse(data) == parse(data, "value") == parse(data, record="value") == model
    assert parse(data, "pair") == "python"  # a record whose reader declines {"a": 1}'s bytes
    assert parse(bytearray(data)) == parse(memoryview(bytearray(data))[:]) == model  # from C
    assert parse(memoryview(data).cast("c")) == model  # any C-contiguous view: its bytes
    strided = memoryview(bytes(b for x in data for b in (x, 0)))[::2]  # the Python parse's
    assert parse(strided) == parse(data, max_depth=3) == parse(data=data) == "python"
    assert parse(data[:2]) == parse(data, "nope") == "python"
    assert calls == [
        (data, "pair", {}),
        (data, "value", {}),
        (data, "value", {"max_depth": 3}),
        (data, "value", {}),
        (data[:2], "value", {}),
        (data, "nope", {}),
    ]
    assert inspect.signature(parse) == inspect.signature(python_parse)
    assert parse.__doc__ == "The Python parse." and inspect.isroutine(parse)
    with pytest.raises(TypeError):
        parse()
