"""A record may be named as the compiled module's shared helpers are (``entry``, whose Arrow
writer once was the Arrow prelude's ``_arrow_entry``; ``arrow``, whose writer
``write_arrow`` is the module's own): the per-record names of the compiled module have a
shape no shared name has, so a user's build of such a spec compiles and every compiled
tier (readers, writers, Arrow writers) takes those records."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from runtime.core import tier
from runtime.core.limits import DEFAULT
from tests.user_packages import compiled_user_module

SPEC = """\
format: clashing
title: Records named as the compiled module's helpers
doc: Records whose names the compiled module's shared helpers have too.
endian: be
default_record: entry
records:
  entry:
    doc: An entry.
    fields:
      - {name: id, type: u8, doc: "The entry's id."}
      - {name: size, type: u16, doc: "A size."}
  arrow:
    doc: An arrow.
    fields:
      - {name: head, type: u8, doc: "Its head."}
"""

COMPILED = Path(__file__).resolve().parent.parent / "generated" / "_compiled"
MESSAGES = {"entry": bytes.fromhex("07 0102"), "arrow": bytes.fromhex("09")}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The spec's module with its compiled extension beside it (~15 s to build)."""
    return compiled_user_module(tmp_path_factory, "clashing", SPEC)


@pytest.mark.parametrize("record", sorted(MESSAGES))
def test_every_compiled_tier_takes_a_record_named_as_a_helper(built, record):
    data = MESSAGES[record]
    model = built.parse(data, record)
    assert built.COMPILED_READERS[record](data, built._LIMITS) == model
    out = bytearray()
    built.COMPILED_WRITERS[record](model, out)
    assert bytes(out) == data


@pytest.mark.parametrize("record", sorted(MESSAGES))
def test_the_compiled_arrow_writer_of_a_record_named_as_a_helper(built, record):
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("pyspark")
    from pyspark.sql.pandas.types import to_arrow_schema

    assert record in built._COMPILED.bind_arrow(vars(built))
    arrow = tier.compiled("runtime._compiled.arrow")
    fields = list(to_arrow_schema(built.spark_schema(record), timezone="UTC"))
    out, counts = arrow.builder_for(pa.struct(fields)), []
    data = MESSAGES[record]
    assert built._COMPILED.write_arrow(record, pa.array([data]), 0, 1, out, counts, DEFAULT) == 1
    got = out.finish()
    rows = list(built.to_rows(built.parse(data, record), record))
    want = [pa.array(column, f.type) for column, f in zip(zip(*rows), fields)]
    assert [got.field(k) for k in range(len(fields))] == want


PER_RECORD = ("_arrow_", "_cwrite_", "_cbody_", "write_record_", "_python_write_")
"""The prefixes of the compiled Arrow writers' and writers' names of one record
(``_arrow_<record>``, ...; ``_cbody_<record>``: a recursive record's writer, which
``_cwrite_<record>`` calls within Python's recursion limit). The readers' (``read_``, ``_read_``) are not free yet: a mapped
spec cimports ``unmapped.pxd``'s ``read_field``, and a group's reader is
``_read_<record>_<group>``."""


def _top_level_names(text: str) -> set[str]:
    """The names a compiled module's source defines or cimports at its top level."""
    names = set(
        re.findall(
            r"^(?:cdef|cpdef|def)\s+(?:inline\s+)?(?:[\w*\[\], ]+\s+)?(\w+)\s*\(",
            text,
            re.MULTILINE,
        )
    )
    for listed, single in re.findall(r"cimport \(([^)]*)\)|cimport ([^\n(]+)", text):
        names |= {n.split(" as ")[-1].strip() for n in (listed or single).split(",") if n.strip()}
    return names


@pytest.mark.parametrize("path", sorted(COMPILED.glob("*.pyx")), ids=lambda p: p.stem)
def test_no_shared_name_of_a_compiled_module_has_a_per_record_prefix(path):
    """A shared name (a helper, ``write_arrow``) with a per-record prefix is the name of a
    record's function in a spec that has a record named as its rest: a user's spec must be
    free to name its records as it likes."""
    records = importlib.import_module(f"generated.{path.stem}").RECORDS
    own = {prefix + record for prefix in PER_RECORD for record in records}
    shared = _top_level_names(path.read_text()) - own
    assert not [name for name in shared if name.startswith(PER_RECORD)]
