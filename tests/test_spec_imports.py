"""``imports:`` between specs (generator/spec/imports.py): qualified enum names, ``extends:``,
the shared MySQL and TiCDC code tables, and every way an import is refused."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from generator.emit.user_spec import import_spec
from generator.spec.loader import load
from generator.spec.thrift import build_thrift_model
from generator.spec.validate import build_model
from runtime.core.errors import SpecError

ROOT = Path(__file__).resolve().parent.parent

COLORS = """\
format: colors
doc: Shared codes.
enums:
  color:
    doc: A color.
    type: u8
    values:
      RED: {value: 1, doc: "red"}
      GREEN: {value: 2, doc: "green"}
      BLUE: {value: 3, doc: "blue"}
"""

PAINT = """\
format: paint
doc: Uses the shared colors.
default_record: pot
imports: [colors]
enums:
  primary:
    doc: The colors a pot may hold, with how bright each is.
    extends: colors.color
    attributes:
      bright: {doc: "how bright", values: [vivid, dull]}
    values:
      RED: {bright: vivid, doc: "as in a stop sign"}
      BLUE: {bright: dull}
records:
  pot:
    doc: One pot.
    fields:
      - {name: shade, type: u8, enum: colors.color, doc: "any shared color"}
      - {name: main, type: u8, enum: primary, doc: "its main color"}
      - {name: extra, type: u8, if: "shade == colors.color.GREEN", doc: "only for green"}
"""


def _write(folder: Path, **specs: str) -> None:
    for name, text in specs.items():
        (folder / f"{name}.yaml").write_text(textwrap.dedent(text))


def _model(folder: Path, name: str):
    return build_model(load(folder / f"{name}.yaml", f"specs/{name}.yaml"))


def _error(folder: Path, name: str) -> SpecError:
    with pytest.raises(SpecError) as err:
        _model(folder, name)
    return err.value


def test_a_qualified_enum_and_an_extended_one_make_ordinary_enums(tmp_path):
    _write(tmp_path, colors=COLORS, paint=PAINT)
    spec = _model(tmp_path, "paint")
    assert spec.imports == ["colors"]
    primary = spec.enums["primary"]
    assert primary.origin == "colors.color"
    assert [(v.name, v.value, v.attributes) for v in primary.values] == [
        ("RED", 1, {"bright": "vivid"}),
        ("BLUE", 3, {"bright": "dull"}),
    ]
    assert primary.values[0].doc == "red; as in a stop sign"  # the shared doc, then its own
    assert spec.enums["colors_color"].origin == "colors.color"
    assert _model(tmp_path, "colors").is_library


def test_a_module_with_imported_enums_parses_builds_and_names_members(tmp_path):
    _write(tmp_path, colors=COLORS, paint=PAINT)
    module = import_spec(tmp_path / "paint.yaml")
    green = module.parse(bytes([2, 3, 9]))
    assert green.extra == 9 and module.build(green) == bytes([2, 3, 9])
    red = module.parse(bytes([1, 1]))
    assert red.extra is None
    assert module.to_dict(red) == {"shade": "RED", "main": "RED", "extra": None}
    assert module.PRIMARY_BRIGHT == {1: "vivid", 3: "dull"}
    assert module.ColorsColor.BLUE == 3


def test_a_library_spec_has_no_module(tmp_path):
    _write(tmp_path, colors=COLORS)
    with pytest.raises(SpecError, match="only declares enums"):
        import_spec(tmp_path / "colors.yaml")


def test_craft_and_open_protocol_take_mysql_and_ticdc_codes_from_the_shared_specs():
    shared = build_model(load(ROOT / "specs/mysql_types.yaml", "specs/mysql_types.yaml"))
    codes = {v.name: v.value for v in shared.enums["column_type"].values}
    for fmt, left_out in (("ticdc_craft", set()), ("ticdc_open_protocol", {"DECIMAL"})):
        spec = build_model(load(ROOT / f"specs/{fmt}.yaml", f"specs/{fmt}.yaml"))
        column_type = spec.enums["column_type"]
        assert column_type.origin == "mysql_types.column_type"
        assert {v.name: v.value for v in column_type.values} == {
            k: v for k, v in codes.items() if k not in left_out
        }
        assert spec.enums["column_flag"].origin == "ticdc_types.column_flag"
        assert spec.enums["column_flag"].flags
        assert len(spec.enums["ddl_type"].values) == 36


def _assert_error(err: SpecError, file: str, key: str, message: str) -> None:
    assert err.file == file and err.key == key and err.line is not None, str(err)
    assert message in err.message, str(err)
    assert str(err).startswith(f"{file}:{err.line}: {key}: ")


def test_a_missing_import(tmp_path):
    _write(tmp_path, paint=PAINT)
    _assert_error(_error(tmp_path, "paint"), "specs/paint.yaml", "imports[0]", "no spec 'colors'")


def test_a_cycle_of_imports(tmp_path):
    a = "format: a\ndoc: A.\nimports: [b]\nenums: {e: {doc: E., extends: b.e}}\n"
    b = "format: b\ndoc: B.\nimports: [a]\nenums: {e: {doc: E., extends: a.e}}\n"
    _write(tmp_path, a=a, b=b)
    err = _error(tmp_path, "a")
    _assert_error(err, "specs/b.yaml", "imports[0]", "import cycle: a -> b -> a")
    _write(tmp_path, a=a.replace("[b]", "[a]"))
    _assert_error(_error(tmp_path, "a"), "specs/a.yaml", "imports[0]", "import cycle: a -> a")


def test_an_unknown_qualified_name(tmp_path):
    _write(
        tmp_path, colors=COLORS, paint=PAINT.replace("enum: colors.color", "enum: colors.colour")
    )
    err = _error(tmp_path, "paint")
    _assert_error(
        err, "specs/paint.yaml", "records.pot.fields[0].enum", "colors has no enum 'colour' (color)"
    )
    _write(tmp_path, paint=PAINT.replace("extends: colors.color", "extends: colors.hue"))
    _assert_error(
        _error(tmp_path, "paint"), "specs/paint.yaml", "enums.primary.extends", "no enum 'hue'"
    )


@pytest.mark.parametrize(
    "change, key, message",
    [
        (("  primary:\n", "  colors:\n"), "imports[0]", "'colors' is also a record or enum"),
        (("  primary:\n", "  colors_color:\n"), "records.pot.fields[0].enum", "already defines"),
        (("imports: [colors]", "imports: [colors, colors]"), "imports[1]", "imported twice"),
        (("      BLUE: {bright: dull}", "      PINK: {bright: dull}"), "enums.primary.values.PINK",
         "colors.color has no member 'PINK'"),
        (("      BLUE: {bright: dull}", "      BLUE: {bright: dull, value: 7}"),
         "enums.primary.values.BLUE.value", "the code comes from colors.color"),
        (("    extends: colors.color\n", "    extends: colors.color\n    type: u16\n"),
         "enums.primary.type", "type comes from colors.color"),
    ],
)  # fmt: skip
def test_clashes_and_bad_extensions(tmp_path, change, key, message):
    _write(tmp_path, colors=COLORS, paint=PAINT.replace(*change))
    _assert_error(_error(tmp_path, "paint"), "specs/paint.yaml", key, message)


def test_an_imported_spec_that_says_another_format(tmp_path):
    _write(tmp_path, colors=COLORS.replace("format: colors", "format: hues"), paint=PAINT)
    _assert_error(_error(tmp_path, "paint"), "specs/paint.yaml", "imports[0]", "format: 'hues'")


def test_an_error_in_an_imported_spec_names_that_spec(tmp_path):
    _write(tmp_path, colors=COLORS.replace("value: 3", "value: 2"), paint=PAINT)
    err = _error(tmp_path, "paint")
    assert err.file == "specs/colors.yaml" and "clashes with 'GREEN'" in err.message


@pytest.mark.parametrize(
    "name",
    [
        os.path.join(os.pardir, "colors"),
        os.sep.join(["", "tmp", "colors"]),
        "colors.yaml",
        "Colors",
    ],
)
def test_an_import_is_a_spec_name_never_a_path(tmp_path, name):
    _write(
        tmp_path, colors=COLORS, paint=PAINT.replace("imports: [colors]", f"imports: ['{name}']")
    )
    err = _error(tmp_path, "paint")
    assert err.key == "imports[0]" and "is not a name: lower-case" in err.message, str(err)
    assert ("did you mean 'colors'" in err.message) == (name == "Colors"), str(err)


def test_an_import_never_follows_a_symlink_out_of_the_spec_folder(tmp_path):
    outside, specs = tmp_path / "outside", tmp_path / "specs"
    outside.mkdir()
    specs.mkdir()
    _write(outside, colors=COLORS)
    _write(specs, paint=PAINT)
    (specs / "colors.yaml").symlink_to(outside / "colors.yaml")
    err = _error(specs, "paint")
    _assert_error(err, "specs/paint.yaml", "imports[0]", "links outside the spec folder")
    (specs / "colors.yaml").unlink()
    (specs / "colors.yaml").symlink_to(outside)  # a folder is no spec either
    _assert_error(_error(specs, "paint"), "specs/paint.yaml", "imports[0]", "no spec 'colors'")


def test_a_spec_needs_records_or_enums(tmp_path):
    _write(tmp_path, empty="format: empty\ndoc: Nothing.\n")
    err = _error(tmp_path, "empty")
    assert "records (and a default_record), or enums" in err.message
    _write(tmp_path, half="format: half\ndoc: Half.\ndefault_record: x\n")
    with pytest.raises(SpecError, match="missing key 'records', which 'default_record' needs"):
        _model(tmp_path, "half")


def test_a_thrift_spec_imports_nothing(tmp_path):
    _write(tmp_path, colors=COLORS)
    (tmp_path / "rpc.yaml").write_text(
        "format: rpc\ndoc: RPC.\nprotocol: thrift_compact\nimports: [colors]\n"
        "structs: {ping: {doc: P., fields: []}}\n"
    )
    with pytest.raises(SpecError) as err:
        build_thrift_model(load(tmp_path / "rpc.yaml", "specs/rpc.yaml"))
    assert err.value.key == "imports" and "imports nothing" in err.value.message


def test_extends_without_imports(tmp_path):
    _write(tmp_path, paint=PAINT.replace("imports: [colors]\n", ""))
    err = _error(tmp_path, "paint")
    _assert_error(err, "specs/paint.yaml", "enums.primary.extends", "'colors' is not imported")


def test_two_qualified_names_that_would_make_one_local_name(tmp_path):
    a_b = COLORS.replace("format: colors", "format: a_b").replace("  color:", "  c:")
    a = COLORS.replace("format: colors", "format: a").replace("  color:", "  b_c:")
    user = (
        "format: user\ndoc: U.\ndefault_record: r\nimports: [a_b, a]\nrecords:\n  r:\n"
        "    doc: R.\n    fields:\n"
        "      - {name: x, type: u8, enum: a_b.c, doc: X.}\n"
        "      - {name: y, type: u8, enum: a.b_c, doc: Y.}\n"
    )
    _write(tmp_path, a_b=a_b, a=a, user=user)
    err = _error(tmp_path, "user")
    _assert_error(err, "specs/user.yaml", "records.r.fields[1].enum", "would both be the local")
