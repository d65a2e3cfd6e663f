"""The fuzzer's forms phase (generator/cli/fuzz_forms.py): edited JSON forms built, and
build held to never writing bytes its own parse refuses; and the holes it found."""

from __future__ import annotations

import json
import random

import pytest

from generator.cli import fuzz, fuzz_forms
from generator.cli.main import main
from runtime.core.errors import DecodeError, EncodeError

FORM = {"n": 5, "items": [1, {"k": "x"}], "data": {"$hex": "0a0b"}, "flag": True, "gone": None}


def test_edits_are_repeatable_for_a_seed_and_change_the_form():
    donors = fuzz_forms.donors_of([FORM])
    first = [fuzz_forms.edit(random.Random(7), FORM, donors) for _ in range(2)]
    assert first[0] == first[1]
    rng = random.Random(0)
    edited = [fuzz_forms.edit(rng, FORM, donors) for _ in range(300)]
    assert sum(e != FORM for e in edited) > 200  # a splice may put back what was there
    assert len({fuzz_forms.encoded(e) for e in edited}) > 100
    assert FORM["items"][1] == {"k": "x"}  # edits copy, never change the seed's form


def test_edited_hex_stays_whole_bytes():
    rng = random.Random(1)
    for _ in range(200):
        value = fuzz_forms.edit_value(rng, {"$hex": "0a0b0c"}, [])
        assert len(value["$hex"]) % 2 == 0


def _form_target(build, parse):
    return fuzz.Target("x", "y", parse, build=build, from_dict=lambda form: form)


def test_a_build_writing_what_parse_refuses_is_found():
    def parse(data):
        if data == b"bad":
            raise DecodeError("refused", offset=0, path="n")
        return data

    def build(model):  # a form, or the bytes parse gave back
        return model if isinstance(model, bytes) else model["out"].encode()

    t = _form_target(build, parse)
    found = fuzz.check_json(t, {"out": "bad"})
    assert found.kind == "encode" and found.suffix == ".json"
    assert found.detail.splitlines()[-1] == "parse refuses what build wrote: n at offset 0: refused"
    assert fuzz.check_json(t, {"out": "good"}) is None


def test_bytes_read_only_inside_their_enclosing_record_are_not_judged_alone():
    def parse(data):
        raise DecodeError("reads _parent.base_offset: it needs its enclosing record", offset=0)

    assert fuzz.check_json(_form_target(lambda m: b"x", parse), {}) is None


def test_refusals_pass_and_foreign_exceptions_are_crashes():
    def refusing(form):
        raise EncodeError("no", path="n")

    assert fuzz.check_json(_form_target(refusing, bytes), {}) is None
    crash = fuzz.check_json(_form_target(lambda form: form["missing"], bytes), {})
    assert crash.kind == "crash" and "KeyError" in crash.detail


def test_built_bytes_are_written_back_byte_for_byte():
    t = _form_target(lambda m: m if isinstance(m, bytes) else b"ab", lambda d: d[:1])
    assert fuzz.check_json(t, {}).kind == "bytes"


def test_a_found_form_is_saved_as_json_and_replayed(tmp_path):
    form = {"layout": "tiflow", "events": "not a list"}
    failure = fuzz.Failure("ticdc_open_protocol", "message", "encode", "made up", b"", ".json")
    failure.data = fuzz_forms.encoded(form)
    path = fuzz.save(failure, tmp_path)
    assert path.suffix == ".json" and json.loads(path.read_text()) == form
    assert fuzz.replay(path) is None  # from_dict refuses it: no failure


@pytest.mark.parametrize("fmt", ["ticdc_open_protocol", "protobuf_wire", "png"])
def test_a_forms_run_is_repeatable_and_finds_nothing(fmt):
    reports = [
        fuzz.run(fmt, seconds=60, seed=3, save_dir=None, max_inputs=150, phase="forms")
        for _ in range(2)
    ]
    assert reports[0].inputs == reports[1].inputs >= 150
    assert not reports[0].failures, reports[0].summary()


def test_the_cli_takes_a_phase(capsys):
    assert main(["fuzz", "png", "--seconds", "0.5", "--phase", "forms", "--no-save"]) == 0
    assert "png (" in capsys.readouterr().out


# -- what the forms phase found ----------------------------------------------------------


def _update(new, old):
    from generated import ticdc_open_protocol as op
    from generated.models.ticdc_types import Column, RowChangedEvent

    column = [Column("id", 3, 0, 1)]
    event = RowChangedEvent(1, "db", "t", new=column if new else [], old=column if old else [])
    return op, op.Message([event])


def test_an_update_whose_new_row_has_no_columns_is_written_with_an_empty_new_row():
    """An update's old row ('p') is read only with its new row ('u'); the writer left out
    an empty 'u' (Go's omitempty), writing a value parse refuses."""
    op, message = _update(new=False, old=True)
    key, value = op.build_pair(message)
    assert value.endswith(b'{"u":{},"p":{"id":{"t":3,"f":0,"v":1}}}')
    again = op.parse_pair(key, value)
    assert again == message and op.build_pair(again) == (key, value)


def _avro_file():
    from generated import avro_container as av

    data = next(p for p in sorted(fuzz.ROOT.glob("samples/avro_container/*.bin")))
    return av, av.parse(data.read_bytes(), "container_file"), data.read_bytes()


def test_a_block_sync_other_than_the_files_is_refused_by_every_writer():
    """``valid: "sync == _parent.sync"`` is checked on build: construct's rt.Valid, and the
    fast and compiled writers decline to it (the forms phase found the file written as bytes
    parse refuses: blocks[1].sync does not satisfy sync == _parent.sync)."""
    av, model, data = _avro_file()
    assert av.build(model, "container_file") == data
    model.blocks[-1].sync = bytes(16)
    path = rf"^blocks\[{len(model.blocks) - 1}\]\.sync: .* does not satisfy sync == _parent\.sync"
    with pytest.raises(EncodeError, match=path):
        av.build(model, "container_file")
    with pytest.raises(EncodeError, match=path):
        av.build(av.from_dict(av.to_dict(model), "container_file"), "container_file")
    writers = [av.FAST_WRITERS["container_file"], av.COMPILED_WRITERS.get("container_file")]
    for write in filter(None, writers):  # each declines to construct, which says why
        with pytest.raises(ValueError, match="^valid$"):
            write(model, bytearray())


def test_a_block_written_alone_is_refused_as_parse_refuses_it_alone():
    av, model, _ = _avro_file()
    with pytest.raises(EncodeError, match="needs its enclosing record"):
        av.build(model.blocks[0], "data_block")


def test_a_thrift_string_given_as_bytes_is_judged_by_the_parse_reading_bytes():
    """A string that is no UTF-8 is ``{"$hex": ...}`` in the JSON form (what a parse with
    ``strings="bytes"`` gives), and build writes it as it is: the strict parse refuses it,
    the bytes parse takes it (found by the forms phase, a splice into path_in_schema)."""
    t = fuzz.target("parquet", "ColumnCryptoMetaData")
    form = {
        "ENCRYPTION_WITH_COLUMN_KEY": {
            "key_metadata": {"$hex": "773fe65f3f1a0368ea"},
            "path_in_schema": [{"$hex": "020000000000000006b6390cf515"}],
        }
    }
    written = t.build(t.from_dict(form))
    with pytest.raises(DecodeError, match="invalid UTF-8"):
        t.parse(written)
    assert t.parse_bytes_strings(written) is not None
    assert fuzz.check_json(t, form) is None
    assert fuzz.target("msgpack").parse_bytes_strings is None


def test_a_kept_unknown_field_with_a_known_fields_id_and_type_is_refused():
    """Parse reads a field whose id and compact type are the struct's own as that field,
    so build cannot write it as an unknown one (found by the forms phase: a FileMetaData's
    layout spliced into SizeStatistics, its field 2 a list of structs where the struct's
    field 2 is a list<i64>: 'element type STRUCT (12), schema says I64')."""
    saved = fuzz.CRASH_DIR / "parquet" / "SizeStatistics--bf2144227a82.json"
    t = fuzz.target("parquet", "SizeStatistics")
    with pytest.raises(EncodeError, match=r"^wire_layout\[1\]: field 2: an unknown field of"):
        t.build(t.from_dict(json.loads(saved.read_text())))
    assert fuzz.replay(saved) is None
