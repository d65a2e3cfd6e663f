"""``wirespec inspect``: byte spans from the parse itself, the terminal dump, the HTML page.

The seed row is the PlainBuffer example of research/plainbuffer.md (built with the
tablestore SDK); its pieces below are written from that note, not from the codec.
"""

from __future__ import annotations

import itertools
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from generated import plainbuffer as pb
from generator.cli import inspect as insp
from generator.cli.main import main
from runtime.core.codec import to_jsonable, trace
from runtime.core.errors import WirespecError

ROOT = Path(__file__).resolve().parent.parent

# (path, role, hex, value) for every byte of the seed row, in order.
SEED_LEAVES = [
    ("header", "value", "75000000", 0x75),
    ("rows[0].primary_key", "tag", "01", 0x01),
    ("rows[0].primary_key[0]", "tag", "03", 0x03),
    ("rows[0].primary_key[0].name", "tag", "04", 0x04),
    ("rows[0].primary_key[0].name", "length", "03000000", 3),
    ("rows[0].primary_key[0].name", "value", "706b31", "pk1"),
    ("rows[0].primary_key[0].value", "tag", "05", 0x05),
    ("rows[0].primary_key[0].value", "length", "0a000000", 10),
    ("rows[0].primary_key[0].value.type", "value", "03", pb.ValueType.STRING),
    ("rows[0].primary_key[0].value.value", "length", "05000000", 5),
    ("rows[0].primary_key[0].value.value", "value", "69616d706b", "iampk"),
    ("rows[0].primary_key[0].checksum", "tag", "0a", 0x0A),
    ("rows[0].primary_key[0].checksum", "value", "98", 0x98),
    ("rows[0].primary_key[1]", "tag", "03", 0x03),
    ("rows[0].primary_key[1].name", "tag", "04", 0x04),
    ("rows[0].primary_key[1].name", "length", "03000000", 3),
    ("rows[0].primary_key[1].name", "value", "706b32", "pk2"),
    ("rows[0].primary_key[1].value", "tag", "05", 0x05),
    ("rows[0].primary_key[1].value", "length", "09000000", 9),
    ("rows[0].primary_key[1].value.type", "value", "00", pb.ValueType.INTEGER),
    ("rows[0].primary_key[1].value.value", "value", "6400000000000000", 100),
    ("rows[0].primary_key[1].checksum", "tag", "0a", 0x0A),
    ("rows[0].primary_key[1].checksum", "value", "05", 0x05),
    ("rows[0].attributes", "tag", "02", 0x02),
]


def _attribute(i, name, value_hex, value_leaves, tail, crc):
    p = f"rows[0].attributes[{i}]"
    out = [
        (p, "tag", "03", 0x03),
        (f"{p}.name", "tag", "04", 0x04),
        (f"{p}.name", "length", f"{len(name):02x}000000", len(name)),
        (f"{p}.name", "value", name.encode().hex(), name),
    ]
    if value_hex:
        out += [(f"{p}.value", "tag", "05", 0x05), (f"{p}.value", "length", value_hex, None)]
        out += [(f"{p}.value.{k}", role, h, v) for k, role, h, v in value_leaves]
    out += [(f"{p}.{k}", role, h, v) for k, role, h, v in tail]
    out += [(f"{p}.checksum", "tag", "0a", 0x0A), (f"{p}.checksum", "value", crc, int(crc, 16))]
    return out


SEED_LEAVES += _attribute(
    0,
    "column1",
    "08000000",
    [
        ("type", "value", "03", pb.ValueType.STRING),
        ("value", "length", "03000000", 3),
        ("value", "value", "626164", "bad"),
    ],
    [("timestamp", "tag", "07", 0x07), ("timestamp", "value", "e903000000000000", 1001)],
    "30",
)
SEED_LEAVES += _attribute(
    1,
    "column2",
    "09000000",
    [("type", "value", "00", pb.ValueType.INTEGER), ("value", "value", "8000000000000000", 128)],
    [("timestamp", "tag", "07", 0x07), ("timestamp", "value", "ea03000000000000", 1002)],
    "69",
)
SEED_LEAVES += _attribute(
    2,
    "column3",
    "09000000",
    [("type", "value", "01", pb.ValueType.DOUBLE), ("value", "value", "9a99999999194140", 34.2)],
    [("timestamp", "tag", "07", 0x07), ("timestamp", "value", "eb03000000000000", 1003)],
    "cf",
)
SEED_LEAVES += _attribute(
    3,
    "column4",
    "",
    [],
    [("op", "tag", "06", 0x06), ("op", "value", "01", pb.CellOp.DELETE_ALL_VERSION)],
    "a7",
)
SEED_LEAVES += [("rows[0].checksum", "tag", "09", 0x09), ("rows[0].checksum", "value", "22", 0x22)]
SEED = bytes.fromhex("".join(h for _, _, h, _ in SEED_LEAVES))


def _value_at(form, path: str):
    """The JSON-form value at ``rows[0].primary_key[1].name``."""
    node = form
    for name, index in re.findall(r"([A-Za-z_]\w*)|\[(\d+)\]", path):
        node = node[name] if name else node[int(index)]
    return node


def _messages():
    """Every value type, ops, a delete marker, several rows: built with the codec."""
    values = [
        {"type": "INTEGER", "value": -5},
        {"type": "DOUBLE", "value": -0.0},
        {"type": "BOOLEAN", "value": True},
        {"type": "STRING", "value": "naïve"},
        {"type": "BLOB", "value": {"$hex": "00ff10"}},
        {"type": "NULL"},
        {"type": "INF_MIN"},
        {"type": "INF_MAX"},
        {"type": "AUTO_INCREMENT"},
    ]
    rows = [
        {
            "primary_key": [{"name": "id", "value": v}],
            "attributes": [{"name": "v", "value": v, "timestamp": -1}],
            "delete_marker": False,
        }
        for v in values
    ]
    rows.append(
        {
            "primary_key": [],
            "attributes": [
                {"name": "a", "value": {"type": "INTEGER", "value": 1}, "op": "INCREMENT"},
                {"name": "b", "op": "DELETE_ONE_VERSION", "timestamp": 7},
            ],
            "delete_marker": True,
        }
    )
    return [pb.build(pb.from_dict({"rows": rows})), pb.build(pb.from_dict({"rows": rows[:1]}))]


# -- spans ------------------------------------------------------------------------------


def test_seed_spans_are_the_documented_pieces():
    result = trace(pb.RECORDS["message"], SEED)
    assert result.error is None
    got = [(s.path, s.role, SEED[s.start : s.end].hex()) for s in result.leaves()]
    assert got == [(p, r, h) for p, r, h, _ in SEED_LEAVES]
    for span, (_, _, _, value) in zip(result.leaves(), SEED_LEAVES):
        if value is not None:
            assert span.value == value and type(span.value) is type(value), span


@pytest.mark.parametrize("data", [SEED] + _messages(), ids=lambda d: f"{len(d)}B")
def test_spans_cover_every_byte_once_with_the_decoded_value(data):
    result = trace(pb.RECORDS["message"], data)
    assert result.error is None
    leaves = result.leaves()
    assert leaves[0].start == 0 and leaves[-1].end == len(data)
    for a, b in itertools.pairwise(leaves):
        assert a.end == b.start, (a, b)
    form = pb.to_dict(result.model)
    assert form == pb.to_dict(pb.parse(data))
    for span in leaves:
        raw = data[span.start : span.end]
        if span.role == "tag":
            assert raw == bytes([span.value])
        elif span.role == "length":
            assert struct.unpack("<i", raw)[0] == span.value
        else:
            assert pb.to_dict(span.value) == _value_at(form, span.path), span


def test_spans_do_not_change_the_model():
    for data in [SEED] + _messages():
        assert trace(pb.RECORDS["message"], data).model == pb.parse(data)


# -- failures ---------------------------------------------------------------------------

CORRUPTIONS = [
    # (what, change, failing path, its offset)
    ("cell checksum", lambda b: b[:30] + b"\x99" + b[31:], "rows[0].primary_key[0].checksum", 30),
    (
        "unknown value type",
        lambda b: b[:19] + b"\x0c" + b[20:],
        "rows[0].primary_key[0].value.type",
        19,
    ),
    ("cut in a name", lambda b: b[:35], "rows[0].primary_key[1].name", 33),
    ("bad header", lambda b: b"\x76" + b[1:], "header", 0),
]


@pytest.mark.parametrize("what,change,path,offset", CORRUPTIONS, ids=[c[0] for c in CORRUPTIONS])
def test_corrupt_message_names_path_and_offset(what, change, path, offset, tmp_path, capsys):
    bad = change(SEED)
    result = trace(pb.RECORDS["message"], bad)
    assert result.error is not None
    assert (result.error.path, result.error.offset) == (path, offset)
    # Everything before the failing field is still there, and nothing after it.
    leaves = result.leaves()
    assert all(s.end <= max(offset, 1) or not path.startswith(s.path) for s in leaves)
    assert [s.path for s in leaves[: len(leaves)]] == [p for p, *_ in SEED_LEAVES[: len(leaves)]]
    src = tmp_path / "bad.bin"
    src.write_bytes(bad)
    assert main(["inspect", "plainbuffer", str(src)]) == 1
    out = capsys.readouterr().out
    assert f"field:  {path}\n" in out and f"offset: {offset}\n" in out


def test_error_dump_shows_the_parsed_prefix_and_the_bytes_around():
    bad = SEED[:30] + b"\x99" + SEED[31:]
    text = insp.plain_text(trace(pb.RECORDS["message"], bad), fmt="plainbuffer", record="message")
    assert 'rows[0].primary_key[0].name = "pk1"' in text
    assert "rows[0].primary_key[1].name" not in text  # after the failure
    assert "checksum mismatch: stored 0x99, computed 0x98" in text
    assert "000010  00 00 00 03 05 00 00 00 69 61 6d 70 6b 0a 99 03" in text


# -- the command ------------------------------------------------------------------------


def _cli(args, stdin: bytes = b""):
    proc = subprocess.run(
        [sys.executable, "-m", "generator.cli.main", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    return subprocess.CompletedProcess(
        args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    )


def test_cli_dump_is_plain_when_piped(tmp_path):
    src = tmp_path / "seed.bin"
    src.write_bytes(SEED)
    out = _cli(["inspect", "plainbuffer", str(src)])
    assert out.returncode == 0, out.stderr
    assert "\x1b[" not in out.stdout
    lines = out.stdout.splitlines()
    assert any(re.match(r"^000000  75 00 00 00\s+header = 117 \(0x75\)$", line) for line in lines)
    assert any(
        line.startswith("00001e  98")
        and line.endswith("rows[0].primary_key[0].checksum = 152 (0x98)")
        for line in lines
    )
    assert any("rows[0].attributes[3].op = DELETE_ALL_VERSION (1)" in line for line in lines)


def test_cli_colour_in_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    src = tmp_path / "seed.bin"
    src.write_bytes(SEED)
    assert main(["inspect", "plainbuffer", str(src)]) == 0
    assert "\x1b[" in capsys.readouterr().out


# -- HTML -------------------------------------------------------------------------------


def _page(tmp_path, data) -> Path:
    src = tmp_path / "msg.bin"
    src.write_bytes(data)
    out = tmp_path / "msg.html"
    main(["inspect", "plainbuffer", str(src), "--html", str(out)])
    return out


def test_html_page_is_self_contained(tmp_path, capsys):
    text = _page(tmp_path, SEED).read_text()
    assert "<script src" not in text and "<link" not in text
    assert not re.search(r"(src|href)=\"https?:", text)
    assert text.count('class="b ') == len(SEED)
    assert '"path": "rows[0].attributes[3].op"' in text


def _png_pixels(path: Path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit non-interlaced PNG."""
    data = path.read_bytes()
    pos, chunks = 8, {}
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        chunks.setdefault(kind, []).append(data[pos + 8 : pos + 8 + n])
        pos += 12 + n
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"][0])
    assert depth == 8 and interlace == 0 and colour in (2, 6)
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks[b"IDAT"]))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb_, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (
                    line[i] + (a if pa <= pb_ and pa <= pc else b if pb_ <= pc else c)
                ) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def _count(rows, bpp, rgb, x_max=None) -> int:
    pattern = bytes(rgb)
    total = 0
    for line in rows:
        limit = len(line) if x_max is None else x_max * bpp
        total += sum(1 for i in range(0, limit, bpp) if line[i : i + 3] == pattern)
    return total


CHROMIUM = shutil.which("chromium")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_html_renders_and_highlights_in_headless_chromium(tmp_path, capsys):
    page = _page(tmp_path, SEED)
    profile = tmp_path / "profile"
    flags = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--window-size=900,500",
        "--hide-scrollbars",
    ]
    selected = page.as_uri() + "#select=" + "rows%5B0%5D.primary_key%5B1%5D"
    dom = subprocess.run(
        flags + ["--dump-dom", selected], check=False, capture_output=True, text=True, timeout=60
    )
    lit = sorted(int(m) for m in re.findall(r'class="b [^"]*\bhl\b[^"]*" id="b(\d+)"', dom.stdout))
    assert lit == list(range(31, 56))  # the 25 bytes of the second primary-key cell

    plain = subprocess.run(
        flags + ["--dump-dom", page.as_uri()],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert 'id="b0"' in plain.stdout and " hl" not in plain.stdout  # nothing lit by default

    shot = tmp_path / "selected.png"
    subprocess.run(
        flags + [f"--screenshot={shot}", selected], check=False, capture_output=True, timeout=60
    )
    assert shot.exists(), "chromium wrote no screenshot"
    width, _, bpp, rows = _png_pixels(shot)
    assert _count(rows[:30], bpp, (0x24, 0x32, 0x4A)) > width * 10  # the page rendered
    # The highlight sits on the hex view (the left side) and covers many pixels.
    assert _count(rows, bpp, (0xFF, 0x98, 0x00), x_max=width // 2) > 1500


# -- TiCDC Open Protocol: the key and the value frames ------------------------------------

# seed_log_01_ddl of tests/data/vectors/ticdc_open_protocol.json (a DDL event from the seed log)
OP_KEY = bytes.fromhex(
    "000000000000000100000000000000377b227473223a3431353530383835363930383032313736362c2273"
    "636d223a2274657374222c2274626c223a227431222c2274223a327d"
)
OP_VALUE = bytes.fromhex(
    "00000000000000477b2271223a22435245415445205441424c4520746573742e743128696420696e7420"
    "7072696d617279206b65792c2076616c20766172636861722831362929222c2274223a337d"
)
OP_VECTORS = ROOT / "tests" / "data" / "vectors" / "ticdc_open_protocol.json"


def _op_pairs():
    pairs = [("seed_log_01_ddl", OP_KEY, OP_VALUE)]
    if OP_VECTORS.exists():
        import json

        for v in json.loads(OP_VECTORS.read_text())["vectors"]:
            if isinstance(v.get("hex"), dict) and v["hex"].get("key") and v["hex"].get("value"):
                pairs.append(
                    (v["name"], bytes.fromhex(v["hex"]["key"]), bytes.fromhex(v["hex"]["value"]))
                )
    return pairs


def test_open_protocol_frames_cover_every_byte():
    op = pytest.importorskip("generated.ticdc_open_protocol")
    checked = 0
    for name, key, value in _op_pairs():
        try:
            op.parse_pair(key, value)
        except WirespecError:  # bad-input vectors are not for this test
            continue
        parts = insp.trace_kafka(op, key, value)
        assert [(c, r) for c, r, _ in parts] == [("key", "key_frames"), ("value", "value_frames")]
        for column, _, result in parts:
            data = key if column == "key" else value
            assert result.error is None, name
            leaves = result.leaves()
            assert leaves[0].start == 0 and leaves[-1].end == len(data), name
            for a, b in itertools.pairwise(leaves):
                assert a.end == b.start, (name, a, b)
            for span in leaves:
                raw = data[span.start : span.end]
                if span.path == "version":
                    assert (raw, span.value) == (b"\0" * 7 + b"\1", 1)
                elif span.role == "length":
                    assert re.fullmatch(r"events\[\d+\]", span.path)
                    assert int.from_bytes(raw, "big") == span.value
                else:  # a JSON member, its name, or the document's punctuation
                    assert span.path.startswith("events[") and f"].{column}" in span.path
        checked += 1
    assert checked >= 1


def test_open_protocol_cli_needs_the_key_and_dumps_both(tmp_path, capsys):
    pytest.importorskip("generated.ticdc_open_protocol")
    (tmp_path / "k").write_bytes(OP_KEY)
    (tmp_path / "v").write_bytes(OP_VALUE)
    assert main(["inspect", "ticdc_open_protocol", str(tmp_path / "v")]) != 0
    capsys.readouterr()
    assert (
        main(["inspect", "ticdc_open_protocol", str(tmp_path / "v"), "--key", str(tmp_path / "k")])
        == 0
    )
    out = capsys.readouterr().out
    assert "000000  00 00 00 00 00 00 00 01" in out and "version = 1" in out
    assert "events[0].key.ts = 415508856908021766" in out
    assert "events[0]  length 71" in out
    assert 'events[0].value.q = "CREATE TABLE' in out
    # A frame length that runs past the end is named with its offset.
    (tmp_path / "bad").write_bytes(OP_VALUE[:-1])
    assert (
        main(
            ["inspect", "ticdc_open_protocol", str(tmp_path / "bad"), "--key", str(tmp_path / "k")]
        )
        == 1
    )
    out = capsys.readouterr().out
    assert "field:  events[0].value\n" in out and "offset: 0\n" in out  # the length


# -- MySQL binlog GTID_TAGGED_LOG_EVENT: a mysql::serialization message in a binlog event ----

# gtid_tagged_event_seed_blog_full of tests/data/vectors/mysql_serialization.json
MYSQL_EVENT = bytes.fromhex(
    "b998b3672a0100000052000000f000000000000276000002022502dcf0090230f90322bd03ad02210244445a"
    "685103220404060c666f6f62617a08000a040c7f1583222d5c2e0610490312c3020bef396cce"
)


def test_mysql_event_spans_cover_every_byte_with_field_ids():
    ms = pytest.importorskip("generated.mysql_serialization")
    result = insp.trace(ms, MYSQL_EVENT, "gtid_tagged_event")
    assert result.error is None
    leaves = result.leaves()
    assert leaves[0].start == 0 and leaves[-1].end == len(MYSQL_EVENT)
    for a, b in itertools.pairwise(leaves):
        assert a.end == b.start, (a, b)
    form = to_jsonable(result.model)  # the model's values, without the readable views
    ids = []
    for span in leaves:
        raw = MYSQL_EVENT[span.start : span.end]
        if span.role == "field id":
            ids.append((span.path, span.value, raw.hex()))
        elif span.role == "value":
            assert to_jsonable(span.value) == _value_at(form, span.path), span
    # Field ids are msb-count varints: id n is the byte 2n (the low bit says "one byte").
    assert [(p, i) for p, i, _ in ids] == [
        ("body.gtid_flags", 0),
        ("body.uuid", 1),
        ("body.gno", 2),
        ("body.tag", 3),
        ("body.last_committed", 4),
        ("body.sequence_number", 5),
        ("body.immediate_commit_timestamp", 6),
        ("body.transaction_length", 8),
        ("body.immediate_server_version", 9),
    ]
    assert all(h == f"{2 * i:02x}" for _, i, h in ids)
    by_path = {s.path: (s.start, s.end) for s in leaves if s.role == "value"}
    assert by_path["body.tag"] == (0x34, 0x3A)  # "foobaz"
    assert by_path["body.serializable_field_size"] == (0x14, 0x15)
    assert by_path["crc32"] == (78, 82)


def test_mysql_corrupt_event_names_path_and_offset():
    ms = pytest.importorskip("generated.mysql_serialization")
    bad = MYSQL_EVENT[:0x34] + b"\xff" + MYSQL_EVENT[0x35:]  # "foobaz" -> "\xffoobaz"
    result = insp.trace(ms, bad, "gtid_tagged_event")
    assert (result.error.path, result.error.offset) == ("body.tag", 0x33)
    assert [s.path for s in result.leaves()][-1] == "body.tag"  # its field id and length
    bad = MYSQL_EVENT[:0x3A] + b"\x04" + MYSQL_EVENT[0x3B:]  # field id 4 -> 2 again
    result = insp.trace(ms, bad, "gtid_tagged_event")
    assert (result.error.path, result.error.offset) == ("body", 0x3A)
    assert "expected field id 4, found 2" in result.error.message
    crc = insp.trace(ms, MYSQL_EVENT[:-1] + b"\x00", "gtid_tagged_event")
    assert (crc.error.path, crc.error.offset) == ("crc32", 78)
    assert [s.path for s in crc.leaves()][-1] == "body.immediate_server_version"


# -- every generated format: inspect runs and accounts for every byte ---------------------


def _sample_messages():
    out = [
        ("plainbuffer", "message", SEED),
        ("mysql_serialization", "gtid_tagged_event", MYSQL_EVENT),
    ]
    out.append(("thrift_compact", "Address", bytes.fromhex("1803616263" "00")))  # street="abc"
    for path in sorted((ROOT / "samples").glob("*/*.bin")):
        out.append((path.parent.name, None, path.read_bytes()))
    return out


@pytest.mark.parametrize("fmt,record,data", _sample_messages(), ids=lambda v: str(v)[:24])
def test_every_sample_is_accounted_for(fmt, record, data):
    codec = pytest.importorskip(f"generated.{fmt}")
    record = record or codec.DEFAULT_RECORD
    result = insp.trace(codec, data, record)
    assert result.error is None
    leaves = result.leaves()
    assert leaves[0].start == 0 and leaves[-1].end == len(data)
    for a, b in itertools.pairwise(leaves):
        assert a.end == b.start, (a, b)
    coarse = insp.coarse_paths(result)
    text = insp.plain_text(result, fmt=fmt, record=record)
    for path in coarse:  # said out loud, not hidden
        assert f"note: {path or '<message>'} is read by a runtime primitive" in text
    if fmt in ("plainbuffer", "mysql_serialization"):
        assert coarse == []


# -- TiCDC Craft: the fields of a message, reported by the checked decoder ------------------
# (the seed examples field by field: tests/test_craft_inspect.py)

# A resolved event (runtime/formats/craft.py's docstring): size tables [[13, 0], [0]], i.e. a 13-byte
# header, an empty body and an empty term dictionary, then the tables and their length 5.
CRAFT_RESOLVED = bytes.fromhex("018180e0bb9bb6def10503010101021a19010005")


def test_craft_regions():
    cr = pytest.importorskip("generated.ticdc_craft")
    result = insp.trace(cr, CRAFT_RESOLVED, "message")
    assert result.error is None
    assert cr.to_dict(result.model) == cr.to_dict(cr.parse(CRAFT_RESOLVED))
    got = [(s.path, s.start, s.end) for s in result.leaves()]
    assert got == [
        ("events.version", 0, 1),
        ("events.header.commit_ts[0]", 1, 10),
        ("events.header.type[0]", 10, 11),
        ("events.header.partition[0]", 11, 12),
        ("events.header.schema[0]", 12, 13),
        ("events.header.table[0]", 13, 14),
        ("events.size_tables[0]", 14, 15),
        ("events.size_tables[0][0]", 15, 16),
        ("events.size_tables[0][1]", 16, 17),
        ("events.size_tables[1]", 17, 18),
        ("events.size_tables[1][0]", 18, 19),
        ("events.size_tables_length", 19, 20),
    ]
    values = {s.path: s.value for s in result.leaves()}
    assert values["events.version"] == 1 and values["events.size_tables_length"] == 5
    assert values["events.header.commit_ts[0]"] == 424316594097225729
    assert [values[f"events.size_tables[0][{j}]"] for j in (0, 1)] == [13, 0]
