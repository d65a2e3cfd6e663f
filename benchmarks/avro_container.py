"""Avro container files: records per second decoded by wirespec and by fastavro (its C
reader and its pure-Python reader), records per second written by wirespec's ``build``
and by fastavro's writers (C and pure Python), and the block codecs by library, in one
process.

    python benchmarks/avro_container.py [--records 2000] [--runs 5]

The files are the gallery's PageView records (samples/make_samples.py), written by
fastavro with 100 records per block, one file per codec. Each (file, decoder) pass
decodes the file for about 0.2 s of CPU time (``time.process_time``); the runs are
interleaved and the median of ``--runs`` is reported. wirespec decodes the whole file to
its model (every record): ``parse`` (the compiled tier when it is built), the Python tiers
on their own (the quick tier, ``_quick_container_file``, then the exact fast path alone),
and ``parse_construct`` (the oracle); fastavro's readers iterate every record as a dict.

The build table writes the same records to a whole file (100 per block): wirespec from
a model made from values (``new model``: compressed afresh, as fastavro does), from the
parsed model (its kept compressed bytes checked and written back) and through construct
(the path every Avro build took before the fast writers knew blocks and ``process:``);
fastavro from the record dicts.

The codec table times one typical block (100 records, ~7 KiB decoded) decoded by
``runtime/core/process.py`` (bounded) and by the alternatives: cramjam's ``decompress_into``
for deflate, and the single-codec packages (python-snappy, lz4.frame, zstandard), which
decode without a bound.
"""

from __future__ import annotations

import argparse
import io
import statistics
import time

import cramjam

from generated import avro_container as av
from runtime.core import codec as rt_codec
from runtime.core import process
from samples.make_samples import avro_file, avro_page_views

CODECS = ("null", "deflate", "snappy")


def cpu_rate(fn, seconds: float = 0.2) -> float:
    """Calls per CPU second of ``fn`` over about ``seconds``."""
    n, start = 0, time.process_time()
    while (elapsed := time.process_time() - start) < seconds or n == 0:
        fn()
        n += 1
    return n / elapsed


def decoders() -> dict:
    import fastavro

    record = "container_file"
    out = {
        "wirespec compiled tier": lambda data: av.parse(data),
        "wirespec quick tier": lambda data: rt_codec.parse_fast(
            av.FAST_READERS[record], data, quick=av.QUICK_READERS[record]
        ),
        "wirespec fast path": lambda data: rt_codec.parse_fast(av.FAST_READERS[record], data),
        "wirespec construct path": lambda data: av.parse_construct(data),
        "fastavro C": lambda data: sum(1 for _ in fastavro.reader(io.BytesIO(data))),
    }
    try:
        from fastavro._read_py import reader as py_reader
    except ImportError:  # pragma: no cover - fastavro always ships it today
        return out
    out["fastavro pure Python"] = lambda data: sum(1 for _ in py_reader(io.BytesIO(data)))
    return out


def decode_table(n_records: int, runs: int) -> list[str]:
    records = avro_page_views(n_records)
    files = {codec: avro_file(records, codec, 100) for codec in CODECS}
    peers = decoders()
    if not av.COMPILED_READERS:  # not built, or WIRESPEC_PURE_PYTHON=1
        del peers["wirespec compiled tier"]
    rates: dict = {(c, name): [] for c in CODECS for name in peers}
    for _ in range(runs):
        for codec, data in files.items():
            for name, fn in peers.items():
                rates[codec, name].append(cpu_rate(lambda fn=fn, data=data: fn(data)))
    lines = [
        "| codec | decoder | file bytes | records/s | wirespec's best tier over it |",
        "|---|---|---:|---:|---:|",
    ]
    for codec, data in files.items():
        ours = statistics.median(rates[codec, next(iter(peers))])
        for name in peers:
            files_per_s = statistics.median(rates[codec, name])
            lines.append(
                f"| {codec} | {name} | {len(data):,} | {files_per_s * n_records:,.0f} "
                f"| {ours / files_per_s:.2f}x |"
            )
    return lines


def new_model(data: bytes):
    """The model of ``data`` as a program makes it from values: no kept wire bytes or
    block splits, so build compresses afresh and writes one block per list."""
    model = av.parse(data)
    model.meta_blocks = None
    for block in model.blocks:
        block.records_wire = None
        for view in block.records.objects:
            view.tags_blocks = view.counters_blocks = None
    return model


def encoders(records: list[dict], codec: str) -> dict:
    """Whole-file writers of the same records: ours from a model, fastavro's from dicts."""
    from fastavro import parse_schema
    from fastavro._write_py import Writer as PyWriter
    from fastavro.write import Writer

    from samples.make_samples import AVRO_PAGE_VIEW_SCHEMA, AVRO_SYNC

    schema = parse_schema(AVRO_PAGE_VIEW_SCHEMA)
    data = avro_file(records, codec, 100)
    parsed, fresh = av.parse(data), new_model(data)

    def fastavro_writer(writer_class):
        def write():
            out = io.BytesIO()
            writer = writer_class(out, schema, codec=codec, sync_marker=AVRO_SYNC)
            for i, record in enumerate(records, 1):
                writer.write(record)
                if i % 100 == 0:
                    writer.flush()
            writer.flush()
            return out.getvalue()

        return write

    return {
        "wirespec build, new model": lambda: av.build(fresh),
        "wirespec build, parsed model (kept bytes)": lambda: av.build(parsed),
        "wirespec construct path, new model": lambda: av.build_construct(fresh),
        "fastavro C writer": fastavro_writer(Writer),
        "fastavro pure-Python writer": fastavro_writer(PyWriter),
    }


def encode_table(n_records: int, runs: int) -> list[str]:
    """Records per CPU second written to a whole file, by codec and writer."""
    records = avro_page_views(n_records)
    peers = {codec: encoders(records, codec) for codec in CODECS}
    rates: dict = {(c, name): [] for c in CODECS for name in peers[c]}
    for _ in range(runs):
        for codec, writers in peers.items():
            for name, fn in writers.items():
                rates[codec, name].append(cpu_rate(fn))
    lines = [
        "| codec | writer | records/s | wirespec new-model speed-up over it |",
        "|---|---|---:|---:|",
    ]
    for codec, writers in peers.items():
        ours = statistics.median(rates[codec, "wirespec build, new model"])
        for name in writers:
            per_s = statistics.median(rates[codec, name])
            lines.append(f"| {codec} | {name} | {per_s * n_records:,.0f} | {ours / per_s:.2f}x |")
    return lines


def codec_table(runs: int) -> list[str]:
    import lz4.frame
    import snappy
    import zstandard

    block = avro_file(avro_page_views(100), "null", 100)
    plain = block[block.index(b"\x00", 300) :]  # any ~7 KiB of record bytes will do
    limit = 64 << 20
    raw_deflate = process.encoder("deflate")(plain)
    snappy_raw = bytes(cramjam.snappy.compress_raw(plain))
    lz4_frame = lz4.frame.compress(plain)
    zstd = zstandard.ZstdCompressor().compress(plain)
    zstd_reader = zstandard.ZstdDecompressor()

    def ours(codec, data):
        return lambda: process.decode(codec, data, limit)

    cases = {
        ("deflate", "wirespec: Python zlib, max_length"): ours("deflate", raw_deflate),
        ("deflate", "cramjam, bounded buffer"): lambda: cramjam.deflate.decompress_into(
            raw_deflate, bytearray(8 * len(raw_deflate))
        ),
        ("snappy", "wirespec: cramjam, declared size"): ours("snappy", snappy_raw),
        ("snappy", "python-snappy (unbounded)"): lambda: snappy.decompress(snappy_raw),
        ("lz4 frame", "wirespec: cramjam, bounded buffer"): ours("lz4_frame", lz4_frame),
        ("lz4 frame", "lz4.frame (unbounded)"): lambda: lz4.frame.decompress(lz4_frame),
        ("zstd", "wirespec: zstandard, bounded"): ours("zstd", zstd),
        ("zstd", "cramjam, bounded buffer"): lambda: cramjam.zstd.decompress_into(
            zstd, bytearray(8 * len(zstd))
        ),
        ("zstd", "zstandard (unbounded)"): lambda: zstd_reader.decompress(zstd),
    }
    rates: dict = {key: [] for key in cases}
    for _ in range(runs):
        for key, fn in cases.items():
            rates[key].append(cpu_rate(fn, 0.1))
    lines = [
        f"| codec | library | decoded MB/s ({len(plain):,} B block) |",
        "|---|---|---:|",
    ]
    for (codec, library), found in rates.items():
        lines.append(
            f"| {codec} | {library} | {statistics.median(found) * len(plain) / 1e6:,.0f} |"
        )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    print("\n".join(decode_table(args.records, args.runs)))
    print()
    print("\n".join(encode_table(args.records, args.runs)))
    print()
    print("\n".join(codec_table(args.runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
