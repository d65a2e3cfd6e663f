"""The CLI contract: decode/encode round trips, clear errors without tracebacks, schemas."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from generated import plainbuffer

SEED_ROW = bytes.fromhex(
    "7500000001"
    "03040300000070 6b31050a0000000305000000 69616d706b0a98"
    "0304030000 00706b3205090000000064000000000000000a05"
    "02"
    "030407000000636f6c756d6e3105080000000303000000626164 07e9030000000000000a30"
    "030407000000636f6c756d6e3205090000000080000000000000 0007ea030000000000000a69"
    "030407000000636f6c756d6e33050900000001 9a99999999194140 07eb030000000000000a cf"
    "030407000000636f6c756d6e3406010aa7"
    "0922".replace(" ", "")
)


def wirespec(*args, stdin: bytes = b""):
    return subprocess.run(
        [sys.executable, "-m", "generator.cli.main", *args],
        input=stdin,
        capture_output=True,
        check=False,
    )


def test_seed_row_is_the_documented_189_bytes():
    assert len(SEED_ROW) == 189
    assert plainbuffer.build(plainbuffer.parse(SEED_ROW)) == SEED_ROW


def test_decode_then_encode_is_byte_identical(tmp_path):
    source = tmp_path / "row.bin"
    source.write_bytes(SEED_ROW)
    decoded = wirespec("decode", "plainbuffer", str(source))
    assert decoded.returncode == 0, decoded.stderr
    document = json.loads(decoded.stdout)
    assert document["rows"][0]["primary_key"][0]["value"] == {"type": "STRING", "value": "iampk"}
    (tmp_path / "row.json").write_bytes(decoded.stdout)
    out = tmp_path / "again.bin"
    encoded = wirespec("encode", "plainbuffer", str(tmp_path / "row.json"), "-o", str(out))
    assert encoded.returncode == 0, encoded.stderr
    assert out.read_bytes() == SEED_ROW


def test_stdin_and_stdout():
    decoded = wirespec("decode", "plainbuffer", "-", stdin=SEED_ROW)
    encoded = wirespec("encode", "plainbuffer", "-", stdin=decoded.stdout)
    assert encoded.returncode == 0 and encoded.stdout == SEED_ROW


def test_record_option_picks_a_record():
    cell = SEED_ROW[5 : 5 + 26]
    decoded = wirespec("decode", "plainbuffer", "--record", "cell", "-", stdin=cell)
    assert decoded.returncode == 0, decoded.stderr
    assert json.loads(decoded.stdout)["name"] == "pk1"


@pytest.mark.parametrize(
    "data, offset, path",
    [
        (SEED_ROW[:-1], 188, "rows[0].checksum"),
        (SEED_ROW[:-1] + b"\x23", 188, "rows[0].checksum"),
        (b"\x76" + SEED_ROW[1:], 0, "header"),
    ],
)
def test_bad_input_gives_one_clear_line(data, offset, path):
    result = wirespec("decode", "plainbuffer", "-", stdin=data)
    err = result.stderr.decode()
    assert result.returncode == 1
    assert f"offset {offset}" in err and path in err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["decode", "nosuchformat", "-"], "unknown format 'nosuchformat'"),
        (["decode", "plainbuffer", "--record", "nope", "-"], "has no record 'nope'"),
        (["decode", "plainbuffer", "/no/such/file"], "cannot read /no/such/file"),
        (["encode", "plainbuffer", "-"], "is not JSON"),
    ],
)
def test_usage_errors_are_clear(args, message):
    result = wirespec(*args, stdin=b"{not json")
    assert result.returncode != 0
    assert message in result.stderr.decode() and b"Traceback" not in result.stderr


def test_encode_rejects_a_bad_model_with_its_path():
    document = plainbuffer.to_dict(plainbuffer.parse(SEED_ROW))
    document["rows"][0]["attributes"][1]["value"]["value"] = "not a number"
    result = wirespec("encode", "plainbuffer", "-", stdin=json.dumps(document).encode())
    assert result.returncode == 1 and b"Traceback" not in result.stderr
    assert "expected an integer" in result.stderr.decode()


@pytest.mark.parametrize("verb", ["generate", "decode", "encode", "schema"])
def test_every_verb_has_help(verb):
    result = wirespec(verb, "--help")
    assert result.returncode == 0 and b"usage: wirespec " + verb.encode() in result.stdout


def test_schema_json_and_ddl():
    as_json = wirespec("schema", "plainbuffer")
    assert as_json.returncode == 0
    names = [f["name"] for f in json.loads(as_json.stdout)["fields"]]
    assert names == ["primary_key", "attributes", "delete_marker"]
    ddl = wirespec("schema", "plainbuffer", "--ddl").stdout.decode()
    assert ddl.startswith(
        "`primary_key` ARRAY<STRUCT<`name`: STRING, `value`: STRUCT<`type`: STRING"
    )
    assert "`delete_marker` BOOLEAN NOT NULL" in ddl


def _help(verb: str, capsys) -> str:
    from generator.cli.main import main

    with pytest.raises(SystemExit):
        main([verb, "--help"])
    return capsys.readouterr().out


VERBS_WITH_EXAMPLES = [
    *("decode", "encode", "inspect", "schema", "diff", "import-thrift", "docs", "fuzz"),
    "transcode",
]


@pytest.mark.parametrize("verb", [*VERBS_WITH_EXAMPLES, "ingest"])
def test_a_verbs_help_ends_with_examples_that_name_what_exists(verb, capsys):
    """Each example is a line of its own, of this verb (or the one that feeds it), and a
    shipped file it names exists; the help calls the arguments what its text calls them."""
    from generator import ROOT

    text = _help(verb, capsys)
    head, _, tail = text.partition("examples (from the repository's root):\n")
    commands = [line.strip() for line in tail.splitlines()]
    assert commands and all(c.startswith("wirespec ") for c in commands), text
    assert any(c.startswith(f"wirespec {verb} ") for c in commands)
    for word in " ".join(c.partition("#")[0] for c in commands).split():
        if word.startswith("samples/"):
            assert (ROOT / word).exists(), word
    usage = head.split("\n\n")[0]
    assert "format" not in usage.replace("--format", "") and " file" not in usage, usage


@pytest.mark.parametrize("verb", ["decode", "inspect", "schema", "diff"])
def test_the_examples_that_read_shipped_samples_run(verb, capsys, monkeypatch):
    from generator import ROOT
    from generator.cli.main import main

    tail = _help(verb, capsys).partition("examples (from the repository's root):\n")[2]
    runnable = [
        c.partition("#")[0].split()[1:]
        for c in map(str.strip, tail.splitlines())
        if c.startswith(f"wirespec {verb} ")
        and not {">", "-o", "--html", "--spec"} & set(c.split())
    ]
    assert runnable
    monkeypatch.chdir(ROOT)
    for argv in runnable:
        assert main(argv) in (0, 1 if verb == "diff" else 0), argv
        capsys.readouterr()
