"""Instructions of the float32 and protobuf paths that byte exactness touched, by cachegrind.

    python -m benchmarks.exact_instructions [--n 200] [--base DIR] [--only a,b]

Each case runs in a child process under cachegrind (``benchmarks.instructions.instructions_of``,
``PYTHONHASHSEED=0``) ``n`` times and none, in the compiled tier and with
``WIRESPEC_PURE_PYTHON=1``; the table gives (n less none) / n. ``--base DIR``: a checkout of
another commit (its extensions built) measured beside this one: this script, run with
``PYTHONPATH=DIR``, imports that tree's ``generated`` and ``runtime``.

* ``msgpack-f32-parse`` / ``-build``: a MessagePack array16 of 64 float32 numbers (no NaN:
  the common path, which pays one comparison per number), parsed / its model built;
* ``msgpack-f32-nan-parse``: the same array of 64 signalling NaNs (the re-read path);
* ``protobuf-parse`` / ``-build``: samples/protobuf_wire/order_card.bin (the compiled
  reader's model is lazy: the parse is its whole-message check), parsed / its model built
  (every field read first, so the build writes values, not the pending input).
* ``protobuf-kept-parse`` / ``-build``: order_card.bin with its first key written in two
  bytes (a form upb reads and never writes: the record is kept as its bytes in
  ``wire_layout``), parsed / its model built (the kept record re-read and compared);
  ``protobuf-forced-parse`` / ``protobuf-kept-forced-parse``: either input parsed and every
  field of its (lazy) model read, so the compiled tier's parse builds the model;
  ``protobuf-layout-build``: that model with its kept entry a plain field number (the same
  layout walk, no kept record: what the kept record's check costs is the difference);
* ``thrift-parse`` / ``-build``: samples/thrift_compact/get_user_reply.bin with its body
  read as ``get_user_result`` (a struct with nested structs, lists, a set and a map),
  parsed / its model built; ``thrift-kept-parse`` / ``-build``: the same with the body's
  stop byte written ``f0`` (Apache's readers take it: the struct keeps its bytes);
* ``avro-parse`` / ``-build``, ``kafka-parse`` / ``-build``: the seeds
  samples/avro_container/page_views_null.bin and
  samples/kafka_record_batch/segment_00000000000000000000.bin, parsed / their model built
  (the kept varints of runtime/core/kept.py: shortest ones, what their writers write).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib
import struct
import sys
from pathlib import Path

from benchmarks.instructions import instructions_of

ROOT = Path(__file__).resolve().parent.parent


def _f32_array(bits) -> bytes:
    return b"\xdc\x00\x40" + b"".join(b"\xca" + struct.pack(">I", bits(i)) for i in range(64))


INPUTS = {
    "numbers": lambda: _f32_array(lambda i: struct.unpack(">I", struct.pack(">f", i * 1.25))[0]),
    "nans": lambda: _f32_array(lambda i: 0x7F800000 | (i + 1)),
    "order": lambda: (ROOT / "samples" / "protobuf_wire" / "order_card.bin").read_bytes(),
    "order-kept": lambda: _longer_first_key(INPUTS["order"]()),
    "thrift": lambda: (ROOT / "samples" / "thrift_compact" / "get_user_reply.bin").read_bytes(),
    "thrift-kept": lambda: INPUTS["thrift"]()[:-1] + b"\xf0",
    "avro": lambda: (ROOT / "samples" / "avro_container" / "page_views_null.bin").read_bytes(),
    "kafka": lambda: (
        ROOT / "samples" / "kafka_record_batch" / "segment_00000000000000000000.bin"
    ).read_bytes(),
}


def _longer_first_key(data: bytes) -> bytes:
    """``data`` with its first one-byte key written in two bytes (``8a 00`` for ``0a``)."""
    return bytes((data[0] | 0x80, 0)) + data[1:]


def _forced(model):
    """Every field of a (lazy) protobuf model read."""
    for field in dataclasses.fields(model):
        getattr(model, field.name)
    return model


def _forced_parse(module, data):
    return _forced(module.parse(data))


def _layout_only(module, data):
    """The kept model of ``order-kept`` with its first layout entry, the kept record of
    field 1, a plain ``1``: the same walk, no kept bytes to check."""
    model = _forced_parse(module, data)
    model.wire_layout = (1, *model.wire_layout[1:])
    return model


def _thrift_parse(module, data):
    return module.parse(data, body="get_user_result")


CASES = {
    # case: (module, input, setup (module, data) -> the operand, the measured step)
    "msgpack-f32-parse": ("msgpack", "numbers", lambda m, d: d, lambda m, x: m.parse(x)),
    "msgpack-f32-build": ("msgpack", "numbers", lambda m, d: m.parse(d), lambda m, x: m.build(x)),
    "msgpack-f32-nan-parse": ("msgpack", "nans", lambda m, d: d, lambda m, x: m.parse(x)),
    "protobuf-parse": ("protobuf_wire", "order", lambda m, d: d, lambda m, x: m.parse(x)),
    "protobuf-build": ("protobuf_wire", "order", _forced_parse, lambda m, x: m.build(x)),
    "protobuf-kept-parse": ("protobuf_wire", "order-kept", lambda m, d: d, lambda m, x: m.parse(x)),
    "protobuf-forced-parse": ("protobuf_wire", "order", lambda m, d: d, _forced_parse),
    "protobuf-kept-forced-parse": ("protobuf_wire", "order-kept", lambda m, d: d, _forced_parse),
    "protobuf-kept-build": ("protobuf_wire", "order-kept", _forced_parse, lambda m, x: m.build(x)),
    "protobuf-layout-build": ("protobuf_wire", "order-kept", _layout_only, lambda m, x: m.build(x)),
    "thrift-parse": ("thrift_compact", "thrift", lambda m, d: d, _thrift_parse),
    "thrift-build": ("thrift_compact", "thrift", _thrift_parse, lambda m, x: m.build(x)),
    "thrift-kept-parse": ("thrift_compact", "thrift-kept", lambda m, d: d, _thrift_parse),
    "thrift-kept-build": ("thrift_compact", "thrift-kept", _thrift_parse, lambda m, x: m.build(x)),
    "avro-parse": ("avro_container", "avro", lambda m, d: d, lambda m, x: m.parse(x)),
    "avro-build": ("avro_container", "avro", lambda m, d: m.parse(d), lambda m, x: m.build(x)),
    "kafka-parse": ("kafka_record_batch", "kafka", lambda m, d: d, lambda m, x: m.parse(x)),
    "kafka-build": (
        "kafka_record_batch",
        "kafka",
        lambda m, d: m.parse(d),
        lambda m, x: m.build(x),
    ),
}


def _run(case: str, n: int) -> None:
    name, data, setup, step = CASES[case]
    module = importlib.import_module(f"generated.{name}")
    operand = setup(module, INPUTS[data]())
    gc.collect()
    gc.freeze()
    for _ in range(n):
        step(module, operand)


def _per(case: str, pure: bool, n: int, cwd: Path) -> float:
    env = {"WIRESPEC_PURE_PYTHON": "1"} if pure else {}
    env["PYTHONPATH"] = str(cwd)
    args = [str(Path(__file__).resolve()), "--run", case]  # generated/ from cwd's tree
    runs = [instructions_of([*args, str(k)], env, cwd=cwd) for k in (n, 0)]
    return (runs[0] - runs[1]) / n


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--base", type=Path, help="another checkout, measured beside this one")
    parser.add_argument("--only", help="these cases, comma-separated")
    parser.add_argument("--run", nargs=2, metavar=("CASE", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:
        _run(args.run[0], int(args.run[1]))
        return 0
    trees = [("this", ROOT)] + ([("base", args.base.resolve())] if args.base else [])
    head = " | ".join(f"{label} {tier}" for label, _ in trees for tier in ("compiled", "pure"))
    print(f"| case | {head} |")
    print("|---|" + "---:|" * (2 * len(trees)))
    for case in args.only.split(",") if args.only else CASES:
        cells = [f"{_per(case, pure, args.n, tree):,.0f}" for _, tree in trees for pure in (0, 1)]
        print(f"| {case} | {' | '.join(cells)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
