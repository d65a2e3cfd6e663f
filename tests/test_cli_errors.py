"""Every verb, fed bad input, says so in a line or two and exits non-zero: no traceback.
And the options that used to trip users: records recognised without ``--record``,
``--struct`` meaning the same on every verb, ``diff`` on Open Protocol pairs.

Most rows run in-process (``generator.cli.main.main``); a few run ``python -m generator`` to show
that real runs, a closed pipe included, print no traceback either.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import generated.ticdc_open_protocol as op
from generator.cli.main import EXIT_BROKEN_PIPE, main

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
BINLOG = SAMPLES / "mysql_serialization" / "binlog.000001.binlog"
REPLY = SAMPLES / "thrift_compact" / "get_user_reply.bin"
CRAFT_ROWS = SAMPLES / "ticdc_craft" / "row_batch.bin"
OP_UPDATE = SAMPLES / "ticdc_open_protocol" / "update"


@pytest.fixture
def files(tmp_path):
    """Bad inputs by name: ``{empty}``, ``{folder}``, ``{missing}``, ... in the arguments."""
    (tmp_path / "empty.bin").write_bytes(b"")
    (tmp_path / "folder").mkdir()
    (tmp_path / "not.json").write_text("{not json")
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00\x01")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)  # found by fuzzing
    (tmp_path / "digits.json").write_text('{"rows": ' + "1" * 5000 + "}")
    (tmp_path / "address.json").write_text('{"street": "a", "city": "b"}')
    (tmp_path / "typo.json").write_text('{"header": 117, "rowz": []}')
    (tmp_path / "wrongtype.json").write_text('{"rows": [{}, {"primary_key": 7}]}')
    (tmp_path / "wrongthrift.json").write_text(
        '{"id": 1, "name": "n", "addresses": [{"street": "a"}, {"zip": 5}]}'
    )
    (tmp_path / "bad.thrift").write_bytes(b"\xff\xfe struct")
    (tmp_path / "includes.thrift").write_text('include "absent.thrift"\nstruct A { 1: i32 x }\n')
    (tmp_path / "badinclude.thrift").write_text('include "bad.thrift"\nstruct A { 1: i32 x }\n')
    (tmp_path / "typo.thrift").write_text("struct A {\n  1: i32 x\n  2: strin y\n}\n")
    (tmp_path / "lone.value").write_bytes((OP_UPDATE.with_suffix(".value")).read_bytes())
    pair = (
        OP_UPDATE.with_suffix(".key").read_bytes(),
        OP_UPDATE.with_suffix(".value").read_bytes(),
    )
    (tmp_path / "op.json").write_text(json.dumps(op.to_dict(op.parse_pair(*pair))))
    return {
        "empty": str(tmp_path / "empty.bin"),
        "folder": str(tmp_path / "folder"),
        "missing": str(tmp_path / "missing.bin"),
        "nojson": str(tmp_path / "not.json"),
        "binjson": str(tmp_path / "binary.json"),
        "listjson": str(tmp_path / "list.json"),
        "deepjson": str(tmp_path / "deep.json"),
        "digitsjson": str(tmp_path / "digits.json"),
        "structjson": str(tmp_path / "address.json"),
        "typojson": str(tmp_path / "typo.json"),
        "wrongtypejson": str(tmp_path / "wrongtype.json"),
        "wrongthriftjson": str(tmp_path / "wrongthrift.json"),
        "badthrift": str(tmp_path / "bad.thrift"),
        "includes": str(tmp_path / "includes.thrift"),
        "typo": str(tmp_path / "typo.thrift"),
        "badinclude": str(tmp_path / "badinclude.thrift"),
        "lonevalue": str(tmp_path / "lone.value"),
        "opjson": str(tmp_path / "op.json"),
        "nodir": str(tmp_path / "no" / "such" / "dir" / "out.bin"),
        "binlog": str(BINLOG),
        "reply": str(REPLY),
        "craft": str(CRAFT_ROWS),
        "opvalue": str(OP_UPDATE.with_suffix(".value")),
        "opkey": str(OP_UPDATE.with_suffix(".key")),
        "plainspec": str(ROOT / "specs" / "plainbuffer.yaml"),
    }


BAD = [
    # decode
    ("decode", "plainbuffer {empty}", "offset 0"),
    ("decode", "plainbuffer {folder}", "cannot read"),
    ("decode", "plainbuffer {missing}", "cannot read"),
    ("decode", "nosuchformat {binlog}", "unknown format"),
    ("decode", "plainbufer {missing}", "format 'plainbufer' (did you mean 'plainbuffer'?)"),
    ("decode", "plainbuffer --record nope {binlog}", "has no record 'nope'"),
    ("decode", "plainbuffer --record mesage {binlog}", "'mesage' (did you mean 'message'?)"),
    ("decode", "plainbuffer --struct row {binlog}", "--struct is for Thrift"),
    ("decode", "thrift_compact --struct Nope {reply}", "has no struct 'Nope'"),
    ("decode", "thrift_compact --record User --struct Address {reply}", "disagree"),
    ("decode", "thrift_compact --spec {missing} {reply}", "no spec file"),
    ("decode", "thrift_compact --spec {plainspec} {reply}", "not a Thrift spec"),
    ("decode", "msgpack --spec {plainspec} {reply}", "the spec of 'plainbuffer', not 'msgpack'"),
    ("decode", "plainbuffer --raw {binlog}", "--raw is for Thrift"),
    ("decode", "plainbuffer --key {opkey} {binlog}", "--key is only for"),
    ("decode", "ticdc_open_protocol {lonevalue}", "give --key"),
    ("decode", "ticdc_open_protocol --key {missing} {opvalue}", "cannot read"),
    ("decode", "plainbuffer --bogus {binlog}", "unrecognized arguments"),
    ("decode", "ticdc_open_protocol --record key_frames --key {opkey} {opkey}", "goes with"),
    ("decode", "thrift_compact {binlog}", "not a Thrift message: give --struct"),
    ("decode", "plainbuffer", "required"),
    # encode
    ("encode", "plainbuffer {nojson}", "is not JSON"),
    ("encode", "plainbuffer {binjson}", "not UTF-8"),
    ("encode", "plainbuffer {listjson}", "expected a JSON object"),
    ("encode", "plainbuffer {deepjson}", "nested too deep"),
    ("encode", "plainbuffer {digitsjson}", "4300 digits"),
    ("encode", "plainbuffer {typojson}", "unknown key 'rowz' in message (did you mean 'rows'?)"),
    ("encode", "mysql_serialization {listjson}", "expected a JSON object"),
    ("encode", "thrift_compact --raw {listjson}", "expected a JSON object"),
    ("encode", "plainbuffer {folder}", "cannot read"),
    ("encode", "plainbuffer {missing}", "cannot read"),
    ("encode", "nosuchformat {nojson}", "unknown format"),
    ("encode", "ticdc_open_protocol {listjson}", "expected a JSON object"),
    ("encode", "thrift_compact {structjson}", "not a Thrift message: give --struct"),
    ("encode", "thrift_compact --struct User {structjson}", "unknown key 'street' in User"),
    ("encode", "ticdc_open_protocol {opjson} -o {nodir}", "has a Kafka key: give --key-out"),
    ("encode", "plainbuffer {wrongtypejson}", "rows[1].primary_key: expected a list, got int"),
    (
        "encode",
        "thrift_compact --struct User {wrongthriftjson}",
        "addresses[1].zip: expected a str",
    ),
    # schema
    ("schema", "nosuchformat", "unknown format"),
    ("schema", "plainbuffer --record nope", "has no record 'nope'"),
    ("schema", "thrift_compact --struct Nope", "has no struct 'Nope'"),
    ("schema", "parquet --struct FileMetadata", "(did you mean 'FileMetaData'?)"),
    ("schema", "ticdc_craft --struct frame", "--struct is for Thrift"),
    # inspect
    ("inspect", "plainbuffer {folder}", "cannot read"),
    ("inspect", "plainbuffer {missing}", "cannot read"),
    ("inspect", "nosuchformat {binlog}", "unknown format"),
    ("inspect", "ticdc_crat {missing}", "'ticdc_crat' (did you mean 'ticdc_craft'?)"),
    ("inspect", "plainbuffer --record nope {binlog}", "has no record"),
    ("inspect", "ticdc_open_protocol {lonevalue}", "give --key"),
    ("inspect", "ticdc_open_protocol {opkey}", "is the Kafka key of ticdc_open_protocol message"),
    ("decode", "ticdc_open_protocol {opkey}", "update.key is the Kafka key of ticdc_open_protocol"),
    ("schema", "plainbuffer --spec {folder}", "folder is a folder: give one spec file"),
    ("inspect", "plainbuffer --key {opkey} {binlog}", "--key is only for"),
    ("inspect", "mysql_serialization {binlog} --html {nodir}", "cannot write"),
    ("inspect", "ticdc_open_protocol {opvalue} --html {nodir}", "out.key.bin: No such file"),
    # diff (trouble is 2, as in diff(1))
    ("diff", "plainbuffer {missing} {binlog}", "cannot read"),
    ("diff", "plainbuffer {empty} {empty}", "cannot decode"),
    ("diff", "plainbuffer {binlog}", "two messages"),
    ("diff", "plainbuffer {binlog} {binlog} {binlog}", "not 3 files"),
    ("diff", "nosuchformat {binlog} {binlog}", "unknown format"),
    ("diff", "msgpak {missing} {missing}", "format 'msgpak' (did you mean 'msgpack'?)"),
    ("diff", "ticdc_open_protocol {lonevalue} {lonevalue}", "give --key"),
    ("diff", "ticdc_open_protocol {opkey} {opvalue} {opkey} {opvalue} --key-a {opkey}", "either"),
    # transcode
    ("transcode", "ticdc_craft plainbuffer {craft} {nodir}", "transcode knows"),
    ("transcode", "ticdc_craf ticdc_craft {craft} {nodir}", "(did you mean 'ticdc_craft'?)"),
    ("transcode", "ticdc_craft ticdc_open_protocol {craft} {nodir}", "give --key-out"),
    ("transcode", "ticdc_open_protocol ticdc_craft {lonevalue} {nodir}", "give --key"),
    ("transcode", "ticdc_craft ticdc_craft {empty} {nodir}", "cannot decode"),
    ("transcode", "ticdc_craft ticdc_craft {folder} {nodir}", "cannot read"),
    ("transcode", "ticdc_craft ticdc_craft {craft} {nodir}", "cannot write"),
    ("transcode", "ticdc_craft ticdc_craft {craft} {nodir} --key {opkey}", "--key is only"),
    # import-thrift
    ("import-thrift", "{missing}", "no such file"),
    ("import-thrift", "{folder}", "is a folder"),
    ("import-thrift", "{badthrift}", "not UTF-8"),
    ("import-thrift", "{badinclude}", "bad.thrift: not UTF-8 text (byte 0)"),
    ("import-thrift", "{includes}", "includes.thrift:1: include 'absent.thrift': no such file"),
    ("import-thrift", "{typo}", "typo.thrift:3: unknown type 'strin' (did you mean 'string'?)"),
    # generate (the rest of its errors: tests of the spec loader)
    ("generate", "--specs {missing}", "no spec folder"),
    ("generate", "--specs {folder}", "no specs"),
    ("generate", "--check --compiled", "--check only compares: leave out --compiled"),
    # fuzz
    ("fuzz", "nosuchformat --seconds 0.1", "unknown format"),
    # ingest (checked before Spark starts)
    ("ingest", "plainbufer {folder} --output {nodir}", "(did you mean 'plainbuffer'?)"),
    ("fuzz", "plainbuffer --record nope --seconds 0.1", "has no record"),
    ("fuzz", "plainbuffer --seconds -1", "positive number"),
    ("fuzz", "plainbuffer --seconds soon", "not a number"),
    ("fuzz", "plainbuffer --seed x", "invalid int"),
]


def run_in_process(argv, capsys) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse: usage errors
        status = exit_.code
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("verb, args, message", BAD, ids=[f"{v} {a}" for v, a, _ in BAD])
def test_bad_input_is_one_short_message(verb, args, message, files, capsys):
    argv = [verb, *(a.format(**files) for a in args.split())]
    status, _, err = run_in_process(argv, capsys)
    assert status not in (0, None), err
    assert verb != "diff" or status == 2, "diff: trouble is 2 (1 means the messages differ)"
    assert message in err
    assert "Traceback" not in err and 1 <= err.count("\n") <= 5, err


def test_diff_exit_codes_and_no_differences(files, capsys):
    assert run_in_process(
        ["diff", "plainbuffer", *[str(SAMPLES / "plainbuffer" / "put_row.bin")] * 2], capsys
    )[:2] == (0, "no differences\n")
    status, out, _ = run_in_process(
        ["diff", "plainbuffer", str(SAMPLES / "plainbuffer" / "put_row.bin"),
         str(SAMPLES / "plainbuffer" / "delete_row.bin")], capsys
    )  # fmt: skip
    assert status == 1 and out and "no differences" not in out


def test_diff_compares_open_protocol_pairs(files, capsys):
    pairs = SAMPLES / "ticdc_open_protocol"
    update, batch = pairs / "update", pairs / "row_batch"
    four = [f"{update}.key", f"{update}.value", f"{batch}.key", f"{batch}.value"]
    status, out, _ = run_in_process(["diff", "ticdc_open_protocol", *four], capsys)
    assert status == 1 and 'events[0].op: "update" -> "insert"' in out
    siblings = [f"{update}.value", f"{batch}.value"]  # <stem>.key beside each
    assert run_in_process(["diff", "ticdc_open_protocol", *siblings], capsys)[:2] == (1, out)
    keys = ["--key-a", f"{update}.key", "--key-b", f"{update}.key"]
    same = ["diff", "ticdc_open_protocol", files["lonevalue"], f"{update}.value", *keys]
    assert run_in_process(same, capsys)[:2] == (0, "no differences\n")


def test_decode_recognises_a_binlog_file_and_a_thrift_message(capsys):
    status, out, err = run_in_process(["decode", "mysql_serialization", str(BINLOG)], capsys)
    assert status == 0, err
    assert json.loads(out)["magic"] == 0xFE62696E and len(json.loads(out)["events"]) == 7
    argv = ["decode", "thrift_compact", "--struct", "get_user_result", str(REPLY)]
    status, out, err = run_in_process(argv, capsys)
    assert status == 0, err
    reply = json.loads(out)
    assert reply["type"] == "REPLY" and reply["body"]["success"]["name"] == "Ada Lovelace"


def test_encode_picks_the_record_its_bytes_are(tmp_path, capsys):
    for fmt, source, extra in [
        ("mysql_serialization", BINLOG, []),
        ("thrift_compact", REPLY, ["--struct", "get_user_result"]),
    ]:
        status, out, err = run_in_process(["decode", fmt, *extra, str(source)], capsys)
        assert status == 0, err
        (tmp_path / "doc.json").write_text(out)
        again = tmp_path / "again.bin"
        argv = ["encode", fmt, *extra, str(tmp_path / "doc.json"), "-o", str(again)]
        assert run_in_process(argv, capsys)[0] == 0
        assert again.read_bytes() == source.read_bytes()


def test_inspect_recognises_a_binlog_file(capsys):
    status, out, _ = run_in_process(["inspect", "mysql_serialization", str(BINLOG)], capsys)
    assert status == 0 and out.startswith("mysql_serialization binlog_file: 483 bytes")


def test_open_protocol_takes_the_key_beside_the_value(capsys):
    value, key = str(OP_UPDATE.with_suffix(".value")), str(OP_UPDATE.with_suffix(".key"))
    given = run_in_process(["decode", "ticdc_open_protocol", "--key", key, value], capsys)
    assert (
        given[0] == 0 and run_in_process(["decode", "ticdc_open_protocol", value], capsys) == given
    )
    status, out, _ = run_in_process(["inspect", "ticdc_open_protocol", value], capsys)
    assert status == 0 and out.startswith("ticdc_open_protocol key key_frames")


def test_struct_is_the_message_body_on_every_verb(capsys):
    """``--struct`` names the payload's struct: the body of a message (recognised by its
    envelope) on decode, inspect, diff and schema alike."""
    struct = ["--struct", "get_user_result"]
    other = str(SAMPLES / "thrift_compact" / "get_user_reply_not_found.bin")
    status, out, _ = run_in_process(["inspect", "thrift_compact", *struct, str(REPLY)], capsys)
    assert status == 0 and "body.success.id = 42" in out
    status, out, _ = run_in_process(["diff", "thrift_compact", *struct, str(REPLY), other], capsys)
    assert status == 1 and "body.nf: <absent> -> " in out
    argv = ["schema", "thrift_compact", "--record", "message", *struct, "--ddl"]
    status, out, _ = run_in_process(argv, capsys)
    assert status == 0 and "`body` STRUCT<`success`: STRUCT<" in out


def test_help_lists_the_formats(capsys):
    formats = sorted(p.stem for p in (ROOT / "generated").glob("*.py") if p.stem != "__init__")
    for argv in (["--help"], ["decode", "--help"], ["diff", "--help"], ["schema", "--help"]):
        status, out, _ = run_in_process(argv, capsys)
        assert status == 0 and all(f in " ".join(out.split()) for f in formats), argv


def test_version_says_which_tier_runs(capsys):
    from generator import __version__
    from runtime.core import tier

    status, out, _ = run_in_process(["--version"], capsys)
    assert status == 0 and out == f"wirespec {__version__}\n{tier.describe()}\n"


# -- real runs -----------------------------------------------------------------------------


def wirespec(*args):
    # ROOT first; what PYTHONPATH held stays after it (scripts/coverage.sh measures the run)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "generator", *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env,
    )  # fmt: skip


@pytest.mark.parametrize("verb", ["decode", "inspect", "encode"])
def test_a_closed_pipe_ends_quietly(verb, tmp_path, capsys):
    """``wirespec decode ... | head``: the reader goes away before the first byte."""
    args = [verb, "mysql_serialization", BINLOG]
    if verb == "encode":
        _, out, _ = run_in_process(["decode", "mysql_serialization", str(BINLOG)], capsys)
        (tmp_path / "binlog.json").write_text(out)
        args = [verb, "mysql_serialization", tmp_path / "binlog.json"]
    proc = wirespec(*args)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == EXIT_BROKEN_PIPE and err == b"", err


def test_real_runs_print_no_traceback(tmp_path):
    for args in (("import-thrift", tmp_path / "missing.thrift"), ("decode", "nope", "-")):
        proc = wirespec(*args)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode != 0 and b"Traceback" not in err and err.count(b"\n") == 1, err


# -- mistakes in a spec: file, line and key path -----------------------------------------------

SPEC_MISTAKES = [
    # (text in specs/plainbuffer.yaml, its replacement, the message after "file:line: ")
    ("endian: le", "endian: [le",
     "not valid YAML: expected ',' or ']', but got ':' (while parsing a flow sequence at line {line})"),
    ("endian: le", "endianness: le", "endianness: unknown key 'endianness' (did you mean 'endian'?)"),
    ("default_record: message", "default_record: 5", "default_record: 5 is not of type 'string'"),
    ("default_record: message", "default_record: mesage",
     "default_record: no record named 'mesage' (did you mean 'message'?)"),
    ("        type: s64\n", "        tpye: s64\n",
     "records.cell.fields[3].tpye: unknown key 'tpye' (did you mean 'type'?)"),
    ("        type: s64\n", "        type: i64\n",
     "records.cell.fields[3].type: unknown type 'i64' (did you mean 's64'?)"),
    # another language's name for a type: what it means here, not the nearest letters
    ("        type: s64\n", "        type: int64_t\n",
     "records.cell.fields[3].type: unknown type 'int64_t' (did you mean 's64'?)"),
    ("        type: s64\n", "        type: uint8\n",
     "records.cell.fields[3].type: unknown type 'uint8' (did you mean 'u8'?)"),
    ("        type: s64\n", "        type: string\n",
     "records.cell.fields[3].type: unknown type 'string' (did you mean 'str'?)"),
    ("        type: s64\n", "        type: double\n",
     "records.cell.fields[3].type: unknown type 'double' (did you mean 'f64'?)"),
    # an unquoted comma inside {...}: the rest of the value reads as a key of no value
    ('doc: "int64, 8 bytes"}', "doc: int64, 8 bytes}",
     ("enums.value_type.values.INTEGER['8 bytes']: '8 bytes' has no value: a ',' inside {{...}}"
      ' ends the value before it, and the rest reads as a key; quote that value (doc: "a, b")')),
    ("        enum: cell_op\n", "        enum: cellop\n",
     "records.cell.fields[2].enum: unknown enum 'cellop' (did you mean 'cell_op'?)"),
]  # fmt: skip


@pytest.mark.parametrize("old, new, message", SPEC_MISTAKES, ids=[m[1] for m in SPEC_MISTAKES])
def test_a_spec_mistake_names_file_line_and_key(old, new, message, tmp_path, capsys):
    text = (ROOT / "specs" / "plainbuffer.yaml").read_text(encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1
    spec = tmp_path / "plainbuffer.yaml"
    spec.write_text(text.replace(old, new, 1), encoding="utf-8")
    status, out, err = run_in_process(["schema", "plainbuffer", "--spec", str(spec)], capsys)
    # A YAML syntax error shows where the parser gave up: the line after an unclosed [.
    shown = line + 1 if "YAML" in message else line
    assert (status, out) == (1, "")
    assert err == f"wirespec: {spec}:{shown}: {message.format(line=line)}\n"  # as typed
