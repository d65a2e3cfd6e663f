"""Tablestore PlainBuffer for the tests: a small reference encoder written from
research/plainbuffer.md ("Layout" and "CRC8"; it shares no code with the runtime), model
builders, and the note's seed row with the byte span of each of its pieces."""

import struct

from construct import Container

from generated.plainbuffer import CellOp, ValueType

I64_MIN, I64_MAX = -(2**63), 2**63 - 1

# -- the reference encoder (research/plainbuffer.md, "Layout" and "CRC8") ---------------------


def ref_crc8(data: bytes) -> int:
    """CRC-8, polynomial 0x07, MSB first, init 0, no reflection, no final xor; bit by bit."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def ref_payload(vtype: int, value) -> bytes:
    if vtype == ValueType.INTEGER:
        return struct.pack("<q", value)
    if vtype == ValueType.DOUBLE:
        return struct.pack("<d", value)
    if vtype == ValueType.BOOLEAN:
        return bytes((1 if value else 0,))
    if vtype in (ValueType.STRING, ValueType.BLOB):
        data = value.encode("utf-8") if vtype == ValueType.STRING else value
        return struct.pack("<i", len(data)) + data
    return b""  # NULL, INF_MIN, INF_MAX, AUTO_INCREMENT


def ref_cell(name: str, vtype=None, value=None, op=None, ts=None) -> tuple[bytes, int]:
    """One cell's bytes and its checksum: wire order name/value/op/ts, CRC order
    name/value/ts/op."""
    raw_name = name.encode("utf-8")
    wire = b"\x03\x04" + struct.pack("<i", len(raw_name)) + raw_name
    covered = raw_name
    if vtype is not None:
        typed = bytes((vtype,)) + ref_payload(vtype, value)
        wire += b"\x05" + struct.pack("<i", len(typed)) + typed
        covered += typed
    if op is not None:
        wire += bytes((0x06, op))
    if ts is not None:
        wire += b"\x07" + struct.pack("<q", ts)
        covered += struct.pack("<q", ts)
    if op is not None:
        covered += bytes((op,))
    crc = ref_crc8(covered)
    return wire + bytes((0x0A, crc)), crc


def ref_row(pk: list, attrs: list = (), deleted: bool = False) -> bytes:
    """A row from ``ref_cell`` argument tuples."""
    pk_cells = [ref_cell(*c) for c in pk]
    attr_cells = [ref_cell(*c) for c in attrs]
    out = b"\x01" + b"".join(b for b, _ in pk_cells)
    if attr_cells:
        out += b"\x02" + b"".join(b for b, _ in attr_cells)
    if deleted:
        out += b"\x08"
    crcs = bytes(c for _, c in pk_cells + attr_cells) + (b"\x01" if deleted else b"\x00")
    return out + bytes((0x09, ref_crc8(crcs)))


HEADER = b"\x75\x00\x00\x00"

# -- models ----------------------------------------------------------------------------------


def cell(name, vtype=None, value=None, op=None, ts=None):
    return Container(
        name=name,
        value=None if vtype is None else Container(type=ValueType(vtype), value=value),
        op=None if op is None else CellOp(op),
        timestamp=ts,
    )


def row(pk, attrs=(), deleted=False):
    return Container(
        primary_key=[cell(*c) for c in pk],
        # an absent attribute section is None, as parse returns it
        attributes=[cell(*c) for c in attrs] or None,
        delete_marker=deleted,
    )


def message(*rows):
    return Container(rows=list(rows))


def value_key(vtype, value):
    """A comparable form of a typed value: floats by bit pattern (NaN payloads, -0.0)."""
    if isinstance(value, float):
        return (vtype, struct.pack("<d", value))
    return (vtype, type(value).__name__, value)


def view(model):
    """Rows as plain tuples, for comparing decoded models with what was built."""

    def cell_view(c):
        v = None if c.value is None else value_key(int(c.value.type), c.value.value)
        return (c.name, v, None if c.op is None else int(c.op), c.timestamp)

    return [
        (
            [cell_view(c) for c in r.primary_key],
            [cell_view(c) for c in r.attributes or ()],
            bool(r.delete_marker),
        )
        for r in model.rows
    ]


# -- the seed example row (research/plainbuffer.md, "Seed example, built with the SDK") -------

# (path, kind, hex) exactly as the research note prints the row, one cell per group.
SEED_PIECES = [
    ("header", "header", "75000000"),
    ("rows[0]", "pk_tag", "01"),
]
_SEED_CELLS = [
    ("primary_key[0]", ["04 03000000 706b31", "05 0a000000 03 05000000 69616d706b"], "0a 98"),
    ("primary_key[1]", ["04 03000000 706b32", "05 09000000 00 6400000000000000"], "0a 05"),
    None,  # 02
    (
        "attributes[0]",
        ["04 07000000 636f6c756d6e31", "05 08000000 03 03000000 626164", "07 e903000000000000"],
        "0a 30",
    ),
    (
        "attributes[1]",
        ["04 07000000 636f6c756d6e32", "05 09000000 00 8000000000000000", "07 ea03000000000000"],
        "0a 69",
    ),
    (
        "attributes[2]",
        ["04 07000000 636f6c756d6e33", "05 09000000 01 9a99999999194140", "07 eb03000000000000"],
        "0a cf",
    ),
    ("attributes[3]", ["04 07000000 636f6c756d6e34", "06 01"], "0a a7"),
]
_FIELD_BY_TAG = {"04": "name", "05": "value", "06": "op", "07": "timestamp"}
for _c in _SEED_CELLS:
    if _c is None:
        SEED_PIECES.append(("rows[0]", "attr_tag", "02"))
        continue
    _where, _fields, _crc = _c
    SEED_PIECES.append((f"rows[0].{_where}", "cell_tag", "03"))
    for _f in _fields:
        SEED_PIECES.append((f"rows[0].{_where}.{_FIELD_BY_TAG[_f[:2]]}", "field", _f))
    SEED_PIECES.append((f"rows[0].{_where}.checksum", "cell_checksum", _crc))
SEED_PIECES.append(("rows[0].checksum", "row_checksum", "09 22"))

SEED = bytes.fromhex("".join(h for _, _, h in SEED_PIECES).replace(" ", ""))

# Byte spans of the pieces: (path, kind, start, end).
SPANS = []
_pos = 0
for _path, _kind, _hex in SEED_PIECES:
    _n = len(bytes.fromhex(_hex.replace(" ", "")))
    SPANS.append((_path, _kind, _pos, _pos + _n))
    _pos += _n

SEED_CELL_CHECKSUMS = [0x98, 0x05, 0x30, 0x69, 0xCF, 0xA7]
SEED_ROW_CHECKSUM = 0x22


def span(path):
    return next((s, e) for p, _, s, e in SPANS if p == path)
