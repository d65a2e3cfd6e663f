#!/usr/bin/env python3
"""Capture the ``samples/pgoutput/`` messages from a throwaway PostgreSQL cluster.

    python -m samples.pgoutput_capture [--bin-dir DIR] [--keep]

Makes a cluster in a fresh temporary folder (``wal_level=logical``, a free port, its unix
socket in that folder, no TCP), runs the changes of :data:`SCENARIO` and reads what the
``pgoutput`` plugin writes for them with ``pg_logical_slot_peek_binary_changes``: once in
protocol version 1 (text column values), once with ``binary 'true'`` (binary column
values), once in protocol version 2 with ``streaming 'on'`` for a transaction larger
than ``logical_decoding_work_mem`` (stream start/stop/commit and the changes inside a
stream, each after the transaction id), and once in protocol version 3 from a slot made
with two_phase (:data:`TWO_PHASE`: Begin Prepare, Prepare, Rollback Prepared, Stream
Prepare, Commit Prepared). Each message becomes
``samples/pgoutput/<NNN>_<run>_<kind>.bin`` (the messages inside a stream block go to
``samples/_pgoutput/streamed/``, the ``streamed_message`` record) and
``samples/_pgoutput/expected.json`` lists
what the SQL inserted, which the tests compare with. Run as root, the cluster runs as the
``postgres`` user. Nothing else reads PostgreSQL: the tests and ``scripts/run.sh`` only
read the files written here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent / "pgoutput"
META = OUT.parent / "_pgoutput"
"""How the samples were made and what the SQL inserted: beside ``samples/pgoutput/``, whose
files are all messages (``wirespec ingest`` and the tests read each as one), in a ``_``
folder that ``samples.decode_all`` and ``wirespec ingest all`` leave alone."""
STREAMED_OUT = META / "streamed"
"""The changes inside stream blocks (record ``streamed_message``)."""
FRAMES_OUT = META / "walsender"
"""CopyData payloads of a walsender (record ``replication_frame``)."""
SLOT = "wirespec_slot"

SCHEMA = """
CREATE TYPE mood AS ENUM ('calm', 'busy');
CREATE TABLE orders (
    id integer PRIMARY KEY,
    customer text NOT NULL,
    amount numeric(10, 2),
    placed_at timestamptz,
    state mood,
    payload bytea,
    notes text
);
ALTER TABLE orders ALTER COLUMN notes SET STORAGE EXTERNAL;
CREATE TABLE audit (id bigint, actor text, detail jsonb) ;
ALTER TABLE audit REPLICA IDENTITY FULL;
CREATE TABLE stock (sku text PRIMARY KEY, qty integer NOT NULL);
CREATE PUBLICATION pub FOR ALL TABLES;
SELECT pg_replication_origin_create('upstream_eu');
"""

LONG_NOTE = "".join(f"note line {i:05d} / " for i in range(400))  # > 2 kB: stored out of line
"""A value TOASTed out of line (``STORAGE EXTERNAL``: not compressed), so an update that
leaves it alone sends it as 'u', unchanged TOAST."""

SCENARIO = [
    (
        "INSERT INTO orders VALUES (1001, 'Ada Lovelace', 42.50, "
        f"'2024-11-22 10:15:00.123456+00', 'calm', '\\xdeadbeef', '{LONG_NOTE}')"
    ),
    (
        "INSERT INTO orders VALUES (1002, 'Grace Hopper', NULL, '2024-11-22 11:00:00+00', "
        "'busy', NULL, 'short note')"
    ),
    (
        "BEGIN; UPDATE orders SET amount = 43.00 WHERE id = 1001; "
        "UPDATE orders SET id = 1003 WHERE id = 1002; COMMIT"
    ),
    "INSERT INTO audit VALUES (7, 'ops', '{\"step\": 1, \"ok\": true}')",
    "UPDATE audit SET actor = 'admin' WHERE id = 7",
    "DELETE FROM audit WHERE id = 7",
    "DELETE FROM orders WHERE id = 1003",
    (
        "BEGIN; INSERT INTO stock VALUES ('sku-1', 5), ('sku-2', 0); "
        "SELECT pg_logical_emit_message(true, 'wirespec', 'inside the transaction'); COMMIT"
    ),
    "SELECT pg_logical_emit_message(false, 'heartbeat', '\\x00ff'::bytea)",
    "TRUNCATE stock, audit RESTART IDENTITY CASCADE",
    (
        "SELECT pg_replication_origin_session_setup('upstream_eu'); BEGIN; "
        "SELECT pg_replication_origin_xact_setup('0/5A5A5A5', '2024-11-22 12:00:00+00'); "
        "INSERT INTO stock VALUES ('sku-9', 9); COMMIT; "
        "SELECT pg_replication_origin_session_reset()"
    ),
]

STREAMED = (
    "INSERT INTO stock SELECT 'bulk-' || g, g FROM generate_series(1, 2000) g",
    "DELETE FROM stock WHERE sku LIKE 'bulk-%'",
)
"""A transaction larger than ``logical_decoding_work_mem`` (64 kB), streamed in protocol 2."""

ABORTED_SUBTRANSACTION = (
    "BEGIN; INSERT INTO stock SELECT 'kept-' || g, g FROM generate_series(1, 2000) g; "
    "SAVEPOINT undone; INSERT INTO stock SELECT 'undone-' || g, g FROM generate_series(1, 2000) g; "
    "ROLLBACK TO SAVEPOINT undone; INSERT INTO stock VALUES ('kept-last', 0); COMMIT"
)
"""A streamed transaction whose subtransaction, streamed too, is rolled back: protocol 2's
Stream Abort (the xid and the subtransaction's), then the transaction's Stream Commit."""

TWO_PHASE_SLOT = "wirespec_two_phase"
TWO_PHASE = (
    "BEGIN; INSERT INTO stock VALUES ('sku-p', 1); PREPARE TRANSACTION 'wirespec_small'",
    "ROLLBACK PREPARED 'wirespec_small'",
    (
        "BEGIN; INSERT INTO stock SELECT 'prep-' || g, g FROM generate_series(1, 2000) g; "
        "PREPARE TRANSACTION 'wirespec_big'"
    ),
    "COMMIT PREPARED 'wirespec_big'",
)
"""Two-phase commit in protocol 3 (a slot made with two_phase): a small prepared
transaction rolled back (Begin Prepare, Prepare, Rollback Prepared) and a streamed one
prepared then committed (Stream Prepare, Commit Prepared)."""

EXPECTED = {
    "orders_1001": {
        "id": "1001",
        "customer": "Ada Lovelace",
        "amount": "42.50",
        "placed_at": "2024-11-22 10:15:00.123456+00",
        "state": "calm",
        "payload": "\\xdeadbeef",
        "notes": LONG_NOTE,
    },
    "orders_1002": {
        "id": "1002",
        "customer": "Grace Hopper",
        "amount": None,
        "placed_at": "2024-11-22 11:00:00+00",
        "state": "busy",
        "payload": None,
        "notes": "short note",
    },
    "message_transactional": {"prefix": "wirespec", "content": "inside the transaction"},
    "message_heartbeat": {"prefix": "heartbeat", "content_hex": "00ff"},
    "origin": {"name": "upstream_eu", "lsn": 0x5A5A5A5},
    "origin_commit_time": "2024-11-22T12:00:00Z",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A throwaway cluster in ``root``, run as the ``postgres`` user when we are root."""

    def __init__(self, root: Path, bin_dir: str):
        self.root, self.bin = root, Path(bin_dir)
        self.data, self.port = root / "data", free_port()
        self.user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def run(self, *cmd, **kw):
        return subprocess.run([*self.user, *map(str, cmd)], check=True, **kw)

    def start(self):
        if self.user:
            shutil.chown(self.root, "postgres")
        self.run(
            self.bin / "initdb",
            "-D",
            self.data,
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C",
            "-A",
            "trust",
            capture_output=True,
        )
        options = (
            f"-c wal_level=logical -c port={self.port} -c listen_addresses='' "
            f"-c unix_socket_directories={self.root} -c logical_decoding_work_mem=64kB "
            "-c max_replication_slots=4 -c max_prepared_transactions=4 -c timezone=UTC"
        )
        self.run(
            self.bin / "pg_ctl",
            "-D",
            self.data,
            "-o",
            options,
            "-w",
            "-l",
            self.root / "log",
            "start",
            capture_output=True,
        )

    def stop(self):
        self.run(
            self.bin / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop", capture_output=True
        )

    def sql(self, text: str) -> str:
        out = self.run(
            "psql",
            "-h",
            self.root,
            "-p",
            self.port,
            "-U",
            "postgres",
            "-X",
            "-q",
            "-At",
            "-v",
            "ON_ERROR_STOP=1",
            "-d",
            "postgres",
            "-c",
            text,
            capture_output=True,
            text=True,
        )
        return out.stdout

    def peek(self, *options: str, slot: str = SLOT) -> list[tuple[str, bytes]]:
        quoted = ", ".join(f"'{o}'" for o in options)
        rows = self.sql(
            "SELECT lsn, encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes("
            f"'{slot}', NULL, NULL, {quoted})"
        )
        return [
            (lsn, bytes.fromhex(hexed))
            for lsn, hexed in (line.split("|") for line in rows.splitlines())
        ]


KINDS = {
    "B": "begin",
    "C": "commit",
    "O": "origin",
    "R": "relation",
    "Y": "type",
    "I": "insert",
    "U": "update",
    "D": "delete",
    "T": "truncate",
    "M": "message",
    "S": "stream_start",
    "E": "stream_stop",
    "c": "stream_commit",
    "A": "stream_abort",
    "b": "begin_prepare",
    "P": "prepare",
    "K": "commit_prepared",
    "r": "rollback_prepared",
    "p": "stream_prepare",
}


def write(messages, tag: str, start: int, streamed_kinds=False) -> int:
    """Write ``messages`` as numbered files; inside a stream block (protocol 2) a change
    carries its transaction id and goes to :data:`STREAMED_OUT`."""
    in_stream = False
    for number, (_lsn, data) in enumerate(messages, start):
        kind = KINDS[chr(data[0])]
        if kind == "stream_start":
            in_stream = True
        streamed = streamed_kinds and in_stream and kind not in ("stream_start", "stream_stop")
        folder = STREAMED_OUT if streamed else OUT
        (folder / f"{number:03d}_{tag}_{kind}.bin").write_bytes(data)
        if kind == "stream_stop":
            in_stream = False
    return start + len(messages)


def stream_excerpt(messages, changes_per_block=2):
    """The first and the last stream block of a streamed run, each with its first few
    changes, and what follows the blocks (the stream commit), in their order."""
    blocks, current = [], None
    tail = []
    for message in messages:
        kind = chr(message[1][0])
        if kind == "S":
            current = [message]
            blocks.append(current)
        elif current is not None:
            changes = sum(1 for m in current if chr(m[1][0]) in "IUDT")
            if kind not in "IUDT" or changes < changes_per_block:
                current.append(message)
            if kind == "E":
                current = None
        else:
            tail.append(message)
    chosen = blocks[:1] + blocks[-1:] if len(blocks) > 1 else blocks
    return [m for block in chosen for m in block] + tail


FRAMES_SLOT = "wirespec_frames"
FRAMED = "INSERT INTO stock VALUES ('sku-w', 12)"
"""A transaction read through a walsender, whose frames go to :data:`FRAMES_OUT`."""


def _packet(kind: bytes, body: bytes) -> bytes:
    return kind + struct.pack(">i", len(body) + 4) + body


def walsender_frames(cluster: Cluster, slot: str, wanted: int = 12) -> list[bytes]:
    """The first CopyData payloads a walsender sends for ``START_REPLICATION SLOT slot
    LOGICAL`` over the unix socket (the frontend/backend protocol by hand, trust
    authentication): primary keepalives ('k') and XLogData ('w') frames, up to the one
    holding the first transaction's Commit."""
    path = cluster.root / f".s.PGSQL.{cluster.port}"
    params = b"user\0postgres\0database\0postgres\0replication\0database\0\0"
    query = (
        f"START_REPLICATION SLOT {slot} LOGICAL 0/0 "
        "(proto_version '1', publication_names 'pub', messages 'true')"
    )
    frames: list[bytes] = []
    with socket.socket(socket.AF_UNIX) as conn:
        conn.settimeout(20)
        conn.connect(str(path))
        conn.sendall(struct.pack(">ii", len(params) + 8, 196608) + params)
        reader = conn.makefile("rb")

        def receive() -> tuple[bytes, bytes]:
            kind = reader.read(1)
            (length,) = struct.unpack(">i", reader.read(4))
            return kind, reader.read(length - 4)

        while (kind := receive()[0]) != b"Z":  # authentication ok, parameters, ready
            if kind == b"E":
                raise SystemExit("the walsender refused the connection")
        conn.sendall(_packet(b"Q", query.encode() + b"\0"))
        while len(frames) < wanted:
            kind, body = receive()
            if kind == b"E":
                raise SystemExit(f"START_REPLICATION failed: {body!r}")
            if kind == b"d":
                frames.append(body)
                if body[:1] == b"w" and body[25:26] == b"C":  # the transaction's Commit
                    break
        conn.sendall(_packet(b"X", b""))
    return frames


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--bin-dir", help="PostgreSQL's bin folder (default: the one of pg_ctl on PATH)"
    )
    parser.add_argument("--keep", action="store_true", help="leave the cluster's folder")
    args = parser.parse_args(argv)
    pg_ctl = shutil.which("pg_ctl")
    if args.bin_dir is None and pg_ctl is None:
        raise SystemExit("no pg_ctl on PATH: give --bin-dir")
    bin_dir = args.bin_dir or str(Path(pg_ctl).resolve().parent)
    root = Path(tempfile.mkdtemp(prefix="wirespec-pg-"))
    cluster = Cluster(root, bin_dir)
    cluster.start()
    try:
        cluster.sql(SCHEMA)
        cluster.sql(f"SELECT pg_create_logical_replication_slot('{SLOT}', 'pgoutput')")
        for statement in SCENARIO:
            cluster.sql(statement)
        common = ("publication_names", "pub", "messages", "true")
        text = cluster.peek("proto_version", "1", *common)
        binary = cluster.peek("proto_version", "1", "binary", "true", *common)
        cluster.sql(f"SELECT pg_replication_slot_advance('{SLOT}', pg_current_wal_lsn())")
        cluster.sql("BEGIN; " + "; ".join(STREAMED) + "; COMMIT")
        streamed = cluster.peek("proto_version", "2", "streaming", "on", *common)
        cluster.sql(f"SELECT pg_replication_slot_advance('{SLOT}', pg_current_wal_lsn())")
        cluster.sql(ABORTED_SUBTRANSACTION)
        aborted = cluster.peek("proto_version", "2", "streaming", "on", *common)
        cluster.sql(
            f"SELECT pg_create_logical_replication_slot('{TWO_PHASE_SLOT}', 'pgoutput', false, true)"
        )
        for statement in TWO_PHASE:
            cluster.sql(statement)
        two_phase = cluster.peek(
            "proto_version", "3", "streaming", "on", "two_phase", "on", *common, slot=TWO_PHASE_SLOT
        )
        cluster.sql(f"SELECT pg_create_logical_replication_slot('{FRAMES_SLOT}', 'pgoutput')")
        cluster.sql(FRAMED)
        frames = walsender_frames(cluster, FRAMES_SLOT)
        version = cluster.sql("SHOW server_version").strip()
    finally:
        cluster.stop()
        if not args.keep:
            shutil.rmtree(root)
    for folder in (OUT, STREAMED_OUT, FRAMES_OUT, META):
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.bin"):
            old.unlink()
    kept = stream_excerpt(streamed)
    number = write(text, "text", 0)
    number = write([m for m in binary if chr(m[1][0]) in "IU"], "binary", number)
    number = write(kept, "v2", number, streamed_kinds=True)
    number = write(stream_excerpt(aborted), "v2abort", number, streamed_kinds=True)
    number = write(stream_excerpt(two_phase), "v3", number, streamed_kinds=True)
    for at, frame in enumerate(frames, number):
        kind = "xlog_data" if frame[:1] == b"w" else "keepalive"
        (FRAMES_OUT / f"{at:03d}_walsender_{kind}.bin").write_bytes(frame)
    expected = dict(EXPECTED, server_version=version)
    (META / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(
        f"wrote {number} messages to {OUT} and {len(frames)} walsender frames "
        f"(PostgreSQL {version}, "
        f"{len(streamed)} in the streamed run)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
