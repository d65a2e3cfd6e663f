"""``wirespec diff``: the field paths whose decoded values differ, not the bytes."""

from __future__ import annotations

import copy

import pytest

from generated import plainbuffer as pb
from generator.cli.diff import ABSENT, differences
from generator.cli.main import main

BASE = {
    "rows": [
        {
            "primary_key": [{"name": "id", "value": {"type": "INTEGER", "value": 1}}],
            "attributes": [
                {"name": "status", "value": {"type": "STRING", "value": "PAID"}, "timestamp": 5},
                {"name": "amount", "value": {"type": "DOUBLE", "value": 1.5}},
            ],
            "delete_marker": False,
        }
    ]
}


def _write(tmp_path, name, form) -> str:
    path = tmp_path / name
    path.write_bytes(pb.build(pb.from_dict(form)))
    return str(path)


def test_one_nested_field_differs(tmp_path, capsys):
    changed = copy.deepcopy(BASE)
    changed["rows"][0]["attributes"][0]["value"]["value"] = "SHIPPED"
    a, b = _write(tmp_path, "a.bin", BASE), _write(tmp_path, "b.bin", changed)
    # The bytes differ in many places (lengths, both checksums), the values in one.
    assert main(["diff", "plainbuffer", a, b]) == 1
    assert capsys.readouterr().out == 'rows[0].attributes[0].value.value: "PAID" -> "SHIPPED"\n'


def test_equal_messages(tmp_path, capsys):
    a, b = _write(tmp_path, "a.bin", BASE), _write(tmp_path, "b.bin", BASE)
    assert main(["diff", "plainbuffer", a, b]) == 0
    assert capsys.readouterr().out == "no differences\n"


def test_type_change_and_added_element(tmp_path, capsys):
    changed = copy.deepcopy(BASE)
    changed["rows"][0]["attributes"][1]["value"] = {"type": "INTEGER", "value": 2}
    changed["rows"][0]["primary_key"].append(
        {"name": "k2", "value": {"type": "BOOLEAN", "value": True}}
    )
    a, b = _write(tmp_path, "a.bin", BASE), _write(tmp_path, "b.bin", changed)
    assert main(["diff", "plainbuffer", a, b]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        (
            'rows[0].primary_key[1]: <absent> -> {"checksum": null, "name": "k2", "op": null, '
            '"timestamp": null, "value": {"type": "BOOLEAN", "value": true}}'
        ),
        'rows[0].attributes[1].value.type: "DOUBLE" -> "INTEGER"',
        "rows[0].attributes[1].value.value: 1.5 -> 2",
    ]


def test_all_compares_checksums_too(tmp_path, capsys):
    changed = copy.deepcopy(BASE)
    changed["rows"][0]["primary_key"][0]["name"] = "ID"
    a, b = _write(tmp_path, "a.bin", BASE), _write(tmp_path, "b.bin", changed)
    assert main(["diff", "plainbuffer", a, b, "--all"]) == 1
    paths = [line.split(":")[0] for line in capsys.readouterr().out.splitlines()]
    assert paths == [
        "rows[0].primary_key[0].name",
        "rows[0].primary_key[0].checksum",
        "rows[0].checksum",
    ]


def test_undecodable_message_exits_2(tmp_path, capsys):
    a = _write(tmp_path, "a.bin", BASE)
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"\x75\x00\x00\x00\x01\x03\x05")
    assert main(["diff", "plainbuffer", a, str(bad)]) == 2
    err = capsys.readouterr().err
    assert "offset 6" in err and "rows[0].primary_key[0]" in err


@pytest.mark.parametrize(
    "a,b,expected",
    [
        ({"x": {"$hex": "00"}}, {"x": {"$hex": "01"}}, [("x", {"$hex": "00"}, {"$hex": "01"})]),
        ({"x": 1}, {"x": 1.0}, [("x", 1, 1.0)]),
        ({"x": [1, 2]}, {"x": [1]}, [("x[1]", 2, ABSENT)]),
        ({"x": None}, {"x": {"y": 1}}, [("x", None, {"y": 1})]),
    ],
)
def test_differences(a, b, expected):
    assert differences(a, b) == expected


def test_a_changed_uuid_is_one_line_of_uuid_text(tmp_path, capsys):
    from pathlib import Path

    from generated import mysql_serialization as ms

    sample = Path(__file__).resolve().parent.parent / "samples/mysql_serialization"
    data = (sample / "gtid_tagged_local.bin").read_bytes()
    model = ms.parse(data)
    model.body.uuid[1] ^= 1
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(data)
    b.write_bytes(ms.build(model))
    assert main(["diff", "mysql_serialization", str(a), str(b)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        'body.uuid: "896e7882-18fe-11ef-ab88-22222d34d411" -> "896f7882-18fe-11ef-ab88-22222d34d411"'
    ]


def test_a_changed_text_column_shows_its_text(tmp_path, capsys):
    from generated import ticdc_craft as craft
    from generated.models.ticdc_types import Column, RowChangedEvent

    def message(status: bytes) -> bytes:
        ev = RowChangedEvent(1 << 18, "s", "t", new=[Column("status", 15, 0, status)])
        return craft.build(craft.Message(events=[ev]))

    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(message(b"NEW"))
    b.write_bytes(message("已发货".encode()))
    assert main(["diff", "ticdc_craft", str(a), str(b)]) == 1
    assert capsys.readouterr().out.splitlines() == ['events[0].new[0].value: "NEW" -> "已发货"']
