"""A newcomer's own format, kept in a spec folder of their own (specs/README.md, "Your own
format"): ``generate``/``docs`` need ``--out`` for it and never write into the shipped
folders, ``--spec`` modules keep to their own name space and the pure tier, ``fuzz --spec``
fuzzes it, and the spec mistakes a newcomer makes are named by file, line and key."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from generator import ROOT
from generator.cli.main import main
from runtime.core.errors import DecodeError

SENSORLOG = """\
format: sensorlog
title: Sensor log
doc: A little-endian file of sensor readings.
endian: le
default_record: file
enums:
  unit:
    doc: Unit of a reading.
    type: u8
    values:
      CELSIUS: {value: 1, doc: "degrees Celsius"}
      PERCENT: {value: 3, doc: "relative humidity"}
records:
  file:
    doc: A sensor log file.
    spark: {row: records}
    fields:
      - {name: magic, type: u32be, const: 0x534e5352, doc: "SNSR"}
      - {name: version, type: u8, const: 1, doc: "format version"}
      - {name: count, type: uvarint, value: "len(records)", doc: "records that follow"}
      - {name: records, type: reading, repeat: {count: count}, doc: "the readings"}
  reading:
    doc: One reading, after its length.
    fields:
      - {name: length, type: u16, value: "sizeof(body)", doc: "bytes of body"}
      - {name: body, type: body, size: length, doc: "the reading"}
  body:
    doc: The reading itself.
    fields:
      - {name: sensor_id, type: u32, doc: "sensor"}
      - {name: unit, type: u8, enum: unit, doc: "unit"}
      - {name: position, type: position, doc: "where"}
      - {name: has_note, type: u8, doc: "1 if a note follows"}
      - {name: note, type: str, size: u8, if: "has_note == 1", doc: "free text"}
      - {name: value, type: f64, doc: "the value"}
  position:
    doc: Where the sensor is.
    fields:
      - {name: lat, type: f32, doc: "latitude"}
      - {name: lon, type: f32, doc: "longitude"}
"""
LOG = bytes.fromhex(
    "534e5352010219000700000001000052420000544101027266000000000080354016000800000003"
    "000000000000c0bf000000000000004440"
)
"""Two readings: sensor 7 at 21.5 C with the note "rf", sensor 8 at 40 % without one."""


SWITCH = '{{name: value, switch_on: {on}, cases: {{CELSIUS: f64, default: f64}}, doc: "value"}}'
"""The reading's value as a switch on an earlier field (``on``), each case an f64."""


@pytest.fixture
def specs(tmp_path) -> Path:
    folder = tmp_path / "myspecs"
    folder.mkdir()
    (folder / "sensorlog.yaml").write_text(SENSORLOG)
    return folder


def shipped_files() -> set[Path]:
    return {*ROOT.joinpath("generated").rglob("*"), *ROOT.joinpath("docs").rglob("*")}


@pytest.mark.parametrize("verb", ["generate", "docs"])
def test_a_spec_folder_of_your_own_needs_out(verb, specs, capsys):
    before = shipped_files()
    assert main([verb, "--specs", str(specs)]) == 2
    err = capsys.readouterr().err
    assert "spec folder of your own: give --out DIR" in err and "made from specs/" in err
    shipped = "generated" if verb == "generate" else "docs/formats"
    assert main([verb, "--specs", str(specs), "--out", str(ROOT / shipped)]) == 2
    assert "holds the shipped formats' files" in capsys.readouterr().err
    assert shipped_files() == before


def test_generate_makes_your_package_and_lists_no_orphans(specs, tmp_path, capsys):
    out = tmp_path / "mypkg"
    assert main(["generate", "--specs", str(specs), "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "orphan" not in printed.out + printed.err
    assert printed.out.split() == ["written", str(out / "sensorlog.py")] + [
        "written",
        str(out / "_compiled" / "sensorlog.pyx"),
    ]
    assert main(["generate", "--specs", str(specs), "--out", str(out), "--check"]) == 0
    assert main(["docs", "--specs", str(specs), "--out", str(tmp_path / "doc")]) == 0
    assert (tmp_path / "doc" / "sensorlog.md").is_file()


def test_the_shipped_folders_keep_their_defaults(capsys):
    assert main(["generate", "--check"]) == 0
    assert main(["docs", "--check"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "verb", ["decode", "encode", "schema", "inspect", "diff", "fuzz", "ingest"]
)
def test_format_help_says_your_spec_names_it(verb, capsys):
    """FORMAT lists the shipped formats; a verb that takes --spec says a spec's own format
    fits there too (a newcomer reading "one of: ..." would think theirs does not)."""
    with pytest.raises(SystemExit):
        main([verb, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "or your spec's format: with --spec" in text.split("options:")[0]


def test_schema_help_gives_its_own_record_default(capsys):
    """schema reads no input, so its --record default is the spec's default_record, not
    "the record the input is recognised as" of the verbs that read one."""
    with pytest.raises(SystemExit):
        main(["schema", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: the spec's default_record; there is no input to recognise)" in text
    assert "the record the input is recognised as" not in text


def test_generate_help_says_when_out_is_needed(capsys):
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "required with --specs of your own" in text


def test_the_walkthrough_round_trips(specs, capsys):
    spec = str(specs / "sensorlog.yaml")
    data = specs.parent / "log.bin"
    data.write_bytes(LOG)
    assert main(["decode", "sensorlog", str(data), "--spec", spec]) == 0
    decoded = json.loads(capsys.readouterr().out)
    assert [r["body"]["note"] for r in decoded["records"]] == ["rf", None]
    assert decoded["records"][0]["body"]["unit"] == "CELSIUS"
    edited = bytearray(LOG)
    edited[0x0C] = 3  # the first reading's unit
    (specs.parent / "edited.bin").write_bytes(edited)
    assert main(["diff", "sensorlog", str(data), str(specs.parent / "edited.bin"), "--spec", spec])
    assert capsys.readouterr().out.strip() == 'records[0].body.unit: "CELSIUS" -> "PERCENT"'


def test_fuzz_takes_your_spec_and_saves_beside_it(specs, capsys):
    spec = str(specs / "sensorlog.yaml")
    assert main(["fuzz", "sensorlog", "--spec", spec, "--seconds", "0.3"]) == 0
    assert "sensorlog (position, body, reading, file)" in capsys.readouterr().out
    assert not (ROOT / "tests" / "fuzz" / "crashes" / "sensorlog").exists()
    assert main(["fuzz", "all", "--spec", spec, "--seconds", "0.3"]) == 2
    assert "give its format:, not all" in capsys.readouterr().err


def test_an_unknown_format_points_at_spec(capsys):
    assert main(["decode", "sensorlog", "-"]) == 2
    assert "(a format of your own: --spec YOUR_SPEC.yaml)" in capsys.readouterr().err


def test_a_spec_of_another_format_is_not_called_a_thrift_one(specs, capsys):
    assert main(["schema", "png", "--spec", str(specs / "sensorlog.yaml")]) == 2
    err = capsys.readouterr().err
    assert "is the spec of 'sensorlog', not 'png'" in err and "Thrift" not in err


def test_an_in_memory_module_never_takes_a_shipped_build():
    """Rendered first, a --spec module of a shipped format's name used to bind the shipped
    compiled extension, and the shipped module imported after it ran pure Python."""
    script = (
        "from pathlib import Path\n"
        "from generator.emit.user_spec import import_spec\n"
        "from runtime.core import tier\n"
        "mine = import_spec(Path('specs/plainbuffer.yaml'))\n"
        "import generated.plainbuffer as shipped\n"
        "assert mine.__name__.startswith('wirespec_spec_plainbuffer_'), mine.__name__\n"
        "assert mine._COMPILED is None and mine.COMPILED_READERS == {}\n"
        "assert shipped._COMPILED is tier.compiled('generated._compiled.plainbuffer')\n"
        "print(shipped._COMPILED is not None)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr


def test_an_in_memory_module_says_it_has_no_compiled_reader(specs):
    """FALLBACKS (and the header) of a --spec module named only the records that a built
    module would have left without a compiled reader, as if the others had one."""
    from generator.emit.fallbacks import IN_MEMORY
    from generator.emit.render import render_with_compiled
    from generator.emit.user_spec import import_spec
    from generator.spec.loader import load
    from generator.spec.validate import build_model

    path = specs / "sensorlog.yaml"
    module = import_spec(path)
    assert module.COMPILED_READERS == {}
    records = set(module.RECORDS)
    assert module.FALLBACKS["compiled"].keys() == records
    assert module.FALLBACKS["compiled"]["file"] == IN_MEMORY
    source = render_with_compiled(build_model(load(path)), in_memory=True)[0]
    assert "#   compiled: every record" not in source and f"#     file: {IN_MEMORY}" in source
    built = render_with_compiled(build_model(load(path)))[0]  # generated: a compiled tier
    assert "#     file: rendered in memory" not in built and "_COMPILED = None" not in built


@pytest.mark.parametrize(
    "edit, says",
    [
        (
            ("repeat: {count: count}", "repeat: {cout: count}"),
            (
                "sensorlog.yaml:21: records.file.fields[3].repeat.cout: unknown key 'cout' "
                "(did you mean 'count'?)"
            ),
        ),
        (
            ("repeat: {count: count}", "repeat: eso"),
            (
                "sensorlog.yaml:21: records.file.fields[3].repeat: not a valid form for this key: "
                "'eso' (did you mean 'eos', or {count: eso}?); the forms: eos, tagged,"
            ),
        ),
        (
            ("repeat: {count: count}", "repeat: count"),
            (
                "records.file.fields[3].repeat: not a valid form for this key: 'count' (did "
                "you mean 'msb_count', or {count: count}?)"
            ),
        ),
        (
            ('if: "has_note == 1"', 'if: "has_note = 1"'),
            (
                "records.body.fields[4].if: 'has_note = 1' is not a valid expression: invalid "
                "syntax (a comparison is '==')"
            ),
        ),
        (
            ('if: "has_note == 1"', 'if: "length(note) == 1"'),
            "may not call length: only len, min, max, abs, sum, all, any (did you mean 'len'?)",
        ),
        (
            ('if: "has_note == 1"', 'if: "has_note == 1 && unit"'),
            "is not a valid expression: invalid syntax (Python's words: 'and', 'or', 'not')",
        ),
        (
            ("format: sensorlog", "format: Sensor-Log"),
            (
                "sensorlog.yaml:1: format: 'Sensor-Log' is not a name: lower-case letters, "
                "digits and _, from a letter (did you mean 'sensor_log'?)"
            ),
        ),
        (
            ("type: u8, const: 1,", "type: u8, const: 256,"),
            "sensorlog.yaml:19: records.file.fields[1].const: 256 does not fit u8 (0 to 255)",
        ),
        (
            ('if: "has_note == 1"', "optional: true"),
            (
                "sensorlog.yaml:34: records.body.fields[4].optional: an optional field needs a tag "
                "to announce it; a field present when an earlier field says so takes if: EXPR"
            ),
        ),
        (
            ("type: u32be, const: 0x534e5352,", 'type: u32be, const: "SNSR",'),
            (
                "sensorlog.yaml:18: records.file.fields[0].const: 'SNSR' is text, and const: is "
                "a number: its 4 bytes are type: u32be, const: 0x534e5352"
            ),
        ),
        (
            ("type: u32be, const: 0x534e5352,", "type: bytes, size: 4, const: 0x534e5352,"),
            (
                "sensorlog.yaml:18: records.file.fields[0].const: const: goes with a number type "
                "(magic bytes: an integer type of their width, u8, u16be, u32be or u64be"
            ),
        ),
        (
            ('{name: value, type: f64, doc: "the value"}', SWITCH.format(on="unitt")),
            (
                "sensorlog.yaml:35: records.body.fields[5].switch_on: 'unitt' is not an earlier "
                "field (did you mean 'unit'?)"
            ),
        ),
        (
            ('{name: value, type: f64, doc: "the value"}', SWITCH.format(on="note")),
            (
                "records.body.fields[5].switch_on: 'note' is a str field: a switch is on an "
                "earlier integer field with an enum (four ASCII letters: a u32be with enum:)"
            ),
        ),
        (
            ('{name: value, type: f64, doc: "the value"}', SWITCH.format(on="has_note")),
            (
                "records.body.fields[5].switch_on: 'has_note' has no enum: give the field enum: "
                "NAME, or the switch enum: NAME"
            ),
        ),
        (
            (
                '{name: value, type: f64, doc: "the value"}',
                SWITCH.format(on="has_note, enum: units"),
            ),
            "records.body.fields[5].enum: unknown enum 'units' (did you mean 'unit'?)",
        ),
    ],
)
def test_a_newcomers_spec_mistakes_are_named(edit, says, specs, capsys):
    path = specs / "sensorlog.yaml"
    path.write_text(SENSORLOG.replace(*edit))
    assert main(["schema", "sensorlog", "--spec", str(path)]) == 1
    assert says in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        "decode sensorlog log.bin --spec myspecs/sensorlog.yaml",
        "encode sensorlog log.json --spec myspecs/sensorlog.yaml",
        "inspect sensorlog log.bin --spec myspecs/sensorlog.yaml",
        "schema sensorlog --spec myspecs/sensorlog.yaml",
        "diff sensorlog log.bin log.bin --spec myspecs/sensorlog.yaml",
        "fuzz sensorlog --spec myspecs/sensorlog.yaml --seconds 0.1",
        "ingest sensorlog log.bin --output out --spec myspecs/sensorlog.yaml",
        "generate --specs myspecs --out mypkg",
        "docs --specs myspecs --out mydocs",
    ],
)
def test_a_spec_error_names_the_path_as_typed(argv, specs, monkeypatch, capsys):
    """Every verb that takes --spec (or --specs) names a spec outside the repository by the
    relative path the user typed, with the line, not by its file name alone."""
    (specs / "sensorlog.yaml").write_text(SENSORLOG.replace("{count: count}", "{cout: count}"))
    (specs.parent / "log.bin").write_bytes(LOG)
    monkeypatch.chdir(specs.parent)
    assert main(argv.split()) != 0
    err = capsys.readouterr().err
    assert "myspecs/sensorlog.yaml:21: records.file.fields[3].repeat.cout: unknown key" in err
    assert err.count("\n") == 1


def test_the_readme_walkthrough_runs_as_written(tmp_path, monkeypatch, capsys):
    """specs/README.md, "Your own format, in a folder of your own": its first commands, on
    the tutorial's spec and records (the fuzz run shortened, the build left to
    tests/test_user_compiled.py)."""
    text = (ROOT / "specs" / "README.md").read_text()
    section = text[text.index("## Your own format, in a folder of your own") :]
    commands = re.search(r"```console\n(.*?)```", section, re.DOTALL).group(1).splitlines()
    (tmp_path / "myspecs").mkdir()
    spec = re.search(r"```yaml\n(format: kafka_records.*?)```", text, re.DOTALL).group(1)
    (tmp_path / "myspecs" / "kafka_records.yaml").write_text(spec)
    data = bytes.fromhex(re.search(r"bytes\.fromhex\('([0-9a-f]+)'\)", text).group(1))
    for name in ("records.bin", "a.bin", "b.bin"):
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    for line in commands:
        argv = line.removeprefix("$ wirespec ").replace("--seconds 60", "--seconds 0.3").split()
        assert main([a for a in argv if a != "--compiled"]) == 0, line
    capsys.readouterr()
    assert (tmp_path / "mypkg" / "kafka_records.py").is_file()
    assert (tmp_path / "mydocs" / "kafka_records.md").is_file()
    assert not (tmp_path / "myspecs" / "fuzz-crashes").exists()


def test_the_spark_spec_option_takes_your_format_and_checks_it(specs, tmp_path, capsys):
    from runtime.spark.decode import OptionError, codec
    from runtime.spark.functions import column_codec

    spec = str(specs / "sensorlog.yaml")
    c = codec("sensorlog", spec=spec)
    assert c.record == "file" and c.module.FORMAT == "sensorlog" and c.spec
    assert c.schema().names == ["length", "body", "count"]  # a reading, then its file's
    assert column_codec("sensorlog", (("spec", spec),)) == (c, "FAILFAST")
    with pytest.raises(OptionError, match="is the spec of 'sensorlog', not 'png'"):
        codec("png", spec=spec)
    with pytest.raises(OptionError, match="not a Thrift spec"):
        codec("thrift_compact", spec=spec)
    with pytest.raises(OptionError, match="a .thrift IDL is for thrift_compact"):
        codec("sensorlog", spec=str(tmp_path / "shop.thrift"))
    args = ["ingest", "png", str(tmp_path), "--output", str(tmp_path / "out"), "--spec", spec]
    assert main(args) == 2  # before Spark starts
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is the spec of 'sensorlog', not 'png'" in err


def test_the_spark_spec_option_names_a_bad_spec_once_with_its_line(specs):
    """Its SpecError's own file name is not said again after the spec as the caller gave it
    (``spec x.yaml: x.yaml:16: ...`` was)."""
    from runtime.spark.decode import OptionError, codec

    bad = specs / "typo.yaml"
    bad.write_text(SENSORLOG.replace("spark: {row: records}", "spark: {row: recods}"))
    with pytest.raises(OptionError) as err:
        codec("sensorlog", spec=str(bad))
    assert str(err.value) == (
        f"spec {bad}:16: records.file.spark.row: must name a repeated record field"
        " (did you mean 'records'?)"
    )


@pytest.mark.spark
def test_ingest_and_the_data_source_read_your_format(spark, specs, tmp_path):
    import pyarrow.parquet as pq

    from generator.cli.ingest import ingest, schema_options

    spec = str(specs / "sensorlog.yaml")
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.bin").write_bytes(LOG)
    (src / "bad.bin").write_bytes(b"garbage")
    read = spark.read.format("wirespec").option("format", "sensorlog").option("spec", spec)
    rows = read.option("mode", "PERMISSIVE").load(str(src)).orderBy("_source_file")
    assert [r["body"]["note"] if r["body"] else r["_error"][:5] for r in rows.collect()] == [
        "rf",
        None,
        "magic",
    ]
    options = schema_options("sensorlog", spec=spec)
    summary = ingest("sensorlog", [src], tmp_path / "out", spark=spark, schema_options=options)
    assert (summary["records"], summary["events"], summary["corrupt"]) == (2, 2, 1)
    table = pq.read_table(tmp_path / "out" / "sensorlog").to_pylist()
    assert [r["body"]["unit"] for r in table] == ["CELSIUS", "PERCENT"]


def test_a_missing_default_record_and_a_shipped_import_say_what_to_do(specs, capsys):
    path = specs / "sensorlog.yaml"
    path.write_text(SENSORLOG.replace("default_record: file\n", ""))
    assert main(["schema", "sensorlog", "--spec", str(path)]) == 1
    assert "sensorlog.yaml:1: missing key 'default_record', which 'records' needs" in (
        capsys.readouterr().err
    )
    path.write_text(SENSORLOG.replace("endian: le\n", "endian: le\nimports: [mysql_types]\n"))
    assert main(["schema", "sensorlog", "--spec", str(path)]) == 1
    assert (
        "sensorlog.yaml:5: imports[0]: no spec 'mysql_types' (mysql_types.yaml) beside this "
        "one: copy wirespec's specs/mysql_types.yaml there"
    ) in capsys.readouterr().err


def test_encode_does_not_write_bytes_to_a_terminal(specs, capsys, monkeypatch):
    spec = str(specs / "sensorlog.yaml")
    (specs / "log.bin").write_bytes(LOG)
    assert main(["decode", "sensorlog", str(specs / "log.bin"), "--spec", spec]) == 0
    (specs / "log.json").write_text(capsys.readouterr().out)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["encode", "sensorlog", str(specs / "log.json"), "--spec", spec]) == 2
    assert "give -o OUT, or redirect stdout" in capsys.readouterr().err
    out = specs / "again.bin"
    assert (
        main(["encode", "sensorlog", str(specs / "log.json"), "--spec", spec, "-o", str(out)]) == 0
    )
    assert out.read_bytes() == LOG


def test_inspect_reads_the_kafka_columns_of_your_spec(tmp_path, capsys):
    """inspect --spec of a Kafka key + value format took the columns from specs/<format>.yaml,
    which a format of your own does not have ('cannot read')."""
    folder = tmp_path / "opspecs"
    folder.mkdir()
    for name in ("ticdc_types", "mysql_types"):
        (folder / f"{name}.yaml").write_text((ROOT / "specs" / f"{name}.yaml").read_text())
    shipped = (ROOT / "specs" / "ticdc_open_protocol.yaml").read_text()
    (folder / "my_op.yaml").write_text(
        shipped.replace("format: ticdc_open_protocol", "format: my_op")
    )
    value = ROOT / "samples" / "ticdc_open_protocol" / "update.value"
    assert main(["inspect", "my_op", str(value), "--spec", str(folder / "my_op.yaml")]) == 0
    out = capsys.readouterr().out
    assert "key key_frames" in out and "value value_frames" in out


def test_your_documents_point_at_your_spec_and_package(specs, tmp_path, monkeypatch, capsys):
    """A document of your own links your spec from where it lies and shows the commands
    with --spec and your package, not the shipped `generated` and name-only commands; a
    stale one names the command that renews it."""
    monkeypatch.chdir(tmp_path)
    assert main(["docs", "--specs", "myspecs", "--out", "out/mydocs"]) == 0
    page = (tmp_path / "out" / "mydocs" / "sensorlog.md").read_text()
    link = re.search(r"\| spec \| \[`sensorlog.yaml`\]\(([^)]+)\) \|", page).group(1)
    assert not Path(link).is_absolute()  # relative to the document, wherever the two folders lie
    assert (tmp_path / "out" / "mydocs" / link).resolve() == (specs / "sensorlog.yaml")
    assert "from generated import" not in page
    assert "Python: `from PKG import sensorlog; sensorlog.parse(data, " in page
    assert "`wirespec generate --specs myspecs --out PKG` wrote" in page
    assert "`wirespec decode sensorlog FILE --spec myspecs/sensorlog.yaml`" in page
    assert "run `wirespec docs --specs myspecs --out DIR`. -->" in page.splitlines()[0]
    (specs / "sensorlog.yaml").write_text(SENSORLOG.replace("Sensor log", "Sensor logs"))
    capsys.readouterr()
    for verb, out in [("docs", "out/mydocs"), ("generate", "mypkg")]:
        assert main([verb, "--specs", "myspecs", "--out", out, "--check"]) == 3
        err = capsys.readouterr().err
        assert f"run `wirespec {verb} --specs myspecs --out {out}`" in err


def test_a_switch_on_an_open_enum_needs_no_enum_of_its_own(specs, capsys):
    """An ``open: true`` field keeps any code, and its enum still names the switch's cases;
    an unlisted code takes ``default``; its Spark column is the integer (specs/README.md,
    *The Spark mapping*)."""
    path = specs / "sensorlog.yaml"
    path.write_text(
        SENSORLOG.replace("enum: unit,", "enum: unit, open: true,").replace(
            '{name: value, type: f64, doc: "the value"}', SWITCH.format(on="unit")
        )
    )
    data = bytearray(LOG)
    data[0x0C] = 9  # the first reading's unit: not listed
    (specs / "log.bin").write_bytes(data)
    assert main(["decode", "sensorlog", str(specs / "log.bin"), "--spec", str(path)]) == 0
    bodies = [r["body"] for r in json.loads(capsys.readouterr().out)["records"]]
    assert [(b["unit"], b["value"]) for b in bodies] == [
        (9, 21.5),
        ("PERCENT", 40.0),
    ]
    # Spark: the open enum's column is its integer (unlisted codes have no name)
    assert main(["schema", "sensorlog", "--spec", str(path), "--ddl"]) == 0
    assert "`unit`: SMALLINT" in capsys.readouterr().out


def test_a_valid_check_on_a_conditional_field_runs_only_where_it_is_read(specs):
    """``valid:`` on an ``if:`` field checks the value read; an absent field (None) has
    nothing to check. It used to be checked as None, so the reading without a note failed
    ``len(note) > 0``, on every path."""
    from generator.emit.user_spec import import_spec

    path = specs / "sensorlog.yaml"
    path.write_text(
        SENSORLOG.replace('if: "has_note == 1",', 'if: "has_note == 1", valid: "len(note) > 0",')
    )
    module = import_spec(path)
    for parse in (module.parse, module.parse_construct):
        notes = [r.body.note for r in parse(LOG).records]
        assert notes == ["rf", None]
    # the first reading's note present and empty: its length 25 -> 23
    empty = LOG[:6] + (23).to_bytes(2, "little") + LOG[8:21] + b"\x01\x00" + LOG[25:]
    for parse in (module.parse, module.parse_construct):
        with pytest.raises(DecodeError, match=r"note = '' does not satisfy len\(note\) > 0"):
            parse(empty)


def test_a_value_too_big_for_its_wire_type_says_whose_it_is(specs, capsys):
    """A text too long for its u8 length read '300 is out of range for uint8', and a count
    the builder computes the same, as if the user had written that number."""
    spec = specs / "sensorlog.yaml"
    spec.write_text(SENSORLOG.replace("type: uvarint, value:", "type: u8, value:"))
    data, form = specs.parent / "log.bin", specs.parent / "log.json"
    data.write_bytes(LOG)
    assert main(["decode", "sensorlog", str(data), "--spec", str(spec)]) == 0
    decoded = json.loads(capsys.readouterr().out)
    out = ["-o", str(specs.parent / "out.bin"), "--spec", str(spec)]

    decoded["records"][0]["body"]["note"] = "n" * 300
    form.write_text(json.dumps(decoded))
    assert main(["encode", "sensorlog", str(form), *out]) == 1
    assert capsys.readouterr().err == (
        "wirespec: records[0].body.note: text of 300 bytes is too long for its length prefix"
        " (300 is out of range for uint8)\n"
    )
    decoded["records"] = decoded["records"][1:] * 300
    form.write_text(json.dumps(decoded))
    assert main(["encode", "sensorlog", str(form), *out]) == 1
    assert capsys.readouterr().err == (
        "wirespec: count: 300 is out of range for uint8 (the value the builder computes,"
        " from the model's fields)\n"
    )


def test_trailing_bytes_name_no_field(specs, capsys):
    """Bytes after the whole message belong to no field: the line says where they start,
    not 'field <message>'."""
    data = specs.parent / "log.bin"
    data.write_bytes(LOG + b"xx")
    assert main(["decode", "sensorlog", str(data), "--spec", str(specs / "sensorlog.yaml")]) == 1
    assert capsys.readouterr().err == (
        f"wirespec: cannot decode: 2 trailing byte(s) after the message (offset {len(LOG)})\n"
    )


@pytest.mark.parametrize("verb", ["decode", "inspect", "ingest"])
def test_a_spec_typed_as_the_format_says_where_it_goes(verb, specs, capsys):
    """``decode myspecs/sensorlog.yaml log.bin`` read "unknown format" and a list of the
    shipped ones; the line now says FORMAT is the spec's format: and the file --spec's."""
    spec = str(specs / "sensorlog.yaml")
    (specs.parent / "log.bin").write_bytes(LOG)
    extra = ["--output", str(specs.parent / "out")] if verb == "ingest" else []
    assert main([verb, spec, str(specs.parent / "log.bin"), *extra]) == 2  # a usage error
    err = capsys.readouterr().err
    assert f"{spec} is a spec file, not a format: give it as --spec {spec}" in err
    assert err.endswith("with FORMAT its format:, sensorlog\n")
