"""Specs never become code: hostile specs are refused with ``file:line``, or they generate a
module that imports, parses and runs nothing the spec said.

Every payload below, if it ever ran, would set ``builtins.wirespec_hostile_ran``; each test
renders with the real generator, imports the module and checks that it did not happen.
"""

from __future__ import annotations

import ast
import builtins
import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from generator.cli.main import main
from generator.emit.docs import render_spec_doc
from generator.emit.generate import ROOT, render_spec
from generator.emit.user_spec import import_spec
from generator.spec import names, pytext
from generator.spec.loader import load
from generator.spec.model import camel
from generator.spec.validate import build_model
from runtime.core.errors import DecodeError, SpecError
from tests.test_generator import load_module

MARK = "wirespec_hostile_ran"
PAYLOAD = f"__import__('builtins').__setattr__({MARK!r}, 1)"

BASE = {
    "format": "hostile",
    "title": "Hostile",
    "doc": "A spec whose text tries to become code.",
    "endian": "le",
    "default_record": "message",
    "enums": {
        "kind": {
            "doc": "The kind.",
            "type": "u8",
            "attributes": {"spelling": {"doc": "How it is spelled.", "values": ["a", "b"]}},
            "values": {
                "A": {"value": 1, "doc": "one", "spelling": "a"},
                "B": {"value": 2, "doc": "two", "spelling": "b"},
            },
        }
    },
    "records": {
        "message": {
            "doc": "A message.",
            "fields": [
                {"name": "kind", "type": "u8", "enum": "kind", "doc": "the kind"},
                {"name": "size", "type": "u8", "doc": "payload bytes"},
                {"name": "payload", "type": "bytes", "size": "size", "doc": "the payload"},
            ],
        }
    },
}
MESSAGE = bytes([1, 3]) + b"abc"

HOSTILE_TEXTS = [
    f'"""\n{PAYLOAD}\n"""',
    f'"""; {PAYLOAD}; """',
    f"'''\n{PAYLOAD}\n'''",
    "ends in a backslash \\",
    "ends in two backslashes \\\\",
    'ends in a quote "',
    'ends in two quotes ""',
    'ends in three quotes """',
    '""""" five quotes',
    f"line\n{PAYLOAD}",
    f"carriage return\r{PAYLOAD}",
    f"line separator\u2028{PAYLOAD}",
    f"vertical tab\x0b{PAYLOAD}\x0c",
    "NUL \x00 in the middle",
    "\\N{BULLET} and \\N{ and \\x and \\u12",
    "non-ASCII: é 漢字 \U0001f600",
    "tab\tseparated",
    "",
    "   ",
]
"""Texts for every doc, title and comment: quotes, backslashes, line breaks, NUL, ..."""


def write_spec(tmp_path: Path, data: dict, name: str = "hostile.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=False), encoding="utf-8")
    return path


def with_every_doc(text: str) -> dict:
    data = copy.deepcopy(BASE)
    data["title"] = text
    data["doc"] = text
    kind = data["enums"]["kind"]
    kind["doc"] = text
    kind["attributes"]["spelling"]["doc"] = text
    for value in kind["values"].values():
        value["doc"] = text
    message = data["records"]["message"]
    message["doc"] = text
    for field in message["fields"]:
        field["doc"] = text
    return data


def assert_runs_nothing(module_text: str) -> None:
    """No call in the module names __import__, and the payload did not run."""
    tree = ast.parse(module_text)
    called = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "__import__" not in called
    assert not hasattr(builtins, MARK)


def render_and_import(path: Path, tmp_path: Path, module_name: str):
    _, text = render_spec(path)
    module = load_module(module_name, text, tmp_path)
    assert_runs_nothing(text)
    return module, text


@given(st.text())
@example("".join(HOSTILE_TEXTS))
@settings(max_examples=300, deadline=None)
def test_any_text_is_a_docstring_that_reads_as_the_text(text):
    body = pytext.docstring(text)
    assert ast.literal_eval(f'"""{body}"""') == text.strip()
    tree = ast.parse(f'def f():\n    """{body}"""\n')
    assert len(tree.body[0].body) == 1  # the docstring and nothing else


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_any_text_is_one_comment_line(text):
    line = "# " + pytext.comment(text)
    assert line.splitlines() == [line] and ast.parse(f"{line}\nx = 1\n").body[0].lineno == 2
    assert pytext.literal(text) == repr(text) and ast.literal_eval(pytext.literal(text)) == text


@pytest.mark.parametrize("index", [0, 2, 3, 6, 7, 10, 11, 13, 14, 17])
def test_hostile_docs_and_titles_stay_text(index, tmp_path):
    text = HOSTILE_TEXTS[index]
    path = write_spec(tmp_path, with_every_doc(text))
    module, _ = render_and_import(path, tmp_path, f"hostile_docs_{index}")
    model = module.parse(MESSAGE)
    assert model.payload == b"abc" and module.build(model) == MESSAGE
    assert module.from_dict(module.to_dict(model)) == model
    if text.strip() and "\x00" not in text and "\r" not in text:
        assert module.Message.__doc__.splitlines()[0].strip() == text.strip().splitlines()[0]
    assert render_spec_doc(path)[0] == "hostile"  # wirespec docs renders it too (Markdown)


def test_a_lone_surrogate_is_not_text(tmp_path):
    err = refused(write_spec(tmp_path, with_every_doc("a lone surrogate \ud800")))
    assert "surrogate" in err.message


def test_hostile_attribute_values_and_json_docs_stay_data(tmp_path):
    data = copy.deepcopy(BASE)
    hostile = f'"]; {PAYLOAD}; ["'
    spelling = data["enums"]["kind"]["attributes"]["spelling"]
    spelling["values"] = [hostile, "b"]
    data["enums"]["kind"]["values"]["A"]["spelling"] = hostile
    module, _ = render_and_import(write_spec(tmp_path, data), tmp_path, "hostile_attributes")
    assert module.KIND_SPELLING[module.Kind.A] == hostile


def test_a_spec_file_name_with_a_line_break_stays_in_comments(tmp_path):
    path = write_spec(tmp_path, with_every_doc("doc"), name=f"x\n{PAYLOAD}\n.yaml")
    _, text = render_spec(path)
    load_module("hostile_file_name", text, tmp_path)
    assert_runs_nothing(text)


# -- names ---------------------------------------------------------------------------------

BAD_NAMES = [
    "a\nimport os",
    "a\n",
    "a b",
    "a'b",
    'a"b',
    "a.b",
    "a-b",
    "ÿ",
    "",
    "class",
    "None",
    "__init__",
    "_private",
    "9lives",
]
"""Names no record, enum, field, member or attribute may have."""


def _rename_record(data, name):
    data["records"][name] = data["records"].pop("message")
    data["default_record"] = name


def _rename_enum(data, name):
    data["enums"][name] = data["enums"].pop("kind")
    data["records"]["message"]["fields"][0]["enum"] = name


def _rename_field(data, name):
    data["records"]["message"]["fields"][1]["name"] = name
    data["records"]["message"]["fields"][2]["size"] = 3


def _rename_member(data, name):
    values = data["enums"]["kind"]["values"]
    values[name] = values.pop("B")


def _rename_attribute(data, name):
    kind = data["enums"]["kind"]
    kind["attributes"][name] = kind["attributes"].pop("spelling")
    for value in kind["values"].values():
        value[name] = value.pop("spelling")


RENAMES = {
    "record": _rename_record,
    "enum": _rename_enum,
    "field": _rename_field,
    "member": _rename_member,
    "attribute": _rename_attribute,
}
MORE_BAD = {
    "record": ["len", "str", "parse", "rt", "rt_x", "u8", "message_from_dict", "decode_error"],
    "record ": ["int32ul", "model", "kind"],  # their classes: Int32ul, Model, Kind (the enum's)
    "enum": ["decimal", "greedy_bytes", "msb_var_int"],
    "field": ["str", "int", "bytes", "list", "dict", "dataclasses", "class", "match "],
    "member": ["mro", "None", "_value_"],
    "attribute": ["value", "doc"],
}


def refused(path: Path) -> SpecError:
    with pytest.raises(SpecError) as info:
        render_spec(path)
    err = info.value
    assert err.file == path.name and err.line is not None, str(err)
    assert "\n" not in str(err) and "\r" not in str(err)
    return err


@pytest.mark.parametrize(
    ("kind", "name"),
    [(kind, name) for kind in RENAMES for name in BAD_NAMES]
    + [(kind.strip(), name) for kind, bad in MORE_BAD.items() for name in bad],
)
def test_bad_names_are_refused_with_file_and_line(kind, name, tmp_path):
    data = copy.deepcopy(BASE)
    RENAMES[kind](data, name)
    err = refused(write_spec(tmp_path, data))
    lines = (tmp_path / "hostile.yaml").read_text().splitlines()
    if name.isascii() and kind != "attribute":
        assert repr(name)[1:-1].split("\\n")[0] in lines[err.line - 1]


def test_builtins_and_soft_keywords_are_fine_field_names(tmp_path):
    """Every builtin the model class does not need can be a field: the module imports,
    parses, builds and round-trips its JSON form."""
    refused_names = names.MODEL_CLASS_BODY
    allowed = sorted(
        n
        for n in {*dir(builtins), "match", "case", "type", "this", "rt", "parse", "uuid", "model"}
        if names.problem("field", n) is None
    )
    assert len(allowed) > 60 and not refused_names & set(allowed)
    data = copy.deepcopy(BASE)
    data["records"]["message"]["fields"] = [
        {"name": n, "type": "u8", "doc": f"field {n}"} for n in allowed
    ]
    module, _ = render_and_import(write_spec(tmp_path, data), tmp_path, "hostile_builtins")
    message = bytes(range(len(allowed)))
    model = module.parse(message)
    assert [getattr(model, n) for n in allowed] == list(message)
    assert module.build(model) == message
    assert module.from_dict(module.to_dict(model)) == model
    assert module.parse_construct(message) == model


def test_reserved_names_cover_every_name_a_generated_module_defines():
    """Every top-level name of the generated modules that no spec name makes is one the
    name rules keep specs from taking (so the rules follow the template)."""
    for spec in sorted((ROOT / "specs").glob("*.yaml")):
        data = yaml.safe_load(spec.read_text())
        if "protocol" in data or "records" not in data:  # Thrift; enums only (no module)
            continue
        tree = ast.parse((ROOT / "generated" / f"{data['format']}.py").read_text())
        made = set()
        for record in data["records"]:
            made |= {record, camel(record)} | {record + s for s in names.RECORD_SUFFIXES}
        for enum, body in data.get("enums", {}).items():
            made.add(camel(enum))
            made |= {f"{enum.upper()}_{a.upper()}" for a in body.get("attributes", {})}
        for name in _top_level_names(tree):
            if name.startswith("_") or name in made:
                continue
            assert (
                names.problem("record", name.lower()) is not None
                or names.class_name_problem(name, name) is not None
                or name in names.MODULE_CONSTANTS
                or name.endswith(("_spark_type", "_to_row"))  # of a runtime type's rows
                or name == "Message"  # kafka_message specs refuse a Message class
            ), (spec.name, name)


def test_thrift_reserved_names_cover_every_name_a_generated_module_defines():
    """The same for the Thrift modules: no struct or enum may take a top-level name the
    template makes (a struct ``S`` makes ``S`` and ``S_codec``)."""
    from generator.spec.thrift import _name_problem

    for fmt in ("thrift_compact", "parquet"):
        data = yaml.safe_load((ROOT / "specs" / f"{fmt}.yaml").read_text())
        made = set(data.get("enums", {})) | set(data["structs"])
        made |= {f"{s}_codec" for s in data["structs"]}
        tree = ast.parse((ROOT / "generated" / f"{fmt}.py").read_text())
        for name in _top_level_names(tree):
            if not name.startswith("_") and name not in made:
                assert _name_problem("struct", name) is not None, (fmt, name)


# -- expressions ---------------------------------------------------------------------------

HOSTILE_EXPRESSIONS = [
    "[len(n) for len in [size]][0]",
    "[n for n in [size] for n in [1]][0]",
    "[size for size in [1]][0]",
    "[this for this in [1]][0]",
    "[rt for rt in [1]][0]",
    "[k for kind in [1] for k in [kind]][0]",
    "[_x for _x in [1]][0]",
    "[x async for x in [1]][0]",
    "(lambda: 3)()",
    "(x := 3)",
    "size.__class__",
    "size.__class__.__mro__",
    "__import__('os').getpid()",
    "print(size)",
    "globals()",
    "'" + "a" * 65 + "'",  # text constants are short printable ASCII (a metadata key)
    "'\\n'",
    "b'abc'",
    "{1: 2}[1]",
    "{3}.pop()",
    "(x for x in [3])",
    "[*[3]][0]",
    "size[1:2]",
    "len",
    "nope",
    "size if 1 else exec",
    "max(size, key=len)",
]


@pytest.mark.parametrize("expression", HOSTILE_EXPRESSIONS)
def test_expressions_bind_nothing_the_spec_did_not_define(expression, tmp_path):
    data = copy.deepcopy(BASE)
    data["records"]["message"]["fields"][2]["size"] = expression
    err = refused(write_spec(tmp_path, data))
    assert err.key == "records.message.fields[2].size"


def test_a_field_named_like_an_expression_function_cannot_be_read(tmp_path):
    data = copy.deepcopy(BASE)
    data["records"]["message"]["fields"][1]["name"] = "len"
    data["records"]["message"]["fields"][2]["size"] = "len"
    assert "named like a function" in str(refused(write_spec(tmp_path, data)))


# -- other spec values that reach code -----------------------------------------------------


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (lambda f: f.update(type="str", encoding=f'utf8"); {PAYLOAD}; ("'), "encoding"),
        (lambda f: f.update(type="str", encoding="no-such-codec"), "encoding"),
        (lambda f: f.update(min_count=1.0, repeat="eos"), "min_count"),
        (lambda f: f.update(size=3.0), "size"),
    ],
)
def test_values_that_reach_code_are_checked(edit, key, tmp_path):
    data = copy.deepcopy(BASE)
    edit(data["records"]["message"]["fields"][2])
    err = refused(write_spec(tmp_path, data))
    assert key in err.key or key in err.message


@pytest.mark.parametrize("default", [".nan", ".inf", "2020-01-02", "!!binary aGk=", "[1, .nan]"])
def test_defaults_are_plain_values(default, tmp_path):
    text = (ROOT / "specs" / "mysql_serialization.yaml").read_text()
    old = "        default: 0\n"
    assert old in text
    path = tmp_path / "mysql_serialization.yaml"
    path.write_text(text.replace(old, f"        default: {default}\n", 1))
    if default.startswith("!!binary"):
        build_model(load(path, path.name))  # bytes are a plain value
        return
    assert "default" in refused(path).key


def test_checksum_members_are_fields_of_the_element_record(tmp_path):
    text = (ROOT / "specs" / "plainbuffer.yaml").read_text()
    old = "{each: primary_key, member: checksum, as: u8}"
    assert old in text
    path = tmp_path / "plainbuffer.yaml"
    hostile = f"x for x in [{PAYLOAD}]] + [x"
    path.write_text(text.replace(old, f"{{each: primary_key, member: {hostile!r}, as: u8}}"))
    assert refused(path).key.endswith(".member")


# -- self-reference ------------------------------------------------------------------------


def test_a_record_that_contains_itself_is_bounded_by_max_depth(tmp_path):
    data = copy.deepcopy(BASE)
    data["records"]["message"]["fields"].append({"name": "inner", "type": "message", "doc": "me"})
    module, _ = render_and_import(write_spec(tmp_path, data), tmp_path, "hostile_self")
    for parse in (module.parse, module.parse_construct):  # every message holds one: too deep
        with pytest.raises(DecodeError) as err:
            parse(b"\x01\x00" * 100)
        assert "max_depth" in str(err.value) and err.value.offset == 128


def test_a_cycle_of_records_generates_and_reads(tmp_path):
    data = copy.deepcopy(BASE)
    data["records"]["message"]["fields"].append({"name": "a", "type": "first", "doc": "a"})
    data["records"]["first"] = {
        "doc": "first",
        "fields": [{"name": "b", "type": "second", "doc": "b"}],
    }
    data["records"]["second"] = {
        "doc": "second",
        "fields": [
            {"name": "kind", "type": "u8", "enum": "kind", "doc": "k"},
            {"name": "c", "switch_on": "kind", "cases": {"A": "first", "B": "empty"}, "doc": "c"},
        ],
    }
    module, _ = render_and_import(write_spec(tmp_path, data), tmp_path, "hostile_cycle")
    data = b"\x01\x00" + b"\x01" * 3 + b"\x02"  # first -> second(A) -> ... -> second(B)
    model = module.parse(data)
    assert model == module.parse_construct(data)
    assert module.build(model) == module.build_construct(model) == data


# -- YAML ----------------------------------------------------------------------------------

YAML_TAGS = [
    'title: !!python/object/apply:builtins.print ["ran"]',
    "title: !!python/name:builtins.print",
    "title: !!python/object:builtins.object {}",
    "? !!python/tuple [a, b]\n: 1",
    "title: !custom x",
]


@pytest.mark.parametrize("line", YAML_TAGS)
def test_yaml_python_tags_are_refused(line, tmp_path):
    text = yaml.safe_dump(BASE, sort_keys=False).replace("title: Hostile", line)
    assert line in text
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    err = refused(path)
    assert err.line == text.splitlines().index(line.splitlines()[0]) + 1


# -- Thrift specs --------------------------------------------------------------------------


def thrift_spec(tmp_path: Path, text: str, field_name: str = "name", struct: str = "User"):
    spec = {
        "format": "hostile_thrift",
        "protocol": "thrift_compact",
        "title": text,
        "doc": text,
        "enums": {
            "Status": {"doc": text, "type": "i32", "values": {"ON": {"value": 1, "doc": text}}}
        },
        "structs": {
            struct: {
                "doc": text,
                "fields": [
                    {"id": 1, "name": field_name, "type": "string", "doc": text},
                    {"id": 2, "name": "Status", "type": "i32", "default": 7},
                    {"id": 3, "name": "status", "type": "Status", "default": "ON"},
                    {"id": 4, "name": "ratio", "type": "double", "default": float("nan")},
                    {
                        "id": 5,
                        "name": "key",
                        "type": "uuid",
                        "default": "12345678-1234-5678-1234-567812345678",
                    },
                ],
            }
        },
    }
    return write_spec(tmp_path, spec, name="hostile_thrift.yaml")


@pytest.mark.parametrize("index", [0, 3, 9, 13])
def test_thrift_docs_and_field_names_stay_text(index, tmp_path):
    module = import_spec(thrift_spec(tmp_path, HOSTILE_TEXTS[index], field_name="str"))
    assert not hasattr(builtins, MARK)
    user = module.User(str="x")
    assert user.Status == 7 and user.status == module.Status.ON and user.ratio != user.ratio
    data = module.build(user, "User")
    assert module.parse(data, "User").str == "x"


@pytest.mark.parametrize(
    ("field_name", "struct"),
    [("a\nb", "User"), ("x\n", "User"), ("name", "parse"), ("name", "rt"), ("name", "User\n")],
)
def test_bad_thrift_names_are_refused(field_name, struct, tmp_path):
    with pytest.raises(SpecError) as info:
        import_spec(thrift_spec(tmp_path, "doc", field_name=field_name, struct=struct))
    assert info.value.line is not None and "\n" not in str(info.value)


@pytest.mark.parametrize("field_name", ["class", "_dc", "list", "type", "self"])
def test_thrift_field_names_from_real_idls_are_mangled_not_refused(field_name, tmp_path):
    module = import_spec(thrift_spec(tmp_path, "doc", field_name=field_name))
    attr = field_name + "_" if field_name in ("class", "_dc") else field_name
    user = module.User(**{attr: "x"})
    assert module.to_dict(module.parse(module.build(user, "User"), "User"))[field_name] == "x"


def test_a_hostile_protocol_spec_next_to_a_thrift_spec_is_refused(tmp_path):
    proto = yaml.safe_load((ROOT / "specs" / "thrift_compact.yaml").read_text())
    proto["wire"]["envelope"]["version"] = f"1; {PAYLOAD}"
    write_spec(tmp_path, proto, name="thrift_compact.yaml")
    with pytest.raises(SpecError) as info:
        import_spec(thrift_spec(tmp_path, "doc"))
    assert "wire.envelope.version" in str(info.value) and info.value.line is not None


# -- the CLI -------------------------------------------------------------------------------


def one_line_error(capsys, argv) -> str:
    assert main(argv) == 1
    out = capsys.readouterr()
    assert out.err.startswith("wirespec: ") and out.err.count("\n") == 1, out.err
    return out.err


def test_generate_and_docs_report_a_hostile_spec_in_one_line(tmp_path, capsys):
    specs, out = tmp_path / "specs", tmp_path / "out"
    specs.mkdir()
    out.mkdir()
    data = copy.deepcopy(BASE)
    _rename_record(data, "a\nimport os")
    write_spec(specs, data, name=f"bad\n{PAYLOAD}.yaml")
    for verb in ("generate", "docs"):
        err = one_line_error(capsys, [verb, "--specs", str(specs), "--out", str(out)])
        assert "records['a\\nimport os']" in err
    assert not list(out.iterdir())


def test_generate_into_a_missing_folder_is_one_line(tmp_path, capsys):
    specs = tmp_path / "specs"
    specs.mkdir()
    write_spec(specs, BASE)
    missing = tmp_path / "no" / "such" / "folder"
    err = one_line_error(capsys, ["generate", "--specs", str(specs), "--out", str(missing)])
    assert "No such file or directory" in err and str(missing) in err


def test_unreadable_and_missing_specs_are_one_line(tmp_path, capsys):
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "binary.yaml").write_bytes(b"format: x\n\xff\xfe")
    err = one_line_error(capsys, ["generate", "--specs", str(specs), "--out", str(tmp_path)])
    assert "binary.yaml" in err and "UTF-8" in err
    err = one_line_error(capsys, ["generate", "--specs", str(tmp_path / "none"), "--out", "x"])
    assert "none" in err


def test_generate_command_exits_non_zero_without_a_traceback(tmp_path):
    specs = tmp_path / "specs"
    specs.mkdir()
    data = with_every_doc("doc")
    data["records"]["message"]["fields"][2]["size"] = "[len(n) for len in [size]][0]"
    write_spec(specs, data)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            "generate",
            "--specs",
            str(specs),
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    named = f"wirespec: {specs / 'hostile.yaml'}:"  # as given to --specs
    assert result.stderr.startswith(named) and result.stderr.count("\n") == 1
    assert not list(tmp_path.glob("*.py"))


@pytest.mark.parametrize(
    "expression",
    ["1 << size", "2 ** size", "len([size] * size)"],
)
def test_data_never_makes_an_expression_grow_without_bound(expression, tmp_path):
    """A size computed from the data by ``<<``, ``**`` or ``*`` is bounded: a shift or
    power of 2 billion, or a list repeated 2 billion times, would take gigabytes; it is a
    DecodeError at the field on both paths."""
    data = copy.deepcopy(BASE)
    fields = data["records"]["message"]["fields"]
    fields[1] = {"name": "size", "type": "u32", "doc": "an exponent"}
    fields[2] = {"name": "payload", "type": "bytes", "size": expression, "doc": "the payload"}
    module, _ = render_and_import(write_spec(tmp_path, data), tmp_path, "bounded_expressions")
    huge = b"\x01" + (1 << 32 - 1).to_bytes(4, "little")
    for parse in (module.parse, module.parse_construct):
        with pytest.raises(DecodeError, match="too large|multiplies numbers"):
            parse(huge)
    if "[" not in expression:
        assert module.parse(b"\x01\x00\x00\x00\x00" + b"x")["payload"] == b"x"


def _top_level_names(tree):
    """The names a module's top level defines: functions, classes, imports, assignments."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from ((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign):
            yield from (n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name))
