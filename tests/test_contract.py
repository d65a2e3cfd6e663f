"""The contract functions a generated module gets from ``runtime.core.contract`` are the module's
own, as when the module defined them: ``help()`` lists them there, and pickle sends them by
reference (Spark ships ``parse`` to its workers so)."""

from __future__ import annotations

import importlib
import inspect
import pickle

import pytest

from runtime.core import tier
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
]
MODULES = [f for f in FORMATS if hasattr(importlib.import_module(f"generated.{f}"), "_CONTRACT")]


def test_every_module_of_the_record_template_uses_the_runtime_contract():
    assert {"plainbuffer", "mysql_serialization", "protobuf_wire", "ticdc_craft"} <= set(MODULES)


@pytest.mark.parametrize("fmt", MODULES)
def test_the_contract_functions_belong_to_the_module(fmt):
    module = importlib.import_module(f"generated.{fmt}")
    for name in CONTRACT:
        fn = getattr(module, name)
        assert (fn.__module__, fn.__qualname__) == (module.__name__, name)
        assert pickle.loads(pickle.dumps(fn)) is fn
        assert inspect.getdoc(fn)
        record = inspect.signature(fn).parameters.get("record")
        if record is not None:
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
