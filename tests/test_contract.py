"""The contract functions a generated module gets from ``runtime.contract`` are the module's
own, as when the module defined them: ``help()`` lists them there, and pickle sends them by
reference (Spark ships ``parse`` to its workers so)."""

from __future__ import annotations

import importlib
import inspect
import pickle

import pytest

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
