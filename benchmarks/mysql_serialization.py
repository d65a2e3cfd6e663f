"""Tagged GTID events per second (decode, encode) and msb varints per second, in one process.

    python benchmarks/mysql_serialization.py [--seconds 1.0]

No Python peer decodes GTID_TAGGED_LOG_EVENT, so the floor is decoding a plain dict of the
same fields from JSON (``json.loads``). Issue #8's target is >= 200k events/s decoded;
issue #17's, for the compiled tier (``generated/_compiled/mysql_serialization``, when built), 2M.
"""

from __future__ import annotations

import argparse
import json
import time

from generated import mysql_serialization as ms
from runtime.core import codec as rt_codec
from runtime.core.msbvarint import decode_uvar, encode_uvar

SEED_EVENT = bytes.fromhex(
    "b998b3672a0100000052000000f000000000000276000002022502dcf0090230f90322bd03ad0221"
    "0244445a685103220404060c666f6f62617a08000a040c7f1583222d5c2e0610490312c3020bef396cce"
)


def fast_path_parse(data: bytes, record: str = ms.DEFAULT_RECORD):
    """``ms.parse`` by the generated Python fast path alone (the compiled tier not tried)."""
    return rt_codec.parse_fast(ms.FAST_READERS[record], data, None, ms._LIMITS)


compiled_parse = ms.parse if ms.COMPILED_READERS else None
"""``ms.parse`` with the compiled tier tried first (None when it is not built)."""


def rate(fn, seconds: float) -> float:
    """Calls per second of ``fn`` over about ``seconds``."""
    n, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(200):
            fn()
        n += 200
    return n / elapsed


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    seconds = parser.parse_args(argv).seconds
    event = ms.parse(SEED_EVENT)
    # the body's fields as JSON (the uuid as its text), without the times shown beside them
    doc = json.dumps({k: v for k, v in ms.to_dict(event.body).items() if not k.endswith("_time")})
    varints = b"".join(encode_uvar(v) for v in (0, 1, 127, 128, 90200, 1739823289369365, 2**64 - 1))
    count = 7

    def decode_varints():
        pos = 0
        for _ in range(count):
            _, pos = decode_uvar(varints, pos)

    results = {}
    if compiled_parse is not None:
        results["decode events/s (compiled tier)"] = rate(lambda: ms.parse(SEED_EVENT), seconds)
    results |= {
        "decode events/s (fast path)": rate(lambda: fast_path_parse(SEED_EVENT), seconds),
        "decode events/s (construct path)": rate(lambda: ms.parse_construct(SEED_EVENT), seconds),
        # build: the event's fast writer and its body's (generator/emit/fastbuild_messages.py)
        "encode events/s (build)": rate(lambda: ms.build(event), seconds),
        "encode events/s (construct path)": rate(lambda: ms.build_construct(event), seconds),
        "json.loads of the same fields/s (floor)": rate(lambda: json.loads(doc), seconds),
        "varints decoded/s": rate(decode_varints, seconds) * count,
    }
    for name, value in results.items():
        print(f"{name:42} {value:12,.0f}")
    floor = results["json.loads of the same fields/s (floor)"]
    print(
        f"{'decode (fast path) / json floor':42} {results['decode events/s (fast path)'] / floor:12.3f}"
    )
    print(f"{'issue #8 target (decode)':42} {200_000:12,}")
    print(f"{'issue #17 target (decode, compiled)':42} {2_000_000:12,}")


if __name__ == "__main__":
    main()
